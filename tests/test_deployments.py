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


_PLANS = """    deployments:
      - gpu: rtx-4090-24g
        precision: bf16
        label: 1 × RTX 4090（BF16）
        cards: 1
      - gpu: a100-sxm-80g
        precision: bf16
        label: 1 × A100 80GB（BF16）
        cards: 1
        load:
          context: 2048
          concurrency: 2
          source: https://example.com/guide
          quote: one A100 serves two 2k sequences
"""


def _project_with_plans(tmp_path: Path, plans: str) -> tuple[Path, Catalogue]:
    """The mini fixture with ``plans`` (a ``deployments:`` block) on Llama-2-13B, and its catalogue."""
    anchor = "    license: Llama 2 Community License\n    source: https://huggingface.co/meta-llama/Llama-2-13b-hf"

    def edit(data: Path) -> None:
        replace_in(data / "models.yaml", anchor, plans + anchor)

    root = make_project(tmp_path, edit)
    found, problems = load_catalogue(root / "data", root)
    assert found is not None, problems
    return root, found


def test_a_plan_is_sized_at_its_sourced_load_and_a_differing_card_count_is_shown(tmp_path: Path) -> None:
    """Tiny fixture: Llama-2-13B gets two published plans. Worked by hand: its BF16 weights are
    13.02e9 x 2 bytes = 24.25 GiB, more than a 4090's 21.6 GiB under vLLM's 0.9, so the engine needs
    at least 2 cards where the plan says 1, and the page says so (the data keeps the 1). The A100 plan
    states its own load: the row is sized at 2 sequences of 2,048 tokens, not the page's load."""
    from generator.cli.main import main

    root, found = _project_with_plans(tmp_path, _PLANS)
    page = model_page(found, found.models["llama-2-13b"], Workload.inference, Sizer(found.rules))
    geforce, a100 = page.plans
    assert geforce.option is not None and geforce.option.cards == 2 and geforce.plan.cards == 1
    assert (a100.precision_request.context, a100.precision_request.batch) == (2048, 2)
    assert page.request.batch != 2  # the page's own load is another one
    assert a100.option is not None and a100.option.cards == 1
    assert main(["--root", str(root), "build", "--no-site"]) == 0
    text = (root / "docs" / "models" / "llama-2-13b-inference.md").read_text(encoding="utf-8")
    assert "× 2（发布者写 1 张）" in text
    assert "发布者写 1 张卡，本站引擎按本页的负载算出至少要 2 张" in text
    assert "按部署指南写的负载计算：每条序列 2,048 token、2 路并发（[来源](https://example.com/guide)" in text
    assert "（发布者写" not in text.split("1 × A100 80GB（BF16）")[1].split("\n")[0]


def test_a_plan_at_its_guides_load_is_priced_even_when_it_misses_the_latency_floor(cat: Catalogue) -> None:
    """Kimi K2 on 16 x H200 at the guide's 128k context: one 131,072-token prompt takes far more than the
    2 s floor to prefill, so a floor-held search finds no plan; the deployment is priced at its load all
    the same (worked by hand: two AWS p5en.48xlarge at $63.296/h x 6.7939 yuan/$ x 730 h = 627,839 yuan of
    GPU rent), the figures that miss the floor are flagged, and the page's ranking keeps the floor."""
    page = model_page(cat, cat.models["kimi-k2"], Workload.inference, Sizer(cat.rules))
    h200 = next(p for p in page.plans if p.plan.gpu == "h200-sxm-141g")
    o = h200.option
    assert o is not None and o.excluded is None and o.monthly is not None and o.load is not None
    assert o.cards_billed == 16 and o.offer is not None and o.offer.id.startswith("aws-h200")
    assert o.monthly.gpu_rent == pytest.approx(63.296 * 6.7939 * 2 * 730, rel=1e-6)
    floor = cat.rules.decision.latency_floor
    assert o.load.ttft_s > floor.ttft_s and h200.over_floor
    # yuan per million tokens at the load: the hourly rent over the load's tokens an hour
    hourly = o.monthly.gpu_rent / o.monthly.hours_used
    assert o.load.cost_per_mtok_cny == pytest.approx(hourly / (o.load.tokens_per_s * 3600) * 1e6)
    # the ranking holds every plan to the floor: no ranked option is slower than it
    for r in page.rec.options:
        if r.eligible and r.load is not None:
            assert r.load.ttft_s <= floor.ttft_s and r.load.user_tokens_per_s >= floor.output_tokens_per_s


def test_a_plan_over_the_floor_shows_its_ttft_marked_and_its_cost(tmp_path: Path) -> None:
    """The fixture's A100 plan states a load of one 65,536-token sequence: prefilling it on a 13B model
    takes longer than 2 s even at the card's full BF16 peak (65,536 x 2 x 13e9 = 1.7e15 FLOPs / 312e12
    FLOP/s = 5.5 s), so the row is flagged ⚠ and still priced."""
    from generator.cli.main import main

    plan = _PLANS.replace("context: 2048\n          concurrency: 2", "context: 65536\n          concurrency: 1")

    root, found = _project_with_plans(tmp_path, plan)
    page = model_page(found, found.models["llama-2-13b"], Workload.inference, Sizer(found.rules))
    a100 = page.plans[1]
    assert a100.option is not None and a100.option.load is not None and a100.option.monthly is not None
    assert a100.over_floor and a100.option.load.ttft_s > 2
    assert main(["--root", str(root), "build", "--no-site"]) == 0
    text = (root / "docs" / "models" / "llama-2-13b-inference.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| 1 × A100 80GB（BF16）"))
    assert " 秒 ⚠ |" in row and "¥" in row.split("⚠")[1]
    assert "超过在线服务的速度下限" in text
