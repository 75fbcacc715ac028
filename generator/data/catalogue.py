"""The catalogue: everything under ``data/``, validated and typed, in the editors' order.

Built by :func:`generator.data.validate.load_catalogue`; every later stage reads it and
nothing else. It keeps the loaded documents so that a later stage can point a warning
at the line an editor wrote.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

from generator.data.editorial import BuyersFile, ClaimsFile, OwnershipFile, TrendsFile
from generator.data.load import Document
from generator.data.problems import Problem, Severity, YamlPath, format_path
from generator.data.records import (
    ApiPrice,
    Currency,
    Edition,
    FxRate,
    Gpu,
    Offer,
    OpenModel,
    Pitfall,
    Provider,
    Scenario,
    SearchedPair,
)
from generator.data.rules import Rules


@dataclass(frozen=True)
class Catalogue:
    """Everything under data/, validated. Dicts keep the editors' order."""

    gpus: dict[str, Gpu]
    offers: list[Offer]
    models: dict[str, OpenModel]
    scenarios: dict[str, Scenario]
    pitfalls: list[Pitfall]
    rules: Rules
    editions: list[Edition]
    claims: ClaimsFile
    ownership: OwnershipFile | None  # None when the project has no ownership.yaml
    buyers: BuyersFile
    trends: TrendsFile
    #: data files that were read, as display names, for do-not-edit markers
    inputs: tuple[str, ...]
    #: the loaded documents by file name, so later stages can point at a line
    docs: dict[str, Document]
    providers: dict[str, Provider]
    fx: list[FxRate]  #: exchange rates, in the editors' order
    searched: list[SearchedPair]  #: comparison pairs people search for (comparisons.yaml)
    #: comparison slugs once published, now retired (comparisons.yaml ``retired``): redirect pages
    retired_comparisons: list[str] = field(default_factory=list)
    #: public API prices of language models (data/api_prices.yaml, optional)
    api_prices: list[ApiPrice] = field(default_factory=list)
    #: the build date, an input (the command line reads ``SOURCE_DATE_EPOCH``, else the commit date
    #: of data/); None: the newest price's date (a folder outside git, a library caller)
    build_date: dt.date | None = None

    def locate(self, filename: str, path: YamlPath, message: str, severity: Severity = Severity.error) -> Problem:
        """A problem at ``path`` of a data file, e.g. a warning from a later stage."""
        doc = self.docs[filename]
        mark = doc.mark(path)
        return Problem(doc.name, mark.line, mark.col, format_path(path), message, severity)

    @cached_property
    def as_of(self) -> dt.date:
        """The newest price date: the data's edition date."""
        return max((o.as_of for o in self.offers), default=dt.date(2025, 1, 1))

    @property
    def today(self) -> dt.date:
        """The date prices are judged against: the build date, else the newest price's date."""
        return self.build_date or self.as_of

    @property
    def fresh_since(self) -> dt.date:
        """The oldest date a current price may carry (``rules.prices.fresh_days`` before the build date)."""
        return self.today - dt.timedelta(days=self.rules.prices.fresh_days)

    def age_days(self, offer: Offer) -> int:
        """How many days before the build date the offer's source dates its price."""
        return (self.today - offer.as_of).days

    @cached_property
    def replaced(self) -> frozenset[str]:
        """Ids of offers a newer offer of the same product ``replaces``."""
        return frozenset(o.replaces for o in self.offers if o.replaces is not None)

    def is_current(self, offer: Offer) -> bool:
        """Whether an offer counts in this edition: within the freshness window and not replaced by a newer
        price of the same product. Everything else is history."""
        return offer.as_of >= self.fresh_since and offer.id not in self.replaced

    @cached_property
    def current_offers(self) -> list[Offer]:
        """Offers within the freshness window (counted back from the build date), in the editors' order."""
        return [o for o in self.offers if self.is_current(o)]

    @cached_property
    def history_offers(self) -> list[Offer]:
        """Offers older than the freshness window: shown as history, never used to rank or price."""
        return [o for o in self.offers if not self.is_current(o)]

    @cached_property
    def pickable_offers(self) -> list[Offer]:
        """Current offers in a billing tier that may price a recommendation (``rules.prices.pick_billing``)
        from a source tier that may rank a pick (``rules.prices.pick_tiers``)."""
        tiers = set(self.rules.prices.pick_billing)
        sources = set(self.rules.prices.pick_tiers)
        return [o for o in self.current_offers if o.billing in tiers and o.source_tier in sources]

    @property
    def api_fresh_since(self) -> dt.date:
        """The oldest date a current API price may carry (``rules.prices.api_fresh_days`` before the build date)."""
        return self.today - dt.timedelta(days=self.rules.prices.api_fresh_days)

    @cached_property
    def api_replaced(self) -> frozenset[str]:
        """Ids of API prices a newer price ``replaces``."""
        return frozenset(p.replaces for p in self.api_prices if p.replaces is not None)

    def api_age_days(self, price: ApiPrice) -> int:
        """How many days before the build date the API price's source dates it."""
        return (self.today - price.as_of).days

    def is_current_api(self, price: ApiPrice) -> bool:
        """Whether an API price may be compared with renting: within its window and not replaced."""
        return price.as_of >= self.api_fresh_since and price.id not in self.api_replaced

    def offers_for(self, gpu_id: str) -> list[Offer]:
        """Every offer of one GPU, current and history."""
        return [o for o in self.offers if o.gpu == gpu_id]

    def current_for(self, gpu_id: str) -> list[Offer]:
        return [o for o in self.current_offers if o.gpu == gpu_id]

    def history_for(self, gpu_id: str) -> list[Offer]:
        return [o for o in self.history_offers if o.gpu == gpu_id]


def rate_on(rates: list[FxRate], currency: Currency, on: dt.date) -> FxRate | None:
    """The exchange rate for a price of ``currency`` dated ``on``: the rate nearest in date at or
    before ``on``, else the earliest after it; None for yuan or when no rate for the currency exists.
    Ties on the same date: the first in the file."""
    if currency is Currency.cny:
        return None
    mine = sorted((r for r in rates if r.currency is currency), key=lambda r: r.as_of)
    if not mine:
        return None
    at = bisect.bisect_right([r.as_of for r in mine], on)
    if at == 0:
        return mine[0]
    best = mine[at - 1]
    return next(r for r in mine if r.as_of == best.as_of)
