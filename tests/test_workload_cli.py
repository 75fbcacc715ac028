"""``gpu-guide estimate`` / ``recommend``: the JSON contract and the messages a user sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_project

from generator.cli.main import main

REPO = Path(__file__).resolve().parent.parent
KEYS = {"weights", "kv_cache", "activations", "gradients", "optimizer_states", "transients", "overhead"}


def run(capsys: pytest.CaptureFixture[str], *args: str, root: Path = REPO) -> tuple[int, str, str]:
    """The command on the bundled data (model facts only: no test here pins what it picks)."""
    code = main(["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def mini_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini fixture: three GPUs and four offers whose picks the tests below work out by hand."""
    return make_project(tmp_path_factory.mktemp("cli"))


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


def test_recommend_ranks_fitting_cards_first(capsys: pytest.CaptureFixture[str], mini_root: Path) -> None:
    # Llama-2-13B pre-training on 200B tokens on the mini fixture, whose two 8-card nodes are sold by
    # the month: A100 ¥48,000, H100 ¥85,000 (mid), 1.77x dearer. Dense BF16 at each platform's MFU
    # is (989.4 x 0.38) / (312 x 0.48) = 2.51x faster (rules.yaml speed.training.platforms): about
    # 1,600 hours (3 node-months, ¥255,000) on H100 nodes against about 4,000 (6 node-months,
    # ¥288,000) on A100 nodes, so the H100 finishes the same job for less. The fixture's provider
    # sells a fabric, so equal rent buys the sooner plan: 3 H100 nodes for one month (533 h).
    code, out, _ = run(capsys, "recommend", "--workload", "pretrain", "--model", "llama-2-13b", "--precision", "mixed",
                       "--job-tokens", "200", "--require-cuda", "--json", root=mini_root)  # fmt: skip
    assert code == 0
    data = json.loads(out)
    options = data["options"]
    eligible = [o["eligible"] for o in options]
    assert eligible == sorted(eligible, reverse=True), "an excluded option ranked above an eligible one"
    assert data["pick"] == options[0]["gpu"]
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80g")
    a100 = next(o for o in options if o["gpu"] == "a100-sxm-80g")
    per_node = {o["gpu"]: o["monthly_cost_cny"] / (o["cards_billed"] / 8) for o in (h100, a100)}
    assert per_node["h100-sxm-80g"] > per_node["a100-sxm-80g"]  # dearer by the month ...
    assert h100["job_cost_cny"] == pytest.approx(3 * 85000) and a100["job_cost_cny"] == pytest.approx(6 * 48000)
    assert data["pick"] == "h100-sxm-80g"  # ... cheaper by the job
    assert h100["cards_billed"] == 24 and h100["job_hours"] < 730


def test_recommend_domestic_only(capsys: pytest.CaptureFixture[str], mini_root: Path) -> None:
    # The mini fixture has no domestic accelerator: every option is excluded, nothing is picked.
    code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "llama-2-7b", "--domestic-only",
                       "--json", root=mini_root)  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert all(o["exclusion"] == {"kind": "not_domestic", "params": {}} for o in data["options"])
    assert all(o["excluded"] == "不满足国产化要求" for o in data["options"])
    assert data["pick"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--params", "nan"], "argument --params: expected a finite number, got 'nan'"),
        (["--params", "inf"], "argument --params: expected a finite number, got 'inf'"),
        (["--params", "-7"], "argument --params: must be above 0, got -7"),
        (["--params", "7", "--layers", "-1"], "argument --layers: must be at least 1, got -1"),
        (["--params", "7", "--kv-heads", "0"], "argument --kv-heads: must be at least 1, got 0"),
        (["--params", "7", "--heads", "0"], "argument --heads: must be at least 1, got 0"),
        (["--model", ""], "argument --model: must not be empty"),
        (["--params", "7", "--gpu-memory-gb", "0"], "argument --gpu-memory-gb: must be above 0, got 0"),
        (["--params", "7", "--context", "1e3"], "argument --context: expected a whole number, got '1e3'"),
        # Llama 4 Scout's config allows 10,485,760 tokens; the engine sizes up to 2**20 and says so in
        # digits (it said "at most 1.04858e+06")
        (["--params", "109", "--context", "10485760"], "argument --context: must be at most 1048576, got 10485760"),
    ],
)
def test_estimate_refuses_nonsense_numbers(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run(capsys, "estimate", "--workload", "inference", *args)
    assert (code, out) == (2, "")
    assert err == f"gpu-guide estimate: {message} (see --help)\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hours-per-month", "-100"], "argument --hours-per-month: must be above 0, got -100"),
        (["--hours-per-month", "745"], "argument --hours-per-month: must be at most 744, got 745"),
        (["--job-tokens", "-1"], "argument --job-tokens: must be above 0, got -1"),
        (["--budget", "NaN"], "argument --budget: expected a finite number, got 'NaN'"),
        (["--disk-gb", "-5"], "argument --disk-gb: must be at least 0, got -5"),
    ],
)
def test_recommend_refuses_nonsense_numbers(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run(capsys, "recommend", "--workload", "inference", "--model", "llama-2-7b", *args)
    assert (code, out) == (2, "")
    assert err == f"gpu-guide recommend: {message} (see --help)\n"


def test_json_is_strict_and_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "generator", "--root", str(REPO), "recommend", "--workload", "inference",
           "--model", "llama-2-7b", "--json"]  # fmt: skip
    full = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    assert full.returncode == 0
    json.loads(full.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    # The reader is gone before the first write (`| true`): no traceback, no "internal error".
    shell = subprocess.run(" ".join(cmd) + " | true", shell=True, capture_output=True, text=True, check=False,
                           timeout=120)  # fmt: skip
    assert shell.stderr == ""


def test_estimate_speed_object_for_serving(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "estimate", "--workload", "inference", "--model", "llama-2-7b", "--gpu", "h100-sxm-80g",
                       "--batch", "8", "--prompt-tokens", "1000", "--output-tokens", "200", "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    sp = data["speed"]
    assert {"decode_tokens_per_s", "prefill_tokens_per_s", "time_to_first_token_s", "output_tokens_per_s"} <= set(sp)
    assert (sp["prompt_tokens"], sp["output_tokens"], sp["batch"]) == (1000, 200, 8)
    # the context is prompt + output; the card's memory gives min_gpus without --gpu-memory-gb
    assert data["min_gpus"] == 1 and data["gpu_memory_gb"] == 80
    # end to end over the batch: below the pure decode rate (the prompts take time too), above one stream
    assert sp["output_tokens_per_s"] < sp["decode_tokens_per_s"] * 1.05
    assert sp["output_tokens_per_s"] > sp["decode_tokens_per_s"] / 8
    assert 0 < sp["time_to_first_token_s"] < 1


def test_estimate_speed_object_for_training(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "estimate", "--workload", "pretrain", "--model", "llama-2-7b", "--precision", "mixed",
                       "--gpu", "a100-sxm-80g", "--gpus", "8", "--job-tokens", "10", "--json")  # fmt: skip
    assert code == 0
    sp = json.loads(out)["speed"]
    assert sp["gpu_hours"] == pytest.approx(sp["train_hours"] * 8, rel=1e-3)
    # 6N + attention per token over 10B tokens at the Ampere MFU, 90 % goodput: Llama-2-7B is 6.74B params
    assert 0.3 < sp["mfu"] <= 0.6 and sp["mfu_confirmed"] is True
    flops = (6 * (6.74e9 - 32000 * 4096) + 12 * 32 * 4096 * 2048) * 10e9
    assert sp["train_hours"] == pytest.approx(flops / (8 * 312e12 * sp["mfu"]) / 3600 / 0.9, rel=1e-3)


def test_unknown_gpu_is_a_usage_error_with_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "estimate", "--workload", "inference", "--model", "llama-2-7b", "--gpu", "h100-sxm")
    assert (code, out) == (2, "")
    assert err == 'gpu-guide estimate: unknown GPU "h100-sxm"; did you mean "h100-sxm-80g"?\n'
    code, _, err = run(capsys, "estimate", "--workload", "full", "--model", "llama-2-7b", "--job-tokens", "1")
    assert code == 2 and "--job-tokens needs --gpu" in err
    code, _, err = run(capsys, "estimate", "--workload", "inference", "--model", "llama-2-7b", "--context", "100",
                       "--prompt-tokens", "80", "--output-tokens", "40")  # fmt: skip
    assert code == 2 and "differs from --prompt-tokens + --output-tokens" in err


def test_recommend_json_carries_the_serving_figures(capsys: pytest.CaptureFixture[str], mini_root: Path) -> None:
    code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "llama-2-7b", "--context", "2048",
                       "--output-tokens", "512", "--json", root=mini_root)  # fmt: skip
    assert code == 0
    for o in json.loads(out)["options"]:
        if not o["eligible"]:
            continue
        s = o["serving"]
        assert (s["prompt_tokens"], s["output_tokens"]) == (1536, 512)
        assert s["concurrency"] >= 1
        assert s["cny_per_million_tokens"] == o["cost_per_million_tokens_cny"]
        # one user pays for the whole card alone: never cheaper than a full card
        assert s["cny_per_million_tokens_at_batch"] >= s["cny_per_million_tokens"]
        assert s["output_tokens_per_s"] == pytest.approx(s["tokens_per_s"] / 4, rel=1e-3)


def test_recommend_billing_preference(capsys: pytest.CaptureFixture[str], mini_root: Path) -> None:
    # Monthly prices only: the H100 node's quoted range 80,000-90,000 counts at its middle, 85,000 a
    # month, plus the rules' assumed extras (500 GB x 0.35 + 100 GB x 0.8 + one IP at 20 = 275); the
    # 4090 has only hourly and spot prices, so it has nothing to price it and says why.
    code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "llama-2-7b", "--billing", "monthly",
                       "--json", root=mini_root)  # fmt: skip
    assert code == 0
    by_gpu = {o["gpu"]: o for o in json.loads(out)["options"]}
    assert (by_gpu["h100-sxm-80g"]["offer"], by_gpu["h100-sxm-80g"]["monthly_cost_cny"]) == ("bm-h100-8", 85275.0)
    assert by_gpu["rtx-4090-24g"]["exclusion"] == {"kind": "no_billing_tier", "params": {"tiers": ["monthly"]}}
    assert by_gpu["rtx-4090-24g"]["excluded"] == "这张卡没有所选计费方式（包月）的当前报价"
    # without the flag every pickable tier counts, and the 4090's hourly price wins
    code, out, _ = run(
        capsys, "recommend", "--workload", "inference", "--model", "llama-2-7b", "--json", root=mini_root
    )
    assert json.loads(out)["pick"] == "rtx-4090-24g"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "llama-2-7b", "--billing", "spot"],
         "--billing spot: such prices are shown but never ranked (rules.yaml prices.pick_billing: on_demand, daily, monthly)"),
        (["--model", "llama-2-7b", "--layers", "40"],
         "--layers describes a model given by --params; --model uses the model's own figures"),
        (["--model", "sdxl", "--resolution", "512", "--workload", "lora"],
         '"sdxl" is an image model: it is sized for generating images (--workload inference)'),
        (["--model", "sdxl", "--context", "4096"], "--context is for language models; an image model's size is --resolution"),
        (["--model", "llama-2-7b", "--resolution", "512"], "--resolution and --offload are for image models"),
        (["--params", "7", "--experts-per-token", "2"],
         "--experts-per-token and --active-params describe a mixture of experts: add --experts"),
        (["--params", "47", "--experts", "8", "--experts-per-token", "9"], "--experts-per-token 9 is more than --experts 8"),
        (["--params", "47", "--experts", "8", "--active-params", "50"], "--active-params 50 is more than --params 47"),
        (["--params", "13", "--workload", "full", "--precision", "nf4"],
         "full training in nf4 is not supported; use mixed, bf16, fp16 or fp32"),
    ],
)  # fmt: skip
def test_recommend_refuses_what_it_cannot_size(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    workload = [] if "--workload" in args else ["--workload", "inference"]
    code, out, err = run(capsys, "recommend", *workload, *args)
    assert (code, out) == (2, "")
    assert err == f"gpu-guide recommend: {message}\n"


def test_recommend_sizes_images_and_experts(capsys: pytest.CaptureFixture[str]) -> None:
    # SDXL at 2048x2048 has four times the pixels of 1024x1024: its peak per card grows.
    sizes = []
    for res in ("1024", "2048"):
        code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "sdxl", "--precision", "fp16",
                           "--resolution", res, "--json")  # fmt: skip
        assert code == 0
        sizes.append(json.loads(out)["options"][0]["per_card_gib"])
    assert sizes[1] > sizes[0]
    # --params with the MoE fields sizes the same as the data's Mixtral entry, whose figures they are.
    mixtral = ["--params", "46.7", "--layers", "32", "--hidden", "4096", "--heads", "32", "--kv-heads", "8",
               "--intermediate", "14336", "--vocab", "32000", "--experts", "8", "--experts-per-token", "2",
               "--active-params", "12.9"]  # fmt: skip
    code, out, _ = run(capsys, "recommend", "--workload", "inference", *mixtral, "--json")
    by_params = json.loads(out)["options"]
    code, out, _ = run(capsys, "recommend", "--workload", "inference", "--model", "mixtral-8x7b", "--json")
    by_model = json.loads(out)["options"]
    assert [(o["gpu"], o["cards"], o["per_card_gib"]) for o in by_params] == [
        (o["gpu"], o["cards"], o["per_card_gib"]) for o in by_model
    ]


def test_estimate_takes_a_published_cluster_size(capsys: pytest.CaptureFixture[str]) -> None:
    # Llama 3 paper §3.3: 405B pre-training ran on up to 16,384 H100; the flag takes that many, not more.
    code, out, _ = run(capsys, "estimate", "--workload", "pretrain", "--model", "llama-3.1-70b", "--precision",
                       "mixed", "--gpu", "h100-sxm-80g", "--gpus", "16384", "--job-tokens", "15000", "--json")  # fmt: skip
    assert code == 0
    sp = json.loads(out)["speed"]
    # Llama 3 model card (meta-llama/llama-models, models/llama3/MODEL_CARD.md): "Llama 3 70B ... 6.4M"
    # H100-80GB hours for over 15T tokens; the estimate stays within the calibration band 0.5-2.
    assert 0.5 < 6.4e6 / sp["gpu_hours"] < 2
    code, _, err = run(capsys, "estimate", "--workload", "pretrain", "--params", "7", "--gpus", "16385")
    assert code != 0 and "16384" in err.replace(",", "")


def test_recommend_json_gives_reasons_as_records_beside_the_words(
    capsys: pytest.CaptureFixture[str], mini_root: Path
) -> None:
    """The Llama-2-13B pre-training job of test_recommend_ranks_fitting_cards_first: the H100 plan is
    3 eight-card nodes joined by the provider's fabric (worked there), said as a ``cluster`` record
    with those counts, and every reason in words has its record at the same place."""
    code, out, _ = run(capsys, "recommend", "--workload", "pretrain", "--model", "llama-2-13b", "--precision", "mixed",
                       "--job-tokens", "200", "--require-cuda", "--json", root=mini_root)  # fmt: skip
    assert code == 0
    options = json.loads(out)["options"]
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80g")
    records = h100["reason_records"]
    # the mini provider sells InfiniBand at 400 Gb/s per GPU (tests/fixtures/mini/data/providers.yaml)
    fabric = {"kind": "fabric_infiniband", "params": {"gbit": "400"}}
    assert {
        "kind": "cluster",
        "params": {"instances": 3, "server_cards": 8, "cards_billed": 24, "fabric": fabric},
    } in records
    kinds = [r["kind"] for r in records]
    assert kinds[0] == "memory" and "job" in kinds
    cluster = kinds.index("cluster")
    assert (
        h100["reasons"][cluster]
        == "租 3 台 8 卡服务器（共 24 张卡），机间用平台提供的 InfiniBand 网络（每卡 400 Gb/s）组成集群"
    )
    for o in options:
        assert len(o["reasons"]) == len(o["reason_records"]) + (1 if o["exclusion"] else 0)


def _fp8_release(data: Path) -> None:
    """The mini fixture plus a copy of Llama-2-7B's shape published as an FP8 checkpoint."""
    models = data / "models.yaml"
    text = models.read_text(encoding="utf-8")
    first = text.split("  - id: llama-2-13b")[0].split("models:\n", 1)[1]
    copy = first.replace("id: llama-2-7b", "id: tiny-fp8").replace("name: Llama-2-7B", "name: Tiny-FP8")
    models.write_text(text + copy + "    checkpoint_precision: fp8\n", encoding="utf-8")


@pytest.fixture(scope="module")
def fp8_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("fp8"), _fp8_release)


def test_serving_a_model_released_in_fp8_sizes_its_checkpoint(
    capsys: pytest.CaptureFixture[str], fp8_root: Path
) -> None:
    """Without --precision, serving a model whose published weights are FP8 sizes FP8 weights, and
    says so. The FP8 quantizer leaves embed_tokens and lm_head in 16 bits (2 x 32,000 x 4,096 =
    262,144,000 parameters): 6.74e9 - 262,144,000 at 1 byte + 262,144,000 at 2 = 7.002e9 B =
    6.52 GiB; all of it at 2 bytes in BF16: 12.55 GiB."""
    base = ("estimate", "--workload", "inference", "--model", "tiny-fp8", "--context", "2048")
    code, out, _ = run(capsys, *base, "--json", root=fp8_root)
    data = json.loads(out)
    assert code == 0 and (data["precision"], data["precision_source"]) == ("fp8", "checkpoint")
    assert data["breakdown"]["weights"] == pytest.approx((6.74e9 + 262_144_000) / 2**30, rel=0.002)
    _, out, _ = run(capsys, *base, "--precision", "bf16", "--json", root=fp8_root)
    data = json.loads(out)
    assert (data["precision"], data["precision_source"]) == ("bf16", "given")
    assert data["breakdown"]["weights"] == pytest.approx(2 * 6.74e9 / 2**30, rel=0.002)
    _, out, _ = run(capsys, *base, root=fp8_root)
    assert out.splitlines()[0] == "Precision: fp8 (the model's published checkpoint; --precision to size another)"
    # The same model fine-tuned is upcast: rules.yaml's precision, as the model's LoRA page.
    _, out, _ = run(capsys, "estimate", "--workload", "lora", "--model", "tiny-fp8", "--json", root=fp8_root)
    assert json.loads(out)["precision_source"] == "rules"


def test_recommend_serves_an_fp8_release_in_fp8(capsys: pytest.CaptureFixture[str], fp8_root: Path) -> None:
    """recommend sizes the same FP8 weights per card as estimate: one card in BF16 holds the
    block weights' second byte more, (6.74e9 - 262,144,000) B = 6.03 GiB."""
    args = ("recommend", "--workload", "inference", "--model", "tiny-fp8", "--context", "2048", "--json")
    code, out, _ = run(capsys, *args, root=fp8_root)
    data = json.loads(out)
    assert code == 0 and (data["precision"], data["precision_source"]) == ("fp8", "checkpoint")
    _, bf16, _ = run(capsys, *args, "--precision", "bf16", root=fp8_root)
    by_gpu = {o["gpu"]: o["per_card_gib"] for o in json.loads(bf16)["options"] if o["cards"] == 1}
    fp8 = {o["gpu"]: o["per_card_gib"] for o in data["options"] if o["cards"] == 1}
    both = set(by_gpu) & set(fp8)
    assert both
    # one card each way: weights differ by 6.03 GiB; the activations and KV cache of the same load
    # may differ a little too (the KV cache follows the weights' precision unless given)
    for gpu in both:
        assert by_gpu[gpu] - fp8[gpu] >= (6.74e9 - 262_144_000) / 2**30 * 0.99, gpu
