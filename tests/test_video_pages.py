"""The Wan video model pages (generator/pages/plan.py video_model_context), checked by hand.

14B at 1280x720, 81 frames, 50 steps (tests/test_video.py works the GiB out): all on the card the
peak is denoising, 26.077 (DiT) + 2.091 (activations) + 10.580 (umt5-xxl) + 0.473 (VAE, fp32) + 1 =
40.221 GiB; with --offload_model the text phase holds only umt5-xxl + VAE + overhead = 12.053 and
the denoise phase 40.221 - 10.580 = 29.641; with --t5_cpu as well the text phase is 1.473.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.data.validate import load_catalogue
from generator.pages.plan import video_model_context

REPO = Path(__file__).resolve().parent.parent
CAT, _ = load_catalogue(REPO / "data", REPO)
assert CAT is not None


def test_memory_by_phase_and_offload_setting() -> None:
    c = video_model_context(CAT, CAT.models["wan2.1-t2v-14b"])
    assert (c.width, c.height, c.frames, c.steps, c.tokens) == (1280, 720, 81, 50, 75_600)
    everything, offload, both = c.memory_rows
    assert everything.peak_gib == pytest.approx(40.221, abs=2e-3)
    assert everything.peak_gib == everything.denoise_gib
    assert offload.text_gib == pytest.approx(12.053, abs=2e-3)
    assert offload.peak_gib == pytest.approx(29.641, abs=2e-3)
    assert both.text_gib == pytest.approx(1.473, abs=2e-3)
    assert c.video_seconds == pytest.approx(81 / 16)


def test_plans_price_per_video_and_minute() -> None:
    """The A100 80GB PCIe row: 3318.72 s (tests/test_video_cli.py) at its offer's card-hour."""
    c = video_model_context(CAT, CAT.models["wan2.1-t2v-14b"])
    shown = {p.gpu_id: p for p in c.plans}
    assert c.plans and all(p.peak_gib <= 80 for p in c.plans)
    seconds = [p.seconds for p in c.plans]
    assert all(s > 0 for s in seconds)
    excluded = dict(c.excluded)
    assert "GeForce RTX 4090 24GB" in excluded and "23.0 GiB" in excluded["GeForce RTX 4090 24GB"]
    if "a100-pcie-80g" in shown:
        assert shown["a100-pcie-80g"].seconds == pytest.approx(3318.72, abs=0.1)
    # the engine's three sentences about the cheapest plan: speed, memory, cost
    assert len(c.reasons) == 3 and c.plans[0].per_video in c.reasons[2]


def test_small_model_page_is_at_480p() -> None:
    """1.3B at 832x480 (README: "Supports 480P"): 21 x 30 x 52 = 32,760 tokens; peak 14.75 GiB fits a
    24 GB card (usable 23.0 GiB), so the RTX 4090 is not excluded. On it (165.2 dense BF16 TFLOPS): one
    block is 2(6 x 1536^2 + 2 x 1536 x 8960) x 32,760 + 4 x 1536^2 x 512 + 4 x 32,760^2 x 1536 +
    4 x 32,760 x 512 x 1536 = 9,432,667,127,808 FLOPs; x 30 blocks x 100 passes / (165.2e12 x 0.63)
    = 271.9 s (the README: "about 4 minutes")."""
    c = video_model_context(CAT, CAT.models["wan2.1-t2v-1.3b"])
    assert (c.width, c.height, c.tokens) == (832, 480, 32_760)
    assert c.memory_rows[0].peak_gib == pytest.approx(14.746, abs=2e-3)
    assert "GeForce RTX 4090 24GB" not in dict(c.excluded)
    row = next((p for p in c.plans if p.gpu_id == "rtx-4090-24g"), None)
    if row is not None:  # shown where it is among the cheapest ten
        assert row.seconds == pytest.approx(9_432_667_127_808 * 30 * 100 / (165.2e12 * 0.63), rel=1e-9)
        assert row.seconds == pytest.approx(271.9, abs=0.05)
