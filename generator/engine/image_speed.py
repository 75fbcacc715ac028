"""Seconds per image of a diffusion pipeline on one card, and images per hour.

One image (batch 1, one card: common tools do not split a pipeline across cards) takes

* **denoising**: ``steps × passes × 2 · P · T`` FLOPs, where ``P`` is the denoiser's parameters,
  ``passes`` its passes per step (2 with classifier-free guidance: SDXL, SD3; 1 for the
  guidance-distilled FLUX.1-dev) and ``T`` the tokens each parameter works on:
  ``(resolution / (latent_downsample × token_latents))²`` image tokens plus the text tokens a
  joint-attention transformer carries (``denoiser_text_tokens``: FLUX's 512);
* **text encoding**: ``2 · P_text · text_tokens`` FLOPs, once per image;
* **VAE decode**: ``vae_decode_tflops_per_megapixel`` per megapixel, slower by
  ``fp32_decode_slowdown`` when the pipeline upcasts the VAE to fp32 in fp16 (SDXL);

all at the card's dense 16-bit tensor peak (BF16 when the pipeline runs in BF16 and the card has
it, else FP16) times the denoiser's efficiency (``rules.speed.image.efficiency``, calibrated on
published timings: ``docs-dev/calibration/image-speed.yaml``) times the architecture's factor
(``architecture_factor``: plain PyTorch reaches less of Hopper's peak). Attention's own FLOPs are not
counted (about a tenth of FLUX's at 1024²; more at larger sizes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.data.records import ComponentRole, Gpu, Precision
from generator.data.rules import Rules
from generator.engine.request import Request
from generator.engine.units import SECONDS_PER_HOUR


@dataclass(frozen=True)
class ImageSpeed:
    """One image on one card, before the delivery form's speed loss."""

    steps: int
    seconds: float  # the whole image: text encoding, denoising, VAE decode
    denoise_s: float
    tflops: float  # FLOPs one image takes, in TFLOPs

    @property
    def images_per_hour(self) -> float:
        return SECONDS_PER_HOUR / self.seconds if math.isfinite(self.seconds) else 0.0


def steps_of(req: Request, rules: Rules) -> int:
    """Denoising steps: the request's, else the model's default, else ``rules.defaults.steps``."""
    if req.steps is not None:
        return req.steps
    return req.arch.default_steps or rules.defaults.steps


def peak_tflops(gpu: Gpu, precision: Precision) -> float:
    """The dense 16-bit tensor peak the pipeline runs at."""
    if precision is Precision.bf16 and gpu.bf16_tflops_dense is not None:
        return gpu.bf16_tflops_dense
    return gpu.fp16_tflops_dense or gpu.bf16_tflops_dense or gpu.fp32_tflops or 0.0


def seconds_per_image(req: Request, gpu: Gpu, rules: Rules) -> ImageSpeed:
    """One image of ``req`` (a diffusion pipeline) on one card of ``gpu``."""
    r = rules.speed.image
    parts = req.arch.components
    denoiser = next(c for c in parts if c.role.denoiser)
    role = denoiser.role.value
    side = req.resolution / (r.latent_downsample * r.token_latents[role])
    tokens = side * side + req.arch.denoiser_text_tokens
    steps = steps_of(req, rules)
    denoise = steps * req.arch.denoiser_passes * 2 * denoiser.params * tokens
    text = sum(2 * c.params * r.text_tokens for c in parts if c.role is ComponentRole.text_encoder)
    upcast = req.precision is Precision.fp16 and any(c.fp32_decode_in_fp16 for c in parts)
    vae = r.vae_decode_tflops_per_megapixel * 1e12 * req.megapixels * (r.fp32_decode_slowdown if upcast else 1.0)
    rate = (
        peak_tflops(gpu, req.precision) * 1e12 * r.efficiency[role] * r.architecture_factor.get(gpu.architecture, 1.0)
    )
    if rate <= 0:
        return ImageSpeed(steps=steps, seconds=math.inf, denoise_s=math.inf, tflops=(denoise + text + vae) / 1e12)
    return ImageSpeed(
        steps=steps,
        seconds=(denoise + text + vae) / rate,
        denoise_s=denoise / rate,
        tflops=(denoise + text + vae) / 1e12,
    )


def cost_per_kimage(images_per_hour: float, hourly_cny: float) -> float:
    """GPU rent per 1,000 images at ``images_per_hour``."""
    return hourly_cny / images_per_hour * 1000 if images_per_hour > 0 else float("inf")
