"""How stale the market is on the build date: per provider, the share of offers past the window.

``gpu-guide check`` prints the shares; ``gpu-guide build`` names the offers that stopped ranking.
An offer is *stale* when its source's date is more than ``rules.prices.fresh_days`` before the
build date (an offer ``replaces``-d by a newer price is history too, but not stale: it was updated).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import ApiPrice, Offer


@dataclass(frozen=True)
class ProviderFreshness:
    """One provider's offers on the build date."""

    provider: str  # provider id
    name: str
    stale: int
    total: int

    @property
    def share(self) -> float:
        return self.stale / self.total if self.total else 0.0


def is_stale(cat: Catalogue, offer: Offer) -> bool:
    """Older than the freshness window on the build date."""
    return offer.as_of < cat.fresh_since


def stale_offers(cat: Catalogue) -> list[Offer]:
    """Offers past the window, oldest first (ties by id)."""
    return sorted((o for o in cat.offers if is_stale(cat, o)), key=lambda o: (o.as_of, o.id))


def by_provider(cat: Catalogue) -> list[ProviderFreshness]:
    """Every provider with an offer, the stalest share first (ties: the providers.yaml order)."""
    rows = []
    for pid, prov in cat.providers.items():
        mine = [o for o in cat.offers if o.provider == pid]
        if mine:
            rows.append(ProviderFreshness(pid, prov.name, sum(is_stale(cat, o) for o in mine), len(mine)))
    order = {pid: i for i, pid in enumerate(cat.providers)}
    return sorted(rows, key=lambda r: (-r.share, order[r.provider]))


def stale_api_prices(cat: Catalogue) -> list[ApiPrice]:
    """API prices past ``rules.prices.api_fresh_days`` on the build date, oldest first (ties by id): pages
    list them as history and compare none of them with renting."""
    return sorted((p for p in cat.api_prices if p.as_of < cat.api_fresh_since), key=lambda p: (p.as_of, p.id))


def report_lines(cat: Catalogue, origin: str) -> list[str]:
    """The check's freshness report: the total, then each provider with a stale offer."""
    rows = by_provider(cat)
    stale = sum(r.stale for r in rows)
    total = sum(r.total for r in rows)
    days = cat.rules.prices.fresh_days
    lines = [f"Freshness on {cat.today} ({origin}): {stale} of {total} offers are older than {days} days."]
    lines += [f"  {r.provider}: {r.stale} of {r.total} stale ({r.share:.0%})" for r in rows if r.stale]
    if stale == 0:
        lines.append("  no provider has a stale offer")
    if cat.api_prices:
        old = len(stale_api_prices(cat))
        lines.append(
            f"API prices: {old} of {len(cat.api_prices)} are older than {cat.rules.prices.api_fresh_days} days "
            "(history: no page compares them with renting)."
        )
    return lines
