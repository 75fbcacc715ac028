"""``gpu-guide estimate`` / ``recommend``: the JSON contract and the messages a user sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.cli.main import main

REPO = Path(__file__).resolve().parent.parent
KEYS = {"weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead"}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(REPO), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "estimate", "--workload", "inference", "--model", "llama-2-70b", "--precision", "fp16",
                       "--context", "2048", "--gpu-memory-gb", "80", "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert set(data["breakdown"]) == KEYS
    assert data["total_gib"] == pytest.approx(sum(data["breakdown"].values()), abs=0.01)
    # 69B parameters x 2 bytes = 128 GiB of weights: never one 80 GB card, two suffice.
    assert data["breakdown"]["weights"] == pytest.approx(128.5, abs=0.5)
    assert data["min_gpus"] == 2
    assert all({"key", "value", "text"} <= set(a) for a in data["assumptions"])


def test_estimate_from_params_and_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "estimate", "--workload", "full", "--params", "7.5", "--precision", "mixed",
                       "--gpus", "64", "--zero-stage", "3", "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["gpus"] == 64 and data["zero_stage"] == 3
    # ZeRO paper Fig. 1: 7.5B model states over 64 cards with stage 3 = 1.9 GB (16 B x 7.5e9 / 64);
    # the peak per card holds at least that (the split between parts depends on the phase).
    assert data["total_gib"] >= 16 * 7.5e9 / 64 / 2**30
    assert data["total_gib"] < 16 * 7.5e9 / 2**30 / 8  # and far below an unsharded card


def test_unknown_model_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "estimate", "--workload", "lora", "--model", "qwen-7b")
    assert (code, out) == (2, "")
    assert err == 'gpu-guide estimate: unknown model "qwen-7b"; did you mean "qwen2.5-7b"?\n'


def test_model_and_params_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "estimate", "--workload", "lora", "--model", "qwen2.5-7b", "--params", "7")
    assert code == 2 and "not allowed with argument" in err


def test_recommend_ranks_fitting_cards_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "recommend", "--workload", "pretrain", "--model", "llama-3.1-70b", "--precision", "mixed",
                       "--job-tokens", "10", "--require-cuda", "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    options = data["options"]
    eligible = [o["eligible"] for o in options]
    assert eligible == sorted(eligible, reverse=True), "an excluded option ranked above an eligible one"
    assert data["pick"] == options[0]["gpu"]
    # For big pre-training the faster card finishes the job for less, despite its monthly price.
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80g")
    a100 = next(o for o in options if o["gpu"] == "a100-sxm-80g")
    assert h100["monthly_cost_cny"] > a100["monthly_cost_cny"]
    assert h100["job_cost_cny"] < a100["job_cost_cny"]
    assert data["pick"] == "h100-sxm-80g"


def test_recommend_domestic_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "qwen2.5-7b", "--domestic-only",
                       "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert all(
        o["excluded"] == "不满足国产化要求" for o in data["options"] if o["gpu"] in ("h100-sxm-80g", "rtx-4090-24g")
    )
    assert data["pick"] in (None, "ascend-910b", "br100")
