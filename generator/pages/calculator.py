"""Data for the interactive picker and cost calculator page.

The browser does only step 4 (pricing a month for the reader's own hours, disk and
traffic) and the ranking; steps 1–3 (memory, card count, delivery form) come
precomputed from the same engine as every other page, one entry per model page. The
JavaScript in ``docs/javascripts/calculator.js`` mirrors :func:`generator.cost.monthly_cost`
and :func:`generator.cost.cheapest`; a browser test checks that both give the same yuan.
"""

from __future__ import annotations

from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery
from generator.engine.cost import hours_per_unit
from generator.engine.recommend import links_cards
from generator.pages.names import DELIVERY_NAMES, WORKLOAD_NAMES
from generator.pages.render import price_label
from generator.results.evaluate import Results


def calculator_data(cat: Catalogue, results: Results) -> dict[str, Any]:
    """Everything calculator.js needs, as plain JSON values in a stable order."""
    rules = cat.rules
    loss = rules.delivery.container_virtualization_loss
    workloads = []
    for mp in results.models:
        options = []
        for o in mp.rec.options:
            if o.cards is None:
                continue
            if o.delivery is Delivery.bare_metal and not links_cards(o.gpu, o.cards):
                continue  # the delivery rule's premise fails: never a valid plan
            keep = 1 - loss if o.delivery is Delivery.container else 1.0
            job = o.sizing.job_hours / keep if o.sizing.job_hours is not None else None
            options.append(
                {
                    "gpu": o.gpu.id,
                    "cards": o.cards,
                    "delivery": o.delivery.value,
                    "per_card_gib": round(o.sizing.per_card_gib, 2),
                    "job_hours": round(job, 4) if job is not None else None,
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
        "offers": [
            {
                "id": o.id,
                "gpu": o.gpu,
                "delivery": o.delivery.value,
                "cards": o.cards,
                "price": o.price_mid_cny,
                "unit_hours": hours_per_unit(o.unit, rules.cost),
                "monthly": o.unit.value == "month",
                "label": f"{o.provider} {price_label(o)}" + (f"（{o.cards} 卡整机）" if o.cards > 1 else ""),
            }
            for o in cat.offers
        ],
        "workloads": workloads,
    }
