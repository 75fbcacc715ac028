"""Step 2 for one GPU: size a workload on it, and how fast it runs there.

Glue between the catalogue's records and the estimators: :mod:`generator.engine.memory`
gives memory per card for a card count, :mod:`generator.engine.speed` the job time and the
decode speed. :func:`size_workload` finds the smallest valid card count and keeps the
estimate at that count, which is what the pages print.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from generator.data.records import Gpu, ModelKind, OpenModel, Scenario, Workload
from generator.data.rules import Rules
from generator.engine import image_speed, memory, scaling, speed
from generator.engine.arch import Arch
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.request import Assumption, Estimate, Request

if TYPE_CHECKING:
    from generator.engine.plans import PlanMemo
    from generator.engine.recommend import OptionMemo

#: Largest card count the sizing tries (eight 8-card servers).
MAX_CARDS = 64


@dataclass(frozen=True)
class ServingFigures:
    """A language model served on ``min_cards`` cards: at the concurrency the free memory allows
    (the engine's cap at most) and at the concurrency the request names (its batch)."""

    at_capacity: speed.Serving
    capped: bool  # the engine's max_num_seqs, not memory, limits at_capacity
    at_batch: speed.Serving
    decode: speed.Throughput  # decode alone at the request's batch and context


@dataclass(frozen=True)
class Sizing:
    """A workload on one GPU model: card count, memory per card, speed."""

    min_cards: int | None  # None: does not fit even on max_cards
    max_cards: int
    usable_gib: float
    estimate: Estimate  # at min_cards, or at one card when nothing fits
    job_hours: float | None  # training job on min_cards cards, before delivery losses
    decode_tokens_per_s: float | None  # inference on min_cards cards, before delivery losses
    assumptions: tuple[Assumption, ...]  # worded by generator.pages.messages.assumption_text
    train: speed.TrainTime | None = None  # the training job's time, MFU and GPU-hours
    serving: ServingFigures | None = None  # language-model serving on min_cards cards
    request: Request | None = None  # the workload at min_cards (None when nothing fits)
    job_tokens_b: float | None = None  # the training job's size, billions of tokens
    image: image_speed.ImageSpeed | None = None  # image generation: one image on one card
    #: LLM serving: the fewest cards that hold it on paper (usable memory) and the memory need there, when
    #: the runtime's reserved share (serving_limit_gib) asks for more cards than that; else None
    paper_cards: int | None = None
    paper_need_gib: float | None = None
    headroom_gib: float | None = None  # LLM serving: the most a card may hold (the runtime's reserved share)

    @property
    def per_card_gib(self) -> float:
        return self.estimate.total_gib

    def train_on(
        self, gpu: Gpu, cards: int, rules: Rules, cluster: scaling.Cluster | None = None, replicated: bool = False
    ) -> speed.TrainTime | None:
        """The training job on ``cards`` cards (at least ``min_cards``: more cards shard the same
        states further, so the job still fits) in ``cluster``'s servers; ``replicated``: every card holds
        the whole job (data parallel); None when this sizing has no training job."""
        if self.request is None or self.job_tokens_b is None or self.min_cards is None or cards < self.min_cards:
            return None
        req = replace(self.request, gpus=cards)
        return speed.training_hours(req, self.job_tokens_b * 1e9, gpu, cards, rules, cluster, replicated)

    @property
    def breakdown(self) -> dict[str, float]:
        return self.estimate.breakdown


def arch_for(model: OpenModel, rules: Rules) -> Arch:
    return Arch.from_model(model, rules.memory.arch_defaults)


def scenario_request(scenario: Scenario, model: OpenModel, rules: Rules) -> Request:
    """A scenario's workload in the estimator's terms, on one card."""
    context = rules.defaults.context if scenario.context is None else scenario.context
    serving = scenario.workload is Workload.inference and model.kind is ModelKind.llm
    return Request.with_defaults(
        rules.defaults,
        scenario.workload,
        arch_for(model, rules),
        scenario.precision,
        kv_precision=scenario.kv_precision,
        batch=scenario.batch,
        context=context,
        grad_checkpointing=scenario.grad_checkpointing,
        optimizer=scenario.optimizer,
        lora_rank=scenario.lora_rank,
        zero_stage=scenario.zero_stage,
        output_tokens=output_tokens(scenario.output_tokens, context, rules) if serving else None,
        resolution=scenario.resolution,
        offload=scenario.offload,
        steps=scenario.steps,
    )


def output_tokens(given: int | None, context: int, rules: Rules) -> int:
    """Tokens generated per request: as given, else ``rules.defaults.output_tokens``, always
    leaving the prompt at least half the context when the default would not fit."""
    if given is not None:
        return given
    return min(rules.defaults.output_tokens, max(1, context // 2))


class Sizer:
    """Sizes workloads under one set of rules, each distinct request and card size once.

    Many GPUs share a memory size (six 80 GB cards in the bundled data) and many pages ask
    the same question (a model page and a GPU page's "which models fit" table), so the
    estimates and card counts are memoised by value: ``Request`` is a frozen dataclass and
    two models of the same shape give equal requests. One Sizer serves one evaluation.
    """

    def __init__(self, rules: Rules, memo: SizingMemo | None = None) -> None:
        self.rules = rules
        kept = memo.tables if memo is not None else ({}, {}, {})
        self._estimates: dict[Request, Estimate] = kept[0]
        self._min_cards: dict[tuple[Request, float, float | None], int | None] = kept[1]
        self._sizings: dict[tuple[Request, str, float | None], Sizing] = kept[2]
        #: rankings by (request, workload, job), for callers that ask the same question twice
        #: (model pages of two models of one shape); values are the caller's, read-only once stored
        self.rankings: dict[tuple[Request, Workload, float | None], Any] = {}
        #: offers' plans kept between evaluations (serve; :class:`generator.engine.plans.PlanMemo`)
        self.plans: PlanMemo | None = None
        #: GPUs' options kept between evaluations (serve; :class:`generator.engine.recommend.OptionMemo`)
        self.options: OptionMemo | None = None

    def estimate(self, req: Request) -> Estimate:
        """:func:`generator.engine.memory.estimate`, once per distinct request."""
        found = self._estimates.get(req)
        if found is None:
            found = self._estimates[req] = memory.estimate(req, self.rules.memory)
        return found

    def min_gpus(self, req: Request, memory_gb: float, limit_gib: float | None = None) -> int | None:
        """:func:`generator.engine.memory.min_gpus`, once per distinct request, card size and limit
        (``limit_gib``: another ceiling per card than the request's usable memory, e.g. the plain share
        without the runtime's reservation)."""
        key = (replace(req, gpus=1), memory_gb, limit_gib)
        if key not in self._min_cards:
            limit = limit_gib if limit_gib is not None else memory.usable_gib(memory_gb, self.rules.memory, req)
            counts = memory.card_counts(self.rules.memory, MAX_CARDS)
            fits = (n for n in counts if self.estimate(replace(req, gpus=n)).total_gib <= limit)
            self._min_cards[key] = next(fits, None)
        return self._min_cards[key]

    def size(self, req: Request, gpu: Gpu, job_tokens_b: float | None = None) -> Sizing:
        """:func:`size_workload`, once per distinct request, GPU and job."""
        key = (req, gpu.id, job_tokens_b)
        found = self._sizings.get(key)
        if found is None:
            found = self._sizings[key] = size_workload(req, gpu, self.rules, job_tokens_b, self)
        return found


class SizingMemo:
    """A :class:`Sizer`'s estimates and sizings kept from one evaluation to the next, for a long-lived
    process (``gpu-guide serve``): they depend only on the request, the card's record and the rules,
    so they stay valid while the rules and every GPU record are equal to the last evaluation's.
    Rankings are not kept: they read offers. :meth:`sizer` starts afresh when either changed."""

    def __init__(self) -> None:
        self._basis: tuple[Rules, dict[str, Gpu]] | None = None
        self.tables: tuple[
            dict[Request, Estimate],
            dict[tuple[Request, float, float | None], int | None],
            dict[tuple[Request, str, float | None], Sizing],
        ] = ({}, {}, {})

    def sizer(self, rules: Rules, gpus: dict[str, Gpu]) -> Sizer:
        """A Sizer for ``rules`` and ``gpus`` that reuses what earlier ones computed under equal ones."""
        if self._basis is None or self._basis != (rules, gpus):
            self._basis = (rules, dict(gpus))
            self.tables = ({}, {}, {})
        return Sizer(rules, self)


def size_workload(
    req: Request, gpu: Gpu, rules: Rules, job_tokens_b: float | None = None, sizer: Sizer | None = None
) -> Sizing:
    """Smallest card count of ``gpu`` that holds ``req``, with the estimate and speed there."""
    sizer = sizer or Sizer(rules)
    paper = sizer.min_gpus(req, gpu.memory_gb, memory.usable_gib(gpu.memory_gb, rules.memory))
    headroom = serving_limit_gib(req, gpu.memory_gb, rules)
    cards = sizer.min_gpus(req, gpu.memory_gb)  # inside the runtime's reserved share, when it has one
    short = paper is not None and paper != cards  # the reserved share asks for more cards than fit on paper
    at = replace(req, gpus=cards or 1)
    est = sizer.estimate(at)
    notes = list(est.assumptions)
    job_hours = tokens_per_s = None
    train = serving = image = None
    if cards is not None and job_tokens_b and req.workload is not Workload.inference:
        train = speed.training_hours(at, job_tokens_b * 1e9, gpu, cards, rules)
        job_hours = train.hours
        notes += train.assumptions
    if cards is not None and req.workload is Workload.inference and req.arch.kind is ModelKind.llm:
        serving = serving_figures(at, gpu, cards, rules)
        tokens_per_s = serving.decode.tokens_per_s
        notes += serving.decode.assumptions
        notes.append(_serving_note(at, serving, rules))
    if cards is not None and req.workload is Workload.inference and req.arch.kind is ModelKind.diffusion:
        image = image_speed.seconds_per_image(at, gpu, rules)
        notes.append(_image_note(at, image))
    return Sizing(
        min_cards=cards,
        max_cards=MAX_CARDS,
        usable_gib=memory.usable_gib(gpu.memory_gb, rules.memory, req),
        estimate=est,
        job_hours=job_hours,
        decode_tokens_per_s=tokens_per_s,
        assumptions=tuple(notes),
        train=train,
        serving=serving,
        request=at if cards is not None else None,
        job_tokens_b=job_tokens_b if train is not None else None,
        image=image,
        paper_cards=paper if short else None,
        paper_need_gib=sizer.estimate(replace(req, gpus=paper)).total_gib if short and paper else None,
        headroom_gib=headroom,
    )


def serving_limit_gib(req: Request, memory_gb: float, rules: Rules) -> float | None:
    """LLM serving on a runtime that reserves a share of each card up front (vLLM's
    gpu_memory_utilization, rules.yaml memory.inference.runtimes): the most a card may hold, when that
    is below the usable memory other work gets; None otherwise (the plain usable memory applies)."""
    limit = memory.usable_gib(memory_gb, rules.memory, req)
    return limit if limit < memory.usable_gib(memory_gb, rules.memory) else None


def serving_figures(req: Request, gpu: Gpu, cards: int, rules: Rules) -> ServingFigures:
    """Serving speed of ``req`` on ``cards`` cards: prompt = context − output tokens."""
    output = req.output_tokens or output_tokens(None, req.context, rules)
    prompt = req.context - output
    most, capped = speed.max_concurrency(req, gpu, cards, rules)
    return ServingFigures(
        at_capacity=speed.serve(req, gpu, cards, rules, prompt, output, most),
        capped=capped,
        at_batch=speed.serve(req, gpu, cards, rules, prompt, output, req.batch),
        decode=speed.decode_throughput(req, gpu, cards, rules),
    )


def serving_limit(req: Request, s: ServingFigures, rules: Rules) -> Reason:
    """What limits the concurrency at capacity: the runtime's cap (:func:`generator.engine.speed.cap_reason`)
    or the KV cache the free memory holds."""
    if s.capped:
        return speed.cap_reason(req, rules)
    return Reason(ReasonKind.limit_kv_cache)


def _serving_note(req: Request, s: ServingFigures, rules: Rules) -> Assumption:
    cap = s.at_capacity
    params: dict[str, Param] = {
        "prompt_tokens": cap.prompt_tokens,
        "output_tokens": cap.output_tokens,
        "limit": serving_limit(req, s, rules),
        "concurrency": cap.concurrency,
        "ttft_ms": f"{cap.ttft_s * 1000:,.0f}",
    }
    launch = speed.launch_reason(req, cap.concurrency, req.context, rules)
    if launch is not None:
        params["launch"] = launch
    return Assumption("serving", cap.concurrency, message=Reason(ReasonKind.serving_throughput, params))


def _image_note(req: Request, s: image_speed.ImageSpeed) -> Assumption:
    passes = Reason(ReasonKind.denoise_cfg if req.arch.denoiser_passes > 1 else ReasonKind.denoise_distilled)
    image = Reason(
        ReasonKind.image_speed,
        {
            "resolution": f"{req.resolution}",  # as written ("1024×1024"), no separators
            "steps": s.steps,
            "passes": passes,
            "seconds": f"{s.seconds:,.1f}",
            "per_hour": f"{s.images_per_hour:,.0f}",
        },
    )
    return Assumption("image_speed", s.seconds, message=image)
