"""Data for the rent-or-buy page's form (``docs/javascripts/ownership.js``).

The browser recomputes each row of the table for the reader's own hours, years, electricity
price, PUE, resale share and hosting price with the formulas of
:mod:`generator.results.ownership`; this module hands it the same inputs the Python side
used: each purchase price per card, the GPU's TDP, and the current offers of that GPU.
"""

from __future__ import annotations

from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.records import Offer, PriceUnit
from generator.engine import cost as costs
from generator.results.ownership import OwnershipInputs, OwnershipRow, buyer_offers


def ownership_form_data(cat: Catalogue, rows: list[OwnershipRow], inputs: OwnershipInputs | None) -> dict[str, Any]:
    """Plain JSON values in a stable order."""
    rules = cat.rules.cost
    pricing = costs.pricing_of(cat)
    return {
        "hours_per_month": rules.hours_per_month,
        "inputs": None if inputs is None else vars(inputs),
        "rows": [
            {
                "id": r.purchase.id,
                "price_per_card": r.price_per_card,
                "power_w": r.power_w,
                "offers": [
                    {
                        "id": o.id,
                        # yuan per instance and billing block (a month for monthly and yearly prices),
                        # as the calculator gets them: per-card and foreign prices already converted
                        "price": costs.instance_price_cny(o, pricing) / (12 if o.unit is PriceUnit.year else 1),
                        "cards": o.cards,
                        "unit_hours": rules.hours_per_month if fixed(o) else costs.hours_per_unit(o.unit, rules),
                        "monthly": fixed(o),
                    }
                    for o in sorted(buyer_offers(cat, r.gpu.id), key=lambda o: o.id)
                ],
            }
            for r in rows
        ],
    }


def fixed(offer: Offer) -> bool:
    """Monthly and yearly prices are paid whole, used or not."""
    return offer.unit in (PriceUnit.month, PriceUnit.year)
