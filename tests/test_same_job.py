"""One job, one price (#17): a scenario page links the model pages that price exactly its job (the
same model, workload, request and month of use; llm-serving and its model's inference page, whose
serving load is that scenario's), and both show the same pick and figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, make_project

from generator.engine.recommend import Option
from generator.pages import charts
from generator.pages.contexts import ScenarioContext
from generator.pages.plan import plan_pages
from generator.pipeline import Project, generate


def _scenario_contexts(root: Path) -> dict[str, ScenarioContext]:
    gen = generate(Project.at(root))
    drawn = charts.ladder_page_charts(gen.results.ladder, gen.catalogue)
    pages = plan_pages(gen.catalogue, gen.results, gen.settings.site_url, drawn)
    return {c.scenario.id: c for p in pages if isinstance(c := p.context, ScenarioContext)}


def _key(o: Option) -> tuple[object, ...]:
    """A pick's figures: GPU, cards, ¥/M tokens at the load, job rent, month."""
    return (
        o.gpu.id,
        o.cards,
        o.load.cost_per_mtok_cny if o.load else None,
        o.job_cost_cny,
        o.monthly.total if o.monthly else None,
    )


def _figures(c: ScenarioContext) -> list[tuple[tuple[object, ...], tuple[object, ...]]]:
    """For each linked model page: (its pick's figures, the scenario pick's)."""
    out = []
    for mp in c.same_job:
        a, b = mp.rec.pick, c.rec.pick
        assert a is not None and b is not None
        out.append((_key(a), _key(b)))
    return out


@pytest.mark.parametrize("where", ["mini", "bundled"])
def test_a_scenario_links_the_model_page_of_its_job_with_the_same_figures(where: str, tmp_path: Path) -> None:
    root = make_project(tmp_path) if where == "mini" else REPO
    contexts = _scenario_contexts(root)
    # the model pages' serving load is rules.yaml pages.model_pages.inference.load_scenario's
    # (the fixture: serve-7b, conftest; the bundled data: llm-serving)
    serving = "serve-7b" if where == "mini" else "llm-serving"
    model = contexts[serving].scenario.model
    assert [mp.slug for mp in contexts[serving].same_job] == [f"{model}-inference"]
    for c in contexts.values():
        for page_pick, scenario_pick in _figures(c):
            assert page_pick == scenario_pick, c.scenario.id
        # a constraint of the scenario's own (domestic only) is another job: no link
        if c.scenario.domestic_only:
            assert c.same_job == ()
