"""How the market data is sourced: offers per source tier and per provider, with their dates.

The README's data table is rendered from these counts (``gpu-guide prices table``) and
``gpu-guide check`` fails when the README's copy disagrees, so the table cannot drift from the
data. Counts depend on the build date: an offer is *current* when the catalogue counts it so
(within the freshness window and not replaced).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import FIRST_HAND_TIERS, Market, Offer, Provider, SourceTier


@dataclass(frozen=True)
class TierCounts:
    """Offers of each source tier, in the enum's order (first-hand first)."""

    counts: tuple[tuple[SourceTier, int], ...]

    @classmethod
    def of(cls, offers: list[Offer]) -> TierCounts:
        return cls(tuple((t, sum(o.source_tier is t for o in offers)) for t in SourceTier))

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def first_hand(self) -> int:
        """Offers from the provider's own price page or pricing API."""
        return sum(n for t, n in self.counts if t in FIRST_HAND_TIERS)

    def nonzero(self) -> list[tuple[SourceTier, int]]:
        return [(t, n) for t, n in self.counts if n]


@dataclass(frozen=True)
class ProviderCounts:
    """One provider's offers: current ones by tier and their date range, and all of them."""

    provider: Provider
    current: TierCounts
    all: TierCounts
    first: dt.date | None  # oldest current price (None without a current one)
    last: dt.date | None  # newest current price

    @property
    def first_hand_found(self) -> bool:
        """Whether any of its offers (current or history) comes from its own price page or API."""
        return self.all.first_hand > 0


@dataclass(frozen=True)
class MarketCounts:
    """The whole market's sourcing on the build date."""

    today: dt.date
    current: TierCounts
    all: TierCounts
    first: dt.date | None
    last: dt.date | None
    providers: tuple[ProviderCounts, ...]  # providers with at least one offer, in the editors' order

    def by_market(self, market: Market) -> list[ProviderCounts]:
        return [p for p in self.providers if p.provider.market is market]


def _span(offers: list[Offer]) -> tuple[dt.date | None, dt.date | None]:
    dates = [o.as_of for o in offers]
    return (min(dates), max(dates)) if dates else (None, None)


def market_counts(cat: Catalogue) -> MarketCounts:
    """Count every offer by tier and provider, current ones on the catalogue's build date."""
    rows = []
    for pid, prov in cat.providers.items():
        mine = [o for o in cat.offers if o.provider == pid]
        if not mine:
            continue
        now = [o for o in mine if cat.is_current(o)]
        rows.append(ProviderCounts(prov, TierCounts.of(now), TierCounts.of(mine), *_span(now)))
    first, last = _span(cat.current_offers)
    return MarketCounts(
        cat.today, TierCounts.of(cat.current_offers), TierCounts.of(cat.offers), first, last, tuple(rows)
    )
