"""Run the buying logic over the catalogue: everything the pages show, computed once.

The order matters and has no cycles: the ladder and the scenarios first, then the
model pages, then the comparison pairs (which need the ladder ranks and the scenario
picks). :class:`Results` is built once, from all four.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.results.comparisons import Comparison, comparison_pairs
from generator.results.ladder import ladder
from generator.results.model_pages import ModelPage, model_pages
from generator.results.scenarios import ScenarioResult, scenario_results


@dataclass(frozen=True)
class Results:
    """What the rules compute from one catalogue."""

    ladder: pd.DataFrame  # one row per GPU, best first (see results.ladder)
    scenarios: dict[str, ScenarioResult]
    models: list[ModelPage]  # one per model and workload
    pairs: list[Comparison]  # GPU comparisons that get a page

    @property
    def ranks(self) -> dict[str, int]:
        """GPU id -> ladder rank."""
        return ladder_ranks(self.ladder)


def ladder_ranks(frame: pd.DataFrame) -> dict[str, int]:
    return {str(gid): int(rank) for gid, rank in zip(frame["id"], frame["rank"], strict=True)}


def evaluate(cat: Catalogue) -> Results:
    """Everything the pages show, computed once."""
    table = ladder(cat)
    scenarios = scenario_results(cat)
    pairs = comparison_pairs(cat, ladder_ranks(table), scenarios)
    return Results(ladder=table, scenarios=scenarios, models=model_pages(cat), pairs=pairs)
