"""The market as the offers show it: price spreads per GPU and delivery form, dated price
points per GPU, and what each provider offers.

Every figure is in yuan per card-month (``rules.cost.hours_per_month`` hours), converted
by :class:`generator.engine.cost.Pricing`. Spreads and the price points use only offers in
a billing tier that may price a recommendation (``rules.prices.pick_billing``): a spot price
that can be taken back, or a three-year contract, would make a spread no one can act on.
Spreads use current offers only; the price points include history.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Offer, Provider
from generator.engine import cost as costs


@dataclass(frozen=True)
class Spread:
    """Lowest, median and highest price per card-month of one GPU in one delivery form."""

    delivery: Delivery
    low: float  # the lowest price (a range counts with its low end)
    median: float  # median of the offers' prices (a range counts with its middle)
    high: float  # the highest price (a range counts with its high end)
    count: int  # offers


def spread(offers: list[Offer], delivery: Delivery, pricing: costs.Pricing) -> Spread | None:
    """The spread of ``offers`` (already one GPU's, current and pickable); None when there are none."""
    if not offers:
        return None
    low, high = costs.card_month_range(offers, pricing) or (0.0, 0.0)
    mids = [costs.card_month_cny(o, pricing) for o in offers]
    return Spread(delivery, low, statistics.median(mids), high, len(offers))


def gpu_spreads(cat: Catalogue, gpu_id: str, pricing: costs.Pricing) -> list[Spread]:
    """One spread per delivery form that has current pickable offers, in the enum's order."""
    mine = [o for o in cat.pickable_offers if o.gpu == gpu_id]
    out = []
    for d in Delivery:
        s = spread([o for o in mine if o.delivery is d], d, pricing)
        if s is not None:
            out.append(s)
    return out


def market_spreads(cat: Catalogue) -> dict[str, list[Spread]]:
    """GPU id -> its spreads (an empty list when it has no current pickable offer)."""
    pricing = costs.pricing_of(cat)
    return {g: gpu_spreads(cat, g, pricing) for g in cat.gpus}


@dataclass(frozen=True)
class PricePoint:
    """One dated price of a product, in yuan per card-month (a range counts with its low end)."""

    date: dt.date
    card_month: float
    offer: Offer


@dataclass(frozen=True)
class PriceSeries:
    """How one provider's price for one product moved: a chain of offers that ``replaces`` each
    other, oldest first, ending in the current one."""

    provider: str  # provider id
    points: list[PricePoint]

    @property
    def change(self) -> float:
        """Relative change from the first to the last point (0.1 = +10%)."""
        first, last = self.points[0].card_month, self.points[-1].card_month
        return (last - first) / first


def price_series(cat: Catalogue, gpu_id: str, pricing: costs.Pricing) -> list[PriceSeries]:
    """The price histories of one GPU: every chain of two or more offers linked by ``replaces`` whose
    newest offer is not replaced itself, in the order of their newest offers. The pages' price history."""
    mine = {o.id: o for o in cat.offers_for(gpu_id)}
    out = []
    for newest in mine.values():
        if newest.id in cat.replaced or newest.replaces is None:
            continue
        chain = [newest]
        while chain[-1].replaces is not None and chain[-1].replaces in mine:
            chain.append(mine[chain[-1].replaces])
        points = [PricePoint(o.as_of, costs.card_month_cny(o, pricing, o.ends[0]), o) for o in reversed(chain)]
        out.append(PriceSeries(newest.provider, points))
    return out


@dataclass(frozen=True)
class ProviderSummary:
    """What one provider offers in this edition."""

    provider: Provider
    current: list[Offer]
    history: list[Offer]

    @property
    def gpus(self) -> list[str]:
        """GPU ids of its current offers, in first-seen order."""
        return list(dict.fromkeys(o.gpu for o in self.current))

    @property
    def billing(self) -> list[Billing]:
        return [b for b in Billing if any(o.billing is b for o in self.current)]

    @property
    def deliveries(self) -> list[Delivery]:
        return [d for d in Delivery if any(o.delivery is d for o in self.current)]


def provider_summaries(cat: Catalogue) -> list[ProviderSummary]:
    """One per provider, in the editors' order."""
    return [
        ProviderSummary(
            p,
            [o for o in cat.current_offers if o.provider == p.id],
            [o for o in cat.history_offers if o.provider == p.id],
        )
        for p in cat.providers.values()
    ]
