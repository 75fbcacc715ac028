"""``gpu-guide estimate`` / ``recommend`` for the Wan 2.1 video models (issue #19), worked by hand.

Seconds per video for Wan2.1-T2V-14B at 1280x720, 81 frames, 50 steps with guidance: one DiT pass is
40 blocks x 163,082,220,339,200 FLOPs (tests/test_video.py works the block out) = 6.523288813568e15;
100 passes on a card of 312 dense BF16 TFLOPS (A100) at MFU 0.63 = 6.523288813568e17 / 1.9656e14
= 3318.72 s. Rent per video = the offer's price per card-hour x 3318.72 / 3600.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.cli.main import main
from generator.data.validate import load_catalogue

REPO = Path(__file__).resolve().parent.parent
_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT
A100_SECONDS = 6.523288813568e17 / (312e12 * 0.63)  # 3318.72 s, worked in the module docstring


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(REPO), *args])
    out, err = capsys.readouterr()
    return code, out, err


def recommend(capsys: pytest.CaptureFixture[str], *extra: str, model: str = "wan2.1-t2v-14b") -> dict[str, Any]:
    code, out, err = run(capsys, "recommend", "--workload", "inference", "--model", model, "--json", *extra)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_a100_seconds_and_rent_per_video_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    """A100 80GB PCIe (312 TFLOPS): 3318.72 s; its cheapest offer's card-hour times that. For the
    offer in data on 2026-12-03 (omniyq 8-card bare metal, ¥25,000 a month): 25000 / 8 / 730 =
    ¥4.2808 per card-hour x 3318.72 / 3600 = ¥3.9464 per video; 81 frames at 16 fps = 5.0625 s of video,
    so ¥3.9464 x 60 / 5.0625 = ¥46.77 per minute."""
    assert pytest.approx(3318.72, abs=0.01) == A100_SECONDS
    assert CAT.gpus["a100-pcie-80g"].bf16_tflops_dense == 312
    data = recommend(capsys)
    row = next(r for r in data["options"] if r["gpu"] == "a100-pcie-80g")
    assert row["cards"] == 1 and row["seconds_per_video"] == pytest.approx(A100_SECONDS, abs=0.1)
    offer = next(o for o in CAT.offers if o.id == row["offer"])
    assert offer.currency.value == "CNY" and offer.unit.value == "month"  # the hand-work below assumes it
    hourly = offer.price_mid * (1 if offer.per.value == "instance" else offer.cards) / offer.cards / 730
    assert row["hourly_cny_per_card"] == pytest.approx(hourly, abs=1e-4)
    assert row["cny_per_video"] == pytest.approx(hourly * A100_SECONDS / 3600, abs=1e-4)
    assert row["cny_per_video_minute"] == pytest.approx(row["cny_per_video"] * 60 / (81 / 16), abs=1e-3)
    if offer.id == "omniyq-a100-80g-unspecified-8x-bare-metal-month-2026-10" and offer.price_mid == 25000:
        assert row["cny_per_video"] == pytest.approx(3.9464, abs=1e-4)
        assert row["cny_per_video_minute"] == pytest.approx(46.77, abs=0.01)
    # ranked by rent per video, cheapest first
    costs = [r["cny_per_video"] for r in data["options"]]
    assert costs == sorted(costs)


def test_24gb_cards_are_excluded_as_does_not_fit(capsys: pytest.CaptureFixture[str]) -> None:
    """14B without offload: 40.221 GiB on one card (tests/test_video.py); even with --offload_model and
    --t5_cpu and sequence parallelism over 8 cards the denoising phase holds DiT 26.077 + activations
    2.0908 / 8 = 0.2614 + VAE 0.473 + 1 = 27.81 GiB: above a 24 GB card's usable 23.0 GiB
    (24 x rules.yaml memory.usable_fraction), so the exclusion names that smallest peak."""
    data = recommend(capsys)
    out = {e["gpu"]: e for e in data["excluded"]}
    assert out["rtx-4090-24g"]["kind"] == "video_does_not_fit"
    assert "27.8 GiB" in out["rtx-4090-24g"]["reason"] and "23.0 GiB" in out["rtx-4090-24g"]["reason"]
    assert "即使开启 --offload_model 和 --t5_cpu" in out["rtx-4090-24g"]["reason"]
    assert "rtx-4090-24g" not in {r["gpu"] for r in data["options"]}
    # the 1.3B model at 480p fits a 24 GB card: umt5-xxl 10.58 + DiT 2.42 + activations 32,760 x 1536 x
    # 5.8 B = 0.272 + VAE 0.473 + 1 = 14.75 GiB
    small = recommend(capsys, "--resolution", "832x480", model="wan2.1-t2v-1.3b")
    row = next(r for r in small["options"] if r["gpu"] == "rtx-4090-24g")
    assert row["peak_gib"] == pytest.approx(14.75, abs=0.01)


def test_offload_lowers_the_peak(capsys: pytest.CaptureFixture[str]) -> None:
    """--offload-model --t5-cpu: DiT 26.077 + activations 2.091 + VAE 0.473 + 1 = 29.641 GiB."""
    code, out, _ = run(capsys, "estimate", "--workload", "inference", "--model", "wan2.1-t2v-14b",
                       "--offload-model", "--t5-cpu", "--json")  # fmt: skip
    assert code == 0
    assert json.loads(out)["memory_gib"]["peak"] == pytest.approx(29.641, abs=2e-3)


def test_estimate_on_eight_a100s(capsys: pytest.CaptureFixture[str]) -> None:
    """8 cards: the Wan table's speed-up 7.113 -> 3318.72 / 7.113 = 466.6 s (table: 469.9 s)."""
    code, out, _ = run(capsys, "estimate", "--workload", "inference", "--model", "wan2.1-t2v-14b",
                       "--gpu", "a100-sxm-80g", "--gpus", "8", "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["request"]["tokens"] == 75_600
    assert data["speed"]["seconds_per_video"] == pytest.approx(3318.72 / 7.113, abs=0.1)
    assert data["speed"]["fits"] is True


def test_monthly_volume_prices_whole_billing_periods(capsys: pytest.CaptureFixture[str]) -> None:
    """With --videos-per-month a monthly offer bills whole instances for whole months: 100 videos of
    3318.72 s on the A100 = 92.2 hours, under one month, so one instance-month over 100 videos."""
    data = recommend(capsys, "--videos-per-month", "100")
    checked = 0
    for r in data["options"]:
        offer = next(o for o in CAT.offers if o.id == r["offer"])
        if offer.billing.value == "monthly" and offer.currency.value == "CNY" and offer.unit.value == "month":
            hours = 100 * r["seconds_per_video"] / 3600
            if hours <= 730:
                instance = offer.price_mid * (1 if offer.per.value == "instance" else offer.cards)
                assert r["month_cny"] == pytest.approx(instance, abs=0.01)
                assert r["cny_per_video"] == pytest.approx(instance / 100, abs=1e-3)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--frames", "80"), "--frames must be 4n+1"),
        (("--resolution", "1024"), "WIDTHxHEIGHT"),
        (("--context", "4096"), "--context is not for video models"),
        (("--workload", "lora"), "is a video model"),
    ],
)
def test_bad_video_flags_are_usage_errors(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], message: str
) -> None:
    args = ["recommend", "--workload", "inference", "--model", "wan2.1-t2v-14b", *flags]
    if flags[0] == "--workload":
        args = ["recommend", "--model", "wan2.1-t2v-14b", *flags]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_video_flags_refused_for_other_models(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "estimate", "--workload", "inference", "--model", "sdxl", "--frames", "81")
    assert code == 2 and "for video models" in err
    code, _, err = run(capsys, "estimate", "--workload", "inference", "--model", "sdxl", "--resolution", "1280x720")
    assert code == 2 and "one side" in err


def test_cards_off_cuda_are_left_out_unless_the_reader_allows_them(capsys: pytest.CaptureFixture[str]) -> None:
    """Wan 2.1's pipeline is CUDA code and the efficiency applied was measured on NVIDIA cards: by default
    (rules.yaml defaults.require_cuda) the Ascend 910B and the MI300X are excluded as needs_cuda, not
    ranked at their datasheet peak; --no-require-cuda ranks them."""
    assert CAT.rules.defaults.require_cuda is True
    data = recommend(capsys)
    ranked = {r["gpu"] for r in data["options"]}
    out = {e["gpu"]: e["kind"] for e in data["excluded"]}
    off_cuda = [g.id for g in CAT.gpus.values() if g.vendor.value != "NVIDIA" and g.id in {*ranked, *out}]
    assert {"ascend-910b", "mi300x"} <= set(off_cuda)
    assert all(out.get(g) == "needs_cuda" for g in off_cuda) and not ranked & set(off_cuda)
    allowed = recommend(capsys, "--no-require-cuda")
    assert set(off_cuda) & {r["gpu"] for r in allowed["options"]}
