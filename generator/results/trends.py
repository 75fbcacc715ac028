"""市场趋势: the dated facts of data/trends.yaml in date order, and trends computed from
the specs and prices (domestic cards with rental prices, memory bandwidth by release year,
how the cheapest price of a GPU moved between the oldest and the newest quote)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.editorial import TrendFact
from generator.data.records import Gpu, Offer, Vendor
from generator.engine import cost as costs
from generator.results.prices import CardMonth


@dataclass(frozen=True)
class DomesticRow:
    """A domestic accelerator: whether the data has a rental price, and its value for money."""

    gpu: Gpu
    offers: int
    cny_per_tflop_hour: float | None


@dataclass(frozen=True)
class YearRow:
    """GPUs of one release year: their memory types and the highest bandwidth among them."""

    year: int
    gpus: list[Gpu]
    max_bandwidth_gbps: float
    memory_types: list[str]


@dataclass(frozen=True)
class PriceMove:
    """The cheapest card-month of a GPU on its oldest price date, and its cheapest current price."""

    gpu: Gpu
    old: CardMonth
    new: CardMonth

    @property
    def change(self) -> float:
        return self.new.cny / self.old.cny - 1


@dataclass(frozen=True)
class TrendResults:
    facts: list[TrendFact]  # oldest first
    domestic: list[DomesticRow]
    best_nvidia: tuple[Gpu, float] | None  # the NVIDIA card with the lowest yuan per TFLOP-hour
    years: list[YearRow]
    moves: list[PriceMove]


def trend_results(cat: Catalogue, ladder: pd.DataFrame) -> TrendResults:
    per = {
        str(g): float(v)
        for g, v in zip(ladder["id"], ladder["cny_per_tflop_hour"], strict=True)
        if v is not None and not pd.isna(v)
    }
    domestic = [DomesticRow(g, len(cat.offers_for(g.id)), per.get(g.id)) for g in cat.gpus.values() if g.domestic]
    nvidia = sorted((v, g) for g, v in per.items() if cat.gpus[g].vendor is Vendor.nvidia)
    best = (cat.gpus[nvidia[0][1]], nvidia[0][0]) if nvidia else None
    years = []
    for year in sorted({g.release_year for g in cat.gpus.values()}):
        gpus = [g for g in cat.gpus.values() if g.release_year == year]
        types = sorted({g.memory_type for g in gpus})
        years.append(YearRow(year, gpus, max(g.memory_bandwidth_gbps for g in gpus), types))
    return TrendResults(
        facts=sorted(cat.trends.facts, key=lambda f: (f.date, f.id)),
        domestic=domestic,
        best_nvidia=best,
        years=years,
        moves=price_moves(cat),
    )


def price_moves(cat: Catalogue) -> list[PriceMove]:
    """GPUs quoted on at least two dates: the cheapest card-month (low end) on the oldest date against the
    cheapest current price. Both ends only in the billing tiers that may price a pick
    (``rules.prices.pick_billing``: spot and reserved prices are not comparable); a GPU whose cheapest current
    price is its oldest price has no move."""
    tiers = set(cat.rules.prices.pick_billing)
    now = {o.id for o in cat.pickable_offers}
    out = []
    for gpu in cat.gpus.values():
        offers = sorted((o for o in cat.offers_for(gpu.id) if o.billing in tiers), key=lambda o: o.id)
        dates = sorted({o.as_of for o in offers})
        current = [o for o in offers if o.id in now]
        if len(dates) < 2 or not current:
            continue
        old, new = _cheapest(cat, [o for o in offers if o.as_of == dates[0]]), _cheapest(cat, current)
        if old.offer.id != new.offer.id:
            out.append(PriceMove(gpu, old, new))
    return out


def _cheapest(cat: Catalogue, offers: list[Offer]) -> CardMonth:
    """The lowest card-month (low end of a range) among ``offers``; ties: offer id."""
    pricing = costs.pricing_of(cat)
    priced = [CardMonth(costs.card_month_cny(o, pricing, o.ends[0]), o) for o in offers]
    return min(priced, key=lambda c: (round(c.cny, 6), c.offer.id))
