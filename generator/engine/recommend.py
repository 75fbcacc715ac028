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
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Fabric, Gpu, Offer, Scenario, Vendor, Workload
from generator.data.rules import Rules
from generator.engine import cost as costs
from generator.engine import plans, speed, support
from generator.engine.delivery import delivery_form
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.links import describe_link
from generator.engine.sizing import Sizer, Sizing, scenario_request
from generator.formats import cny

#: Said of every non-NVIDIA option that stays eligible (the buyer did not ask for CUDA only).
NOT_CUDA = "这张卡不支持 CUDA：基于 PyTorch/CUDA 的代码要迁移到厂商自己的软件栈（如昇腾 CANN、AMD ROCm）才能跑"

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
    """One GPU evaluated for the workload."""

    gpu: Gpu
    sizing: Sizing
    cards: int | None  # the fewest cards that hold the workload
    delivery: Delivery
    delivery_reason: str
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
    reasons: list[str] = field(default_factory=list)
    needed: Delivery = Delivery.container  # the form the delivery rule asks for (the row shows the offer's)
    plan: plans.Plan | None = None  # the chosen plan (offer, instances, what it does)
    faster: plans.Plan | None = None  # a plan about as dear that finishes at least twice as fast
    measure_value: float | None = None  # the plan's worth by the workload's measure (lower is better)

    @property
    def load(self) -> plans.Load | None:
        """Serving: the plan's figures at the stated load (TTFT, per-user speed, cost per million tokens)."""
        return self.plan.load if self.plan is not None else None

    @property
    def eligible(self) -> bool:
        return self.excluded is None

    @property
    def idle_cards(self) -> int:
        """Rented cards that do no work."""
        if self.cards_billed is None or self.cards_used is None:
            return 0
        return max(0, self.cards_billed - self.cards_used)

    @property
    def cards_label(self) -> str:
        """Cards in words for tables: "4", "8（用满整机）", "1（整机 8 张，7 张闲置）"."""
        if self.cards is None:
            return "装不下"
        if not self.cards_billed or self.cards_billed == self.cards:
            return str(self.cards)
        if self.idle_cards == 0:
            return (
                f"{self.cards_used}（用满整机）"
                if self.replicas == 1
                else f"{self.cards}（整机 {self.cards_billed} 张，{self.replicas} 份副本）"
            )
        return f"{self.cards}（整机 {self.cards_billed} 张，{self.idle_cards} 张闲置）"

    def sort_key(self, training_job: bool) -> tuple[float, ...]:
        """Eligible first; then the workload's measure (job rent, cost per million tokens at the load,
        else the monthly total); then the monthly total; then fewer cards. ``training_job`` is kept
        for callers; the measure is the option's own."""
        del training_job
        rank_fit = 0 if self.cards is not None else 1
        primary = self.measure_value
        return (
            0 if self.eligible else 1,
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


def evaluate_gpu(gpu: Gpu, sizing_for: SizingFor, cat: Catalogue, workload: Workload, c: Constraints) -> Option:
    """Size one GPU, then find its cheapest plan by the workload's measure (:mod:`generator.engine.plans`).

    ``sizing_for(gpu)`` returns its :class:`Sizing`. Every current offer in an accepted billing tier is
    tried, at every instance count worth trying; the option shows the best plan and the best of each
    other provider.
    """
    rules: Rules = cat.rules
    sizing: Sizing = sizing_for(gpu)
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
    if (refusal := support.check_request(gpu, sizing.request, rules).refusal) is not None:
        opt.excluded = Exclusion(ExclusionKind.unsupported_format, {"refusal": refusal})
        return opt
    if delivery is Delivery.bare_metal and not links_cards(gpu, min(cards, rules.delivery.vm_whole_server_cards)):
        # The delivery rule's premise: sharded multi-card training needs a scale-up link.
        link = describe_link(gpu, cards)
        link = (" " if link[:1].isascii() else "") + link  # a space before a Latin word
        opt.excluded = Exclusion(ExclusionKind.no_scale_up_link, {"cards": cards, "link": link})
        return opt
    offers = [o for o in _accepted(cat, c) if o.gpu == gpu.id]
    if not offers:
        opt.excluded = _no_offer_reason(cat, gpu, delivery, c.billing)
        return opt
    pricing = c.pricing or costs.pricing_of(cat)
    measure = _measure(workload, sizing, c)
    need = plans.Need(workload, cards, measure, c.usage, c.deadline_hours, c.images_per_month)
    planner = plans.Planner(rules, pricing, links_cards, lambda o: _fabric(cat, o))
    search = planner.search(offers, need, sizing, gpu)
    best = search.best
    if best is None:
        fewer = search.refusal in (plans.NoPlan.needs_fabric, plans.NoPlan.needs_link, None)
        opt.excluded = (fewer and thin_headroom(sizing, gpu, rules)) or _no_plan_reason(
            search.refusal, gpu, cards, c, rules
        )
        return opt
    _apply(opt, best, measure)
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


def thin_headroom(sizing: Sizing, gpu: Gpu, rules: Rules) -> Exclusion | None:
    """LLM serving that fits fewer cards only above the serving engine's default memory share
    (rules.decision.serving_headroom): the reason when the cards the headroom asks for give no plan."""
    if sizing.paper_cards is None or sizing.paper_need_gib is None or sizing.headroom_gib is None:
        return None
    return Exclusion(
        ExclusionKind.thin_headroom,
        {
            "paper_cards": sizing.paper_cards,
            "need_gib": f"{sizing.paper_need_gib:.1f}",
            "limit_gib": f"{sizing.headroom_gib:.1f}",
            "share": f"{rules.decision.serving_headroom.max_memory_share:.0%}",
        },
    )


def data_parallel_ok(workload: Workload, cards: int | None) -> bool:
    """Adapter training (LoRA / QLoRA) on any card count: the base is frozen, so the cards need no scale-up
    link (data parallel all-reduces only the adapters' gradients; a base too big for one card is sharded and
    gathered over PCIe, slower: speed.zero3_gather_seconds). ``cards`` is kept for callers."""
    del cards
    return workload in (Workload.lora, Workload.qlora)


def _measure(workload: Workload, sizing: Sizing, c: Constraints) -> plans.Measure:
    """What this workload's plans are ranked by."""
    if workload is not Workload.inference and c.job_tokens_b is not None and sizing.job_hours is not None:
        return plans.Measure.job_rent
    if sizing.serving is not None:
        return plans.Measure.cost_per_mtok
    if sizing.image is not None:
        return plans.Measure.cost_per_kimage
    return plans.Measure.monthly


def _fabric(cat: Catalogue, offer: Offer) -> Fabric | None:
    """The cross-host fabric the offer's provider sells (None: not stated)."""
    provider = cat.providers.get(offer.provider)
    return provider.fabric if provider is not None else None


def _apply(opt: Option, plan: plans.Plan, measure: plans.Measure) -> None:
    """Copy the chosen plan onto the option the pages read."""
    offer = plan.offer
    opt.offer, opt.monthly, opt.plan = offer, plan.monthly, plan
    opt.offer_is_fallback = offer.delivery is Delivery.unspecified
    opt.cards_billed, opt.cards_used, opt.replicas = plan.cards_billed, plan.cards_used, plan.replicas
    if offer.delivery is not Delivery.unspecified:
        opt.delivery = offer.delivery  # the row shows the form of the offer used
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


def _no_plan_reason(kind: plans.NoPlan | None, gpu: Gpu, cards: int, c: Constraints, rules: Rules) -> Exclusion:
    """Why offers of this GPU exist but none gives a plan."""
    whole = rules.delivery.vm_whole_server_cards
    most = rules.decision.max_plan_cards  # a count: the message table writes its separators
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
    return Exclusion(ExclusionKind.no_whole_server, {"cards": cards, "link": describe_link(gpu, cards)})


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


def recommend(cat: Catalogue, sizing_for: SizingFor, workload: Workload, c: Constraints) -> Recommendation:
    """Rank every GPU in the catalogue for this workload."""
    training_job = workload is not Workload.inference and c.job_tokens_b is not None
    if c.pricing is None:
        c = dataclasses.replace(c, pricing=costs.pricing_of(cat))
    options = [evaluate_gpu(g, sizing_for, cat, workload, c) for g in cat.gpus.values()]
    options.sort(key=lambda o: (*o.sort_key(training_job), o.gpu.id))
    for o in options:
        o.reasons = _reasons(o, training_job, cat.rules)
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


def editor_disagreement(
    scenario: Scenario, rec: Recommendation, explain: Callable[[Exclusion], str] = lambda e: e.kind.value
) -> str | None:
    """A sentence when the editor's pick differs from the computed one, else None. ``explain`` words
    the exclusion of the editor's pick (the pages pass their message table's; the check message
    names the kind)."""
    pick, ed = rec.pick, scenario.editor_pick
    if ed is None or pick is None:
        return None
    parts = []
    if ed.gpu != pick.gpu.id:
        mine = rec.option_for(ed.gpu)
        detail = f"（{explain(mine.excluded)}）" if mine and mine.excluded else ""
        parts.append(f"编辑推荐 {ed.gpu}{detail}，计算结果为 {pick.gpu.id}")
    if ed.delivery is not pick.needed:
        # the rule's form (a whole-server cloud VM meets a bare-metal need, so the offer's form is not compared)
        parts.append(f"编辑推荐交付形式 {ed.delivery.value}，规则给出 {pick.needed.value}（{pick.delivery_reason}）")
    return "；".join(parts) or None


def fallback_note(offer: Offer) -> str:
    """Why an option is priced with an offer of another delivery form (a fallback tier)."""
    if offer.delivery is Delivery.unspecified:
        return "没有对应交付形式的报价，按来源未注明交付形式的报价计算"
    return f"没有容器或云服务器报价，按裸金属整机（{offer.cards} 卡）报价计算"


def form_note(offer: Offer, delivery: Delivery) -> str | None:
    """How an offer of another form serves the delivery the rules chose, or None."""
    if offer.delivery is Delivery.bare_metal and delivery is Delivery.container:
        return f"按 {offer.cards} 卡裸金属整机报价计算：整机独享，按这台机器的全部卡计费"
    if offer.delivery is Delivery.vm and delivery is Delivery.container:
        return "按云服务器报价计算：GPU 云服务器能跑容器能跑的一切，只是启动稍慢"
    if offer.delivery is Delivery.vm and delivery is Delivery.bare_metal:
        return f"按 {offer.cards} 卡整机云服务器报价计算：整台服务器的卡都在这台云服务器里，卡间 NVLink 与裸金属相同"
    return None


def _reasons(o: Option, training_job: bool, rules: Rules) -> list[str]:
    """Plain-Chinese reasons shown next to an option."""
    out: list[str] = []
    s = o.sizing
    if o.cards is not None:
        out.append(f"每卡峰值显存约 {s.per_card_gib:.1f} GiB，可用约 {s.usable_gib:.1f} GiB，需要 {o.cards} 张卡")
    out.append(o.delivery_reason)
    if o.monthly is not None:
        bill = "按小时计费" if o.monthly.billing is costs.BillingMode.by_use else "按月计费"
        out.append(
            f"{bill}，每月（按用 {o.monthly.hours_used:,.0f} 小时）合计约 {cny(o.monthly.total)}"
            f"（GPU 租金占 {1 - o.monthly.non_gpu_share:.0%}）"
        )
    plan = o.plan
    if plan is not None and plan.instances > 1 and o.cards is not None and plan.replicas < plan.instances:
        out.append(
            f"租 {plan.instances} 台 {plan.offer.cards} 卡服务器（共 {plan.cards_billed} 张卡），"
            "机间用平台提供的 InfiniBand/RoCE 高速网络组成集群"
        )
    elif o.cards is not None and o.cards_billed and o.cards_billed > o.cards:
        if o.idle_cards:
            out.append(f"报价按整机 {o.cards_billed} 张卡计费，其中 {o.idle_cards} 张闲置也要付钱")
        elif o.replicas > 1:
            out.append(f"租用的 {o.cards_billed} 张卡同时跑 {o.replicas} 份模型副本")
        else:
            out.append(f"报价按整机 {o.cards_billed} 张卡计费，任务用满整机的 {o.cards_used} 张卡，跑得更快")
    if training_job and o.job_hours is not None and o.job_cost_cny is not None:
        note = costs.minimum_rental_note(o.offer, o.job_hours, rules.cost) if o.offer is not None else None
        out.append(
            f"参照任务在 {o.cards_used} 张卡上约 {o.job_hours:,.0f} 小时完成，租金约 {cny(o.job_cost_cny)}"
            + (f"（{note}）" if note else "")
        )
    if o.faster is not None and o.faster.job_hours is not None and o.faster.job_cost_cny is not None:
        f = o.faster
        out.append(
            f"租 {f.cards_billed} 张卡（{f.offer.provider}）租金约 {cny(f.job_cost_cny)}，差不多一样贵，"
            f"约 {f.job_hours:,.0f} 小时就能跑完"
        )
    load = o.load
    if load is not None and o.cost_per_mtok_at_batch_cny is not None and s.serving is not None:
        c = s.serving.at_capacity
        out.append(
            f"按 {s.request.batch if s.request else 1} 路并发（每个请求提示 {c.prompt_tokens:,} + 输出 {c.output_tokens:,} token）"
            + (f"、{load.copies} 份副本" if load.copies > 1 else "")
            + f"：首 token 约 {load.ttft_s:,.2f} 秒，每个用户每秒约 {load.user_tokens_per_s:,.1f} 个输出 token，"
            f"合计每秒约 {load.tokens_per_s:,.0f} token，每百万 token（提示与输出合计，只计 GPU 租金）约 "
            f"{cny(load.cost_per_mtok_cny, 2)}"
        )
    if o.cost_per_mtok_cny is not None and o.served_tokens_per_s is not None and s.serving is not None:
        c = s.serving.at_capacity
        out.append(
            f"满载时按显存可容纳的 {c.concurrency} 路并发"
            + (f"、{o.replicas} 份副本" if o.replicas > 1 else "")
            + f"每秒约处理 {o.served_tokens_per_s:,.0f} token，每百万 token 约 {cny(o.cost_per_mtok_cny, 2)}"
        )
    if o.images_per_hour is not None and o.cost_per_kimage_cny is not None:
        line = f"每小时约 {o.images_per_hour:,.0f} 张，每千张约 {cny(o.cost_per_kimage_cny, 2)}（只计 GPU 租金）"
        img = o.plan.images if o.plan is not None else None
        if img is not None and img.volume is not None:
            line += f"：每月 {img.volume:,.0f} 张约要跑 {img.hours:,.1f} 小时"
        out.append(line)
    if o.gpu.vendor is not Vendor.nvidia and not o.excluded:
        out.append(NOT_CUDA)
    if not o.excluded and (note := support.check_request(o.gpu, s.request, rules).note) is not None:
        out.append(note)  # how the format runs there (a slower kernel, FP16 for mixed precision ...)
    if o.offer_is_fallback and o.offer is not None:
        out.append(fallback_note(o.offer))
    elif o.offer is not None and (note := form_note(o.offer, o.needed)) is not None:
        out.append(note)
    return out  # an excluded option's exclusion is said after these, from the page's message table
