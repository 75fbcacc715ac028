"""Which placement a video plan gets on a card (generator/results/video_plans.fit), worked by hand.

Wan2.1-T2V-14B at 1280x720, 81 frames, 50 steps on one card (tests/test_video.py works the GiB out):
everything resident peaks in denoising at DiT 26.077 + activations 2.091 + umt5-xxl 10.580 + VAE 0.473
+ overhead 1 = 40.221 GiB; with --offload_model the denoising phase drops umt5-xxl: 29.641 GiB. A
card's usable memory is its nominal GB x rules.yaml memory.usable_fraction 0.96: a 32 GB card (RTX
5090, V100 32GB) offers 30.72 GiB, between the two, so it fits 14B only offloaded; a 48 GB card (L40S)
offers 46.08 GiB, above the resident 40.221, so it is not offloaded.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.cli.main import main
from generator.cli.video import VIDEO_FLAGS, video_request
from generator.cli.workload import add_workload_arguments
from generator.data.validate import load_catalogue
from generator.engine.reason import ReasonKind
from generator.engine.video import VideoRequest
from generator.pages.messages import explain
from generator.pages.plan import ALL_RESIDENT, placement_label, video_model_context
from generator.results import video_plans

REPO = Path(__file__).resolve().parent.parent
_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT
WAN_14B = CAT.models["wan2.1-t2v-14b"]
P720 = VideoRequest(1280, 720, 81, 50)
OFFLOAD_WORDS = "DiT 与文本编码器只在各自的阶段放进显卡"  # messages.py video_offload_model


def test_a_card_between_the_footprints_fits_only_offloaded_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    gpu = CAT.gpus["rtx-5090-32g"]
    assert gpu.memory_gb == 32 and CAT.rules.memory.usable_fraction == 0.96  # the hand-work assumes it
    f = video_plans.fit(CAT, video_plans.dit_config(WAN_14B), P720, gpu)
    assert f.usable_gib == pytest.approx(30.72)
    assert f.asked_gib == pytest.approx(40.221, abs=2e-3)
    assert f.memory.peak_gib == pytest.approx(29.641, abs=2e-3)
    assert (f.request.offload_model, f.request.t5_cpu) == (True, False)  # --t5_cpu is not needed as well
    assert f.fits and f.needs_offload
    note = f.reason()
    assert note is not None and note.kind is ReasonKind.video_needs_offload
    text = explain(note)
    assert text.startswith("全部常驻显存时每张卡约 40.2 GiB，超过可用的 30.7 GiB，要用 Wan 官方脚本的卸载选项才装得下")
    assert f"（{OFFLOAD_WORDS}）" in text and "UNCONFIRMED" in text and "--t5_cpu 时" not in text
    # the ranking keeps the card with that placement ...
    plans, excluded = video_plans.rank(CAT, WAN_14B, P720)
    plan = next(p for p in plans if p.gpu.id == gpu.id)
    assert plan.fit == f and plan.cards == 1 and gpu.id not in {e.gpu.id for e in excluded}
    # ... the model page labels its row so ...
    page = video_model_context(CAT, WAN_14B)
    assert page.memory_rows[1].setting == OFFLOAD_WORDS and page.memory_rows[1].peak_gib == pytest.approx(
        29.641, abs=2e-3
    )
    row = next((r for r in page.plans if r.gpu_id == gpu.id), None)
    if row is not None:  # the page shows the cheapest ten
        assert row.needs_offload and row.setting == OFFLOAD_WORDS
        assert row.label == "需卸载模型"
    # each memory row names the options as generate.py spells them
    assert [r.flags for r in page.memory_rows] == ["", "--offload_model True", "--offload_model True --t5_cpu"]
    ladder = [replace(P720, offload_model=off, t5_cpu=t5) for off, t5 in video_plans.OFFLOAD_LADDER]
    assert [placement_label(r) for r in ladder] == ["常驻", "需卸载模型", "需卸载模型 + T5 在 CPU"]
    for r, p in zip(page.plans, plans, strict=False):  # every row says its plan's placement
        assert (r.gpu_id, r.needs_offload) == (p.gpu.id, p.fit.needs_offload)
        assert r.setting == (OFFLOAD_WORDS if p.request.offload_model else ALL_RESIDENT)
    # ... and estimate --gpu agrees
    code = main(["--root", str(REPO), "estimate", "--workload", "inference", "--model", WAN_14B.id,
                 "--gpu", gpu.id, "--json"])  # fmt: skip
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0 and out["speed"]["fits"] is True and out["speed"]["needs_offload"] is True
    assert out["speed"]["placement"] == {"offload_model": True, "t5_cpu": False, "peak_gib": 29.641}
    assert out["memory_gib"]["peak"] == pytest.approx(40.221, abs=2e-3)  # the request as asked, no card


def test_a_card_above_the_resident_footprint_is_not_offloaded() -> None:
    gpu = CAT.gpus["l40s"]
    assert gpu.memory_gb == 48
    f = video_plans.fit(CAT, video_plans.dit_config(WAN_14B), P720, gpu)
    assert f.usable_gib == pytest.approx(46.08)
    assert f.request == P720 and f.memory.peak_gib == pytest.approx(40.221, abs=2e-3)
    assert f.fits and not f.needs_offload and f.reason() is None
    plans, _ = video_plans.rank(CAT, WAN_14B, P720)
    plan = next(p for p in plans if p.gpu.id == gpu.id)
    assert not plan.request.offload_model and not plan.request.t5_cpu
    row = next((r for r in video_model_context(CAT, WAN_14B).plans if r.gpu_id == gpu.id), None)
    if row is not None:
        assert not row.needs_offload and row.setting == ALL_RESIDENT and row.label == "常驻"


def test_a_small_card_gets_the_text_encoder_on_the_cpu_too() -> None:
    """1.3B at 832x480 (32,760 tokens): resident 14.75 GiB; --offload_model leaves the text phase at
    umt5-xxl 10.580 + VAE 0.473 + 1 = 12.053; with --t5_cpu the denoising phase, DiT 2.422 +
    activations 32,760 x 1536 x 5.8 B = 0.272 + 0.473 + 1 = 4.167. An 8 GB card (usable 7.68 GiB)
    fits only the last, and its note says the CPU's encoding time is not counted."""
    small = CAT.models["wan2.1-t2v-1.3b"]
    gpu = CAT.gpus["rtx-5090-32g"].model_copy(update={"memory_gb": 8.0})
    req = VideoRequest(832, 480, 81, 50)
    f = video_plans.fit(CAT, video_plans.dit_config(small), req, gpu)
    assert f.asked_gib == pytest.approx(14.75, abs=0.01)
    assert (f.request.offload_model, f.request.t5_cpu) == (True, True)
    assert f.memory.peak_gib == pytest.approx(4.167, abs=2e-3) and f.needs_offload
    note = f.reason()
    assert note is not None and "--t5_cpu 时文本编码器在 CPU 上编码提示的用时未计入" in explain(note)


def test_placements_keep_what_the_request_asks() -> None:
    """--t5-cpu alone is tried first, then with --offload_model; nothing less offloaded is tried."""
    asked = VideoRequest(1280, 720, 81, 50, t5_cpu=True)
    assert [(r.offload_model, r.t5_cpu) for r in video_plans.placements(asked)] == [(False, True), (True, True)]
    assert [(r.offload_model, r.t5_cpu) for r in video_plans.placements(P720)] == list(video_plans.OFFLOAD_LADDER)


def _a_value(action: argparse.Action) -> list[str]:
    """Command-line words that give ``action`` a value other than its default."""
    flag = action.option_strings[0]
    if action.nargs == 0:
        return [flag]
    if action.choices is not None:
        return [flag, str(next(c for c in action.choices if c != action.default))]
    for text in ("2", "on_demand", "x.json"):
        try:
            if action.type is None or action.type(text) != action.default:  # type: ignore[operator]
                return [flag, text]
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
    raise AssertionError(f"no test value for {flag}")


@pytest.mark.parametrize("recommend", [False, True])
def test_every_flag_a_video_model_does_not_take_is_refused(recommend: bool) -> None:
    """Each option of add_workload_arguments outside VIDEO_FLAGS, given with a video model, is a
    usage error naming it (argparse's own where it excludes --model)."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_workload_arguments(parser, recommend)
    base = ["--workload", "inference", "--model", WAN_14B.id]
    others = [a for a in parser._actions if a.option_strings and a.dest not in VIDEO_FLAGS and a.dest != "help"]
    assert len(others) > 20 and {"context", "precision", "budget" if recommend else "gpu_memory_gb"} <= {
        a.dest for a in others
    }
    for action in others:
        words = _a_value(action)
        try:
            args = parser.parse_args([*base, *words])
        except argparse.ArgumentError as exc:  # --params, --config-json: not allowed with --model
            assert "not allowed with" in str(exc), words
            continue
        with pytest.raises(ValueError, match=f"^{action.option_strings[0]} is not for video models$"):
            video_request(CAT, args)
    # and the flags it takes are accepted
    video_request(CAT, parser.parse_args([*base, "--frames", "33", "--offload-model", "--t5-cpu", "--steps", "20"]))
