"""The catalogue: everything under ``data/``, validated and typed, in the editors' order.

Built by :func:`generator.data.validate.load_catalogue`; every later stage reads it and
nothing else. It keeps the loaded documents so that a later stage can point a warning
at the line an editor wrote.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from generator.data.editorial import BuyersFile, ClaimsFile, OwnershipFile, TrendsFile
from generator.data.load import Document
from generator.data.problems import Problem, Severity, YamlPath, format_path
from generator.data.records import ApiPrice, Edition, Gpu, Offer, OpenModel, Pitfall, Scenario
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
    #: public API prices of language models (data/api_prices.yaml, optional)
    api_prices: list[ApiPrice] = field(default_factory=list)

    def locate(self, filename: str, path: YamlPath, message: str, severity: Severity = Severity.error) -> Problem:
        """A problem at ``path`` of a data file, e.g. a warning from a later stage."""
        doc = self.docs[filename]
        mark = doc.mark(path)
        return Problem(doc.name, mark.line, mark.col, format_path(path), message, severity)

    @property
    def as_of(self) -> dt.date:
        """The newest price date: the data's edition date."""
        return max((o.as_of for o in self.offers), default=dt.date(2025, 1, 1))

    def offers_for(self, gpu_id: str) -> list[Offer]:
        return [o for o in self.offers if o.gpu == gpu_id]
