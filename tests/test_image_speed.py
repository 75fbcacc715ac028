"""Image-generation speed against published timings, through the same path the pages use.

The published figures (quoted with their sources in docs-dev/calibration/image-speed*.yaml):
diffusers' "accelerate inference" tutorial, SDXL base in bfloat16 with SDPA, 30 steps, one
1024x1024 image on an 80GB A100: 3.31 s; FLUX.1-dev in bfloat16, 28 steps, 1024x1024 on one
H100: 6.71 s (xDiT) and 7.11 s (BenchmarkFlux); on an A100: 15.65 s; 512x512, 50 steps on an
L40S: 8.71 s (Pruna). Each must come out within 0.8-1.25x on the scenario and model-page path
(models.yaml entries, gpus.yaml peaks, rules.yaml constants), not only in the calibration run.
"""

from __future__ import annotations

import pytest
from conftest import REPO

from generator.data.records import Precision, Scenario, Workload
from generator.data.validate import load_catalogue
from generator.engine import image_speed
from generator.engine.recommend import for_scenario
from generator.engine.request import Request
from generator.engine.sizing import Sizer, arch_for
from generator.pages.messages import explain

_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT

PUBLISHED = [
    # model, gpu, precision, steps, resolution, seconds per image
    ("sdxl", "a100-sxm-80g", Precision.bf16, 30, 1024, 3.31),
    ("flux.1-dev", "h100-sxm-80g", Precision.bf16, 28, 1024, 6.71),
    ("flux.1-dev", "h100-sxm-80g", Precision.bf16, 28, 1024, 7.11),
    ("flux.1-dev", "a100-sxm-80g", Precision.bf16, 28, 1024, 15.65),
    ("flux.1-dev", "l40s", Precision.bf16, 50, 512, 8.71),
]


@pytest.mark.parametrize(("model", "gpu", "precision", "steps", "resolution", "published"), PUBLISHED)
def test_seconds_per_image_match_published_timings(
    model: str, gpu: str, precision: Precision, steps: int, resolution: int, published: float
) -> None:
    s = CAT.scenarios["image-generation"].model_copy(
        update={"model": model, "precision": precision, "steps": steps, "resolution": resolution}
    )
    rec = for_scenario(CAT, s, Sizer(CAT.rules))
    o = rec.option_for(gpu)
    assert o is not None and o.sizing.image is not None
    assert 0.8 <= published / o.sizing.image.seconds <= 1.25, (model, gpu, o.sizing.image.seconds)


def test_default_steps_are_the_pipelines_and_scale_the_time() -> None:
    """Without --steps a model runs its pipeline's default (SDXL 50, FLUX.1-dev 28); the denoiser's share
    of the time scales with the steps."""
    sizer = Sizer(CAT.rules)
    gpu = CAT.gpus["a100-sxm-80g"]
    s = CAT.scenarios["image-generation"]
    base = sizer.size(for_scenario_request(s), gpu)
    assert base.image is not None and base.image.steps == 50
    flux = arch_for(CAT.models["flux.1-dev"], CAT.rules)
    assert flux.default_steps == 28 and flux.denoiser_text_tokens == 512
    at_25 = sizer.size(for_scenario_request(s.model_copy(update={"steps": 25})), gpu)
    assert at_25.image is not None
    assert at_25.image.denoise_s == pytest.approx(base.image.denoise_s / 2)
    assert at_25.image.seconds - at_25.image.denoise_s == pytest.approx(base.image.seconds - base.image.denoise_s)


def test_guidance_doubles_the_denoiser_passes() -> None:
    """SDXL runs CFG (2 passes a step), FLUX.1-dev is guidance-distilled (1)."""
    assert arch_for(CAT.models["sdxl"], CAT.rules).denoiser_passes == 2
    assert arch_for(CAT.models["flux.1-dev"], CAT.rules).denoiser_passes == 1


def test_rows_show_images_per_hour_and_cost_per_thousand() -> None:
    """Every priced image row: images per hour = every rented card's copy at 3,600 / seconds after the
    delivery's loss; the reason names both figures and the GPU-rent-only basis."""
    rec = for_scenario(CAT, CAT.scenarios["image-generation"], Sizer(CAT.rules))
    rows = [o for o in rec.options if o.plan is not None and not o.excluded]
    assert rows
    for o in rows:
        assert o.plan is not None and o.sizing.image is not None and o.images_per_hour is not None
        expected = o.plan.cards_billed * 3600 / o.sizing.image.seconds * o.plan.keep
        assert o.images_per_hour == pytest.approx(expected)
        assert any("每千张约" in explain(r) and "只计 GPU 租金" in explain(r) for r in o.reasons), o.gpu.id
    # ranked by cost per 1,000 images, confirmed options before tentative ones (unconfirmed figures, †)
    for tentative in (False, True):
        values = [o.cost_per_kimage_cny or 0.0 for o in rows if o.tentative is tentative]
        assert values == sorted(values)
    flags = [o.tentative for o in rows]
    assert flags == sorted(flags)


def for_scenario_request(s: Scenario) -> Request:
    from generator.engine.sizing import scenario_request

    assert s.workload is Workload.inference
    return scenario_request(s, CAT.models[s.model], CAT.rules)


def test_cost_per_kimage_is_rent_over_images() -> None:
    assert image_speed.cost_per_kimage(500.0, 10.0) == pytest.approx(20.0)
    assert image_speed.cost_per_kimage(0.0, 10.0) == float("inf")
