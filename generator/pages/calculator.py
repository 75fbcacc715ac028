"""Data for the interactive picker and cost calculator page.

The browser does only step 4 (pricing a month for the reader's own hours, disk and
traffic) and the ranking; steps 1–3 (memory, card count, delivery form) come
precomputed from the same engine as every other page, one entry per model page, and so
does the choice of offers each option may use (:func:`generator.engine.cost.matching_offers`
over the current offers in pickable billing tiers). Offers arrive in yuan per instance:
foreign prices converted with their dated rate, per-card prices times the cards, and
monthly or yearly prices as the rent of one month. The JavaScript in
``docs/javascripts/calculator.js`` mirrors :func:`generator.engine.cost.monthly_cost` and
:func:`generator.engine.cost.cheapest`; a browser test checks that both give the same yuan.
"""

from __future__ import annotations

from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, Offer, PriceUnit
from generator.engine import cost as costs
from generator.engine.recommend import links_cards
from generator.pages.names import DELIVERY_NAMES, WORKLOAD_NAMES
from generator.pages.render import price_label
from generator.results.evaluate import Results


def calculator_data(cat: Catalogue, results: Results) -> dict[str, Any]:
    """Everything calculator.js needs, as plain JSON values in a stable order."""
    rules = cat.rules
    pricing = costs.pricing_of(cat)
    loss = rules.delivery.container_virtualization_loss
    offers = cat.pickable_offers
    matching: dict[str, list[str]] = {}
    workloads = []
    for mp in results.models:
        options = []
        for o in mp.rec.options:
            if o.cards is None:
                continue
            if o.delivery is Delivery.bare_metal and not links_cards(o.gpu, o.cards):
                continue  # the delivery rule's premise fails: never a valid plan
            key = f"{o.gpu.id}|{o.delivery.value}|{o.cards}"
            if key not in matching:
                found, _ = costs.matching_offers(
                    offers, o.gpu.id, o.delivery, o.cards, rules.delivery.vm_whole_server_cards
                )
                matching[key] = [x.id for x in found]
            job = o.sizing.job_hours
            options.append(
                {
                    "gpu": o.gpu.id,
                    "cards": o.cards,
                    "delivery": o.delivery.value,
                    "per_card_gib": round(o.sizing.per_card_gib, 2),
                    "job_hours": round(job, 4) if job is not None else None,  # before virtualization loss
                }
            )
        workloads.append(
            {
                "id": mp.slug,
                "label": f"{mp.model.name} · {'生成图像' if mp.is_image else WORKLOAD_NAMES[mp.workload.value]}",
                "training": mp.workload.value != "inference",
                "job_tokens_b": mp.job_tokens_b,
                "options": options,
            }
        )
    return {
        "hours_per_month": rules.cost.hours_per_month,
        "disk_cny_per_gb_month": rules.cost.disk_cny_per_gb_month,
        "egress_cny_per_gb": rules.cost.egress_cny_per_gb,
        "public_ip_cny_month": rules.cost.public_ip_cny_month,
        "delivery_names": DELIVERY_NAMES,
        "gpus": {g.id: {"name": g.name, "domestic": g.domestic} for g in cat.gpus.values()},
        "offers": {o.id: _offer(cat, o, pricing, loss) for o in offers if any(o.id in m for m in matching.values())},
        "matching": matching,
        "workloads": workloads,
    }


def _offer(cat: Catalogue, o: Offer, pricing: costs.Pricing, loss: float) -> dict[str, Any]:
    """One offer as calculator.js prices it: yuan per instance per billing block."""
    fixed = o.unit in (PriceUnit.month, PriceUnit.year)
    instance = costs.instance_price_cny(o, pricing)
    return {
        "id": o.id,
        "gpu": o.gpu,
        "delivery": o.delivery.value,
        "cards": o.cards,
        # monthly and yearly offers: the rent of one month; hourly and daily: one billing block
        "price": instance / (12 if o.unit is PriceUnit.year else 1) if fixed else instance,
        "unit_hours": cat.rules.cost.hours_per_month if fixed else costs.hours_per_unit(o.unit, cat.rules.cost),
        "monthly": fixed,
        "keep": 1.0 if o.delivery is Delivery.bare_metal else 1 - loss,  # speed kept after virtualization
        "label": f"{cat.providers[o.provider].name} {price_label(o)}" + (f"（{o.cards} 卡）" if o.cards > 1 else ""),
    }
