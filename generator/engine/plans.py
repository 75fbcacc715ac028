"""Step 4 as a search: every way to rent one GPU for a workload, and the cheapest by its own measure.

A *plan* is a number of whole instances of one offer, as the provider sells it: ``offer.cards``
cards each (1, 2, 4, 8, or a whole node), never a fraction of one, never a mix of providers. A
plan that puts one job (or one model copy) on several instances needs a network between the hosts,
so it may use only whole-server instances (``rules.delivery.vm_whole_server_cards`` cards or more,
bare metal or a cloud VM) of a provider that sells a cross-host fabric (``providers.yaml``
``fabric``: InfiniBand or RoCE). Container platforms without one never carry it.

What a plan is worth depends on the workload (its *measure*):

* **a training job** (a token count): the rent to finish *this* job, hours times the hourly price on
  demand, whole days on a daily price, whole months on a monthly one
  (:func:`generator.engine.cost.job_cost_cny`). Every offer and every instance count is tried, so
  a monthly package wins only when it is the cheaper way to finish. With a deadline, plans scale out
  (more instances of the same offer) until the job ends in time.
* **serving a language model**: the cost per million tokens at the load the reader states (its
  concurrent requests), on the GPU rent alone, for the fewest instances that hold that load and
  give every user at least ``rules.decision.latency_floor`` (time to first token, output speed).
* **generating images**: the cost per 1,000 images, GPU rent alone (every rented card runs its own
  copy of the pipeline): at the plan's throughput over the month's hours of use, or, with a monthly
  volume, the rent to make the month's images (a job, priced as training jobs are) over the images,
  on enough instances to make them within the hours of use.
* **anything else** (training without a token count): the monthly total.

The search is exhaustive where it must be: for a fixed offer a job's rent can only fall as
instances are added while the billing tier rounds the job up to whole periods, so the search goes
up to the first count that finishes within one period (further instances only add rent; scaling
efficiency never rises with the card count, ``rules.speed.scaling``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from generator.data.records import Billing, Delivery, Fabric, Gpu, Offer, Workload
from generator.data.rules import LatencyFloor, Rules
from generator.engine import cost as costs
from generator.engine import image_speed, speed
from generator.engine.scaling import cluster_of
from generator.engine.sizing import Sizing

#: Most instances a search tries for one offer (a 2,048-node cluster of 8-card servers).
MAX_STEPS = 4096


class Measure(StrEnum):
    """What a workload's plans are ranked by."""

    job_rent = "job_rent"  # training with a token count: yuan to finish the job
    cost_per_mtok = "cost_per_mtok"  # LLM serving: yuan per million tokens at the stated load
    cost_per_kimage = "cost_per_kimage"  # image generation: yuan per 1,000 images (GPU rent only)
    monthly = "monthly"  # everything else: the monthly total


class NoPlan(StrEnum):
    """Why an offer gives no plan for a workload (the most telling one is shown)."""

    needs_fabric = "needs_fabric"  # one job or copy spans hosts, and this offer cannot do that
    needs_link = "needs_link"  # several cards must share a scale-up link this offer's form or cards lack
    deadline = "deadline"  # even the largest plan misses the deadline
    too_slow = "too_slow"  # no plan meets the latency floor
    volume = "volume"  # even the largest plan cannot make the month's images


#: Order of telling: the later a kind, the closer the offer came to a plan.
_TELLING = [NoPlan.needs_link, NoPlan.needs_fabric, NoPlan.too_slow, NoPlan.volume, NoPlan.deadline]


@dataclass(frozen=True)
class Load:
    """A serving plan's figures at the stated load, after the delivery's speed loss."""

    copies: int  # model copies the rented cards run
    per_copy: int  # concurrent requests one copy serves
    tokens_per_s: float  # prompt + output tokens per second for the whole load
    ttft_s: float  # first token of one request on an idle copy
    user_tokens_per_s: float  # output tokens per second one user sees while decoding
    cost_per_mtok_cny: float  # GPU rent per million prompt + output tokens at this load


def meets_floor(load: Load, floor: LatencyFloor) -> bool:
    """Whether every user of the load gets ``floor``: the first token soon enough, output fast enough."""
    return load.ttft_s <= floor.ttft_s and load.user_tokens_per_s >= floor.output_tokens_per_s


@dataclass(frozen=True)
class Images:
    """An image plan's output, after the delivery's speed loss."""

    images_per_hour: float  # every copy together
    cost_per_kimage_cny: float  # GPU rent per 1,000 images (at the throughput, or to make the volume)
    hours: float  # hours each instance runs a month
    volume: float | None = None  # the month's images the plan makes (None: priced at its throughput)


@dataclass(frozen=True)
class Plan:
    """Whole instances of one offer, with what they cost and do for the workload."""

    offer: Offer
    instances: int
    cards_used: int  # cards that work (a training job uses every linked card it rents)
    replicas: int  # serving: model copies side by side
    monthly: costs.MonthlyCost
    keep: float  # share of speed left after the delivery form's virtualization loss
    job_hours: float | None = None
    job_cost_cny: float | None = None
    load: Load | None = None
    images: Images | None = None

    @property
    def cards_billed(self) -> int:
        return self.instances * self.offer.cards

    def value(self, measure: Measure) -> float:
        """The plan's worth by ``measure`` (lower is better)."""
        if measure is Measure.job_rent:
            return self.job_cost_cny if self.job_cost_cny is not None else math.inf
        if measure is Measure.cost_per_mtok:
            return self.load.cost_per_mtok_cny if self.load is not None else math.inf
        if measure is Measure.cost_per_kimage:
            return self.images.cost_per_kimage_cny if self.images is not None else math.inf
        return self.monthly.total

    def key(self, measure: Measure) -> tuple[float, float, float, str]:
        """Sort key: the measure, then sooner done, then the monthly total, then the offer id."""
        return (
            round(self.value(measure), 6),
            round(self.job_hours, 6) if self.job_hours is not None else 0.0,
            round(self.monthly.total, 6),
            self.offer.id,
        )


@dataclass(frozen=True)
class Need:
    """What one workload asks of a plan on one GPU."""

    workload: Workload
    copy_cards: int  # fewest cards that hold one copy of the job or model
    measure: Measure
    usage: costs.Usage
    deadline_hours: float | None = None
    images_per_month: float | None = None  # image generation: the month's volume (None: one instance)
    #: serving: hold plans to ``rules.decision.latency_floor`` (False: a deployment plan priced at the load
    #: its guide states, however slow; the page marks the figures that miss the floor)
    latency_floor: bool = True

    @property
    def training(self) -> bool:
        return self.workload is not Workload.inference

    @property
    def adapter(self) -> bool:
        """Adapter training (LoRA / QLoRA): the base is frozen, so no card count needs a scale-up link. Data
        parallel all-reduces only the adapters' gradients; a base too big for one card is sharded (ZeRO-3)
        and gathered over whatever link the cards have: slower over PCIe (speed.zero3_gather_seconds), not
        refused. The scale-up rule stays for full-parameter sharded training."""
        return self.workload in (Workload.lora, Workload.qlora)

    @property
    def data_parallel(self) -> bool:
        """Adapter training where every card holds the whole job: extra cards all-reduce only the
        adapters' gradients, so they need no scale-up link (PCIe is enough)."""
        return self.adapter and self.copy_cards == 1


@dataclass
class Search:
    """The plans tried for one GPU, best first, and why the others gave none."""

    plans: list[Plan]
    refusals: list[NoPlan]

    @property
    def best(self) -> Plan | None:
        return self.plans[0] if self.plans else None

    @property
    def refusal(self) -> NoPlan | None:
        """The most telling reason no offer gave a plan."""
        return max(self.refusals, key=_TELLING.index) if self.refusals else None


def keep_after(offer: Offer, rules: Rules) -> float:
    """Share of speed left on this offer's form: containers and VMs lose a little to virtualization."""
    return 1.0 if offer.delivery is Delivery.bare_metal else 1 - rules.delivery.container_virtualization_loss


def whole_server(offer: Offer, rules: Rules) -> bool:
    """Whether one instance is a whole server (its cards share the server's scale-up link)."""
    return offer.cards >= rules.delivery.vm_whole_server_cards and not offer.variant_unstated


def linked_form(offer: Offer, rules: Rules) -> bool:
    """Whether the offer's form carries multi-card sharded training: bare metal, or a cloud VM (or an
    offer of unstated form) holding a whole server. Containers do not (the seed rule)."""
    if offer.variant_unstated:
        return False
    if offer.delivery is Delivery.bare_metal:
        return True
    return offer.delivery in (Delivery.vm, Delivery.unspecified) and whole_server(offer, rules)


def spans_hosts_ok(offer: Offer, has_fabric: bool, rules: Rules) -> bool:
    """Whether several instances of this offer can carry one job or model copy."""
    return has_fabric and offer.delivery in (Delivery.bare_metal, Delivery.vm) and whole_server(offer, rules)


def period_hours(offer: Offer, rules: Rules) -> float:
    """The shortest rental the offer's billing tier sells, hours (0 on demand: billed by use)."""
    return {Billing.monthly: rules.cost.hours_per_month, Billing.daily: 24.0}.get(offer.billing, 0.0)


#: Whether ``cards`` cards of ``gpu`` are joined by a scale-up link (recommend.links_cards).
LinksCards = Callable[[Gpu, int], bool]
#: The cross-host fabric an offer's provider sells (providers.yaml ``fabric``; None: not stated).
FabricOf = Callable[[Offer], Fabric | None]


def training_cards(offer: Offer, instances: int, need: Need, gpu: Gpu, links: LinksCards, rules: Rules) -> int | NoPlan:
    """Cards a training job uses on ``instances`` instances of ``offer`` (the caller has checked that
    several instances may work together), or why they cannot carry it."""
    k = offer.cards
    if instances > 1:
        # Whole servers over the provider's fabric; a sharded job also needs each server linked.
        return instances * k if need.adapter or links(gpu, k) else NoPlan.needs_link
    if need.copy_cards > k:
        return NoPlan.needs_fabric
    if need.data_parallel:
        return k  # every card trains a copy; only adapter gradients cross PCIe
    if k > 1 and links(gpu, k) and linked_form(offer, rules):
        return k  # a whole linked machine: the job shards over every card
    if need.copy_cards == 1:
        return 1  # one card does the job; the others of the machine idle
    if links(gpu, need.copy_cards) and linked_form(offer, rules):
        return need.copy_cards  # a linked pair of a bridged machine
    if need.adapter:
        return k  # a frozen base sharded (ZeRO-3) over every card of the instance, gathered over PCIe
    return NoPlan.needs_link


PlanResult = list[Plan] | Plan | NoPlan  # one offer's plans, or why it has none


class PlanMemo:
    """One offer's plans for a need and a sizing, kept from one evaluation to the next for a
    long-lived process (``gpu-guide serve``): a price edit re-plans only the edited offer.

    An offer's plans depend on the offer, the need, the sizing (kept alive, and compared by identity,
    by :class:`generator.engine.sizing.SizingMemo`), the GPU, the rules, the pricing and the provider's
    fabric; :meth:`start` forgets everything unless the rules, the pricing and the providers are equal
    to the last evaluation's, and a remembered offer is used only while it equals the current one."""

    def __init__(self) -> None:
        self._basis: object = None
        self._plans: dict[tuple[str, Need, int, str], tuple[Offer, Sizing, PlanResult]] = {}

    def start(self, basis: object) -> None:
        """Begin an evaluation on ``basis`` (rules, pricing, providers), forgetting all if it changed."""
        if basis != self._basis:
            self._plans.clear()
        self._basis = basis

    def get(self, offer: Offer, need: Need, sizing: Sizing, gpu: Gpu) -> PlanResult | None:
        kept = self._plans.get((offer.id, need, id(sizing), gpu.id))
        return kept[2] if kept is not None and kept[1] is sizing and kept[0] == offer else None

    def put(self, offer: Offer, need: Need, sizing: Sizing, gpu: Gpu, found: PlanResult) -> None:
        self._plans[(offer.id, need, id(sizing), gpu.id)] = (offer, sizing, found)


class Planner:
    """Builds and ranks the plans of one GPU for one workload."""

    def __init__(
        self,
        rules: Rules,
        pricing: costs.Pricing,
        links: LinksCards,
        fabric_of: FabricOf,
        memo: PlanMemo | None = None,
    ) -> None:
        self.rules = rules
        self.pricing = pricing
        self.links = links
        self.fabric_of = fabric_of
        self.memo = memo  # plans kept from the last evaluation (serve)

    def has_fabric(self, offer: Offer) -> bool:
        """Whether the offer's provider sells a fabric one job may span hosts over."""
        fabric = self.fabric_of(offer)
        return fabric is not None and fabric.spans_hosts

    # ------------------------------------------------------------------ one plan

    def monthly(self, offer: Offer, instances: int, need: Need) -> costs.MonthlyCost:
        return costs.monthly_cost(offer, instances * offer.cards, need.usage, self.pricing)

    def training(self, offer: Offer, instances: int, need: Need, sizing: Sizing, gpu: Gpu) -> Plan | NoPlan:
        """``instances`` instances of ``offer`` running the training job, priced by its rent."""
        used = training_cards(offer, instances, need, gpu, self.links, self.rules)
        if isinstance(used, NoPlan):
            return used
        keep = keep_after(offer, self.rules)
        # Across instances the job crosses the provider's fabric, discounted beyond the platform's measured size.
        cluster = cluster_of(offer.cards, self.fabric_of(offer))
        train = sizing.train_on(gpu, used, self.rules, cluster, replicated=need.data_parallel)
        if train is None:
            return NoPlan.needs_link
        hours = train.hours / keep
        job = costs.job_cost_cny(offer, instances * offer.cards, hours, self.pricing)
        return Plan(offer, instances, used, 1, self.monthly(offer, instances, need), keep, hours, job)

    def serving_load(self, sizing: Sizing, gpu: Gpu, copies: int, keep: float, hourly: float) -> Load:
        """The stated load spread over ``copies`` copies of the model."""
        req, figures = sizing.request, sizing.serving
        assert req is not None and figures is not None and sizing.min_cards is not None
        load = req.batch
        per_copy = math.ceil(load / copies)
        cap = figures.at_capacity
        s = speed.serve(req, gpu, sizing.min_cards, self.rules, cap.prompt_tokens, cap.output_tokens, per_copy)
        tokens = s.total_tokens_per_s * keep * load / per_copy
        return Load(
            copies=copies,
            per_copy=per_copy,
            tokens_per_s=tokens,
            ttft_s=s.ttft_s / keep,
            user_tokens_per_s=keep / s.step_s,
            cost_per_mtok_cny=speed.cost_per_million_tokens(tokens, hourly),
        )

    def serving(self, offer: Offer, need: Need, sizing: Sizing, gpu: Gpu) -> Plan | NoPlan:
        """The fewest instances of ``offer`` that hold the stated load within the latency floor."""
        assert sizing.serving is not None and sizing.request is not None
        k, m = offer.cards, need.copy_cards
        if m > k and not spans_hosts_ok(offer, self.has_fabric(offer), self.rules):
            return NoPlan.needs_fabric
        per_instance = k // m if m <= k else 1  # copies one instance (or one group of instances) holds
        group = 1 if m <= k else math.ceil(m / k)  # instances one copy needs
        capacity = sizing.serving.at_capacity.concurrency
        load = sizing.request.batch
        copies = max(1, math.ceil(load / capacity))
        groups = math.ceil(copies / per_instance)
        floor = self.rules.decision.latency_floor
        keep = keep_after(offer, self.rules)
        limit = self.rules.decision.max_plan_cards
        while groups * group * k <= limit:
            instances = groups * group
            copies = groups * per_instance
            monthly = self.monthly(offer, instances, need)
            hourly = monthly.gpu_rent / max(monthly.hours_used, 1e-9)
            at = self.serving_load(sizing, gpu, copies, keep, hourly)
            if not need.latency_floor or meets_floor(at, floor):
                return Plan(offer, instances, copies * m, copies, monthly, keep, load=at)
            if at.per_copy == 1:
                break  # one request a copy is as fast as it gets
            groups += 1
        return NoPlan.too_slow

    def simple(self, offer: Offer, need: Need, gpu: Gpu) -> Plan | NoPlan:
        """The fewest instances that hold the workload (ranked by the monthly total)."""
        k, m = offer.cards, need.copy_cards
        if m > k and not spans_hosts_ok(offer, self.has_fabric(offer), self.rules):
            return NoPlan.needs_fabric
        sharded = need.training and m > 1 and not need.adapter
        if sharded and not (self.links(gpu, min(m, k)) and linked_form(offer, self.rules)):
            return NoPlan.needs_link
        instances = math.ceil(m / k)
        return Plan(offer, instances, m, 1, self.monthly(offer, instances, need), keep_after(offer, self.rules))

    def images(self, offer: Offer, need: Need, sizing: Sizing) -> list[Plan] | NoPlan:
        """Every card of the instance runs a copy of the pipeline. Without a volume: one instance,
        priced at its throughput over the month's hours of use. With one, the month's images are a
        job: from the fewest instances that make them within the hours of use up to the first count
        that finishes within one billing period, each priced by the rent to make them
        (:func:`generator.engine.cost.job_cost_cny`: hours on demand, whole days or months) over
        the images."""
        assert sizing.image is not None
        k, m = offer.cards, need.copy_cards
        if m > k:
            return NoPlan.needs_fabric  # a pipeline is never split across hosts
        keep = keep_after(offer, self.rules)
        copies = k // m
        per_instance = copies * sizing.image.images_per_hour * keep
        volume = need.images_per_month
        if volume is None:
            monthly = self.monthly(offer, 1, need)
            hourly = monthly.gpu_rent / max(monthly.hours_used, 1e-9)
            out = Images(per_instance, image_speed.cost_per_kimage(per_instance, hourly), monthly.hours_used)
            return [Plan(offer, 1, copies * m, copies, monthly, keep, images=out)]
        made = per_instance * need.usage.hours_per_month
        highest = self.rules.decision.max_plan_cards // k
        lowest = math.ceil(volume / made) if made > 0 else highest + 1
        if lowest > highest:
            return NoPlan.volume
        period = period_hours(offer, self.rules)
        plans: list[Plan] = []
        for n in range(max(1, lowest), min(highest, lowest + MAX_STEPS) + 1):
            hours = volume / (n * per_instance)
            rent = costs.job_cost_cny(offer, n * k, hours, self.pricing)
            usage = replace(need.usage, hours_per_month=hours)
            monthly = costs.monthly_cost(offer, n * k, usage, self.pricing)
            out = Images(n * per_instance, rent / volume * 1000, hours, volume)
            plans.append(Plan(offer, n, n * copies * m, n * copies, monthly, keep, images=out))
            if period == 0.0 or hours <= period + 1e-9:
                break  # more instances only add rent from here
        return plans

    # ------------------------------------------------------------------ the search

    def job_plans(self, offer: Offer, need: Need, sizing: Sizing, gpu: Gpu) -> list[Plan] | NoPlan:
        """Every instance count of ``offer`` worth trying for the job: from the fewest that hold it (or
        meet the deadline) up to the first that finishes within one billing period."""
        k, m = offer.cards, need.copy_cards
        lowest = max(1, math.ceil(m / k))
        many = spans_hosts_ok(offer, self.has_fabric(offer), self.rules)
        highest = self.rules.decision.max_plan_cards // k if many else 1
        if lowest > highest:
            return NoPlan.needs_fabric if not many else NoPlan.deadline

        def at(n: int) -> Plan | NoPlan:
            return self.training(offer, n, need, sizing, gpu)

        first = at(lowest)
        if isinstance(first, NoPlan):
            return first
        start = lowest
        if need.deadline_hours is not None and first.job_hours is not None and first.job_hours > need.deadline_hours:
            # Hours fall as instances are added: bisect for the fewest that meet the deadline.
            last = at(highest)
            if isinstance(last, NoPlan) or last.job_hours is None or last.job_hours > need.deadline_hours:
                return NoPlan.deadline
            lo, hi = lowest, highest  # lo misses, hi meets
            while hi - lo > 1:
                mid = (lo + hi) // 2
                p = at(mid)
                if isinstance(p, Plan) and p.job_hours is not None and p.job_hours <= need.deadline_hours:
                    hi = mid
                else:
                    lo = mid
            start = hi
        period = period_hours(offer, self.rules)
        out: list[Plan] = []
        for n in range(start, min(highest, start + MAX_STEPS) + 1):
            p = first if n == lowest else at(n)
            if isinstance(p, NoPlan):
                break
            out.append(p)
            if period == 0.0 or (p.job_hours is not None and p.job_hours <= period + 1e-9):
                break  # more instances only add rent from here
        return out

    def search(self, offers: list[Offer], need: Need, sizing: Sizing, gpu: Gpu) -> Search:
        """Every offer's plans for this GPU, best first by the need's measure."""
        plans: list[Plan] = []
        refusals: list[NoPlan] = []
        for offer in offers:
            found = self._offer_plans(offer, need, sizing, gpu)
            if isinstance(found, NoPlan):
                refusals.append(found)
            elif isinstance(found, Plan):
                plans.append(found)
            else:
                plans.extend(found)
        plans.sort(key=lambda p: p.key(need.measure))
        return Search(plans, refusals)

    def _offer_plans(self, offer: Offer, need: Need, sizing: Sizing, gpu: Gpu) -> PlanResult:
        """One offer's plans (or why it has none), from the memo when it holds them."""
        kept = self.memo.get(offer, need, sizing, gpu) if self.memo is not None else None
        if kept is not None:
            return kept
        found: PlanResult
        if need.measure is Measure.job_rent:
            found = self.job_plans(offer, need, sizing, gpu)
        elif need.measure is Measure.cost_per_mtok:
            found = self.serving(offer, need, sizing, gpu)
        elif need.measure is Measure.cost_per_kimage:
            found = self.images(offer, need, sizing)
        else:
            found = self.simple(offer, need, gpu)
        if self.memo is not None:
            self.memo.put(offer, need, sizing, gpu, found)
        return found


def faster_plan(search: Search, tolerance: float) -> Plan | None:
    """A plan at most ``tolerance`` dearer than the best that finishes at least twice as fast."""
    best = search.best
    if best is None or best.job_hours is None or best.job_cost_cny is None:
        return None
    ceiling = best.job_cost_cny * (1 + tolerance)
    quick = [
        p
        for p in search.plans
        if p.job_hours is not None
        and p.job_cost_cny is not None
        and p.job_cost_cny <= ceiling
        and p.job_hours <= best.job_hours / 2
    ]
    return min(quick, key=lambda p: (round(p.job_hours or 0.0, 6), p.offer.id), default=None)


def best_per_provider(search: Search, exclude: str, count: int) -> list[Plan]:
    """The best plan of each other provider, best first, at most ``count``."""
    seen = {exclude}
    out: list[Plan] = []
    for p in search.plans:
        if len(out) >= count:
            break
        if p.offer.provider in seen:
            continue
        seen.add(p.offer.provider)
        out.append(p)
    return out
