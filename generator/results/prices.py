"""Which rental prices count as current, and the cheapest card-month among them.

A price is *current* when it is at most ``rules.prices.fresh_days`` older than the build date
(an input: SOURCE_DATE_EPOCH or the commit date of data/, never the clock) and no newer price of the same
product ``replaces`` it (:meth:`Catalogue.is_current`), the same test the pages use to
show a price as history. The prices that stand for today's market here are the current
ones in a billing tier that may price a recommendation (``rules.prices.pick_billing``: a
spot price that can be taken back is not a rent anyone can plan on), in yuan through
:class:`generator.engine.cost.Pricing`.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Offer
from generator.engine import cost as costs


def is_current(cat: Catalogue, offer: Offer) -> bool:
    """Whether ``offer`` is recent enough to stand for today's market in this edition."""
    return cat.is_current(offer)


def current_offers(cat: Catalogue, gpu_id: str) -> list[Offer]:
    """The GPU's current offers in a billing tier that may price a recommendation."""
    return [o for o in cat.pickable_offers if o.gpu == gpu_id]


@dataclass(frozen=True)
class CardMonth:
    """The lowest price of one card for a month, and the offer it comes from."""

    cny: float
    offer: Offer


#: A price's basis for like-with-like comparisons: its billing tier and its form, with cloud VMs and
#: containers counted alike (both are instances billed on their own; bare metal is a whole machine).
Basis = tuple[Billing, str]

#: Comparison bases in order of preference when two cards share several.
BASES: tuple[Basis, ...] = (
    (Billing.on_demand, "instance"),
    (Billing.monthly, "instance"),
    (Billing.monthly, "bare_metal"),
    (Billing.daily, "instance"),
    (Billing.on_demand, "bare_metal"),
    (Billing.daily, "bare_metal"),
    (Billing.monthly, "unspecified"),
    (Billing.on_demand, "unspecified"),
    (Billing.daily, "unspecified"),
)


def basis_of(offer: Offer) -> Basis:
    """The offer's billing tier and form family (container and VM alike)."""
    form = {Delivery.container: "instance", Delivery.vm: "instance"}.get(offer.delivery, offer.delivery.value)
    return (offer.billing, form)


def cheapest_by_basis(cat: Catalogue, gpu_id: str) -> dict[Basis, CardMonth]:
    """The lowest current per-card-month price of a GPU for each basis it is sold on."""
    pricing = costs.pricing_of(cat)
    out: dict[Basis, CardMonth] = {}
    for o in sorted(current_offers(cat, gpu_id), key=lambda o: o.id):
        found = CardMonth(costs.card_month_cny(o, pricing, o.ends[0]), o)
        key = basis_of(o)
        if key not in out or round(found.cny, 6) < round(out[key].cny, 6):
            out[key] = found
    return out


def cheapest_card_month(cat: Catalogue, gpu_id: str, *, current_only: bool = True) -> CardMonth | None:
    """Lowest per-card-month price (low end of a range) of a GPU; ties go to the offer id."""
    offers = current_offers(cat, gpu_id) if current_only else cat.offers_for(gpu_id)
    pricing = costs.pricing_of(cat)
    priced = [CardMonth(costs.card_month_cny(o, pricing, o.ends[0]), o) for o in sorted(offers, key=lambda o: o.id)]
    return min(priced, key=lambda c: round(c.cny, 6), default=None)
