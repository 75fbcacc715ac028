"""Every scenario guide, computed: the ranking the rules produce and any disagreement
with the editor's pick (a warning at the scenario's line, and a notice on its page)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.datafiles import DataFile
from generator.data.problems import Problem, Severity
from generator.data.records import Scenario
from generator.engine.cost import Usage
from generator.engine.reason import Reason
from generator.engine.recommend import Recommendation, editor_disagreement, for_scenario, scenario_usage
from generator.engine.request import Request
from generator.engine.sizing import Sizer, scenario_request
from generator.results.api_compare import NO_API, ApiComparisons, same_size_prices


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario with what the rules compute for it."""

    scenario: Scenario
    request: Request  # the workload with rules.yaml's defaults filled in
    usage: Usage  # the month of use, likewise
    rec: Recommendation
    disagreement: tuple[Reason, ...]  # where the editor's pick differs from the computed one (empty: agrees)
    #: language-model serving: public API prices of models about this size, blended at the scenario's mix
    api: ApiComparisons = NO_API


def scenario_results(cat: Catalogue, sizer: Sizer) -> dict[str, ScenarioResult]:
    """Each scenario in the editors' order."""
    out = {}
    for s in cat.scenarios.values():
        rec = for_scenario(cat, s, sizer)
        model = cat.models[s.model]
        request = scenario_request(s, model, cat.rules)
        api: ApiComparisons = NO_API
        if request.output_tokens:
            prompt = request.context - request.output_tokens
            tolerance = cat.rules.pages.api_size_tolerance
            api = same_size_prices(cat, model, prompt, request.output_tokens, tolerance)
        out[s.id] = ScenarioResult(s, request, scenario_usage(s, cat.rules), rec, editor_disagreement(s, rec), api)
    return out


def editor_notices(
    cat: Catalogue, scenarios: dict[str, ScenarioResult], words: Callable[[tuple[Reason, ...]], str]
) -> list[Problem]:
    """One notice per scenario whose editor pick disagrees with the rules, in ``words`` (the editor's
    message table, :func:`generator.pages.messages.editor_notice`). Designed behaviour: the page
    shows the computed pick and the disagreement; ``check --strict`` does not fail on it."""
    return [
        cat.locate(DataFile.scenarios, ("scenarios", i, "editor_pick"), words(r.disagreement), Severity.notice)
        for i, r in enumerate(scenarios.values())
        if r.disagreement
    ]
