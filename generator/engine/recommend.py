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
from collections.abc import Callable
from dataclasses import dataclass, field

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Gpu, Offer, Scenario, Vendor, Workload
from generator.data.rules import Rules
from generator.engine import cost as costs
from generator.engine import speed, support
from generator.engine.delivery import delivery_form
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


@dataclass(frozen=True)
class RunnerUp:
    """Another provider's cheapest offer for the same GPU, cards and delivery form, priced the same way."""

    offer: Offer
    monthly: costs.MonthlyCost
    job_cost_cny: float | None  # training jobs: rent to finish the reference job


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
    excluded: str | None = None  # why the option cannot be the pick
    reasons: list[str] = field(default_factory=list)

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
        """Eligible first; then job cost (training) or monthly total; then fewer cards; then id."""
        primary = self.job_cost_cny if training_job else (self.monthly.total if self.monthly else None)
        rank_fit = 0 if self.cards is not None else 1
        return (
            0 if self.eligible else 1,
            rank_fit,
            primary if primary is not None else float("inf"),
            self.monthly.total if self.monthly else float("inf"),
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
    """Size, deliver and price one GPU. ``sizing_for(gpu)`` returns its :class:`Sizing`."""
    rules: Rules = cat.rules
    sizing: Sizing = sizing_for(gpu)
    cards = sizing.min_cards
    delivery, why = delivery_form(workload, cards or 1, rules.delivery)
    opt = Option(gpu=gpu, sizing=sizing, cards=cards, delivery=delivery, delivery_reason=why)
    if c.domestic_only and not gpu.domestic:
        opt.excluded = "不满足国产化要求"
        return opt
    if c.require_cuda and gpu.vendor is not Vendor.nvidia:
        opt.excluded = "按依赖 CUDA 的代码计算：这张卡要把代码迁移到厂商自己的软件栈才能用"
        return opt
    if cards is None:
        opt.excluded = f"即使用到 {sizing.max_cards} 张卡，每张卡的显存也不够"
        return opt
    # The plan's number format must run on the card (rules.yaml support; BF16 on Volta/Turing, FP8
    # below Ada, Marlin kernels below Ampere ...): else the reason and the nearest format that runs.
    if (refusal := support.check_request(gpu, sizing.request, rules).refusal) is not None:
        opt.excluded = refusal
        return opt
    if delivery is Delivery.bare_metal and not links_cards(gpu, cards):
        # The delivery rule's premise: multi-card training needs a scale-up link.
        link = describe_link(gpu, cards)
        opt.excluded = f"{cards} 卡训练需要所有卡之间都有高速互联，而{' ' if link[:1].isascii() else ''}{link}"
        return opt
    # Only current offers in a pickable billing tier rank or price anything (rules.prices), and of
    # those only the tiers the buyer accepts.
    offers, fallback = costs.matching_offers(
        _accepted(cat, c), gpu.id, delivery, cards, rules.delivery.vm_whole_server_cards
    )
    pricing = c.pricing or costs.pricing_of(cat)
    ranked = costs.ranked_costs(offers, cards, c.usage, pricing)
    if not ranked:
        opt.excluded = _no_offer_reason(cat, gpu, delivery, c.billing)
        return opt
    by_id = {o.id: o for o in offers}
    monthly = ranked[0]
    offer = by_id[monthly.offer_id]
    opt.offer, opt.offer_is_fallback, opt.monthly = offer, fallback, monthly
    # Containers and VMs lose a little speed to virtualization (rules.delivery); bare metal none.
    keep = 1.0 if offer.delivery is Delivery.bare_metal else 1 - rules.delivery.container_virtualization_loss
    opt.cards_billed, opt.cards_used = monthly.cards_rented, cards
    if sizing.job_hours is not None:
        opt.job_hours = sizing.job_hours / keep
        whole = _whole_machine_job(sizing, gpu, cards, monthly.cards_rented, rules)
        if whole is not None and whole.hours < sizing.job_hours:
            # The rent is the same for the whole machine: every rented card works, the job ends sooner.
            opt.cards_used, opt.job_hours = monthly.cards_rented, whole.hours / keep
        opt.job_cost_cny = costs.job_cost_cny(offer, cards, opt.job_hours, pricing)
    opt.runner_ups = _runner_ups(ranked[1:], by_id, offer.provider, cards, sizing, gpu, rules, pricing)
    if sizing.serving is not None:
        # Serving: prompt + output tokens per second at the concurrency the free memory allows (and at
        # the request's own batch), priced at the hourly GPU rent of what is rented. Rented cards
        # beyond one copy of the model run more copies (data-parallel replicas), not idle.
        hourly = monthly.gpu_rent / max(monthly.hours_used, 1e-9)
        opt.replicas = max(1, monthly.cards_rented // cards)
        opt.cards_used = opt.replicas * cards
        opt.decode_tokens_per_s = sizing.serving.decode.tokens_per_s * keep
        opt.served_tokens_per_s = sizing.serving.at_capacity.total_tokens_per_s * keep * opt.replicas
        opt.cost_per_mtok_cny = speed.cost_per_million_tokens(opt.served_tokens_per_s, hourly)
        at_batch = sizing.serving.at_batch.total_tokens_per_s * keep
        opt.cost_per_mtok_at_batch_cny = speed.cost_per_million_tokens(at_batch, hourly)
    if c.budget_cny_month is not None and monthly.total > c.budget_cny_month:
        opt.excluded = f"月成本 {cny(monthly.total)} 超出预算 {cny(c.budget_cny_month)}"
    return opt


def _whole_machine_job(sizing: Sizing, gpu: Gpu, cards: int, billed: int, rules: Rules) -> speed.TrainTime | None:
    """The training job on every billed card, when the rented machine links them all (the site's
    premise for multi-card training); None when there are no spare cards or they cannot join in."""
    if billed <= cards or not links_cards(gpu, billed):
        return None
    return sizing.train_on(gpu, billed, rules)


def _accepted(cat: Catalogue, c: Constraints) -> list[Offer]:
    """The offers that may price an option: current, pickable, in a billing tier the buyer accepts."""
    if c.billing is None:
        return cat.pickable_offers
    return [o for o in cat.pickable_offers if o.billing in c.billing]


#: Billing tiers in the words of a reason (the pages' names live in generator.pages.names).
_BILLING_ZH = {Billing.on_demand: "按量", Billing.daily: "按天", Billing.monthly: "包月"}


def _no_offer_reason(cat: Catalogue, gpu: Gpu, delivery: Delivery, billing: tuple[Billing, ...] | None = None) -> str:
    """Why no offer prices this option: none at all, only history, only spot/reserved, none in the
    billing tiers the buyer accepts, or none in this form."""
    form = "裸金属或整机云服务器" if delivery is Delivery.bare_metal else "容器或云服务器"
    if not cat.offers_for(gpu.id):
        return "数据中还没有这张卡的报价"
    if not cat.current_for(gpu.id):
        return f"这张卡只有 {cat.rules.prices.fresh_days} 天前的历史报价，不用于排名"
    if not any(o.gpu == gpu.id for o in cat.pickable_offers):
        return "这张卡只有抢占式或长期合约报价，不用于排名"
    if billing is not None and not any(o.gpu == gpu.id and o.billing in billing for o in cat.pickable_offers):
        tiers = "、".join(_BILLING_ZH.get(b, b.value) for b in billing)
        return f"这张卡没有所选计费方式（{tiers}）的当前报价"
    return f"数据中还没有这张卡的{form}当前报价"


def _runner_ups(
    rest: list[costs.MonthlyCost],
    by_id: dict[str, Offer],
    pick_provider: str,
    cards: int,
    sizing: Sizing,
    gpu: Gpu,
    rules: Rules,
    pricing: costs.Pricing,
) -> list[RunnerUp]:
    """The cheapest offer of each other provider (same matching offers), cheapest first, at most
    ``rules.prices.runner_ups``. Ordered by the monthly total like the pick; a training job on a
    whole machine uses every card of it, as for the pick."""
    seen = {pick_provider}
    out: list[RunnerUp] = []
    for m in rest:
        if len(out) >= rules.prices.runner_ups:
            break
        offer = by_id[m.offer_id]
        if offer.provider in seen:
            continue
        seen.add(offer.provider)
        job = None
        if sizing.job_hours is not None:
            keep = 1.0 if offer.delivery is Delivery.bare_metal else 1 - rules.delivery.container_virtualization_loss
            whole = _whole_machine_job(sizing, gpu, cards, m.cards_rented, rules)
            hours = min(sizing.job_hours, whole.hours) if whole is not None else sizing.job_hours
            job = costs.job_cost_cny(offer, cards, hours / keep, pricing)
        out.append(RunnerUp(offer, m, job))
    return out


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


def editor_disagreement(scenario: Scenario, rec: Recommendation) -> str | None:
    """A sentence when the editor's pick differs from the computed one, else None."""
    pick, ed = rec.pick, scenario.editor_pick
    if ed is None or pick is None:
        return None
    parts = []
    if ed.gpu != pick.gpu.id:
        mine = rec.option_for(ed.gpu)
        detail = f"（{mine.excluded}）" if mine and mine.excluded else ""
        parts.append(f"编辑推荐 {ed.gpu}{detail}，计算结果为 {pick.gpu.id}")
    if ed.delivery is not pick.delivery:
        parts.append(f"编辑推荐交付形式 {ed.delivery.value}，规则给出 {pick.delivery.value}（{pick.delivery_reason}）")
    return "；".join(parts) or None


def fallback_note(offer: Offer) -> str:
    """Why an option is priced with an offer of another delivery form (a fallback tier)."""
    if offer.delivery is Delivery.unspecified:
        return "没有对应交付形式的报价，按来源未注明交付形式的报价计算"
    return f"没有容器或云服务器报价，按裸金属整机（{offer.cards} 卡）报价计算"


def form_note(offer: Offer, delivery: Delivery) -> str | None:
    """How an offer of another (first-tier) form serves the delivery the rules chose, or None."""
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
        out.append(f"{bill}，每月合计约 {cny(o.monthly.total)}（GPU 租金占 {1 - o.monthly.non_gpu_share:.0%}）")
    if o.cards is not None and o.cards_billed and o.cards_billed > o.cards:
        if o.idle_cards:
            out.append(f"报价按整机 {o.cards_billed} 张卡计费，其中 {o.idle_cards} 张闲置也要付钱")
        elif o.replicas > 1:
            out.append(f"报价按整机 {o.cards_billed} 张卡计费，整机同时跑 {o.replicas} 份模型副本")
        else:
            out.append(f"报价按整机 {o.cards_billed} 张卡计费，任务用满整机的 {o.cards_used} 张卡，跑得更快")
    if training_job and o.job_hours is not None and o.job_cost_cny is not None:
        note = costs.minimum_rental_note(o.offer, o.job_hours, rules.cost) if o.offer is not None else None
        out.append(
            f"参照任务约 {o.job_hours:,.0f} 小时完成，租金约 {cny(o.job_cost_cny)}" + (f"（{note}）" if note else "")
        )
    if o.cost_per_mtok_cny is not None and o.served_tokens_per_s is not None and s.serving is not None:
        c = s.serving.at_capacity
        out.append(
            f"按显存可容纳的 {c.concurrency} 路并发（每个请求提示 {c.prompt_tokens:,} + 输出 {c.output_tokens:,} token）"
            + (f"、{o.replicas} 份副本" if o.replicas > 1 else "")
            + f"每秒约处理 {o.served_tokens_per_s:,.0f} token，每百万 token（提示与输出合计）约 {cny(o.cost_per_mtok_cny, 2)}"
        )
    if o.gpu.vendor is not Vendor.nvidia and not o.excluded:
        out.append(NOT_CUDA)
    if not o.excluded and (note := support.check_request(o.gpu, s.request, rules).note) is not None:
        out.append(note)  # how the format runs there (a slower kernel, FP16 for mixed precision ...)
    if o.offer_is_fallback and o.offer is not None:
        out.append(fallback_note(o.offer))
    elif o.offer is not None and (note := form_note(o.offer, o.delivery)) is not None:
        out.append(note)
    if o.excluded:
        out.append(o.excluded)
    return out
