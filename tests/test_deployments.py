"""Deployment plans (models.yaml ``deployments``): each is the engine's own option for that card in
that format, and a plan naming no GPU is refused at its line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO, make_project, replace_in

from generator.data.catalogue import Catalogue
from generator.data.problems import render
from generator.data.records import Workload
from generator.data.validate import load_catalogue
from generator.engine.sizing import Sizer
from generator.results.model_pages import model_page


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    found, problems = load_catalogue(REPO / "data", REPO)
    assert found is not None, problems
    return found


def test_r1_plans_are_sized_by_the_engine(cat: Catalogue) -> None:
    sizer = Sizer(cat.rules)
    page = model_page(cat, cat.models["deepseek-r1"], Workload.inference, sizer)
    assert page.request.precision.value == "fp8"  # the checkpoint's own format
    plans = {p.plan.gpu: p for p in page.plans}
    assert set(plans) >= {"h20", "h200-sxm-141g", "h100-sxm-80g", "ascend-910b"}
    for p in page.plans:
        assert p.option is not None and p.option.cards
        # the same card count the sizer gives that request on that card
        assert p.option.sizing.min_cards == sizer.size(p.precision_request, cat.gpus[p.plan.gpu]).min_cards
    # 671B at 8 bits is ~625 GiB of weights: for one user, one 8-card node of 96 GB or 141 GB cards, two
    # of 80 GB (the page's own load, the serving scenario's users, adds their KV cache on top)
    one = replace(page.request, batch=1)
    assert sizer.size(one, cat.gpus["h20"]).min_cards == 8
    assert sizer.size(one, cat.gpus["h200-sxm-141g"]).min_cards == 8
    assert sizer.size(one, cat.gpus["h100-sxm-80g"]).min_cards == 16
    # on one node each, the H200's extra memory holds more sequences' KV cache than the H20's
    h20, h200 = sizer.size(one, cat.gpus["h20"]).serving, sizer.size(one, cat.gpus["h200-sxm-141g"]).serving
    assert h20 is not None and h200 is not None
    assert h200.at_capacity.concurrency > h20.at_capacity.concurrency


def test_a_plan_naming_no_gpu_is_refused_at_its_line(tmp_path: Path) -> None:
    plan = "    deployments:\n      - gpu: h2o\n        precision: fp8\n        label: x\n"
    root = make_project(
        tmp_path,
        lambda data: replace_in(data / "models.yaml", "    max_context: 4096\n", "    max_context: 4096\n" + plan, 1),
    )
    found, problems = load_catalogue(root / "data", root)
    assert found is None
    text = render(problems)
    assert 'models[0].deployments[0].gpu: no GPU has id "h2o"' in text and text.startswith("data/models.yaml:")
