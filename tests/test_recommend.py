"""Steps 2–4 and the ranking on the real catalogue: properties that must hold for any workload."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.data.records import Delivery, Workload
from generator.data.validate import load_catalogue
from generator.engine.arch import Arch
from generator.engine.cost import Usage
from generator.engine.delivery import delivery_form
from generator.engine.recommend import Constraints, editor_disagreement, for_scenario, links_cards, recommend
from generator.engine.request import Request
from generator.engine.sizing import size_workload

REPO = Path(__file__).resolve().parent.parent
CAT, _ = load_catalogue(REPO / "data", REPO)
assert CAT is not None

workloads = st.sampled_from([w for w in Workload])
params = st.floats(min_value=0.5, max_value=200, allow_nan=False)


def rank(workload: Workload, params_b: float, batch: int, context: int, job: float | None, **kw):  # type: ignore[no-untyped-def]
    precision = (
        "bf16"
        if workload in (Workload.inference, Workload.lora)
        else ("nf4" if workload is Workload.qlora else "mixed")
    )
    req = Request(workload=workload, arch=Arch.from_params(params_b, defaults=CAT.rules.memory.arch_defaults),
                  precision=precision, batch=batch, context=context, zero_stage=3)  # fmt: skip
    c = Constraints(usage=Usage.from_rules(CAT.rules), job_tokens_b=job, **kw)
    return recommend(CAT, lambda gpu: size_workload(req, gpu, CAT.rules, job), workload, c)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads, params, st.sampled_from([1, 4, 16]), st.sampled_from([512, 2048, 8192]))
def test_eligible_and_fitting_options_always_rank_first(w: Workload, p: float, batch: int, context: int) -> None:
    rec = rank(w, p, batch, context, 0.1 if w is not Workload.inference else None)
    eligible = [o.eligible for o in rec.options]
    assert eligible == sorted(eligible, reverse=True)
    fits = [o.cards is not None for o in rec.options]
    assert fits == sorted(fits, reverse=True)
    if rec.pick is not None:
        assert rec.pick.eligible and rec.pick.monthly is not None
        for o in rec.options[1:]:
            if o.eligible and rec.training_job:
                assert o.job_cost_cny >= rec.pick.job_cost_cny  # type: ignore[operator]
            elif o.eligible:
                assert o.monthly.total >= rec.pick.monthly.total  # type: ignore[union-attr]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads, params, params)
def test_a_bigger_model_never_needs_fewer_cards(w: Workload, a: float, b: float) -> None:
    small, big = sorted((a, b))
    r_small, r_big = rank(w, small, 1, 2048, None), rank(w, big, 1, 2048, None)
    for gpu in CAT.gpus:
        cs, cb = r_small.option_for(gpu).cards, r_big.option_for(gpu).cards  # type: ignore[union-attr]
        if cb is not None:
            assert cs is not None and cs <= cb, (gpu, small, big, cs, cb)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads, params)
def test_delivery_rule_and_links(w: Workload, p: float) -> None:
    rec = rank(w, p, 1, 2048, None)
    for o in rec.options:
        if o.cards is None:
            continue
        expected = Delivery.bare_metal if (w is not Workload.inference and o.cards >= 2) else Delivery.container
        assert o.delivery is expected
        if o.eligible and o.delivery is Delivery.bare_metal:
            assert links_cards(o.gpu, o.cards)


def test_budget_and_domestic_constraints() -> None:
    rec = rank(Workload.inference, 7, 1, 2048, None, budget_cny_month=1000)
    assert rec.pick is None or rec.pick.monthly.total <= 1000  # type: ignore[union-attr]
    assert all(o.excluded for o in rec.options if o.monthly and o.monthly.total > 1000)
    dom = rank(Workload.inference, 7, 1, 2048, None, domestic_only=True)
    assert all(o.gpu.domestic for o in dom.options if o.eligible)


def test_delivery_form_reasons() -> None:
    rules = CAT.rules.delivery
    assert delivery_form(Workload.full, 4, rules)[0] is Delivery.bare_metal
    assert delivery_form(Workload.lora, 1, rules)[0] is Delivery.container
    assert delivery_form(Workload.inference, 8, rules)[0] is Delivery.container


def test_scenario_editor_disagreement_is_explained() -> None:
    from generator.data.records import EditorPick

    s = CAT.scenarios["lora-7b"].model_copy(
        update={"editor_pick": EditorPick(gpu="rtx-4090-24g", delivery="bare_metal")}
    )
    rec = for_scenario(CAT, s)
    assert rec.pick is not None and rec.pick.gpu.id == "rtx-4090-24g"
    assert editor_disagreement(s, rec) == (
        "编辑推荐交付形式 bare_metal，规则给出 container（单卡训练用不到卡间互联，容器实例秒级启停、可按小时计费）"
    )


@pytest.mark.parametrize("sid", sorted(CAT.scenarios))
def test_every_scenario_has_a_computed_pick(sid: str) -> None:
    rec = for_scenario(CAT, CAT.scenarios[sid])
    assert rec.pick is not None
    assert rec.pick.reasons and rec.pick.monthly is not None


def test_bundled_editor_picks_agree_with_the_rules() -> None:
    """Main stays strict-clean: the build's disagreement warnings were acted on."""
    for s in CAT.scenarios.values():
        assert editor_disagreement(s, for_scenario(CAT, s)) is None, s.id
