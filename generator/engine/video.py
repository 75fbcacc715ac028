"""Wan 2.1 text-to-video: latent tokens, FLOPs, seconds and peak memory per video.

One video of ``frames`` frames at ``width × height`` pixels goes through

* the **Wan-VAE** (``vae_stride`` 4 in time, 8×8 in space; the first frame is kept on its own, so
  ``1 + (frames - 1) / 4`` latent frames) and the DiT's **patch embedding** (``patch_size`` 1×2×2):
  ``tokens = (1 + (F-1)/4) · (H/8/2) · (W/8/2)``; 81 frames at 1280×720 → 21 × 45 × 80 = 75,600
  tokens (the repo's ``seq_len``, generate.py / text2video.py);
* **denoising**: ``steps × passes`` DiT passes (passes 2 with classifier-free guidance: a
  conditional and an unconditional pass per step). One pass over ``L`` blocks of width ``d`` and
  FFN width ``f`` takes, per block, ``2·(4d² + 2d² + 2df)·N`` FLOPs in its linear layers (self-
  attention q/k/v/o, cross-attention q/o, FFN), ``2·2d²·text_tokens`` for cross-attention's k/v on
  the prompt, ``4·N²·d`` for self-attention's scores and weighted sum (the T² term, which is most of
  the work at 720p) and ``4·N·text_tokens·d`` for cross-attention's;

at the card's dense BF16 tensor peak × ``mfu`` (calibrated: docs-dev/calibration/video.yaml).

Peak memory is the largest of three phases (text encoding: umt5-xxl; denoising: DiT weights and
activations; VAE decode), each with whatever the offload options leave resident on the card.
Pure functions; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.data.rules import Rules
from generator.engine.reason import Reason, ReasonKind

GIB = 1024**3


@dataclass(frozen=True)
class DitConfig:
    """A Wan DiT's shape (wan/configs/wan_t2v_*.py)."""

    dim: int
    ffn_dim: int
    num_layers: int
    num_heads: int
    params: float  # the DiT's parameter count
    text_encoder_params: float  # umt5-xxl encoder
    vae_params: float


@dataclass(frozen=True)
class VideoConstants:
    """The rules (rules.yaml speed.video) video estimates use."""

    vae_stride_t: int
    vae_stride_s: int
    patch_t: int
    patch_s: int
    text_tokens: int
    mfu: float
    weight_bytes: float  # bytes per DiT / T5 weight (bf16: 2)
    activation_bytes_per_token_width: float
    vae_decode_bytes_per_pixel_frame: float
    overhead_gib: float


@dataclass(frozen=True)
class VideoRequest:
    """One text-to-video job."""

    width: int
    height: int
    frames: int
    steps: int
    guidance: bool = True
    offload_model: bool = False  # DiT and T5 each on the card only in their own phase (Wan --offload_model)
    t5_cpu: bool = False  # the text encoder runs on the CPU


@dataclass(frozen=True)
class Geometry:
    """Latent grid and DiT tokens of one video."""

    latent_frames: int
    latent_h: int
    latent_w: int
    tokens: int


@dataclass(frozen=True)
class VideoMemory:
    """Peak GiB per phase on the card, and the peak."""

    text_gib: float
    denoise_gib: float
    decode_gib: float

    @property
    def peak_gib(self) -> float:
        return max(self.text_gib, self.denoise_gib, self.decode_gib)


@dataclass(frozen=True)
class VideoSpeed:
    """One video on ``cards`` cards."""

    tflops: float  # FLOPs of the whole denoising, in TFLOPs
    seconds: float
    cards: int

    @property
    def videos_per_hour(self) -> float:
        return 3600.0 / self.seconds if self.seconds > 0 and math.isfinite(self.seconds) else 0.0


def constants(rules: Rules) -> VideoConstants:
    """The video constants of ``rules`` (rules.yaml speed.video)."""
    v = rules.speed.video
    return VideoConstants(
        vae_stride_t=v.vae_stride[0],
        vae_stride_s=v.vae_stride[1],
        patch_t=v.patch_size[0],
        patch_s=v.patch_size[1],
        text_tokens=v.text_tokens,
        mfu=v.mfu,
        weight_bytes=v.weight_bytes,
        activation_bytes_per_token_width=v.activation_bytes_per_token_width,
        vae_decode_bytes_per_pixel_frame=v.vae_decode_bytes_per_pixel_frame,
        overhead_gib=v.overhead_gib,
    )


def sp_scaling(rules: Rules, cards: int) -> float | None:
    """Speed-up of one video on ``cards`` cards from the Wan table; None where it gives none."""
    return rules.speed.video.sp_scaling.get(str(cards))


def geometry(req: VideoRequest, k: VideoConstants) -> Geometry:
    """Latent frames × latent rows × latent columns, and the DiT's token count."""
    lf = 1 + (req.frames - 1) // k.vae_stride_t
    lh = req.height // k.vae_stride_s
    lw = req.width // k.vae_stride_s
    tokens = (lf // k.patch_t) * (lh // k.patch_s) * (lw // k.patch_s)
    return Geometry(latent_frames=lf, latent_h=lh, latent_w=lw, tokens=tokens)


def flops_per_pass(cfg: DitConfig, tokens: int, k: VideoConstants) -> float:
    """FLOPs of one DiT pass over ``tokens`` video tokens (linear layers plus attention)."""
    d, f, n, t = cfg.dim, cfg.ffn_dim, tokens, k.text_tokens
    linear = 2 * (6 * d * d + 2 * d * f) * n + 2 * 2 * d * d * t
    attention = 4 * n * n * d + 4 * n * t * d
    return cfg.num_layers * (linear + attention)


def attention_share(cfg: DitConfig, tokens: int, k: VideoConstants) -> float:
    """Share of one pass's FLOPs in self-attention's T² term."""
    return cfg.num_layers * 4 * tokens * tokens * cfg.dim / flops_per_pass(cfg, tokens, k)


def seconds_per_video(
    cfg: DitConfig, req: VideoRequest, k: VideoConstants, peak_tflops: float, scaling: float = 1.0, cards: int = 1
) -> VideoSpeed:
    """Denoising time of one video at ``peak_tflops`` × mfu, sped up ``scaling`` on ``cards`` cards."""
    g = geometry(req, k)
    passes = 2 if req.guidance else 1
    total = req.steps * passes * flops_per_pass(cfg, g.tokens, k)
    rate = peak_tflops * 1e12 * k.mfu * scaling
    seconds = total / rate if rate > 0 else math.inf
    return VideoSpeed(tflops=total / 1e12, seconds=seconds, cards=cards)


def memory(cfg: DitConfig, req: VideoRequest, k: VideoConstants, cards: int = 1) -> VideoMemory:
    """Peak GiB per card per phase; with ``cards`` > 1 sequence parallelism splits the activations."""
    g = geometry(req, k)
    dit = cfg.params * k.weight_bytes / GIB
    t5 = 0.0 if req.t5_cpu else cfg.text_encoder_params * k.weight_bytes / GIB
    vae = cfg.vae_params * 4 / GIB  # the Wan-VAE runs in fp32
    act = g.tokens * cfg.dim * k.activation_bytes_per_token_width / GIB / cards
    decode = req.width * req.height * req.frames * k.vae_decode_bytes_per_pixel_frame / GIB
    dit_idle = 0.0 if req.offload_model else dit
    t5_idle = 0.0 if req.offload_model else t5
    return VideoMemory(
        text_gib=t5 + dit_idle + vae + k.overhead_gib,
        denoise_gib=dit + act + t5_idle + vae + k.overhead_gib,
        decode_gib=vae + decode + dit_idle + t5_idle + k.overhead_gib,
    )


def cost_per_video(seconds: float, cards: int, hourly_cny_per_card: float) -> float:
    """GPU rent for one video: ``cards`` cards for ``seconds``."""
    return hourly_cny_per_card * cards * seconds / 3600.0 if math.isfinite(seconds) else math.inf


def cost_per_video_minute(seconds: float, cards: int, hourly_cny_per_card: float, frames: int, fps: float) -> float:
    """GPU rent per minute of finished video (``frames / fps`` seconds of it per video)."""
    return cost_per_video(seconds, cards, hourly_cny_per_card) / (frames / fps / 60.0)


def _phase(m: VideoMemory) -> ReasonKind:
    """The phase whose memory is the peak (ties: the earliest)."""
    if m.peak_gib == m.text_gib:
        return ReasonKind.video_phase_text
    if m.peak_gib == m.denoise_gib:
        return ReasonKind.video_phase_denoise
    return ReasonKind.video_phase_decode


def offload_reason(req: VideoRequest) -> Reason | None:
    """What ``req``'s placement takes off the card (``--offload_model``, ``--t5_cpu``); None for nothing."""
    if req.offload_model and req.t5_cpu:
        return Reason(ReasonKind.video_offload_both)
    if req.offload_model:
        return Reason(ReasonKind.video_offload_model)
    if req.t5_cpu:
        return Reason(ReasonKind.video_offload_t5)
    return None


def reasons(
    cfg: DitConfig,
    req: VideoRequest,
    k: VideoConstants,
    s: VideoSpeed,
    m: VideoMemory,
    scaling: float,
    cost: str,
    cost_per_minute: str,
) -> tuple[Reason, ...]:
    """What is said about one video plan (the message table words them; money comes formatted)."""
    g = geometry(req, k)
    speed_params: dict[str, object] = {
        "width": str(req.width), "height": str(req.height), "frames": req.frames, "tokens": g.tokens, "steps": req.steps,
        "passes": Reason(ReasonKind.denoise_cfg if req.guidance else ReasonKind.denoise_distilled),
        "cards": s.cards, "seconds": f"{s.seconds:,.0f}",
        "attention_share": f"{attention_share(cfg, g.tokens, k):.0%}",
    }  # fmt: skip
    if s.cards > 1:
        speed_params["scaling"] = f"{scaling:.2f}"
    mem: dict[str, object] = {"peak_gib": f"{m.peak_gib:.1f}", "phase": Reason(_phase(m))}
    off = offload_reason(req)
    if off is not None:
        mem["offload"] = off
    return (
        Reason(ReasonKind.video_speed, speed_params),  # type: ignore[arg-type]
        Reason(ReasonKind.video_memory, mem),  # type: ignore[arg-type]
        Reason(ReasonKind.video_cost, {"cost": cost, "cost_per_minute": cost_per_minute}),
    )
