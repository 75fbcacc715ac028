"""Which rental prices count as current, and the cheapest card-month among them.

A price is *current* when it is at most ``rules.prices.fresh_days`` older than the newest
price in the data (the edition date, never today's date), the same test the pages use to
mark an old price. Prices are read only through :meth:`Catalogue.offers_for` and
:func:`generator.engine.cost.card_month_cny`, so a change to how offers are stored stays
in those two places.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import Offer
from generator.engine import cost as costs


def is_current(cat: Catalogue, offer: Offer) -> bool:
    """Whether ``offer`` is recent enough to stand for today's market in this edition."""
    return (cat.as_of - offer.as_of).days <= cat.rules.prices.fresh_days


def current_offers(cat: Catalogue, gpu_id: str) -> list[Offer]:
    return [o for o in cat.offers_for(gpu_id) if is_current(cat, o)]


@dataclass(frozen=True)
class CardMonth:
    """The lowest price of one card for a month, and the offer it comes from."""

    cny: float
    offer: Offer


def cheapest_card_month(cat: Catalogue, gpu_id: str, *, current_only: bool = True) -> CardMonth | None:
    """Lowest per-card-month price (low end of a range) of a GPU; ties go to the offer id."""
    offers = current_offers(cat, gpu_id) if current_only else cat.offers_for(gpu_id)
    priced = [
        CardMonth(costs.card_month_cny(o, cat.rules.cost, o.price_low_cny or o.price_cny), o)
        for o in sorted(offers, key=lambda o: o.id)
    ]
    return min(priced, key=lambda c: round(c.cny, 6), default=None)
