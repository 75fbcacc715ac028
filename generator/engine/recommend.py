"""Steps 2–4 for every GPU, then a ranking with the reasons.

For one workload this module sizes memory per card (:mod:`generator.engine.memory`),
finds the smallest valid card count on each GPU, applies the delivery rule
(:mod:`generator.engine.delivery`), prices a month and, for training jobs, the whole job
(:mod:`generator.engine.cost`, :mod:`generator.engine.speed`). Options that fit and have a price
always rank above those that do not; among them training jobs rank by the cost to
finish the job, everything else by the monthly total.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Fabric, Gpu, Offer, Scenario, Vendor, Workload
from generator.data.rules import Rules
from generator.engine import cost as costs
from generator.engine import plans, scaling, speed, support
from generator.engine.delivery import delivery_form
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.links import fabric_reason, link_reason, through_host
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.sizing import Sizer, Sizing, scenario_request, serving_limit
from generator.formats import cny

#: Sizes a workload on one GPU (see engine.sizing.size_workload).
SizingFor = Callable[[Gpu], Sizing]


@dataclass(frozen=True)
class Constraints:
    """What the buyer rules out, and how they use what they rent."""

    usage: costs.Usage
    domestic_only: bool = False
    require_cuda: bool = False
    budget_cny_month: float | None = None
    job_tokens_b: float | None = None
    pricing: costs.Pricing | None = None  # the catalogue's pricing, shared by every option (built if None)
    #: billing tiers the buyer accepts (a subset of rules.prices.pick_billing); None: every pickable tier
    billing: tuple[Billing, ...] | None = None
    #: a training job must finish within this many hours (plans scale out to meet it); None: no deadline
    deadline_hours: float | None = None
    #: image generation: images to make a month (plans rent enough copies); None: one instance
    images_per_month: float | None = None
    #: plans kept from the last evaluation of a long-lived process (serve); None: plan afresh
    plans: plans.PlanMemo | None = None
    #: serving: hold plans to rules.decision.latency_floor (False: a deployment plan at its guide's load)
    latency_floor: bool = True
    #: options kept from the last evaluation of a long-lived process (serve; :class:`OptionMemo`)
    options: OptionMemo | None = None


@dataclass(frozen=True)
class RunnerUp:
    """Another provider's best plan for the same GPU, by the same measure."""

    offer: Offer
    monthly: costs.MonthlyCost
    job_cost_cny: float | None  # training jobs: rent to finish the reference job
    cost_per_mtok_cny: float | None = None  # serving: yuan per million tokens at the stated load
    cost_per_kimage_cny: float | None = None  # image generation: yuan per 1,000 images


@dataclass
class Option:
    """One GPU evaluated for the workload.

    Complete when :func:`evaluate_gpu` returns it, and never changed after that: ``serve`` keeps it
    (:class:`OptionMemo`) and hands the same object to the next evaluation, whose pages take its
    last digest (generator.pages.files.CARRIED). Derive a changed option with ``dataclasses.replace``."""

    gpu: Gpu
    sizing: Sizing
    cards: int | None  # the fewest cards that hold the workload
    delivery: Delivery
    delivery_reason: Reason
    cards_billed: int | None = None  # cards the chosen offer rents (whole instances): what is paid for
    cards_used: int | None = None  # cards that work: the whole machine when that finishes a job sooner
    replicas: int = 1  # serving: copies of the model the rented cards run side by side
    offer: Offer | None = None
    offer_is_fallback: bool = False
    monthly: costs.MonthlyCost | None = None
    runner_ups: list[RunnerUp] = field(default_factory=list)  # other providers, cheapest first
    job_hours: float | None = None
    job_cost_cny: float | None = None
    decode_tokens_per_s: float | None = None
    served_tokens_per_s: float | None = None  # prompt + output tokens/s at the concurrency memory allows
    cost_per_mtok_cny: float | None = None  # per million prompt + output tokens at that concurrency
    cost_per_mtok_at_batch_cny: float | None = None  # the same at the request's own concurrency (batch)
    images_per_hour: float | None = None  # image generation: every rented card's copy together
    cost_per_kimage_cny: float | None = None  # GPU rent per 1,000 images at that rate
    excluded: Exclusion | None = None  # why the option cannot be the pick
    reasons: list[Reason] = field(default_factory=list)  # worded by the pages' message table
    needed: Delivery = Delivery.container  # the form the delivery rule asks for (the row shows the offer's)
    plan: plans.Plan | None = None  # the chosen plan (offer, instances, what it does)
    faster: plans.Plan | None = None  # a plan about as dear that finishes at least twice as fast
    measure_value: float | None = None  # the plan's worth by the workload's measure (lower is better)
    #: no source confirms the plan's format runs on this card (support.Verdict.confirmed; the note says why)
    unconfirmed_support: bool = False
    #: the measure rests on a speed figure no datasheet confirms (measure_unconfirmed, "†"): serving and
    #: image speed, or a training job's hours
    unconfirmed_speed: bool = False
    #: serving speed rests on the no-peer-to-peer rule (rules.yaml speed.decode.no_peer_to_peer, fitted on one
    #: A/B): tensor-parallel cards whose driver gives them no GPU peer-to-peer ("§" on the pages)
    extrapolated_speed: bool = False

    @property
    def load(self) -> plans.Load | None:
        """Serving: the plan's figures at the stated load (TTFT, per-user speed, cost per million tokens)."""
        return self.plan.load if self.plan is not None else None

    @property
    def eligible(self) -> bool:
        return self.excluded is None

    @property
    def tentative(self) -> bool:
        """The option's measure rests on something no source confirms (format support or a speed figure): it
        stays listed but ranks after every confirmed option, so it is the pick only when nothing else is."""
        return self.unconfirmed_support or self.unconfirmed_speed

    @property
    def idle_cards(self) -> int:
        """Rented cards that do no work."""
        if self.cards_billed is None or self.cards_used is None:
            return 0
        return max(0, self.cards_billed - self.cards_used)

    def sort_key(self, training_job: bool) -> tuple[float, ...]:
        """Eligible first, confirmed before tentative; then the workload's measure (job rent, cost per
        million tokens at the load, else the monthly total); then the monthly total; then fewer cards.
        ``training_job`` is kept for callers; the measure is the option's own."""
        del training_job
        rank_fit = 0 if self.cards is not None else 1
        primary = self.measure_value
        return (
            0 if self.eligible else 1,
            1 if self.tentative else 0,
            rank_fit,
            round(primary, 6) if primary is not None else float("inf"),
            round(self.monthly.total, 6) if self.monthly else float("inf"),
            float(self.cards or 1_000),
        )


@dataclass
class Recommendation:
    """The ranked options for one workload, pick first."""

    options: list[Option]
    training_job: bool

    @property
    def pick(self) -> Option | None:
        return self.options[0] if self.options and self.options[0].eligible else None

    @property
    def alternatives(self) -> list[Option]:
        return [o for o in self.options[1:] if o.eligible][:3]

    def option_for(self, gpu_id: str) -> Option | None:
        return next((o for o in self.options if o.gpu.id == gpu_id), None)


class OptionMemo:
    """Each GPU's option for a request, kept from one evaluation to the next for a long-lived process
    (``gpu-guide serve``): a one-price edit evaluates again only the edited GPU's options, not the other
    thirty-odd GPUs of every ranking.

    An option depends on the GPU, its sizing (kept alive and compared by identity, as
    :class:`generator.engine.sizing.SizingMemo` keeps it), the workload, the constraints, the rules, the
    pricing, the providers (their fabric) and that GPU's offers (all of them, for the reasons without a
    price). :meth:`start` forgets everything unless the rules, pricing and providers equal the last
    evaluation's, and takes a digest of each GPU's record and offers; a kept option is used only under the
    same digest. The option is kept with its reasons, which follow from it alone."""

    def __init__(self) -> None:
        self._basis: object = None
        self._offers: dict[str, bytes] = {}  # gpu id -> digest of its record and offers in this evaluation
        self._kept: dict[tuple[object, ...], tuple[Gpu, Sizing, Option]] = {}
        #: the last constraints asked about, and their part of the key (the memos themselves left out)
        self._constraints: tuple[Constraints | None, Constraints | None] = (None, None)

    def start(self, basis: object, cat: Catalogue) -> None:
        """Begin an evaluation of ``cat`` on ``basis`` (rules, pricing, providers)."""
        if basis != self._basis:
            self._kept.clear()
        self._basis = basis
        pickable = cat.pickable_offers
        self._offers = {
            gid: hashlib.sha256(
                pickle.dumps(
                    (
                        cat.gpus[gid],  # the record itself, so a kept option is never compared with it
                        cat.offers_for(gid),
                        [o.id for o in cat.current_for(gid)],
                        [o.id for o in pickable if o.gpu == gid],
                    ),
                    protocol=5,
                )
            ).digest()
            for gid in cat.gpus
        }

    def key(self, gpu: Gpu, sizing: Sizing, workload: Workload, c: Constraints) -> tuple[object, ...] | None:
        """The option's key, or None when this GPU is not in the evaluation begun by :meth:`start`."""
        offers = self._offers.get(gpu.id)
        if offers is None:
            return None
        if self._constraints[0] is not c:  # one ranking asks for every GPU with the same constraints
            self._constraints = (c, dataclasses.replace(c, pricing=None, plans=None, options=None))
        return (gpu.id, id(sizing), workload, self._constraints[1], offers)

    def get(self, key: tuple[object, ...], gpu: Gpu, sizing: Sizing) -> Option | None:
        kept = self._kept.get(key)
        if kept is None or kept[1] is not sizing:  # the key's digest covers the GPU's record
            return None
        # The kept object itself: an option is complete when evaluate_gpu returns it and nothing changes it
        # afterwards, so the pages' digests carry its digest to the next generation (pages.files.CARRIED).
        return kept[2]

    def put(self, key: tuple[object, ...], gpu: Gpu, sizing: Sizing, option: Option) -> None:
        self._kept[key] = (gpu, sizing, option)


def evaluate_gpu(gpu: Gpu, sizing_for: SizingFor, cat: Catalogue, workload: Workload, c: Constraints) -> Option:
    """Size one GPU, then find its cheapest plan by the workload's measure (:mod:`generator.engine.plans`).

    ``sizing_for(gpu)`` returns its :class:`Sizing`. Every current offer in an accepted billing tier is
    tried, at every instance count worth trying; the option shows the best plan and the best of each
    other provider. With ``c.options`` (serve) an option evaluated before from the same inputs is reused.
    """
    sizing: Sizing = sizing_for(gpu)
    memo = c.options
    key = memo.key(gpu, sizing, workload, c) if memo is not None else None
    if memo is not None and key is not None:
        kept = memo.get(key, gpu, sizing)
        if kept is not None:
            return kept
    opt = _evaluate_gpu(gpu, sizing, cat, workload, c)
    # Its reasons follow from the option alone (not from its place in a ranking), so they are kept with it.
    opt.reasons = _reasons(opt, _is_training_job(workload, c), cat.rules, lambda offer: _fabric(cat, offer))
    if memo is not None and key is not None:
        memo.put(key, gpu, sizing, opt)
    return opt


def _evaluate_gpu(gpu: Gpu, sizing: Sizing, cat: Catalogue, workload: Workload, c: Constraints) -> Option:
    rules: Rules = cat.rules
    cards = sizing.min_cards
    delivery, why = delivery_form(workload, cards or 1, rules.delivery, data_parallel_ok(workload, cards))
    opt = Option(gpu=gpu, sizing=sizing, cards=cards, delivery=delivery, delivery_reason=why, needed=delivery)
    if c.domestic_only and not gpu.domestic:
        opt.excluded = Exclusion(ExclusionKind.not_domestic)
        return opt
    if c.require_cuda and gpu.vendor is not Vendor.nvidia:
        opt.excluded = Exclusion(ExclusionKind.needs_cuda)
        return opt
    if cards is None:
        opt.excluded = thin_headroom(sizing, gpu, rules) or Exclusion(
            ExclusionKind.too_big, {"max_cards": sizing.max_cards}
        )
        return opt
    # The plan's number format must run on the card (rules.yaml support; BF16 on Volta/Turing, FP8
    # below Ada, Marlin kernels below Ampere ...): else the reason and the nearest format that runs.
    verdict = support.check_request(gpu, sizing.request, rules)
    if verdict.refusal is not None:
        opt.excluded = verdict.refusal
        return opt
    if delivery is Delivery.bare_metal and not links_cards(gpu, min(cards, rules.delivery.vm_whole_server_cards)):
        # The delivery rule's premise: sharded multi-card training needs a scale-up link.
        link = link_reason(gpu, cards, rules.delivery.vm_whole_server_cards)
        opt.excluded = Exclusion(ExclusionKind.no_scale_up_link, {"cards": cards, "link": link})
        return opt
    offers = [o for o in _accepted(cat, c) if o.gpu == gpu.id]
    if not offers:
        opt.excluded = _no_offer_reason(cat, gpu, delivery, c.billing)
        return opt
    pricing = c.pricing or costs.pricing_of(cat)
    measure = _measure(workload, sizing, c)
    need = plans.Need(workload, cards, measure, c.usage, c.deadline_hours, c.images_per_month, c.latency_floor)
    planner = plans.Planner(rules, pricing, links_cards, lambda o: _fabric(cat, o), c.plans)
    search = planner.search(offers, need, sizing, gpu)
    best = search.best
    if best is None:
        fewer = search.refusal in (plans.NoPlan.needs_fabric, plans.NoPlan.needs_link, None)
        opt.excluded = (fewer and thin_headroom(sizing, gpu, rules)) or _no_plan_reason(
            search.refusal, gpu, cards, c, rules, max(o.cards for o in offers)
        )
        return opt
    _apply(opt, best, measure)
    opt.unconfirmed_support = not verdict.confirmed
    opt.unconfirmed_speed = measure_unconfirmed(measure, workload, gpu)
    opt.extrapolated_speed = measure is plans.Measure.cost_per_mtok and _all_reduces_through_host(
        gpu, sizing, cards, rules
    )
    if measure is plans.Measure.job_rent:
        opt.faster = plans.faster_plan(search, rules.decision.faster_note_tolerance)
    opt.runner_ups = [
        RunnerUp(
            p.offer,
            p.monthly,
            p.job_cost_cny,
            p.load.cost_per_mtok_cny if p.load else None,
            p.images.cost_per_kimage_cny if p.images else None,
        )
        for p in plans.best_per_provider(search, best.offer.provider, rules.prices.runner_ups)
    ]
    if c.budget_cny_month is not None and best.monthly.total > c.budget_cny_month:
        opt.excluded = Exclusion(
            ExclusionKind.over_budget, {"total": cny(best.monthly.total), "budget": cny(c.budget_cny_month)}
        )
    return opt


def _all_reduces_through_host(gpu: Gpu, sizing: Sizing, cards: int, rules: Rules) -> bool:
    """Whether the serving speed's tensor-parallel all-reduces go through host memory (no peer-to-peer)."""
    runtime = sizing.request.runtime if sizing.request is not None else rules.defaults.runtime
    tp, _stages = speed.serving_layout(cards, runtime, rules)
    return tp > 1 and through_host(gpu, tp, rules.memory)


def thin_headroom(sizing: Sizing, gpu: Gpu, rules: Rules) -> Exclusion | None:
    """LLM serving that fits fewer cards only above the share of each card the runtime reserves
    (vLLM's gpu_memory_utilization, sizing.serving_limit_gib): the reason when the cards that share asks
    for give no plan."""
    if sizing.paper_cards is None or sizing.paper_need_gib is None or sizing.headroom_gib is None:
        return None
    return Exclusion(
        ExclusionKind.thin_headroom,
        {
            "paper_cards": sizing.paper_cards,
            "need_gib": f"{sizing.paper_need_gib:.1f}",
            "limit_gib": f"{sizing.headroom_gib:.1f}",
            "share": f"{sizing.headroom_gib / gpu.memory_gb:.0%}",
        },
    )


def speed_unconfirmed(gpu: Gpu) -> bool:
    """The card's serving or image speed rests on a bandwidth or 16-bit tensor figure no datasheet confirms
    (the pages mark it †)."""
    names = gpu.unconfirmed_names
    tensor = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
    return "memory_bandwidth_gbps" in names or tensor in names


def training_speed_unconfirmed(gpu: Gpu, workload: Workload) -> bool:
    """A training job's hours rest on a figure no datasheet confirms: the dense 16-bit tensor figure the
    compute runs at, or for QLoRA also the memory bandwidth its dequantization streams at (the pages mark
    it †)."""
    names = gpu.unconfirmed_names
    tensor = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
    return tensor in names or (workload is Workload.qlora and "memory_bandwidth_gbps" in names)


def measure_unconfirmed(measure: plans.Measure, workload: Workload, gpu: Gpu) -> bool:
    """Whether the option's ranking measure rests on an unconfirmed speed figure: cost per million tokens
    and per 1,000 images on the serving / image speed, job rent on the training speed; a monthly total
    does not depend on speed."""
    if measure in (plans.Measure.cost_per_mtok, plans.Measure.cost_per_kimage):
        return speed_unconfirmed(gpu)
    if measure is plans.Measure.job_rent:
        return training_speed_unconfirmed(gpu, workload)
    return False


def data_parallel_ok(workload: Workload, cards: int | None) -> bool:
    """Adapter training (LoRA / QLoRA) on any card count: the base is frozen, so the cards need no scale-up
    link (data parallel all-reduces only the adapters' gradients; a base too big for one card is sharded and
    gathered over PCIe, slower: speed.zero3_gather_seconds). ``cards`` is kept for callers."""
    del cards
    return workload in (Workload.lora, Workload.qlora)


def _measure(workload: Workload, sizing: Sizing, c: Constraints) -> plans.Measure:
    """What this workload's plans are ranked by."""
    if _is_training_job(workload, c) and sizing.job_hours is not None:
        return plans.Measure.job_rent
    if sizing.serving is not None:
        return plans.Measure.cost_per_mtok
    if sizing.image is not None:
        return plans.Measure.cost_per_kimage
    return plans.Measure.monthly


def _fabric_words(fabric: Fabric | None) -> Reason:
    """The record naming a provider's fabric (``fabric_any`` where none is stated)."""
    if fabric is None:
        return fabric_reason(None)
    return fabric_reason(scaling.cluster_of(1, fabric).fabric, fabric.gbps_per_gpu)


def _fabric(cat: Catalogue, offer: Offer) -> Fabric | None:
    """The cross-host fabric the offer's provider sells for its GPU's instance family (None: not stated)."""
    provider = cat.providers.get(offer.provider)
    return provider.fabric_for(offer.gpu) if provider is not None else None


def _apply(opt: Option, plan: plans.Plan, measure: plans.Measure) -> None:
    """Copy the chosen plan onto the option the pages read."""
    offer = plan.offer
    opt.offer, opt.monthly, opt.plan = offer, plan.monthly, plan
    opt.offer_is_fallback = offer.delivery is Delivery.unspecified
    opt.cards_billed, opt.cards_used, opt.replicas = plan.cards_billed, plan.cards_used, plan.replicas
    # the row shows the form of the offer used; an offer whose source states none stays unstated (never
    # the rule's guess: ``needed`` keeps the form the rule asks for)
    opt.delivery = offer.delivery
    opt.measure_value = plan.value(measure)
    if plan.job_hours is not None:
        opt.job_hours, opt.job_cost_cny = plan.job_hours, plan.job_cost_cny
    serving = opt.sizing.serving
    if plan.load is not None and serving is not None:
        hourly = plan.monthly.gpu_rent / max(plan.monthly.hours_used, 1e-9)
        opt.decode_tokens_per_s = serving.decode.tokens_per_s * plan.keep
        opt.served_tokens_per_s = serving.at_capacity.total_tokens_per_s * plan.keep * plan.replicas
        opt.cost_per_mtok_cny = speed.cost_per_million_tokens(opt.served_tokens_per_s, hourly)
        opt.cost_per_mtok_at_batch_cny = plan.load.cost_per_mtok_cny
    if plan.images is not None:
        opt.images_per_hour, opt.cost_per_kimage_cny = plan.images.images_per_hour, plan.images.cost_per_kimage_cny


def _no_plan_reason(
    kind: plans.NoPlan | None, gpu: Gpu, cards: int, c: Constraints, rules: Rules, largest: int
) -> Exclusion:
    """Why offers of this GPU exist but none gives a plan (``largest``: the most cards one of them rents).
    A job or copy that fits one server but finds only smaller instances lacks a multi-card offer, not a
    cluster fabric."""
    whole = rules.delivery.vm_whole_server_cards
    most = rules.decision.max_plan_cards  # a count: the message table writes its separators
    if kind is plans.NoPlan.needs_fabric and cards <= whole:
        return Exclusion(ExclusionKind.no_multi_card_offer, {"cards": cards, "largest": largest})
    if kind is plans.NoPlan.needs_fabric:
        return Exclusion(
            ExclusionKind.needs_fabric, {"cards": cards, "nodes": math.ceil(cards / whole), "whole": whole}
        )
    if kind is plans.NoPlan.deadline and c.deadline_hours is not None:
        return Exclusion(ExclusionKind.deadline, {"max_cards": most, "days": f"{c.deadline_hours / 24:g}"})
    if kind is plans.NoPlan.volume and c.images_per_month is not None:
        return Exclusion(ExclusionKind.volume, {"max_cards": most, "images": f"{c.images_per_month:,.0f}"})
    if kind is plans.NoPlan.too_slow:
        floor = rules.decision.latency_floor
        return Exclusion(
            ExclusionKind.too_slow,
            {"ttft_s": f"{floor.ttft_s:g}", "tokens_per_s": f"{floor.output_tokens_per_s:g}"},
        )
    return Exclusion(ExclusionKind.no_whole_server, {"cards": cards, "link": link_reason(gpu, cards, whole)})


def _accepted(cat: Catalogue, c: Constraints) -> list[Offer]:
    """The offers that may price an option: current, pickable, in a billing tier the buyer accepts."""
    if c.billing is None:
        return cat.pickable_offers
    return [o for o in cat.pickable_offers if o.billing in c.billing]


def _no_offer_reason(
    cat: Catalogue, gpu: Gpu, delivery: Delivery, billing: tuple[Billing, ...] | None = None
) -> Exclusion:
    """Why no offer prices this option: none at all, only history, only spot/reserved, none in the
    billing tiers the buyer accepts, or none in this form."""
    if not cat.offers_for(gpu.id):
        return Exclusion(ExclusionKind.no_offers)
    if not cat.current_for(gpu.id):
        return Exclusion(ExclusionKind.history_only, {"fresh_days": cat.rules.prices.fresh_days})
    if not any(o.gpu == gpu.id for o in cat.pickable_offers):
        return Exclusion(ExclusionKind.spot_only)
    if billing is not None and not any(o.gpu == gpu.id and o.billing in billing for o in cat.pickable_offers):
        return Exclusion(ExclusionKind.no_billing_tier, {"tiers": tuple(b.value for b in billing)})
    if delivery is Delivery.bare_metal:
        return Exclusion(ExclusionKind.no_whole_server_offer)
    return Exclusion(ExclusionKind.no_container_offer)


def links_cards(gpu: Gpu, cards: int) -> bool:
    """Whether ``cards`` cards of ``gpu`` are joined by a scale-up link (NVLink, Infinity Fabric, HCCS ...).

    SXM and OAM modules link all cards of a server; bridged PCIe cards (NVLink bridge,
    H100 NVL) link pairs only.
    """
    if gpu.interconnect is None:
        return False
    return gpu.has_nvlink_class_link or cards <= 2


def _is_training_job(workload: Workload, c: Constraints) -> bool:
    """Whether options are measured by the job's rent: a training workload with a job size."""
    return workload is not Workload.inference and c.job_tokens_b is not None


def recommend(cat: Catalogue, sizing_for: SizingFor, workload: Workload, c: Constraints) -> Recommendation:
    """Rank every GPU in the catalogue for this workload."""
    training_job = _is_training_job(workload, c)
    if c.pricing is None:
        c = dataclasses.replace(c, pricing=costs.pricing_of(cat))
    options = [evaluate_gpu(g, sizing_for, cat, workload, c) for g in cat.gpus.values()]
    options.sort(key=lambda o: (*o.sort_key(training_job), o.gpu.id))
    return Recommendation(options=options, training_job=training_job)


def for_scenario(cat: Catalogue, scenario: Scenario, sizer: Sizer | None = None) -> Recommendation:
    """The computed recommendation for one scenario of scenarios.yaml."""
    req = scenario_request(scenario, cat.models[scenario.model], cat.rules)
    c = Constraints(
        usage=scenario_usage(scenario, cat.rules),
        domestic_only=scenario.domestic_only,
        require_cuda=scenario_requires_cuda(scenario, cat.rules),
        budget_cny_month=scenario.budget_cny_month,
        job_tokens_b=scenario.job_tokens_b,
        deadline_hours=scenario.deadline_days * 24 if scenario.deadline_days is not None else None,
        images_per_month=scenario.images_per_month,
        plans=sizer.plans if sizer is not None else None,
        options=sizer.options if sizer is not None else None,
    )

    def sizing_for(gpu: Gpu) -> Sizing:
        return (sizer or Sizer(cat.rules)).size(req, gpu, scenario.job_tokens_b)

    return recommend(cat, sizing_for, scenario.workload, c)


def scenario_requires_cuda(scenario: Scenario, rules: Rules) -> bool:
    """Whether a scenario rules out non-NVIDIA accelerators: its own field, else rules.yaml's default."""
    return rules.defaults.require_cuda if scenario.require_cuda is None else scenario.require_cuda


def scenario_usage(scenario: Scenario, rules: Rules) -> costs.Usage:
    """A scenario's month of use, with rules.yaml's defaults where the scenario says nothing."""
    return costs.Usage.from_rules(
        rules, scenario.hours_per_month, scenario.disk_gb, scenario.egress_gb_month, scenario.public_ip
    )


def editor_disagreement(scenario: Scenario, rec: Recommendation) -> tuple[Reason, ...]:
    """Where the editor's pick differs from the computed one (empty when it does not): the GPU (with
    why the editor's card is out, if it is) and the delivery form the rule gives (with its reason)."""
    pick, ed = rec.pick, scenario.editor_pick
    if ed is None or pick is None:
        return ()
    parts: list[Reason] = []
    if ed.gpu != pick.gpu.id:
        mine = rec.option_for(ed.gpu)
        gpu: dict[str, Param] = {"editor": ed.gpu, "computed": pick.gpu.id}
        if mine and mine.excluded:
            gpu["excluded"] = mine.excluded
        parts.append(Reason(ReasonKind.editor_gpu, gpu))
    if ed.delivery is not pick.needed:
        # the rule's form (a whole-server cloud VM meets a bare-metal need, so the offer's form is not compared)
        form: dict[str, Param] = {"editor": ed.delivery.value, "rule": pick.needed.value, "why": pick.delivery_reason}
        parts.append(Reason(ReasonKind.editor_delivery, form))
    return tuple(parts)


def fallback_note(offer: Offer) -> Reason:
    """Why an option is priced with an offer of another delivery form (a fallback tier)."""
    if offer.delivery is Delivery.unspecified:
        return Reason(ReasonKind.fallback_unspecified)
    return Reason(ReasonKind.fallback_bare_metal, {"cards": offer.cards})


def form_note(offer: Offer, delivery: Delivery) -> Reason | None:
    """How an offer of another form serves the delivery the rules chose, or None."""
    if offer.delivery is Delivery.bare_metal and delivery is Delivery.container:
        return Reason(ReasonKind.form_bare_metal, {"cards": offer.cards})
    if offer.delivery is Delivery.vm and delivery is Delivery.container:
        return Reason(ReasonKind.form_vm_container)
    if offer.delivery is Delivery.vm and delivery is Delivery.bare_metal:
        return Reason(ReasonKind.form_vm_bare_metal, {"cards": offer.cards})
    return None


def _reasons(o: Option, training_job: bool, rules: Rules, fabric_of: plans.FabricOf) -> list[Reason]:
    """The reasons shown next to an option, as records (the pages' message table words them);
    ``fabric_of``: the fabric an offer's provider sells (a cluster names it)."""
    out: list[Reason] = []
    s = o.sizing
    if o.cards is not None:
        out.append(
            Reason(
                ReasonKind.memory,
                {"per_card_gib": f"{s.per_card_gib:.1f}", "usable_gib": f"{s.usable_gib:.1f}", "cards": o.cards},
            )
        )
    out.append(o.delivery_reason)
    if o.monthly is not None:
        bill = ReasonKind.month_by_use if o.monthly.billing is costs.BillingMode.by_use else ReasonKind.month_fixed
        month: dict[str, Param] = {
            "hours": f"{o.monthly.hours_used:,.0f}",
            "total": cny(o.monthly.total),
            "gpu_share": f"{1 - o.monthly.non_gpu_share:.0%}",
        }
        out.append(Reason(bill, month))
    plan = o.plan
    if plan is not None and plan.instances > 1 and o.cards is not None and plan.replicas < plan.instances:
        out.append(
            Reason(
                ReasonKind.cluster,
                {
                    "instances": plan.instances,
                    "server_cards": plan.offer.cards,
                    "cards_billed": plan.cards_billed,
                    "fabric": _fabric_words(fabric_of(plan.offer)),
                },
            )
        )
    elif o.cards is not None and o.cards_billed and o.cards_billed > o.cards:
        if o.idle_cards:
            out.append(Reason(ReasonKind.idle_cards, {"cards_billed": o.cards_billed, "idle_cards": o.idle_cards}))
        elif o.replicas > 1:
            out.append(Reason(ReasonKind.replicas, {"cards_billed": o.cards_billed, "replicas": o.replicas}))
        else:
            out.append(
                Reason(ReasonKind.whole_machine, {"cards_billed": o.cards_billed, "cards_used": o.cards_used or 0})
            )
    if training_job and o.job_hours is not None and o.job_cost_cny is not None:
        note = costs.minimum_rental_note(o.offer, o.job_hours, rules.cost) if o.offer is not None else None
        job: dict[str, Param] = {
            "cards": o.cards_used or 0,
            "hours": f"{o.job_hours:,.0f}",
            "rent": cny(o.job_cost_cny),
        }
        if note is not None:
            job["minimum"] = note
        out.append(Reason(ReasonKind.job, job))
    if o.faster is not None and o.faster.job_hours is not None and o.faster.job_cost_cny is not None:
        f = o.faster
        faster: dict[str, Param] = {
            "cards": f.cards_billed,
            "provider": f.offer.provider,
            "rent": cny(f.job_cost_cny),
            "hours": f"{f.job_hours:,.0f}",
        }
        out.append(Reason(ReasonKind.faster, faster))
    load = o.load
    if load is not None and o.cost_per_mtok_at_batch_cny is not None and s.serving is not None:
        c = s.serving.at_capacity
        at_load: dict[str, Param] = {
            "batch": s.request.batch if s.request else 1,
            "prompt_tokens": c.prompt_tokens,
            "output_tokens": c.output_tokens,
            "ttft_s": f"{load.ttft_s:,.2f}",
            "user_tokens_per_s": f"{load.user_tokens_per_s:,.1f}",
            "tokens_per_s": f"{load.tokens_per_s:,.0f}",
            "cost": cny(load.cost_per_mtok_cny, 2),
        }
        if load.copies > 1:
            at_load["copies"] = load.copies
        if s.request is not None:
            launch = speed.launch_reason(s.request, load.per_copy, s.request.context, rules)
            if launch is not None:
                at_load["launch"] = launch
        out.append(Reason(ReasonKind.serving_load, at_load))
    served = o.served_tokens_per_s
    if o.cost_per_mtok_cny is not None and served is not None and s.serving is not None and s.request is not None:
        c = s.serving.at_capacity
        full: dict[str, Param] = {
            "limit": serving_limit(s.request, s.serving, rules),
            "concurrency": c.concurrency,
            "tokens_per_s": f"{served:,.0f}",
            "cost": cny(o.cost_per_mtok_cny, 2),
        }
        if o.replicas > 1:
            full["replicas"] = o.replicas
        out.append(Reason(ReasonKind.serving_capacity, full))
    if o.images_per_hour is not None and o.cost_per_kimage_cny is not None:
        images: dict[str, Param] = {"per_hour": f"{o.images_per_hour:,.0f}", "cost": cny(o.cost_per_kimage_cny, 2)}
        img = o.plan.images if o.plan is not None else None
        if img is not None and img.volume is not None:
            images |= {"volume": f"{img.volume:,.0f}", "hours": f"{img.hours:,.1f}"}
        out.append(Reason(ReasonKind.images, images))
    if o.gpu.vendor is not Vendor.nvidia and not o.excluded:
        out.append(Reason(ReasonKind.not_cuda))
    if not o.excluded and (said := support.check_request(o.gpu, s.request, rules).note) is not None:
        out.append(Reason(ReasonKind.support_note, {"note": said}))  # how the format runs there (rules.yaml's words)
    if o.offer_is_fallback and o.offer is not None:
        out.append(fallback_note(o.offer))
    elif o.offer is not None and (note := form_note(o.offer, o.needed)) is not None:
        out.append(note)
    return out  # an excluded option's exclusion is said after these, from the page's message table
