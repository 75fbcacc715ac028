"""Wan text-to-video plans: a ``kind: video`` model on each GPU, ranked by rent per video.

Builds the engine's :class:`~generator.engine.video.DitConfig` from a models.yaml entry and, for one
request, sizes every GPU with 1, 2, 4 or 8 cards (the counts rules.yaml ``speed.video.sp_scaling``
gives a speed-up for): a card count is kept only where the peak phase fits the card's memory, with
the request's own placement or else the first more offloaded one Wan's generate.py offers
(:data:`OFFLOAD_LADDER`; :func:`fit` is the one place that chooses). Pure functions; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from generator.data.catalogue import Catalogue
from generator.data.records import ComponentRole, Gpu, ModelKind, Offer, OpenModel, Vendor
from generator.engine import cost as costs
from generator.engine import memory, video
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.video import DitConfig, VideoMemory, VideoRequest, VideoSpeed


def dit_config(model: OpenModel) -> DitConfig:
    """The engine's shape of a ``kind: video`` entry (layers/hidden/heads/intermediate = the DiT's)."""
    if model.kind is not ModelKind.video:
        raise ValueError(f"{model.id} is not a video model (kind: {model.kind.value})")
    parts = {c.role: float(c.params) for c in model.components}
    assert model.hidden and model.intermediate and model.layers and model.heads  # validate.py requires them
    return DitConfig(
        dim=model.hidden,
        ffn_dim=model.intermediate,
        num_layers=model.layers,
        num_heads=model.heads,
        params=parts[ComponentRole.transformer],
        text_encoder_params=parts[ComponentRole.text_encoder],
        vae_params=parts[ComponentRole.vae],
    )


#: The placements Wan 2.1's generate.py offers, least offloaded first (``offload_model``, ``t5_cpu``):
#: everything resident; ``--offload_model True`` (the DiT and umt5-xxl on the card only in their own
#: phase); that and ``--t5_cpu`` (the text encoder on the CPU) -- the README's advice on OOM.
OFFLOAD_LADDER: tuple[tuple[bool, bool], ...] = ((False, False), (True, False), (True, True))


def placements(req: VideoRequest) -> tuple[VideoRequest, ...]:
    """The request's own placement, then each more offloaded one of :data:`OFFLOAD_LADDER` (an
    option the request already sets stays set)."""
    out = [req]
    for off, t5 in OFFLOAD_LADDER:
        r = replace(req, offload_model=req.offload_model or off, t5_cpu=req.t5_cpu or t5)
        if r not in out:
            out.append(r)
    return tuple(out)


@dataclass(frozen=True)
class Fit:
    """The placement one request gets on ``cards`` of one GPU (:func:`fit`)."""

    request: VideoRequest  # the placement: the first of :func:`placements` that fits, else the last
    memory: VideoMemory  # its peak GiB per card by phase
    usable_gib: float  # what the card offers (:func:`usable_gib`)
    asked_gib: float  # the peak with the request's own placement

    @property
    def fits(self) -> bool:
        return self.memory.peak_gib <= self.usable_gib

    @property
    def needs_offload(self) -> bool:
        """Whether it fits only by offloading more than the request asked."""
        return self.fits and self.memory.peak_gib < self.asked_gib

    def reason(self) -> Reason | None:
        """Said of a placement that fits only offloaded: the peak without it, what is offloaded, and
        that the offload's time is not counted apart (the message table words it); else None."""
        off = video.offload_reason(self.request)
        if not self.needs_offload or off is None:
            return None
        params: dict[str, Param] = {
            "plain_gib": f"{self.asked_gib:.1f}",
            "usable_gib": f"{self.usable_gib:.1f}",
            "offload": off,
        }
        if self.request.t5_cpu:
            params["cpu_text"] = Reason(ReasonKind.video_t5_cpu_time)
        return Reason(ReasonKind.video_needs_offload, params)


def fit(cat: Catalogue, cfg: DitConfig, req: VideoRequest, gpu: Gpu, cards: int = 1) -> Fit:
    """The one fit test of the ranking, the video pages and ``gpu-guide estimate --gpu``: the request's
    own placement where its peak phase fits the card's usable memory, else the first more offloaded
    one that does (else the most offloaded, which does not fit). Offloading costs no time in the
    engine: its MFU was set on an ``--offload_model True`` run (rules.yaml speed.video.mfu)."""
    usable = usable_gib(cat, gpu)
    k = video.constants(cat.rules)
    tried = [(r, video.memory(cfg, r, k, cards=cards)) for r in placements(req)]
    asked = tried[0][1].peak_gib
    r, m = next(((r, m) for r, m in tried if m.peak_gib <= usable), tried[-1])
    return Fit(r, m, usable, asked)


@dataclass(frozen=True)
class VideoPlan:
    """One offer at one card count (all in one instance): memory, seconds and rent per video."""

    gpu: Gpu
    offer: Offer
    cards: int
    fit: Fit  # the placement it runs with and its memory (:func:`fit`: offloaded only where it must be)
    speed: VideoSpeed
    scaling: float
    hourly_cny: float  # per card-hour at this offer (mid of a range), yuan
    #: with a monthly volume: the month's rent for it (whole instances, whole billing periods), yuan
    month_cny: float | None = None
    videos_per_month: float | None = None

    @property
    def request(self) -> VideoRequest:
        """The request as placed on the card (its ``offload_model`` / ``t5_cpu`` are the plan's)."""
        return self.fit.request

    @property
    def memory(self) -> VideoMemory:
        return self.fit.memory

    @property
    def rent_per_video(self) -> float:
        """The cards' rent for the seconds one video takes (nothing idle, no minimum rental)."""
        return video.cost_per_video(self.speed.seconds, self.cards, self.hourly_cny)

    @property
    def cny_per_video(self) -> float:
        """The month's rent over its videos where a volume is given, else :attr:`rent_per_video`."""
        if self.month_cny is not None and self.videos_per_month:
            return self.month_cny / self.videos_per_month
        return self.rent_per_video


@dataclass(frozen=True)
class Excluded:
    """A GPU with offers but no plan, and why (the message table words it)."""

    gpu: Gpu
    why: Exclusion


def peak_tflops(gpu: Gpu) -> float | None:
    """Dense 16-bit tensor peak: BF16, else FP16."""
    return gpu.bf16_tflops_dense or gpu.fp16_tflops_dense


def usable_gib(cat: Catalogue, gpu: Gpu) -> float:
    """The card's memory a video request may use (rules.yaml memory.usable_fraction), GiB: the limit
    :func:`fit` tests each placement against."""
    return memory.usable_gib(gpu.memory_gb, cat.rules.memory)


def rank(
    cat: Catalogue,
    model: OpenModel,
    req: VideoRequest,
    videos_per_month: float | None = None,
    require_cuda: bool | None = None,
) -> tuple[list[VideoPlan], list[Excluded]]:
    """Each GPU's cheapest plan per video, cheapest first, and the GPUs with offers but no plan.

    For every current offer, every card count of ``speed.video.sp_scaling`` up to the offer's cards per
    instance (sequence parallelism stays inside one machine) is kept where the peak phase fits the
    card's usable memory (rules.yaml memory.usable_fraction), offloaded only where it must be
    (:func:`fit`); a GPU none of whose placements fits is excluded with its most offloaded peak.
    Without a volume it is priced at the cards' rent for the seconds a video takes; with ``videos_per_month`` at the month's rent
    (engine/cost.py job_cost_cny: whole instances, whole months or days on monthly/daily offers) over
    the videos. Ties go to fewer cards, then the offer id.

    ``require_cuda`` (default: rules.yaml defaults.require_cuda) leaves out every card that is not
    NVIDIA, with the ``needs_cuda`` exclusion: Wan 2.1's published pipeline is CUDA code (its
    timings are A100/H800/4090 runs), and the efficiency the engine applies was measured there."""
    if require_cuda is None:
        require_cuda = cat.rules.defaults.require_cuda
    cfg, k, rules = dit_config(model), video.constants(cat.rules), cat.rules
    pricing = costs.pricing_of(cat)
    counts = sorted(int(n) for n in rules.speed.video.sp_scaling)
    plans: list[VideoPlan] = []
    excluded: list[Excluded] = []
    for gpu in cat.gpus.values():
        offers = sorted((o for o in cat.pickable_offers if o.gpu == gpu.id), key=lambda o: o.id)
        if not offers:
            continue
        if require_cuda and gpu.vendor is not Vendor.nvidia:
            excluded.append(Excluded(gpu, Exclusion(ExclusionKind.needs_cuda)))
            continue
        peak = peak_tflops(gpu)
        if peak is None:
            excluded.append(Excluded(gpu, Exclusion(ExclusionKind.video_no_tensor_figure)))
            continue
        usable = usable_gib(cat, gpu)
        # placement, memory and seconds depend on the card count, not the offer: once per count offered
        largest = max(o.cards for o in offers)
        fits = {n: fit(cat, cfg, req, gpu, cards=n) for n in counts if n <= largest}
        timed: dict[int, tuple[float, VideoSpeed]] = {}  # count -> (speed-up, seconds), where it fits
        for n, f in fits.items():
            if f.fits:
                scaling = video.sp_scaling(rules, n) or 1.0
                timed[n] = (scaling, video.seconds_per_video(cfg, f.request, k, peak, scaling=scaling, cards=n))
        best: VideoPlan | None = None
        smallest, most = math.inf, 1
        for o in offers:
            for n in (c for c in counts if c <= o.cards):
                f = fits[n]
                smallest, most = min(smallest, f.memory.peak_gib), max(most, n)
                if not f.fits:
                    continue
                scaling, s = timed[n]
                month = None
                if videos_per_month:
                    month = costs.job_cost_cny(o, n, videos_per_month * s.seconds / 3600.0, pricing)
                plan = VideoPlan(gpu, o, n, f, s, scaling, costs.card_hour_cny(o, pricing), month, videos_per_month)
                if best is None or round(plan.cny_per_video, 9) < round(best.cny_per_video, 9):
                    best = plan
        if best is not None:
            plans.append(best)
        else:
            params: dict[str, int | str] = {"peak_gib": f"{smallest:.1f}", "usable_gib": f"{usable:.1f}", "cards": most}
            excluded.append(Excluded(gpu, Exclusion(ExclusionKind.video_does_not_fit, dict(params))))
    plans.sort(key=lambda p: (round(p.cny_per_video, 9), p.cards, p.offer.id))
    return plans, excluded
