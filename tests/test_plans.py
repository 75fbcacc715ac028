"""The decision is right: every pick is the cheapest plan by the workload's own measure.

The engine searches plans (whole instances of one offer) with a pruned search
(:mod:`generator.engine.plans`). These tests check the pruning against an exhaustive search over
every offer and every instance count up to a bound, price each plan with the same one-plan
functions, and compare: the pick must be the minimum of the page's own measure over all of them,
and every row's plan the cheapest for that GPU. Plans must be rentals someone sells: no job spread
over single-card rentals, no cluster without a provider's fabric.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import REPO, make_project, replace_in
from test_cost import PRICING
from test_cost import offer as make_offer

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, Offer, Precision, Workload
from generator.data.validate import load_catalogue
from generator.engine import cost as costs
from generator.engine import plans
from generator.engine.exclusion import ExclusionKind
from generator.engine.recommend import Option, Recommendation, _fabric, for_scenario, links_cards, scenario_usage
from generator.engine.sizing import Sizer
from generator.results.model_pages import model_page, model_pages, with_format_pages

#: Instance counts the exhaustive search tries per offer (beyond the pruned search's stopping point
#: for every bundled job).
EXHAUSTIVE = 48


def _catalogue(root: Path) -> Catalogue:
    cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, problems
    return cat


BUNDLED = _catalogue(REPO)


def _image_plans(
    planner: plans.Planner, offer: Offer, o: Option, need: plans.Need, volume: float | None
) -> list[plans.Plan]:
    """Image plans priced here, not by Planner.images: every card a copy of the pipeline; without a
    volume one instance at its throughput over the hours of use; with one, every count of instances
    (1..4·EXHAUSTIVE) that makes the month's images within the hours of use, priced by the rent to
    make them (cost.job_cost_cny) over the images."""
    assert o.sizing.image is not None
    keep = plans.keep_after(offer, planner.rules)
    per_instance = offer.cards * 3600 / o.sizing.image.seconds * keep
    if volume is None:
        monthly = costs.monthly_cost(offer, offer.cards, need.usage, planner.pricing)
        per_k = monthly.gpu_rent / monthly.hours_used / per_instance * 1000
        images = plans.Images(per_instance, per_k, monthly.hours_used)
        return [plans.Plan(offer, 1, offer.cards, offer.cards, monthly, keep, images=images)]
    out = []
    for n in range(1, 4 * EXHAUSTIVE + 1):
        hours = volume / (n * per_instance)
        if hours > need.usage.hours_per_month:
            continue
        rent = costs.job_cost_cny(offer, n * offer.cards, hours, planner.pricing)
        monthly = costs.monthly_cost(offer, n * offer.cards, need.usage, planner.pricing)
        images = plans.Images(n * per_instance, rent / volume * 1000, hours, volume)
        out.append(plans.Plan(offer, n, n * offer.cards, n * offer.cards, monthly, keep, images=images))
    return out


def _every_plan(
    cat: Catalogue,
    o: Option,
    workload: Workload,
    measure: plans.Measure,
    usage: costs.Usage,
    volume: float | None = None,
) -> list[plans.Plan]:
    """Every plan of every accepted offer of this GPU at 1..EXHAUSTIVE instances (serving and monthly
    plans: the engine's own one-offer answer, which has a single valid count)."""
    assert o.cards is not None
    planner = plans.Planner(cat.rules, costs.pricing_of(cat), links_cards, lambda x: _fabric(cat, x))
    need = plans.Need(workload, o.cards, measure, usage, images_per_month=volume)
    out: list[plans.Plan] = []
    for offer in (x for x in cat.pickable_offers if x.gpu == o.gpu.id):
        if measure is plans.Measure.cost_per_kimage:
            out += _image_plans(planner, offer, o, need, volume)
        elif measure is plans.Measure.job_rent:
            for n in range(1, EXHAUSTIVE + 1):
                if n * offer.cards < o.cards:
                    continue
                if n > 1 and not plans.spans_hosts_ok(offer, planner.has_fabric(offer), cat.rules):
                    break
                p = planner.training(offer, n, need, o.sizing, o.gpu)
                if isinstance(p, plans.Plan):
                    out.append(p)
        elif measure is plans.Measure.cost_per_mtok:
            p2 = planner.serving(offer, need, o.sizing, o.gpu)
            if isinstance(p2, plans.Plan):
                out.append(p2)
        else:
            p3 = planner.simple(offer, need, o.gpu)
            if isinstance(p3, plans.Plan):
                out.append(p3)
    return out


def _measure_of(o: Option, training_job: bool) -> plans.Measure:
    if training_job:
        return plans.Measure.job_rent
    if o.sizing.image is not None:
        return plans.Measure.cost_per_kimage
    return plans.Measure.cost_per_mtok if o.sizing.serving is not None else plans.Measure.monthly


def _check_recommendation(  # type: ignore[no-untyped-def]
    cat: Catalogue, rec, workload: Workload, usage: costs.Usage, where: str, volume: float | None = None
) -> None:
    best_overall = math.inf
    # Tentative options (unconfirmed format support or speed figures) rank after every confirmed one: the
    # pick is the cheapest confirmed plan, and a tentative one only when no confirmed option is eligible.
    sure = any(o.eligible and not o.tentative for o in rec.options)
    for o in rec.options:
        if o.plan is None or o.excluded:
            continue
        measure = _measure_of(o, rec.training_job)
        every = _every_plan(cat, o, workload, measure, usage, volume)
        assert every, (where, o.gpu.id)
        cheapest = min(round(p.value(measure), 6) for p in every)
        assert round(o.plan.value(measure), 6) == cheapest, (where, o.gpu.id, o.plan.offer.id, cheapest)
        if not (sure and o.tentative):
            best_overall = min(best_overall, cheapest)
    if rec.pick is not None:
        measure = _measure_of(rec.pick, rec.training_job)
        assert rec.pick.plan is not None
        assert round(rec.pick.plan.value(measure), 6) == best_overall, where


@pytest.mark.parametrize("scenario", sorted(BUNDLED.scenarios))
def test_bundled_scenario_pick_is_the_cheapest_plan_by_its_measure(scenario: str) -> None:
    s = BUNDLED.scenarios[scenario]
    rec = for_scenario(BUNDLED, s, Sizer(BUNDLED.rules))
    usage = scenario_usage(s, BUNDLED.rules)
    _check_recommendation(BUNDLED, rec, s.workload, usage, scenario, s.images_per_month)


def test_mini_scenarios_pick_the_cheapest_plan(tmp_path: Path) -> None:
    cat = _catalogue(make_project(tmp_path))
    for s in cat.scenarios.values():
        _check_recommendation(
            cat, for_scenario(cat, s), s.workload, scenario_usage(s, cat.rules), s.id, s.images_per_month
        )


@pytest.mark.parametrize(
    ("model", "workload"),
    [
        ("qwen2.5-7b", Workload.lora),
        ("llama-2-13b", Workload.full),
        ("llama-3.1-70b", Workload.inference),
        ("sdxl", Workload.inference),
        ("flux.1-dev", Workload.inference),
    ],
)
def test_bundled_model_page_pick_is_the_cheapest_plan(model: str, workload: Workload) -> None:
    page = model_page(BUNDLED, BUNDLED.models[model], workload, Sizer(BUNDLED.rules))
    _check_recommendation(
        BUNDLED, page.rec, workload, costs.Usage.from_rules(BUNDLED.rules), f"{model}/{workload.value}"
    )


def _check_every_model_page(cat: Catalogue) -> list[str]:
    """Every model page the site writes (main pages and per-format pages), checked at the page's own
    load and month of use (``page.usage``: the serving scenario's for serving pages); the slugs checked."""
    checked = []
    for page in with_format_pages(model_pages(cat, Sizer(cat.rules))):
        usage = page.usage if page.usage is not None else costs.Usage.from_rules(cat.rules)
        _check_recommendation(cat, page.rec, page.workload, usage, page.slug)
        checked.append(page.slug)
    return checked


def test_every_bundled_model_page_pick_is_the_cheapest_plan() -> None:
    """All model pages, the per-format pages (models/<id>-inference-<format>) included: each row's plan
    is the cheapest for its GPU over every plan the exhaustive search finds, and the pick the minimum
    of the page's own measure."""
    checked = _check_every_model_page(BUNDLED)
    formats = [s for s in checked if any(s.endswith(f"-inference-{f}") for f in ("fp8", "int4", "int8", "mxfp4"))]
    assert formats, "no per-format page was checked"


def test_the_check_catches_a_format_page_whose_pick_is_not_the_cheapest() -> None:
    """Control: on a per-format page, put the second eligible option first and the check fails."""
    page = model_page(BUNDLED, BUNDLED.models["llama-3.1-70b"], Workload.inference, Sizer(BUNDLED.rules))
    fp8 = next(p for p in page.format_pages if p.slug.endswith("-fp8"))
    eligible = [o for o in fp8.rec.options if o.eligible and o.plan is not None and not o.tentative]
    assert len(eligible) >= 2
    swapped = Recommendation(options=[eligible[1], eligible[0]], training_job=fp8.rec.training_job)
    assert fp8.usage is not None
    with pytest.raises(AssertionError):
        _check_recommendation(BUNDLED, swapped, Workload.inference, fp8.usage, fp8.slug)


def test_every_mini_model_page_pick_is_the_cheapest_plan(tmp_path: Path) -> None:
    assert _check_every_model_page(_catalogue(make_project(tmp_path)))


@pytest.mark.parametrize("model", ["gpt-oss-120b", "gpt-oss-20b"])
def test_unconfirmed_support_is_listed_but_never_carries_the_answers(model: str) -> None:
    """vLLM's gpt-oss recipe names Ada and the RTX 5090 as still being worked on ("actively working on
    ensuring this model can work on ... Ada Lovelace, and RTX 5090"): those options stay listed, with the
    note, but the pick, the cheapest per million tokens and the cheapest per delivery form are confirmed
    options whenever one is eligible."""
    page = model_page(BUNDLED, BUNDLED.models[model], Workload.inference, Sizer(BUNDLED.rules))
    eligible = [o for o in page.rec.options if o.eligible]
    ada = [o for o in eligible if o.gpu.compute_capability in (8.9, 12.0)]
    assert ada and all(o.unconfirmed_support for o in ada)  # listed, marked
    assert all(any("未经确认" in str(r.params.get("note", "")) for r in o.reasons) for o in ada)  # the note
    assert not any(o.unconfirmed_support for o in eligible if o.gpu.compute_capability in (8.0, 9.0, 10.0))
    pick = page.rec.pick
    assert pick is not None and not pick.tentative
    best = page.cheapest_per_token()
    assert best is not None and not best.tentative
    for delivery in Delivery:
        confirmed = [o for o in eligible if o.delivery is delivery and o.monthly and not o.tentative]
        chosen = page.cheapest(delivery)
        if confirmed:
            assert chosen is not None and not chosen.tentative, delivery


def test_a_tentative_option_is_the_pick_only_when_nothing_is_confirmed() -> None:
    """The ranking puts every tentative option after the confirmed ones (a control for the rule above:
    with the confirmed options ruled out, the best tentative one is picked, not nothing)."""
    page = model_page(BUNDLED, BUNDLED.models["gpt-oss-120b"], Workload.inference, Sizer(BUNDLED.rules))
    ranked = [o for o in page.rec.options if o.eligible]
    flags = [o.tentative for o in ranked]
    assert flags == sorted(flags), [o.gpu.id for o in ranked]  # confirmed first, then tentative
    only = [o for o in page.rec.options if o.tentative]
    assert Recommendation(only, training_job=False).pick is only[0]


@pytest.mark.parametrize(("model", "workload"), [("llama-3.1-70b", Workload.inference), ("qwen2.5-7b", Workload.lora)])
def test_the_cheapest_card_answer_says_what_the_ranking_measures(model: str, workload: Workload) -> None:
    """The FAQ's "用哪张卡最省钱" answer names the page's measure: serving ranks by yuan per million tokens at
    the page's load (so it says the load and that figure, not "per month" alone); a training job by its rent."""
    from generator.formats import cny
    from generator.pages.plan import _cheapest_faq

    page = model_page(BUNDLED, BUNDLED.models[model], workload, Sizer(BUNDLED.rules))
    pick = page.rec.pick
    assert pick is not None
    [(question, answer)] = _cheapest_faq(page, page.model.name, "")
    assert "最省钱" in question
    if workload is Workload.inference:
        assert pick.cost_per_mtok_at_batch_cny is not None
        assert f"{page.request.batch} 路并发" in answer and "每百万 token 成本最低" in answer
        assert f"{cny(pick.cost_per_mtok_at_batch_cny, 2)}/百万 token" in answer
        assert f"按用 {pick.monthly.hours_used:,.0f} 小时" in answer  # type: ignore[union-attr]
    else:
        assert pick.job_cost_cny is not None and page.job_tokens_b is not None
        assert f"完成参照任务（{page.job_tokens_b:g}B token）租金最低" in answer and cny(pick.job_cost_cny) in answer


def test_one_job_one_price_on_the_scenario_and_the_model_page() -> None:
    """Scenario lora-7b and the Qwen2.5-7B LoRA model page size the same job: same rent per GPU."""
    s = BUNDLED.scenarios["lora-7b"]
    sizer = Sizer(BUNDLED.rules)
    scen = for_scenario(BUNDLED, s, sizer)
    page = model_page(BUNDLED, BUNDLED.models[s.model], s.workload, sizer).rec
    spec = BUNDLED.rules.pages.model_pages.lora
    assert (spec.context, spec.job_tokens_b, spec.batch) == (s.context, s.job_tokens_b, s.batch)
    compared = 0
    for o in scen.options:
        other = page.option_for(o.gpu.id)
        if o.job_cost_cny is None or other is None or other.job_cost_cny is None:
            continue
        assert o.job_cost_cny == pytest.approx(other.job_cost_cny), o.gpu.id
        compared += 1
    assert compared >= 5


def test_plans_are_rentals_someone_sells() -> None:
    """A job never spans single-card rentals; a plan over several instances uses whole servers of a
    provider that sells a fabric between them."""
    sizer = Sizer(BUNDLED.rules)
    for s in BUNDLED.scenarios.values():
        for o in for_scenario(BUNDLED, s, sizer).options:
            p = o.plan
            if p is None or p.instances in (1, p.replicas):
                continue
            assert p.offer.cards >= BUNDLED.rules.delivery.vm_whole_server_cards, (s.id, o.gpu.id)
            assert p.offer.delivery in (Delivery.bare_metal, Delivery.vm), (s.id, o.gpu.id)
            assert BUNDLED.providers[p.offer.provider].fabric_for(p.offer.gpu) is not None, (s.id, o.gpu.id)


def test_without_a_fabric_a_job_too_big_for_one_server_has_no_plan(tmp_path: Path) -> None:
    """Mini fixture: take the cluster network away and the multi-node plans go, with the reason."""
    root = make_project(tmp_path, lambda d: replace_in(d / "providers.yaml", "    fabric:\n", "    fabric_gone:\n"))
    text = (root / "data" / "providers.yaml").read_text(encoding="utf-8")
    # drop the whole fabric block so the file stays valid
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("    fabric_gone:"))
    del lines[start : start + 5]
    (root / "data" / "providers.yaml").write_text("".join(lines), encoding="utf-8")
    cat = _catalogue(root)
    for s in cat.scenarios.values():
        for o in for_scenario(cat, s).options:
            if o.plan is not None:
                assert o.plan.instances in (1, o.plan.replicas), (s.id, o.gpu.id)


def test_a_need_within_one_server_without_a_multi_card_offer_is_not_a_missing_fabric(tmp_path: Path) -> None:
    """Mini fixture: the RTX 4090 is sold one card at a time, and Llama-2-13B LoRA needs 2 cards (the
    golden page's row). Two cards fit one server: what is missing is a 2-card instance, not a cluster
    network. Beyond one server (16 cards) the reason stays the fabric."""
    from generator.data.records import Workload as W
    from generator.engine.recommend import Constraints, _no_plan_reason

    cat = _catalogue(make_project(tmp_path))
    page = model_page(cat, cat.models["llama-2-13b"], W.lora, Sizer(cat.rules))
    row = page.rec.option_for("rtx-4090-24g")
    assert row is not None and row.excluded is not None and row.cards == 2
    assert row.excluded.kind is ExclusionKind.no_multi_card_offer
    assert row.excluded.params == {"cards": 2, "largest": 1}
    gpu, c = cat.gpus["rtx-4090-24g"], Constraints(usage=costs.Usage.from_rules(cat.rules))
    whole = cat.rules.delivery.vm_whole_server_cards
    at_whole = _no_plan_reason(plans.NoPlan.needs_fabric, gpu, whole, c, cat.rules, 1)
    beyond = _no_plan_reason(plans.NoPlan.needs_fabric, gpu, whole + 8, c, cat.rules, 1)
    assert at_whole.kind is ExclusionKind.no_multi_card_offer
    assert beyond.kind is ExclusionKind.needs_fabric and beyond.params["nodes"] == 2


def test_a_deadline_scales_out_and_is_met(tmp_path: Path) -> None:
    """Mini fixture with a fabric: a pre-training job with a tight deadline rents more nodes and ends in time."""
    cat = _catalogue(make_project(tmp_path))
    job = next((s for s in cat.scenarios.values() if s.job_tokens_b and s.workload is not Workload.lora), None)
    assert job is not None
    free = for_scenario(cat, job)
    assert free.pick is not None and free.pick.job_hours is not None
    days = free.pick.job_hours / 24 / 3
    rushed = for_scenario(cat, job.model_copy(update={"deadline_days": days}))
    assert rushed.pick is not None and rushed.pick.job_hours is not None
    assert rushed.pick.job_hours <= days * 24 + 1e-9
    assert (rushed.pick.cards_used or 0) > (free.pick.cards_used or 0)
    impossible = for_scenario(cat, job.model_copy(update={"deadline_days": 1e-4}))
    assert impossible.pick is None
    assert any(o.excluded and o.excluded.kind is ExclusionKind.deadline for o in impossible.options)


def test_serving_plans_meet_the_latency_floor() -> None:
    floor = BUNDLED.rules.decision.latency_floor
    s = BUNDLED.scenarios["llm-serving"]
    rec = for_scenario(BUNDLED, s, Sizer(BUNDLED.rules))
    served = [o for o in rec.options if o.load is not None and not o.excluded]
    assert served
    for o in served:
        assert o.load is not None
        assert o.load.ttft_s <= floor.ttft_s and o.load.user_tokens_per_s >= floor.output_tokens_per_s


@pytest.mark.parametrize("volume", [None, 5e4, 1e6])
def test_image_plans_make_the_volume_and_rank_by_cost_per_thousand(volume: float | None) -> None:
    """The image scenario at several monthly volumes: every row's plan is the cheapest per 1,000 images
    over every instance count and makes the volume within the hours of use."""
    s = BUNDLED.scenarios["image-generation"].model_copy(update={"images_per_month": volume})
    rec = for_scenario(BUNDLED, s, Sizer(BUNDLED.rules))
    usage = scenario_usage(s, BUNDLED.rules)
    _check_recommendation(BUNDLED, rec, s.workload, usage, f"image-generation at {volume}", volume)
    rows = [o for o in rec.options if o.plan is not None and not o.excluded]
    assert len(rows) >= 5
    for o in rows:
        assert o.plan is not None and o.images_per_hour is not None and o.cost_per_kimage_cny is not None
        assert o.plan.replicas == o.plan.cards_billed  # every rented card runs a copy
        if volume is None:
            assert o.plan.instances == 1
            continue
        assert o.plan.images is not None and o.plan.images.hours <= usage.hours_per_month + 1e-9
        assert o.images_per_hour * o.plan.images.hours == pytest.approx(volume)
    if volume == 1e6:
        assert any(o.plan is not None and o.plan.instances > 1 for o in rows)


def test_sharded_training_takes_bare_metal_and_whole_server_vms_with_a_stated_variant() -> None:
    """Multi-card sharded training needs the cards of one linked machine: bare metal, a cloud VM of a
    whole 8-card server, or (priced as a fallback) a whole server of unstated form; never a
    container, a 1-card VM, or an offer whose GPU variant (PCIe or SXM) the source leaves unstated."""
    rules = BUNDLED.rules
    assert rules.delivery.vm_whole_server_cards == 8
    linked = {
        "n": make_offer(id="n", delivery="bare_metal", cards=8, price=9600, unit="month"),
        "vm8": make_offer(id="vm8", delivery="vm", cards=8, price=30),
        "u8": make_offer(id="u8", delivery="unspecified", cards=8, price=25),
    }
    unlinked = {
        "vm1": make_offer(id="vm1", delivery="vm", cards=1, price=3),
        "u1": make_offer(id="u1", delivery="unspecified", cards=1, price=2),
        "x": make_offer(id="x", delivery="bare_metal", cards=8, price=5000, unit="month", variant_unstated=True),
        "c": make_offer(id="c", delivery="container", price=2),
    }
    assert all(plans.linked_form(o, rules) for o in linked.values())
    assert not any(plans.linked_form(o, rules) for o in unlinked.values())


def test_the_month_measure_picks_hourly_for_light_use_and_monthly_for_heavy_use() -> None:
    hourly = make_offer(id="h", price=2.0)
    monthly = make_offer(id="m", price=1000, unit="month", billing="monthly")
    planner = plans.Planner(BUNDLED.rules, PRICING, links_cards, lambda _o: None)

    def ranked(hours: float) -> list[str]:
        need = plans.Need(Workload.inference, 1, plans.Measure.monthly, costs.Usage(hours, 0, 0, False))
        found = [planner.simple(o, need, BUNDLED.gpus["rtx-4090-24g"]) for o in (monthly, hourly)]
        got = sorted((p for p in found if isinstance(p, plans.Plan)), key=lambda p: p.key(need.measure))
        return [p.offer.id for p in got]

    assert ranked(200) == ["h", "m"]  # 400 < 1000
    assert ranked(700) == ["m", "h"]  # 1400 > 1000


def test_a_multi_node_job_crosses_the_offer_providers_fabric() -> None:
    """plans.py passes each offer's fabric to the job time: an A100 pre-training job on 1,024 8-card servers
    (8,192 cards, 4x the 2,048 A100 its MFU holds on) keeps 0.955^2 of linear speed-up over InfiniBand and
    0.93^2 over RoCE (hand-worked from rules.yaml's per-doubling figures); 256 servers (2,048) lose nothing.
    Without a fabric the job stays on one server."""
    from generator.data.records import Fabric
    from generator.engine.request import Request
    from generator.engine.sizing import arch_for

    gpu = BUNDLED.gpus["a100-sxm-80g"]
    model = BUNDLED.models["llama-2-7b"]
    req = Request.with_defaults(
        BUNDLED.rules.defaults, Workload.pretrain, arch_for(model, BUNDLED.rules), Precision.bf16
    )
    sizing = Sizer(BUNDLED.rules).size(req, gpu, 1000.0)
    assert sizing.min_cards is not None
    node = make_offer(id="n", gpu=gpu.id, delivery="bare_metal", cards=8, price=80)

    def fabric(kind: str) -> Fabric:
        return Fabric.model_validate(
            {"kind": kind, "gbps_per_gpu": 400, "source": "https://example.com/", "quote": "400G per GPU"}
        )

    need = plans.Need(Workload.pretrain, sizing.min_cards, plans.Measure.job_rent, costs.Usage(730, 0, 0, False))

    def hours(kind: str | None, servers: int) -> float:
        planner = plans.Planner(BUNDLED.rules, PRICING, links_cards, lambda _o: fabric(kind) if kind else None)
        p = planner.training(node, servers, need, sizing, gpu)
        assert isinstance(p, plans.Plan) and p.job_hours is not None
        return p.job_hours

    base = hours("infiniband", 256)
    assert hours("roce", 256) == pytest.approx(base)  # within the measured size the fabric costs nothing
    assert hours("infiniband", 1024) == pytest.approx(base * 256 / (1024 * 0.955**2))
    assert hours("roce", 1024) == pytest.approx(base * 256 / (1024 * 0.93**2))
    none = plans.Planner(BUNDLED.rules, PRICING, links_cards, lambda _o: fabric("none"))
    found = none.job_plans(node, need, sizing, gpu)
    assert not isinstance(found, plans.NoPlan) and all(p.instances == 1 for p in found)


def test_an_instance_family_with_its_own_fabric_overrides_the_providers(tmp_path: Path) -> None:
    """AWS sells 400 Gbit/s of EFA per P4d instance (8 x A100: 50 per GPU) and 3,200 per P5 (8 x H100:
    400 per GPU). Mini fixture: the cloud's A100 servers get a P4d-like family at 50; its H100 servers keep
    the provider's 400 InfiniBand. The planner and the calculator's offers read each offer's own fabric;
    a family naming an unknown GPU is refused at its line."""
    from generator.pages.calculator import _offer

    family = (
        "    family_fabrics:\n"
        "      - family: P4d-like\n"
        "        gpus: [a100-sxm-80g]\n"
        "        kind: efa\n"
        "        gbps_per_gpu: 50\n"
        "        source: https://example.com/p4d\n"
        "        quote: 400 Gbps per instance\n"
        "    extras:\n"
    )
    root = make_project(tmp_path, lambda d: replace_in(d / "providers.yaml", "    extras:\n", family))
    cat = _catalogue(root)
    a100 = next(o for o in cat.offers if o.gpu == "a100-sxm-80g" and o.provider == "fixture-cloud")
    h100 = next(o for o in cat.offers if o.gpu == "h100-sxm-80g" and o.provider == "fixture-cloud")
    a_fabric, h_fabric = _fabric(cat, a100), _fabric(cat, h100)
    assert a_fabric is not None and (a_fabric.kind.value, a_fabric.gbps_per_gpu) == ("efa", 50)
    assert h_fabric is not None and (h_fabric.kind.value, h_fabric.gbps_per_gpu) == ("infiniband", 400)
    assert _offer(cat, a100)["fabric"] == {"kind": "efa", "gbps_per_gpu": 50}
    assert _offer(cat, h100)["fabric"] == {"kind": "infiniband", "gbps_per_gpu": 400}

    bad = make_project(
        tmp_path / "bad",
        lambda d: replace_in(d / "providers.yaml", "    extras:\n", family.replace("[a100-sxm-80g]", "[a100-sxm-8g]")),
    )
    cat2, problems = load_catalogue(bad / "data", bad)
    assert cat2 is None
    # the fixture's provider opens on line 2; its fabric takes lines 7-11, the family 12-18: gpus is line 14
    assert [(p.line, p.path) for p in problems if "a100-sxm-8g" in p.message] == [
        (14, "providers[0].family_fabrics[0].gpus[0]")
    ]


def test_a_training_job_on_an_unconfirmed_tensor_figure_ranks_after_confirmed_ones(tmp_path: Path) -> None:
    """The tentative rule covers training: a job's hours (so its rent) rest on the card's dense 16-bit tensor
    figure. Mini fixture, full-13b (a 1B-token job): mark the A100's BF16 figure unconfirmed and the A100 no
    longer outranks the H100, however cheap its job; it stays listed, tentative (†), after it. Without a
    job (ranked by the month) speed does not enter the measure and nothing is tentative."""
    root = make_project(
        tmp_path,
        lambda d: replace_in(
            d / "gpus.yaml",
            "    compute_capability: 8.0\n",
            "    compute_capability: 8.0\n    unconfirmed: [bf16_tflops_dense]\n",
        ),
    )
    cat = _catalogue(root)
    assert cat.gpus["a100-sxm-80g"].unconfirmed_names == {"bf16_tflops_dense"}
    rec = for_scenario(cat, cat.scenarios["full-13b"])
    assert rec.training_job
    a100, h100 = rec.option_for("a100-sxm-80g"), rec.option_for("h100-sxm-80g")
    assert a100 is not None and h100 is not None and a100.eligible and h100.eligible
    assert a100.tentative and a100.unconfirmed_speed and not h100.tentative
    assert rec.pick is h100
    order = [o.gpu.id for o in rec.options if o.eligible]
    assert order.index("h100-sxm-80g") < order.index("a100-sxm-80g")
    monthly = for_scenario(cat, cat.scenarios["full-13b"].model_copy(update={"job_tokens_b": None}))
    assert not any(o.tentative for o in monthly.options)


def test_adapter_training_too_big_for_one_pcie_card_is_slower_not_excluded() -> None:
    """A 13B LoRA needs two 24 GB cards: on RTX 4090s (PCIe only) it trains on an 8-card box, its frozen
    base sharded and gathered over PCIe (slower), instead of being refused for want of NVLink; full
    fine-tuning of the same model on the same cards keeps the scale-up rule."""
    sizer = Sizer(BUNDLED.rules)
    lora = BUNDLED.scenarios["lora-7b"].model_copy(update={"model": "llama-2-13b", "workload": Workload.lora})
    full = lora.model_copy(update={"workload": Workload.full, "precision": Precision.mixed, "lora_rank": None})
    o = for_scenario(BUNDLED, lora, sizer).option_for("rtx-4090-24g")
    assert o is not None and o.cards is not None and o.cards >= 2
    assert o.excluded is None or o.excluded.kind not in (ExclusionKind.no_scale_up_link, ExclusionKind.no_whole_server)
    assert o.plan is not None and o.plan.cards_used >= o.cards and o.job_hours is not None
    f = for_scenario(BUNDLED, full, sizer).option_for("rtx-4090-24g")
    assert f is not None and f.excluded is not None and f.excluded.kind is ExclusionKind.no_scale_up_link


def test_a_serving_plan_without_headroom_is_not_picked() -> None:
    """vLLM reserves 90 % of a card's memory by default (rules.yaml memory.inference.runtimes.vllm
    gpu_memory_utilization, vLLM's CacheConfig default): serving is sized
    so each card needs at most 0.9 x its memory. Qwen3-14B in BF16 needs about 29-30 GiB on one card, over
    0.9 x 32 = 28.8 GiB of an RTX 5090, so it takes 2 cards (a copy per card pair of an 8-card box), and with
    only hourly single-card offers accepted the 5090 is listed with the typed reason, not picked. Qwen2.5-72B
    on A100 80GB (73 GiB a card on 2, over 72) takes 4 cards instead. Every eligible option stays within
    90 % of its memory."""
    from generator.data.records import Billing, Runtime
    from generator.engine.recommend import Constraints, recommend
    from generator.engine.sizing import scenario_request
    from generator.pages.messages import explain

    share = BUNDLED.rules.memory.inference.runtimes[Runtime.vllm].gpu_memory_utilization
    assert share == 0.9
    base = BUNDLED.scenarios["llm-serving"]
    s = base.model_copy(update={"model": "qwen3-14b", "precision": Precision.bf16, "batch": 1, "context": None})
    rec = for_scenario(BUNDLED, s, Sizer(BUNDLED.rules))
    o = rec.option_for("rtx-5090-32g")
    assert o is not None and o.sizing.paper_cards == 1 and o.cards == 2
    assert o.sizing.paper_need_gib is not None and 28.8 < o.sizing.paper_need_gib <= 32 * 0.96  # fits on paper
    assert o.sizing.usable_gib == pytest.approx(28.8)  # what vLLM leaves the model
    assert o.plan is None or o.plan.offer.cards >= 2  # never one copy on a single 32 GB card
    for x in rec.options:
        if x.eligible:
            assert x.sizing.per_card_gib <= x.gpu.memory_gb * share, x.gpu.id
    # only hourly offers (single-card containers for the 5090): no plan at 2 cards, and the reason says why
    sizer, req = Sizer(BUNDLED.rules), scenario_request(s, BUNDLED.models["qwen3-14b"], BUNDLED.rules)
    hourly = Constraints(usage=scenario_usage(s, BUNDLED.rules), require_cuda=True, billing=(Billing.on_demand,))
    only = recommend(BUNDLED, lambda g: sizer.size(req, g), Workload.inference, hourly).option_for("rtx-5090-32g")
    assert only is not None and only.excluded is not None and only.excluded.kind is ExclusionKind.thin_headroom
    assert only.excluded.params["limit_gib"] == "28.8" and only.excluded.params["share"] == "90%"
    assert only.excluded.params["paper_cards"] == 1 and "28.8 GiB" in explain(only.excluded)
    big = base.model_copy(update={"model": "qwen2.5-72b", "precision": Precision.bf16, "batch": 1, "context": None})
    a100 = for_scenario(BUNDLED, big, Sizer(BUNDLED.rules)).option_for("a100-pcie-80g")
    assert a100 is not None and a100.sizing.paper_cards == 2 and a100.cards == 4
    assert a100.sizing.per_card_gib <= 80 * share


def test_gpu_pages_count_the_cards_the_plans_size() -> None:
    """A GPU page's "which models fit" table (results.model_pages.cards_to_fit) and the serving plan for
    the same model page request count the same cards: both inside the runtime's reserved share (vLLM
    0.9). Qwen3-14B in BF16 on an RTX 5090 fits one card only at the plain 0.96 share (about 30 of 30.7
    GiB, over 0.9 x 32 = 28.8), so both say 2; the GPU page once said 1 while the plan rented 2."""
    from generator.engine.sizing import size_workload
    from generator.results.model_pages import cards_to_fit, page_request

    sizer = Sizer(BUNDLED.rules)
    table = cards_to_fit(BUNDLED, sizer)
    for gpu in BUNDLED.gpus.values():
        for model, cards in table[gpu.id]:
            req = page_request(BUNDLED, model, Workload.inference)
            assert cards == size_workload(req, gpu, BUNDLED.rules, None, sizer).min_cards, (gpu.id, model.id)
    five = dict((m.id, c) for m, c in table["rtx-5090-32g"])
    assert five["qwen3-14b"] == 2
