"""Speed estimator: FLOP counts, scaling, decode roofline, and the H100-vs-A100 job cost."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from generator.data.records import FormFactor, Gpu, Precision, Vendor, Workload
from generator.data.rules import Rules
from generator.engine.arch import Arch
from generator.engine.request import Request
from generator.engine.speed import (
    cost_per_million_tokens,
    decode_throughput,
    expected_experts_touched,
    forward_flops_per_token,
    link_kind,
    prefill_seconds,
    scaling_efficiency,
    train_flops,
    training_hours,
)

ROOT = Path(__file__).resolve().parent.parent
RULES = Rules.model_validate(yaml.safe_load((ROOT / "data" / "rules.yaml").read_text(encoding="utf-8")))
SPEED, MEM = RULES.speed, RULES.memory


def shape(*args, **kw):  # type: ignore[no-untyped-def]
    return Arch.from_params(*args, defaults=MEM.arch_defaults, **kw)


LLAMA2_7B = shape(6.74, layers=32, hidden=4096, heads=32, kv_heads=32, vocab=32000, intermediate=11008)
MIXTRAL = shape(
    46.7, layers=32, hidden=4096, heads=32, kv_heads=8, vocab=32000, intermediate=14336,
    experts=8, experts_per_token=2, active_params_b=12.9,
)  # fmt: skip


def gpu(**kw) -> Gpu:  # type: ignore[no-untyped-def]
    """A GPU record; defaults are the H100 SXM5 80GB datasheet (NVIDIA H100 Tensor Core GPU datasheet)."""
    base = dict(
        id="h100-sxm-80g",
        name="H100 80GB SXM",
        vendor=Vendor.nvidia,
        architecture="Hopper",
        form_factor=FormFactor.sxm,
        release_year=2022,
        domestic=False,
        memory_gb=80.0,
        memory_type="HBM3",
        memory_bandwidth_gbps=3350.0,
        fp32_tflops=66.9,
        fp64_tflops=33.5,
        fp16_tflops_dense=989.4,  # datasheet 1,979 "with sparsity" / 2
        bf16_tflops_dense=989.4,
        fp8_tflops_dense=1978.9,
        int8_tops_dense=1978.9,
        tdp_w=700,
        interconnect="NVLink 4",
        interconnect_gbps=900.0,
        pcie_gen=5,
        source="https://www.nvidia.com/en-us/data-center/h100/",
    )
    base.update(kw)
    return Gpu(**base)


H100 = gpu()
# NVIDIA A100 datasheet: 312 TFLOPS dense BF16/FP16, 2,039 GB/s (80GB SXM), NVLink 3 600 GB/s.
A100 = gpu(
    id="a100-sxm-80g",
    name="A100 80GB SXM",
    architecture="Ampere",
    release_year=2020,
    memory_type="HBM2e",
    memory_bandwidth_gbps=2039.0,
    fp32_tflops=19.5,
    fp64_tflops=9.7,
    fp16_tflops_dense=312.0,
    bf16_tflops_dense=312.0,
    fp8_tflops_dense=None,
    int8_tops_dense=624.0,
    tdp_w=400,
    interconnect="NVLink 3",
    interconnect_gbps=600.0,
    pcie_gen=4,
    source="https://www.nvidia.com/en-us/data-center/a100/",
)
# RTX 4090: PCIe only, no NVLink (Ada Lovelace whitepaper, Table: dense FP16/BF16 tensor with FP32 accumulate 165.2 TFLOPS).
RTX4090 = gpu(
    id="rtx-4090",
    name="RTX 4090",
    architecture="Ada",
    form_factor=FormFactor.pcie,
    memory_gb=24.0,
    memory_type="GDDR6X",
    memory_bandwidth_gbps=1008.0,
    fp16_tflops_dense=165.2,
    bf16_tflops_dense=165.2,
    interconnect=None,
    interconnect_gbps=None,
    pcie_gen=4,
)
H100_NVL = gpu(id="h100-nvl", name="H100 NVL", form_factor=FormFactor.nvl, interconnect="NVLink bridge")


def test_full_training_is_six_n_per_token() -> None:
    # Kaplan et al. 2020 / Transformer Math 101: C ≈ 6·N·D (N without the input embedding lookup);
    # attention adds 12·L·d·T per token (PaLM App. B) — ~6 % for a 7B model at 2048 tokens.
    req = Request(Workload.pretrain, LLAMA2_7B, Precision.bf16, context=2048, grad_checkpointing=False)
    n = LLAMA2_7B.params - LLAMA2_7B.input_embedding_params
    attention = 12 * 32 * 4096 * 2048
    assert train_flops(req, SPEED, 1.0) == pytest.approx(6 * n + attention)
    assert 1.0 < train_flops(req, SPEED, 1.0) / (6 * LLAMA2_7B.params) < 1.1


def test_checkpointing_and_lora_multipliers() -> None:
    full = Request(Workload.full, LLAMA2_7B, Precision.bf16, grad_checkpointing=False)
    ckpt = replace(full, grad_checkpointing=True)
    lora = replace(full, workload=Workload.lora)
    lora_ckpt = replace(lora, grad_checkpointing=True)
    f = train_flops(full, SPEED, 1e9)
    assert train_flops(ckpt, SPEED, 1e9) / f == pytest.approx(8 / 6)
    assert train_flops(lora, SPEED, 1e9) / f == pytest.approx(4 / 6)
    assert train_flops(lora_ckpt, SPEED, 1e9) / f == pytest.approx(6 / 6)
    # default tokens: one step on every card
    assert train_flops(replace(full, gpus=8, batch=2), SPEED) == pytest.approx(
        train_flops(full, SPEED, 8 * 2 * full.context)
    )


def test_moe_flops_use_active_params() -> None:
    dense_equiv = forward_flops_per_token(MIXTRAL, 0, SPEED)
    assert dense_equiv == pytest.approx(2 * (12.9e9 - 32000 * 4096))


def test_link_kinds_and_scaling() -> None:
    assert link_kind(H100, 1, MEM) == "single"
    assert link_kind(H100, 8, MEM) == "nvlink"
    assert link_kind(RTX4090, 8, MEM) == "pcie"
    assert link_kind(H100_NVL, 2, MEM) == "nvlink"
    assert link_kind(H100_NVL, 4, MEM) == "pcie"
    assert link_kind(H100, 16, MEM) == "multi_node"
    assert scaling_efficiency(RTX4090, 8, RULES)[0] == 0.6  # seed article claim
    assert scaling_efficiency(H100, 1, RULES)[0] == 1.0
    nv8 = scaling_efficiency(H100, 8, RULES)[0]
    assert scaling_efficiency(H100, 16, RULES)[0] == pytest.approx(nv8 * SPEED.scaling.multi_node_factor)
    assert scaling_efficiency(RTX4090, 4, RULES)[0] > scaling_efficiency(RTX4090, 8, RULES)[0]


def test_h100_finishes_big_pretraining_cheaper_than_a100() -> None:
    # 7B model, 1T tokens (Llama-2 used 2T), 64 cards. Dense BF16: H100 SXM 989.4, A100 SXM 312 TFLOPS.
    req = Request(Workload.pretrain, LLAMA2_7B, Precision.bf16, context=4096, grad_checkpointing=False)
    tokens = 1e12
    h = training_hours(req, tokens, H100, 64, RULES)
    a = training_hours(req, tokens, A100, 64, RULES)
    assert a.hours / h.hours == pytest.approx(989.4 / 312)
    # Hourly card prices as arguments (yuan per card-hour): H100 costs 2.5x the A100 per hour...
    h100_price, a100_price = 25.0, 10.0
    h_cost = h.hours * 64 * h100_price
    a_cost = a.hours * 64 * a100_price
    # ...yet the job is cheaper on H100 because it runs 3.17x faster.
    assert h_cost < a_cost
    assert h_cost / a_cost == pytest.approx((312 / 989.4) * 2.5)
    # 4.6e22 FLOPs / (64 × 989.4 TFLOPS × 40 % MFU × 81 % scaling) ≈ 26 days on H100, ≈ 82 on A100.
    assert 20 < h.hours / 24 < 32
    assert h.link == "multi_node"
    assert h.assumptions and all(x.text_zh for x in h.assumptions)


def test_decode_is_memory_bound_at_batch_one() -> None:
    req = Request(Workload.inference, LLAMA2_7B, Precision.bf16, context=1024)
    t = decode_throughput(req, H100, 1, RULES)
    assert t.bound == "memory"
    # ~13.2 GB of weights + 0.5 GB KV read at 80 % of 3.35 TB/s ≈ 5 ms per token.
    assert 4.5 < t.per_token_ms < 6
    assert t.tokens_per_s == pytest.approx(1000 / t.per_token_ms)
    # Memory-bound decode scales with bandwidth: H100 over A100 ≈ 3350/2039.
    a = decode_throughput(req, A100, 1, RULES)
    assert t.tokens_per_s / a.tokens_per_s == pytest.approx(3350 / 2039, rel=0.01)


def test_decode_gets_compute_bound_at_large_batch_and_batching_helps() -> None:
    # Short contexts so the (MHA) KV cache read stays below the weights' matmul time.
    small = Request(Workload.inference, LLAMA2_7B, Precision.bf16, context=16, batch=1)
    big = replace(small, batch=2048)
    assert decode_throughput(big, H100, 1, RULES).bound == "compute"
    assert (
        decode_throughput(big, H100, 1, RULES).tokens_per_s > 50 * decode_throughput(small, H100, 1, RULES).tokens_per_s
    )


def test_quantized_weights_decode_faster() -> None:
    bf16 = Request(Workload.inference, LLAMA2_7B, Precision.bf16, context=512)
    int4 = replace(bf16, precision=Precision.int4)
    assert (
        decode_throughput(int4, H100, 1, RULES).tokens_per_s
        > 2.5 * decode_throughput(bf16, H100, 1, RULES).tokens_per_s
    )


def test_moe_experts_touched() -> None:
    assert expected_experts_touched(8, 2, 1) == pytest.approx(2)
    assert expected_experts_touched(8, 2, 1000) == pytest.approx(8)
    assert 2 < expected_experts_touched(8, 2, 4) < 8
    one = decode_throughput(Request(Workload.inference, MIXTRAL, Precision.bf16, context=256), H100, 2, RULES)
    many = decode_throughput(
        Request(Workload.inference, MIXTRAL, Precision.bf16, context=256, batch=32), H100, 2, RULES
    )
    # batch 1 reads ~13B params' worth, not all 46.7B
    assert one.per_token_ms < many.per_token_ms


def test_more_cards_decode_faster() -> None:
    req = Request(Workload.inference, LLAMA2_7B, Precision.bf16, context=1024)
    speeds = [decode_throughput(replace(req, gpus=n), H100, n, RULES).tokens_per_s for n in (1, 2, 4, 8)]
    assert speeds == sorted(speeds)


def test_prefill_is_compute_bound() -> None:
    req = Request(Workload.inference, LLAMA2_7B, Precision.bf16, context=2048)
    s = prefill_seconds(req, H100, 1, RULES)
    expected = forward_flops_per_token(LLAMA2_7B, 2048, SPEED) * 2048 / (989.4e12 * SPEED.prefill_mfu)
    assert s == pytest.approx(expected)
    assert prefill_seconds(req, H100, 1, RULES, prompt_tokens=512) < s


def test_cost_per_million_tokens() -> None:
    # ¥18/hour at 1000 tokens/s: 3.6M tokens per hour -> ¥5 per million.
    assert cost_per_million_tokens(1000, 18) == pytest.approx(5.0)
    with pytest.raises(ValueError):
        cost_per_million_tokens(0, 18)
