"""Run the buying logic over the catalogue: the ladder and every scenario.

Also the check that keeps editors honest: where a scenario's ``editor_pick``
differs from what the rules compute, a warning names the scenario's line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from generator import landing, tables
from generator.problems import Problem, Severity
from generator.recommend import Recommendation, editor_disagreement, for_scenario
from generator.records import Scenario
from generator.validate import Catalogue


@dataclass(frozen=True)
class ScenarioResult:
    scenario: Scenario
    rec: Recommendation
    disagreement: str | None


@dataclass(frozen=True)
class Results:
    ladder: pd.DataFrame
    scenarios: dict[str, ScenarioResult]
    models: list[landing.ModelPage] = field(default_factory=list)  # one per model and workload
    pairs: list[landing.Comparison] = field(default_factory=list)  # GPU comparisons that get a page


def evaluate(cat: Catalogue) -> Results:
    """Everything the pages show, computed once."""
    scenarios = {}
    for s in cat.scenarios.values():
        rec = for_scenario(cat, s)
        scenarios[s.id] = ScenarioResult(s, rec, editor_disagreement(s, rec))
    results = Results(ladder=tables.ladder(cat), scenarios=scenarios)
    # Landing pages reuse the ladder and the scenario results computed above.
    return replace(results, models=landing.model_pages(cat), pairs=landing.comparison_pairs(cat, results))


def editor_warnings(cat: Catalogue, results: Results) -> list[Problem]:
    """One warning per scenario whose editor pick disagrees with the rules."""
    return [
        cat.locate(
            "scenarios.yaml",
            ("scenarios", i, "editor_pick"),
            f"the rules disagree with the editor's pick: {r.disagreement}",
            Severity.warning,
        )
        for i, r in enumerate(results.scenarios.values())
        if r.disagreement
    ]
