"""The Wan video model pages (generator/pages/plan.py video_model_context), checked by hand.

14B at 1280x720, 81 frames, 50 steps (tests/test_video.py works the GiB out): all on the card the
peak is denoising, 26.077 (DiT) + 2.091 (activations) + 10.580 (umt5-xxl) + 0.473 (VAE, fp32) + 1 =
40.221 GiB; with --offload_model the text phase holds only umt5-xxl + VAE + overhead = 12.053 and
the denoise phase 40.221 - 10.580 = 29.641; with --t5_cpu as well the text phase is 1.473.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, make_project

from generator.data.validate import load_catalogue
from generator.pages.plan import video_model_context
from generator.pipeline import Project, generate

REPO = Path(__file__).resolve().parent.parent
_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT


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


WAN_1_3B_ENTRY = """
  - id: wan2.1-t2v-1.3b
    name: Wan2.1-T2V-1.3B
    kind: video
    params_b: 7.107
    layers: 30
    hidden: 1536
    heads: 12
    intermediate: 8960
    pipeline_precision: bf16
    denoiser_passes: 2
    default_steps: 50
    video_fps: 16
    video_size: [832, 480]
    components:
      - {role: transformer, name: Wan DiT, params: 1300000000, source: "https://example.com/wan"}
      - {role: text_encoder, name: umt5-xxl encoder, params: 5680000000, source: "https://example.com/wan"}
      - {role: vae, name: Wan-VAE, params: 127000000, source: "https://example.com/wan"}
    license: Apache 2.0
    source: https://example.com/wan
"""


def _with_wan(entry: str) -> Callable[[Path], None]:
    def edit(data: Path) -> None:
        path = data / "models.yaml"
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + entry, encoding="utf-8")

    return edit


def test_mini_catalogue_gets_a_video_page(tmp_path: Path) -> None:
    """The mini fixture's only RTX 4090 offer is ¥2 an hour on demand: 271.897 s (worked above) x ¥2 / 3600
    = ¥0.151 per video, x 60 / 5.0625 s of video = ¥1.79 per minute; the A100 and H100 offers are 8-card
    bare metal and rank behind it."""
    root = make_project(tmp_path, _with_wan(WAN_1_3B_ENTRY))
    files = generate(Project.at(root, build_date=MINI_BUILD_DATE)).files
    page = files["models/wan2.1-t2v-1.3b.md"].decode("utf-8")
    assert "832×480、81 帧" in page and "32,760 个潜空间 token" in page
    row = next(line for line in page.splitlines() if line.startswith("| [GeForce RTX 4090"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:8] == ["1", "常驻", "14.7", "272", "¥0.15", "¥1.79", "¥2.00"]
    assert "UNCONFIRMED" in page
    assert not any(k.startswith("models/wan2.1-t2v-1.3b-") for k in files)  # no LLM workload pages


def test_video_model_missing_fields_names_file_line_and_field(tmp_path: Path) -> None:
    vae = next(line for line in WAN_1_3B_ENTRY.splitlines(keepends=True) if "role: vae" in line)
    bad = WAN_1_3B_ENTRY.replace("    video_fps: 16\n", "").replace(vae, "")
    root = make_project(tmp_path, _with_wan(bad))
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None  # errors stop the load
    said = {(p.file, p.path, p.message.split(" (")[0]) for p in problems}
    # the entry is the fixture's third model (models[2]); the line is the entry's
    assert ("data/models.yaml", "models[2]", "a video model needs video_fps") in said, said
    assert ("data/models.yaml", "models[2].components", "a video model lists exactly one transformer, one "
            "text_encoder and one vae; found text_encoder, transformer") in said, said  # fmt: skip
    assert all(p.line is not None and p.line > 0 for p in problems if p.file == "data/models.yaml")
