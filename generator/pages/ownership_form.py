"""Data for the rent-or-buy page's form (``docs/javascripts/ownership.js``).

The browser recomputes each row of the table for the reader's own hours, years, electricity
price, PUE, resale share and hosting price with the formulas of
:mod:`generator.results.ownership`; this module hands it the same inputs the Python side
used: each purchase price per card, the GPU's TDP, and the current offers of that GPU.
"""

from __future__ import annotations

from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.records import PriceUnit
from generator.engine.cost import hours_per_unit
from generator.results.ownership import OwnershipInputs, OwnershipRow
from generator.results.prices import current_offers


def ownership_form_data(cat: Catalogue, rows: list[OwnershipRow], inputs: OwnershipInputs | None) -> dict[str, Any]:
    """Plain JSON values in a stable order."""
    rules = cat.rules.cost
    return {
        "hours_per_month": rules.hours_per_month,
        "inputs": None if inputs is None else vars(inputs),
        "rows": [
            {
                "id": r.purchase.id,
                "price_per_card": r.price_per_card,
                "tdp_w": r.gpu.tdp_w,
                "offers": [
                    {
                        "id": o.id,
                        "price": o.price_mid_cny,
                        "cards": o.cards,
                        "unit_hours": hours_per_unit(o.unit, rules),
                        "monthly": o.unit is PriceUnit.month,
                    }
                    for o in sorted(current_offers(cat, r.gpu.id), key=lambda o: o.id)
                ],
            }
            for r in rows
        ],
    }
