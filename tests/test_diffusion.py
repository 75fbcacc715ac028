"""Image-generation memory against published peaks, and the pipeline's invariants.

Sources (the Hugging Face blogs print ``torch.cuda.max_memory_*() / 1024**3`` and label it
"GB": those figures are GiB):

* SDXL: "Exploring simple optimizations for SDXL" (huggingface/blog simple_sdxl_optimizations.md,
  A100 40GB, 4 images of 1024×1024 per prompt, fp16): 21.72 (all on the GPU), 20.21 (model CPU offload).
  The only batch-1 figure found is the ENFUGUE author's "SDXL Base, no Refiner: VRAM: Peaks at
  about 12 GB" (painebenjamin/app.enfugue.ai issue 43); the issue's 8–12 GB range agrees.
* FLUX.1-dev: "Exploring Quantization Backends in Diffusers" (huggingface/blog diffusers-quantization.md,
  H100, 1024×1024, bf16, all on the GPU): 31.447 GiB after loading, 36.166 GiB peak (reserved).
  With model CPU offload only an estimate exists: "VRAM usage will go down to 24 GB (because of the
  DiT)" (black-forest-labs/FLUX.1-schnell discussion 5).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_project, replace_in

from generator.data.records import ComponentRole, Offload, Precision, Workload
from generator.data.rules import Rules
from generator.engine.arch import Arch, Component
from generator.engine.memory import estimate, min_gpus
from generator.engine.request import Request
from generator.pages.messages import assumption_text, explain

ROOT = Path(__file__).resolve().parent.parent
RULES = Rules.model_validate(yaml.safe_load((ROOT / "data" / "rules.yaml").read_text(encoding="utf-8")))
MEM = RULES.memory

# Element counts of the safetensors files of stabilityai/stable-diffusion-xl-base-1.0.
SDXL = Arch.diffusion(
    3.47,
    (
        Component(ComponentRole.unet, "UNet", 2_567_463_684),
        Component(ComponentRole.text_encoder, "CLIP ViT-L", 123_060_480),
        Component(ComponentRole.text_encoder, "OpenCLIP ViT-bigG", 694_659_840),
        Component(ComponentRole.vae, "VAE", 83_653_863, fp32_decode_in_fp16=True),
    ),
    2,  # classifier-free guidance
    MEM.arch_defaults,
)
# black-forest-labs/FLUX.1-dev: transformer and T5 encoder element counts; VAE 168 MB in bf16 (blog) = 84M.
FLUX = Arch.diffusion(
    16.87,
    (
        Component(ComponentRole.transformer, "FLUX transformer", 11_901_408_320),
        Component(ComponentRole.text_encoder, "T5-v1.1-XXL", 4_762_310_656, fp32_params_in_fp16=1_006_632_960),
        Component(ComponentRole.text_encoder, "CLIP ViT-L", 123_060_480),
        Component(ComponentRole.vae, "VAE", 84_000_000),
    ),
    1,  # guidance-distilled
    MEM.arch_defaults,
)


def image(arch: Arch, precision: str, **kw: Any) -> Request:
    return Request.with_defaults(
        RULES.defaults, workload=Workload.inference, arch=arch, precision=Precision(precision), **kw
    )


def test_sdxl_1024_fp16_one_image_is_in_the_published_range() -> None:
    est = estimate(image(SDXL, "fp16"), MEM)
    assert 8.0 <= est.total_gib <= 12.0
    # weights: 3,468,837,867 params x 2 bytes, with the VAE upcast to fp32 for decoding (+ 83.7M x 2 bytes)
    assert est.breakdown["weights"] == pytest.approx((3_468_837_867 * 2 + 83_653_863 * 2) / 2**30, rel=1e-6)
    assert est.breakdown["kv_cache"] == 0
    assert any("升为 fp32" in assumption_text(a) for a in est.assumptions)


def test_sdxl_four_images_reproduce_the_blog_within_the_aim_high_band() -> None:
    on_gpu = estimate(image(SDXL, "fp16", batch=4), MEM).total_gib
    offload = estimate(image(SDXL, "fp16", batch=4, offload="model"), MEM).total_gib
    # max_memory_allocated does not see the CUDA context the estimate adds: aim 0-15 % high ...
    assert 1.0 <= on_gpu / 21.72 <= 1.15
    # ... the offload row is the set's worst case (the blog's offload peak is 1.5 GiB below "all on GPU",
    # the model 6 GiB below): still inside the calibration band of 0.5-2.
    assert 0.75 <= offload / 20.21 <= 1.15
    assert offload < on_gpu


def test_flux_dev_bf16_matches_the_measured_peak() -> None:
    est = estimate(image(FLUX, "bf16"), MEM)
    assert est.breakdown["weights"] == pytest.approx(31.447, rel=0.01)  # "Memory after loading"
    assert 0.92 <= est.total_gib / 36.166 <= 1.10
    offload = estimate(image(FLUX, "bf16", offload="model"), MEM)
    # only the 12B transformer (22.2 GiB in bf16) and its activations stay: about the 24 GB estimated
    assert 22.17 < offload.total_gib <= 26
    # A 24 GB card keeps 23.0 GiB usable: FLUX.1-dev in bf16 needs a bigger card even with offload.
    assert min_gpus(image(FLUX, "bf16"), 24, MEM) is None
    assert min_gpus(image(FLUX, "bf16"), 48, MEM) == 1


def test_t5_keeps_its_wo_layers_in_fp32_only_under_fp16() -> None:
    fp16 = estimate(image(FLUX, "fp16"), MEM).breakdown["weights"]
    bf16 = estimate(image(FLUX, "bf16"), MEM).breakdown["weights"]
    assert fp16 - bf16 == pytest.approx(1_006_632_960 * 2 / 2**30, rel=1e-6)


def test_pipelines_never_split_and_bigger_images_need_more() -> None:
    req = image(SDXL, "fp16")
    one = estimate(req, MEM)
    assert estimate(replace(req, gpus=4), MEM).total_gib == one.total_gib
    assert estimate(replace(req, resolution=2048), MEM).total_gib > one.total_gib
    assert estimate(replace(req, batch=2), MEM).total_gib > one.total_gib
    # the decode grows with pixels: 4x the pixels, 4x the activations
    big = estimate(replace(req, resolution=2048), MEM)
    assert big.breakdown["activations"] == pytest.approx(4 * one.breakdown["activations"])
    for arch, prec in ((SDXL, "fp16"), (FLUX, "bf16")):
        r = image(arch, prec)
        assert estimate(replace(r, offload=Offload.model), MEM).total_gib < estimate(r, MEM).total_gib


def test_components_are_listed_with_their_weights() -> None:
    est = estimate(image(FLUX, Precision.bf16), MEM)
    labels = [explain(label) for label, _ in est.detail]
    assert len(labels) == 4 and "FLUX transformer" in labels[0]
    assert est.detail[0][1] == pytest.approx(11_901_408_320 * 2 / 2**30)


def test_image_scenario_with_a_token_context_is_refused(tmp_path: Path) -> None:
    from generator.data.validate import load_catalogue

    def edit(data: Path) -> None:
        models = (ROOT / "data" / "models.yaml").read_text(encoding="utf-8")
        sdxl = models[models.index("  - id: sdxl") : models.index("  - id: flux.1-dev")]
        (data / "models.yaml").write_text((data / "models.yaml").read_text(encoding="utf-8") + sdxl, encoding="utf-8")
        replace_in(data / "scenarios.yaml", "model: llama-2-7b", "model: sdxl")

    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data")
    assert cat is None
    text = "\n".join(str(p) for p in problems)
    assert "scenarios[0].context" in text and "resolution" in text


def test_image_model_components_must_add_up(tmp_path: Path) -> None:
    from generator.data.validate import load_catalogue

    def edit(data: Path) -> None:
        models = (ROOT / "data" / "models.yaml").read_text(encoding="utf-8")
        sdxl = models[models.index("  - id: sdxl") : models.index("  - id: flux.1-dev")]
        sdxl = sdxl.replace("params_b: 3.47 ", "params_b: 3.9 ")
        (data / "models.yaml").write_text((data / "models.yaml").read_text(encoding="utf-8") + sdxl, encoding="utf-8")

    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data")
    assert cat is None
    assert any("add up to 3.469B" in p.message for p in problems)
