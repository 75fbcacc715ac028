"""Steps 2–4 and the ranking on the real catalogue: properties that must hold for any workload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import make_project, replace_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, EditorPick, Precision, Workload
from generator.data.validate import load_catalogue
from generator.engine.arch import Arch
from generator.engine.cost import Usage
from generator.engine.delivery import delivery_form
from generator.engine.exclusion import ExclusionKind
from generator.engine.reason import Reason, ReasonKind
from generator.engine.recommend import (
    Constraints,
    Option,
    Recommendation,
    editor_disagreement,
    for_scenario,
    links_cards,
    recommend,
)
from generator.engine.request import Request
from generator.engine.sizing import size_workload
from generator.pages.messages import cards_label, explain

REPO = Path(__file__).resolve().parent.parent
_loaded, _ = load_catalogue(REPO / "data", REPO)
assert _loaded is not None
CAT: Catalogue = _loaded

workloads = st.sampled_from([w for w in Workload])
params = st.floats(min_value=0.5, max_value=200, allow_nan=False)


def rank(workload: Workload, params_b: float, batch: int, context: int, job: float | None, **kw: Any) -> Recommendation:
    precision = (
        Precision.bf16
        if workload in (Workload.inference, Workload.lora)
        else (Precision.nf4 if workload is Workload.qlora else Precision.mixed)
    )
    req = Request.with_defaults(CAT.rules.defaults, workload=workload, arch=Arch.from_params(params_b, defaults=CAT.rules.memory.arch_defaults),
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
        tentative = [o.tentative for o in rec.options if o.eligible]
        assert tentative == sorted(tentative)  # confirmed options before tentative ones (unconfirmed figures)
        for o in rec.options[1:]:
            if o.tentative and not rec.pick.tentative:
                continue  # ranks after every confirmed option whatever its measure (README: the decision)
            if o.eligible and rec.training_job:
                assert o.job_cost_cny >= rec.pick.job_cost_cny  # type: ignore[operator]
            if o.eligible:
                # the workload's own measure: job rent, cost per million tokens at the load, else the month
                assert o.measure_value is not None and rec.pick.measure_value is not None
                assert round(o.measure_value, 6) >= round(rec.pick.measure_value, 6)


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
        # full-parameter sharded training needs a linked machine; adapter training (LoRA / QLoRA) does not:
        # its frozen base is sharded and gathered over any link (slower over PCIe, not refused)
        sharded = w in (Workload.full, Workload.pretrain) and o.cards >= 2
        expected = Delivery.bare_metal if sharded else Delivery.container
        assert o.needed is expected  # what the rule asks for; the row shows the offer's own form
        if o.eligible and o.offer is not None:
            assert o.delivery is o.offer.delivery or o.offer.delivery is Delivery.unspecified
        if o.eligible and sharded and o.offer is not None:
            # sharded multi-card training: a whole linked machine, never a container
            assert o.offer.delivery is not Delivery.container
            assert links_cards(o.gpu, min(o.cards, 8))


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


def _mini_catalogue(tmp_path: Path, edit=None):  # type: ignore[no-untyped-def]
    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, problems
    return cat


def test_scenario_editor_disagreement_is_explained(tmp_path: Path) -> None:
    """Mini fixture: serve-7b (Llama-2-7B inference on one card) runs in a container by the rule."""
    cat = _mini_catalogue(tmp_path)
    s = cat.scenarios["serve-7b"].model_copy(
        update={"editor_pick": EditorPick(gpu="rtx-4090-24g", delivery="bare_metal")}
    )
    rec = for_scenario(cat, s)
    assert rec.pick is not None and rec.pick.gpu.id == "rtx-4090-24g"
    why = Reason(ReasonKind.delivery_serving)
    said = editor_disagreement(s, rec)
    assert said == (Reason(ReasonKind.editor_delivery, {"editor": "bare_metal", "rule": "container", "why": why}),)
    # the sentence the engine built before it returned records (test at fd6df2a)
    assert [explain(r) for r in said] == [
        "编辑推荐交付形式 bare_metal，规则给出 container（推理服务选容器实例，便于弹性扩缩容、按需计费）"
    ]


def test_every_mini_scenario_has_a_computed_pick(tmp_path: Path) -> None:
    cat = _mini_catalogue(tmp_path)
    for s in cat.scenarios.values():
        rec = for_scenario(cat, s)
        assert rec.pick is not None, s.id
        assert rec.pick.reasons and rec.pick.monthly is not None


def test_a_disagreeing_pick_is_a_notice_that_strict_check_accepts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """An editor's pick stays as written; the build says where the rules differ, without failing."""
    from generator.cli.main import main
    from generator.pipeline import Project, build

    # An RTX 4090 cannot be the rules' pick for multi-card full fine-tuning (PCIe only).
    root = make_project(tmp_path, lambda d: replace_in(d / "scenarios.yaml", "{gpu: a100-sxm-80g, delivery: bare_metal}",
                                                       "{gpu: rtx-4090-24g, delivery: bare_metal}"))  # fmt: skip
    gen = build(Project.at(root), site=False)
    pick = gen.results.scenarios["full-13b"].rec.pick
    assert pick is not None and pick.gpu.id != "rtx-4090-24g"
    notices = [p for p in gen.warnings if p.path.endswith("editor_pick")]
    notice = next(p for p in notices if "rtx-4090-24g" in p.format())
    assert notice.format().startswith("data/scenarios.yaml:")
    # the check says it in one sentence with the ids the editor wrote, and why the card is out
    said = notice.format()
    assert f": notice: the editor picked rtx-4090-24g, the rules pick {pick.gpu.id} (rtx-4090-24g is out: " in said
    assert said.endswith("); the page shows the rules' pick and why") and "editor_gpu(" not in said
    page = gen.files["scenarios/full-13b.md"].decode("utf-8")
    # The reader sees GPU names where the editor's notice has ids.
    assert "编辑推荐 GeForce RTX 4090 24GB（" in page and f"计算结果为 {pick.gpu.name}" in page
    capsys.readouterr()
    assert main(["--root", str(root), "check", "--strict"]) == 0


def test_whole_machine_billing_uses_or_names_every_rented_card(tmp_path: Path) -> None:
    """Mini fixture: the H100 and A100 offers rent 8-card bare-metal nodes.

    full-13b needs 4 H100s but pays for the node's 8; NVLink joins all 8 (scaling 1.0 in
    rules.yaml), so the job runs on 8 and takes exactly half the hours of 4 cards, at the same
    node rent per hour. Serving Llama-2-7B on the A100 node runs 8 one-card replicas. LoRA with no
    job to finish leaves 7 of the 8 rented A100s idle, and the option says so."""
    cat = _mini_catalogue(tmp_path)
    full = for_scenario(cat, cat.scenarios["full-13b"]).option_for("h100-sxm-80g")
    assert full is not None and full.cards == 4 and full.sizing.job_hours is not None
    assert (full.cards_billed, full.cards_used, full.idle_cards) == (8, 8, 0)
    assert full.job_hours == pytest.approx(full.sizing.job_hours / 2)
    assert cards_label(full) == "8（用满整机）"

    serve = for_scenario(cat, cat.scenarios["serve-7b"]).option_for("a100-sxm-80g")
    assert serve is not None and serve.sizing.serving is not None and serve.served_tokens_per_s is not None
    assert (serve.cards, serve.cards_billed, serve.replicas, serve.idle_cards) == (1, 8, 8, 0)
    keep = (
        1 - cat.rules.delivery.container_virtualization_loss
        if serve.offer and serve.offer.delivery.value != "bare_metal"
        else 1.0
    )
    assert serve.served_tokens_per_s == pytest.approx(8 * keep * serve.sizing.serving.at_capacity.total_tokens_per_s)

    req = Request.with_defaults(cat.rules.defaults, workload=Workload.lora, arch=Arch.from_model(cat.models["llama-2-7b"], cat.rules.memory.arch_defaults),
                  precision=Precision.bf16, zero_stage=3)  # fmt: skip
    lora = recommend(cat, lambda gpu: size_workload(req, gpu, cat.rules), Workload.lora,
                     Constraints(usage=Usage.from_rules(cat.rules))).option_for("a100-sxm-80g")  # fmt: skip
    assert lora is not None and (lora.cards, lora.cards_billed, lora.idle_cards) == (1, 8, 7)
    assert cards_label(lora) == "1（整机 8 张，7 张闲置）"
    assert Reason(ReasonKind.idle_cards, {"cards_billed": 8, "idle_cards": 7}) in lora.reasons
    assert "报价按整机 8 张卡计费，其中 7 张闲置也要付钱" in [explain(r) for r in lora.reasons]


def test_cards_without_bf16_refuse_bf16_and_train_mixed_in_fp16() -> None:
    """vLLM refuses BF16 below compute capability 8.0 ("Bfloat16 is only supported on GPUs with
    compute capability of at least 8.0 … You can use float16 instead", vllm/config.py): V100 (7.0)
    and T4 (7.5) have no BF16 tensor cores in their datasheets, so the data has no BF16 figure for
    them. A BF16 job excludes such a card and says to use FP16; FP16 keeps it; mixed precision keeps
    it with the FP16 loss-scaling note (same memory)."""
    no_bf16 = {g.id for g in CAT.gpus.values() if g.bf16_tflops_dense is None}
    assert {"v100-sxm2-32g", "v100-pcie-32g", "t4-16g"} <= no_bf16
    assert not {"a100-sxm-80g", "rtx-3090-24g", "rtx-4090-24g"} & no_bf16  # Ampere and Ada have BF16

    def options(precision: Precision, workload: Workload = Workload.inference) -> dict[str, Option]:
        req = Request.with_defaults(CAT.rules.defaults, workload=workload, arch=Arch.from_params(7, defaults=CAT.rules.memory.arch_defaults),
                      precision=precision, zero_stage=3)  # fmt: skip
        c = Constraints(usage=Usage.from_rules(CAT.rules))
        return {o.gpu.id: o for o in recommend(CAT, lambda g: size_workload(req, g, CAT.rules), workload, c).options}

    bf16, fp16, mixed = options(Precision.bf16), options(Precision.fp16), options(Precision.mixed, Workload.full)
    # vLLM's own words, not the engine's: the refusal names the format, the rule and the fix.
    mixed_as_fp16 = "混合精度按 FP16 计算加动态损失缩放"
    for gid in no_bf16:
        if bf16[gid].cards is not None:
            ex = bf16[gid].excluded
            assert ex is not None and ex.kind is ExclusionKind.unsupported_format
            why = explain(ex)
            assert why.startswith(f"{CAT.gpus[gid].name} 不支持 BF16") and "≥ 8.0" in why and why.endswith("改用 FP16")
            assert ex.params["instead"] == Reason(ReasonKind.format_instead, {"formats": "FP16"})
            assert why not in [explain(r) for r in bf16[gid].reasons]  # the page says it once, from the table
        assert getattr(fp16[gid].excluded, "kind", None) is not ExclusionKind.unsupported_format
        if mixed[gid].eligible:
            assert any(mixed_as_fp16 in explain(r) for r in mixed[gid].reasons)
    assert bf16["v100-pcie-32g"].cards == 1  # it fits: the refusal is the precision, not memory
    for gid in set(CAT.gpus) - no_bf16:
        assert getattr(bf16[gid].excluded, "kind", None) is not ExclusionKind.unsupported_format
        assert not any(mixed_as_fp16 in explain(r) for r in mixed[gid].reasons)


def test_model_pages_and_scenarios_follow_the_require_cuda_default() -> None:
    """rules.yaml defaults.require_cuda is the one switch for model pages, the calculator, the command
    line and scenarios that do not set their own: true rules out every non-NVIDIA card with the CUDA
    reason, false keeps them (each then says its code must move off CUDA)."""
    import dataclasses

    from generator.engine.recommend import scenario_requires_cuda
    from generator.engine.sizing import Sizer
    from generator.results.model_pages import model_page

    model = next(m for m in CAT.models.values() if m.kind.value == "llm")
    for flag in (True, False):
        rules = CAT.rules.model_copy(update={"defaults": CAT.rules.defaults.model_copy(update={"require_cuda": flag})})
        cat = dataclasses.replace(CAT, rules=rules)
        rec = model_page(cat, model, Workload.inference, Sizer(rules)).rec
        others = [o for o in rec.options if o.gpu.vendor.value != "NVIDIA"]
        assert others, "the bundled catalogue has non-NVIDIA cards"
        if flag:
            assert all(o.excluded and o.excluded.kind is ExclusionKind.needs_cuda for o in others)
        else:
            assert not any(o.excluded and o.excluded.kind is ExclusionKind.needs_cuda for o in others)
        unset = next(iter(CAT.scenarios.values())).model_copy(update={"require_cuda": None})
        assert scenario_requires_cuda(unset, rules) is flag
        assert scenario_requires_cuda(unset.model_copy(update={"require_cuda": not flag}), rules) is (not flag)


def test_an_offer_of_unstated_form_shows_the_form_as_unstated_not_the_rules_guess() -> None:
    """data/offers.yaml voltage-park-h100-sxm-80g-1x-from-2026-09 says ``delivery: unspecified`` (its
    source does not say). On Qwen3-30B-A3B's serving page it prices the H100 SXM option: the option shows
    the form as unstated while ``needed`` keeps the rule's (container), and the page's cheapest plan per
    delivery form never counts it as a form its source did not state."""
    from generator.engine.sizing import Sizer
    from generator.results.model_pages import model_page

    repo = Path(__file__).resolve().parent.parent
    cat, problems = load_catalogue(repo / "data", repo)
    assert cat is not None, problems
    offer = next(o for o in cat.offers if o.id == "voltage-park-h100-sxm-80g-1x-from-2026-09")
    assert offer.delivery is Delivery.unspecified
    page = model_page(cat, cat.models["qwen3-30b-a3b"], Workload.inference, Sizer(cat.rules))
    h100 = page.rec.option_for("h100-sxm-80g")
    assert h100 is not None and h100.offer is not None and h100.offer.id == offer.id
    assert h100.delivery is Delivery.unspecified and h100.needed is Delivery.container and h100.offer_is_fallback
    for form in (Delivery.container, Delivery.vm, Delivery.bare_metal):
        best = page.cheapest(form)
        assert best is None or (best.offer is not None and best.offer.delivery is form), form
