"""Run the buying logic over the catalogue: the ladder and every scenario.

Also the check that keeps editors honest: where a scenario's ``editor_pick``
differs from what the rules compute, a warning names the scenario's line.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from generator import tables
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


def evaluate(cat: Catalogue) -> Results:
    """Everything the pages show, computed once."""
    scenarios = {}
    for s in cat.scenarios.values():
        rec = for_scenario(cat, s)
        scenarios[s.id] = ScenarioResult(s, rec, editor_disagreement(s, rec))
    return Results(ladder=tables.ladder(cat), scenarios=scenarios)


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
