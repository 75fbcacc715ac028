"""Speed estimator: FLOP counts, scaling, decode roofline, and the H100-vs-A100 job cost."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.data.records import FormFactor, Gpu, LinkTopology, Precision, Runtime, Vendor, Workload
from generator.data.rules import Rules
from generator.engine.arch import Arch
from generator.engine.links import link_kind, link_reason
from generator.engine.memory import estimate, usable_gib
from generator.engine.reason import Reason
from generator.engine.request import Request
from generator.engine.sizing import serving_figures, size_workload
from generator.engine.speed import (
    cost_per_million_tokens,
    decode_step,
    decode_throughput,
    expected_experts_touched,
    forward_flops_per_token,
    launch_reason,
    max_concurrency,
    platform,
    prefill_seconds,
    scaling_efficiency,
    serve,
    time_to_first_token,
    train_flops,
    training_hours,
)
from generator.pages.messages import assumption_text, explain

ROOT = Path(__file__).resolve().parent.parent
RULES = Rules.model_validate(yaml.safe_load((ROOT / "data" / "rules.yaml").read_text(encoding="utf-8")))
SPEED, MEM = RULES.speed, RULES.memory


def shape(params_b: float, **kw: Any) -> Arch:
    return Arch.from_params(params_b, defaults=MEM.arch_defaults, **kw)


LLAMA2_7B = shape(6.74, layers=32, hidden=4096, heads=32, kv_heads=32, vocab=32000, intermediate=11008)
MIXTRAL = shape(
    46.7, layers=32, hidden=4096, heads=32, kv_heads=8, vocab=32000, intermediate=14336,
    experts=8, experts_per_token=2, active_params_b=12.9,
)  # fmt: skip


def gpu(**kw: Any) -> Gpu:
    """A GPU record; defaults are the H100 SXM5 80GB datasheet (NVIDIA H100 Tensor Core GPU datasheet)."""
    base: dict[str, Any] = dict(
        id="h100-sxm-80g",
        name="H100 80GB SXM",
        vendor=Vendor.nvidia,
        architecture="Hopper",
        form_factor=FormFactor.sxm,
        compute_capability=9.0,
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
        topology=LinkTopology.nvswitch,
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
    topology=None,
    pcie_gen=4,
)
H100_NVL = gpu(id="h100-nvl", name="H100 NVL", form_factor=FormFactor.nvl, interconnect="NVLink bridge",
    topology=LinkTopology.bridged_pairs,
)  # fmt: skip
# A100 80GB PCIe: NVLink bridge for two cards (NVIDIA A100 datasheet: "NVLink Bridge for up to 2 GPUs").
A100_PCIE = gpu(
    id="a100-pcie-80g", name="A100 80GB PCIe", architecture="Ampere", form_factor=FormFactor.pcie,
    memory_bandwidth_gbps=1935.0, fp16_tflops_dense=312.0, bf16_tflops_dense=312.0, fp8_tflops_dense=None,
    fp32_tflops=19.5, interconnect="NVLink 3 bridge", interconnect_gbps=600.0, pcie_gen=4,
    topology=LinkTopology.bridged_pairs,
)  # fmt: skip


def test_full_training_is_six_n_per_token() -> None:
    # Kaplan et al. 2020 / Transformer Math 101: C ≈ 6·N·D (N without the input embedding lookup);
    # attention adds 12·L·d·T per token (PaLM App. B) — ~6 % for a 7B model at 2048 tokens.
    req = Request.with_defaults(
        RULES.defaults, Workload.pretrain, LLAMA2_7B, Precision.bf16, context=2048, grad_checkpointing=False
    )
    n = LLAMA2_7B.params - LLAMA2_7B.input_embedding_params
    attention = 12 * 32 * 4096 * 2048
    assert train_flops(req, SPEED, 1.0) == pytest.approx(6 * n + attention)
    assert 1.0 < train_flops(req, SPEED, 1.0) / (6 * LLAMA2_7B.params) < 1.1


def test_recomputation_is_not_model_flops_and_lora_is_four_n() -> None:
    full = Request.with_defaults(RULES.defaults, Workload.full, LLAMA2_7B, Precision.bf16, grad_checkpointing=False)
    ckpt = replace(full, grad_checkpointing=True)
    lora = replace(full, workload=Workload.lora)
    f = train_flops(full, SPEED, 1e9)
    # MFU is defined on model FLOPs: checkpointing's extra forward is hardware work (counted once, in the MFU).
    assert train_flops(ckpt, SPEED, 1e9) == pytest.approx(f)
    assert train_flops(lora, SPEED, 1e9) / f == pytest.approx(4 / 6)
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
    # A100 PCIe cards are bridged in pairs too (the datasheet's NVLink bridge), not "PCIe only"
    assert link_kind(A100_PCIE, 2, MEM) == "nvlink"
    assert link_kind(A100_PCIE, 4, MEM) == "pcie"
    assert link_kind(H100, 16, MEM) == "multi_node"
    assert scaling_efficiency(RTX4090, 8, RULES)[0] == 0.6  # seed article claim
    assert scaling_efficiency(H100, 1, RULES)[0] == 1.0
    assert scaling_efficiency(RTX4090, 4, RULES)[0] > scaling_efficiency(RTX4090, 8, RULES)[0]
    # The MFUs come from multi-node runs: an NVLink server and an InfiniBand cluster are not discounted again.
    assert scaling_efficiency(H100, 8, RULES)[0] == scaling_efficiency(H100, 64, RULES)[0] == 1.0


def describe_link(gpu: Gpu, cards: int, node_cards: int | None = None) -> str:
    return explain(link_reason(gpu, cards, node_cards))


def test_link_wording_follows_the_interconnect_fields() -> None:
    for g in (A100_PCIE, H100_NVL):
        for n in (2, 4, 8):
            text = describe_link(g, n)
            assert "只有 PCIe" not in text and g.interconnect in text  # type: ignore[operator]
    assert "只有 PCIe" in describe_link(RTX4090, 2)
    assert "两两桥接" in describe_link(A100_PCIE, 4) and "桥接" in describe_link(A100_PCIE, 2)
    assert "全互联" in describe_link(H100, 8)


def test_a_plan_beyond_one_server_is_not_called_all_linked_by_nvlink() -> None:
    """NVLink/NVSwitch join the GPUs of one server; 24 H100 are three 8-card servers joined by the
    provider's fabric, and the training assumption says so (not "卡间 NVLink 全互联" for all 24)."""
    assert describe_link(H100, 24, 8).startswith("3 台服务器、每台 8 张卡：台内卡间 NVLink")
    assert "机间" in describe_link(H100, 24, 8) and "机间" not in describe_link(H100, 8, 8)
    req = Request.with_defaults(RULES.defaults, Workload.pretrain, LLAMA2_7B, Precision.bf16)
    from generator.pages.messages import assumption_text  # the sentence, record or text (house conversion)

    texts = [assumption_text(a) for a in training_hours(req, 1e9, H100, 24, RULES).assumptions]
    scaling = next(t for t in texts if "扩展效率" in t)
    # sized without an offer: the speed assumes rules.yaml's unknown_fabric (InfiniBand), and says so
    assert "3 台服务器" in scaling and "台与台之间走机间网络（未指定平台，速度按 InfiniBand 网络估算）" in scaling, (
        scaling
    )
    # an offer's cluster names its own fabric (AWS P5: EFA at 400 Gb/s per GPU, providers.yaml)
    from generator.engine.scaling import Cluster

    efa = Cluster(8, "efa", 400)
    on_aws = [assumption_text(a) for a in training_hours(req, 1e9, H100, 24, RULES, efa).assumptions]
    aws = next(t for t in on_aws if "扩展效率" in t)
    assert "台与台之间走 AWS EFA（Elastic Fabric Adapter）网络（每卡 400 Gb/s）" in aws and "InfiniBand" not in aws, aws
    eight = [assumption_text(a) for a in training_hours(req, 1e9, H100, 8, RULES).assumptions]
    one = next(t for t in eight if "扩展效率" in t)
    assert "台服务器" not in one and "全互联" in one


def test_h100_finishes_big_pretraining_cheaper_than_a100() -> None:
    # 7B model, 1T tokens, 64 cards. Dense BF16: H100 SXM 989.4, A100 SXM 312 TFLOPS; each at its
    # platform's published MFU (rules.yaml speed.training.platforms: Hopper 0.38, Ampere 0.48).
    req = Request.with_defaults(
        RULES.defaults, Workload.pretrain, LLAMA2_7B, Precision.bf16, context=4096, grad_checkpointing=False
    )
    tokens = 1e12
    h = training_hours(req, tokens, H100, 64, RULES)
    a = training_hours(req, tokens, A100, 64, RULES)
    mfu_h, mfu_a = platform(H100, SPEED).mfu, platform(A100, SPEED).mfu
    assert a.hours / h.hours == pytest.approx((989.4 * mfu_h) / (312 * mfu_a))
    # MosaicML's H100/A100 benchmarks (same 7B, 8 GPUs): 10,643 / 4,641 tokens/s per GPU = 2.3x
    assert 2.0 < a.hours / h.hours < 3.0
    h100_price, a100_price = 25.0, 10.0  # yuan per card-hour, as arguments
    assert h.hours * 64 * h100_price < a.hours * 64 * a100_price
    # model FLOPs / (cards x peak x MFU) / goodput: no second discount for recomputation or nodes
    flops = train_flops(req, SPEED, tokens)
    steps = flops / (64 * 989.4e12 * mfu_h) / 3600
    assert h.step_hours == pytest.approx(steps)
    assert h.hours == pytest.approx(steps / SPEED.training.goodput)
    assert h.mfu == pytest.approx(mfu_h)
    assert h.gpu_hours == pytest.approx(h.hours * 64)
    assert h.assumptions and all(assumption_text(x) for x in h.assumptions)


def test_unsourced_platforms_never_outrun_the_sourced_ones() -> None:
    """A card whose MFU is an assumption must not get more effective TFLOPS than the best sourced one."""
    gpus_doc = yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    gpus = [Gpu.model_validate(g) for g in gpus_doc]
    sourced = max(g.tensor_tflops * platform(g, SPEED).mfu for g in gpus if platform(g, SPEED).confirmed)
    for g in gpus:
        p = platform(g, SPEED)
        if not p.confirmed:
            assert g.tensor_tflops * p.mfu <= sourced + 1e-9, g.id


def test_b200_trains_twice_as_fast_as_h100_per_card() -> None:
    """MLPerf Training v4.1 (NVIDIA technical blog, November 2024): "per-GPU performance boosts of 2x
    for GPT-3 pre-training" on 8-GPU HGX B200 nodes against Hopper. The same pre-training job on 8
    cards of each, with the datasheet figures from gpus.yaml, takes half the hours on B200."""
    gpus = {
        g["id"]: Gpu.model_validate(g)
        for g in yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    }
    arch = shape(70, layers=80, hidden=8192, heads=64, kv_heads=8, vocab=128256, intermediate=28672)
    req = Request.with_defaults(
        RULES.defaults, Workload.pretrain, arch, Precision.mixed, context=4096, gpus=8, zero_stage=3
    )
    h100 = training_hours(req, 1e9, gpus["h100-sxm-80g"], 8, RULES)
    b200 = training_hours(req, 1e9, gpus["b200-sxm-180g"], 8, RULES)
    assert 1.8 <= h100.hours / b200.hours <= 2.2


def test_decode_is_memory_bound_at_batch_one() -> None:
    req = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=1024)
    t = decode_throughput(req, H100, 1, RULES)
    assert t.bound == "memory"
    d = SPEED.decode
    # weights minus the embedding lookup, plus one sequence's KV (512 KiB/token), at 75 % of 3.35 TB/s, + step cost
    weights = (LLAMA2_7B.params - 32000 * 4096) * 2
    kv = 2 * 32 * 32 * 128 * 2 * 1024
    expected = (weights + kv) / (3350e9 * d.bandwidth_efficiency) + d.step_overhead_ms / 1000
    assert t.per_token_ms == pytest.approx(expected * 1000)
    assert t.tokens_per_s == pytest.approx(1000 / t.per_token_ms)
    # Memory-bound decode follows bandwidth: H100 over A100 close to 3350/2039 (the fixed step cost dilutes it).
    a = decode_throughput(req, A100, 1, RULES)
    assert 1.4 < t.tokens_per_s / a.tokens_per_s < 3350 / 2039


def test_decode_gets_compute_bound_at_large_batch_and_batching_helps() -> None:
    small = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=16, batch=1)
    big = replace(small, batch=2048)
    assert decode_throughput(big, H100, 1, RULES).bound == "compute"
    assert (
        decode_throughput(big, H100, 1, RULES).tokens_per_s > 50 * decode_throughput(small, H100, 1, RULES).tokens_per_s
    )


def test_weight_only_int4_is_limited_by_dequantization_where_fp32_is_scarce() -> None:
    """TinyChat (mit-han-lab/llm-awq tinychat/README.md): AWQ int4 over FP16 on Llama-2-7B is 1.89x on
    A100 but 2.94x on RTX 4090: the A100 has 9.6 FP32 FLOPs per byte of bandwidth, the 4090 82."""
    bf16 = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=256)
    int4 = replace(bf16, precision=Precision.int4)

    def speedup(g: Gpu) -> float:
        return decode_throughput(int4, g, 1, RULES).tokens_per_s / decode_throughput(bf16, g, 1, RULES).tokens_per_s

    assert decode_throughput(int4, A100, 1, RULES).bound == "dequant"
    assert decode_throughput(int4, RTX4090, 1, RULES).bound == "memory"
    assert 1.3 < speedup(A100) < speedup(RTX4090) < 16 / 4.25


def test_tensor_parallel_decode_pays_two_all_reduces_per_layer() -> None:
    """Issue 11: 8-way tensor parallel on A100 for a 7B model, published 328 tokens/s (the old engine said 880)."""
    req = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=512)
    one = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 512, A100, 1, RULES)
    eight = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 512, A100, 8, RULES)
    assert one.comm == 0
    latency = SPEED.decode.allreduce_latency_us.nvlink * 1e-6
    message = 4096 * 2  # one token's hidden state, 16-bit
    per = latency + 2 * 7 / 8 * message / (600e9 / 2)
    assert eight.comm == pytest.approx(32 * 2 * per)
    tps = decode_throughput(replace(req, gpus=8), A100, 8, RULES).tokens_per_s
    assert 0.5 < tps / 328 < 2.0
    assert tps < 3 * decode_throughput(req, A100, 1, RULES).tokens_per_s  # far from linear


def test_moe_experts_touched() -> None:
    assert expected_experts_touched(8, 2, 1) == pytest.approx(2)
    assert expected_experts_touched(8, 2, 1000) == pytest.approx(8)
    assert 2 < expected_experts_touched(8, 2, 4) < 8
    one = decode_throughput(
        Request.with_defaults(RULES.defaults, Workload.inference, MIXTRAL, Precision.bf16, context=256), H100, 2, RULES
    )
    many = decode_throughput(
        Request.with_defaults(RULES.defaults, Workload.inference, MIXTRAL, Precision.bf16, context=256, batch=32),
        H100,
        2,
        RULES,
    )
    # batch 1 reads ~13B params' worth, not all 46.7B
    assert one.per_token_ms < many.per_token_ms


def test_more_cards_decode_faster() -> None:
    req = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=1024)
    speeds = [decode_throughput(replace(req, gpus=n), H100, n, RULES).tokens_per_s for n in (1, 2, 4, 8)]
    assert speeds == sorted(speeds)


def test_prefill_is_compute_bound_with_a_weight_read_floor() -> None:
    req = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=2048)
    s = prefill_seconds(req, H100, 1, RULES)
    # causal attention: each prompt token attends to half the prompt on average
    flops = forward_flops_per_token(LLAMA2_7B, 1024, SPEED) * 2048
    expected = flops / (989.4e12 * SPEED.prefill_mfu) + SPEED.decode.step_overhead_ms / 1000
    assert s == pytest.approx(expected)
    # a one-token prompt still reads every weight once: TTFT never drops below that
    floor = (LLAMA2_7B.params - 32000 * 4096) * 2 / (3350e9 * SPEED.decode.bandwidth_efficiency)
    assert time_to_first_token(req, H100, 1, RULES, 1) >= floor
    assert prefill_seconds(req, H100, 1, RULES, prompt_tokens=512) < s


def test_serving_at_the_concurrency_memory_allows() -> None:
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=4096, output_tokens=1024
    )
    n, capped = max_concurrency(req, H100, 1, RULES)
    # 76.8 GiB usable − ~16 GiB for weights and one sequence; MHA KV: 2·32·32·128·2 B = 512 KiB per token,
    # 2 GiB per 4,096-token sequence (+5 % fragmentation) -> about 29 sequences
    assert 25 <= n <= 32 and not capped
    one = serve(req, H100, 1, RULES, 3072, 1024, 1)
    full = serve(req, H100, 1, RULES, 3072, 1024, n)
    assert full.total_tokens_per_s > 5 * one.total_tokens_per_s
    assert full.total_tokens_per_s == pytest.approx(n * 4096 / (full.prefill_s + 1024 * full.step_s))
    assert full.output_tokens_per_s == pytest.approx(full.total_tokens_per_s / 4)
    # a model too big for the card leaves no room: still one sequence (the card count is sized for it)
    assert max_concurrency(replace(req, context=4096), RTX4090, 1, RULES)[0] >= 1


def test_concurrency_matches_vllms_kv_budget() -> None:
    """vLLM pull request 10511 logged for `vllm serve meta-llama/Meta-Llama-3-8B` on an 80 GB card
    (79.22 GiB, gpu_memory_utilization 0.90): weights 14.96 GiB, non-torch 1.79 GiB, activation
    peak 1.26 GiB, "available_kv_cache_memory 53.29GiB". Llama-3-8B's KV cache is 2·32·8·128·2 B =
    128 KiB per token, 1 GiB per 8,192-token sequence: 53 sequences. The engine gives vLLM the same
    0.9 of the card (72 GiB of an 80 GB card) and counts its own overhead, so it lands within a few
    sequences of vLLM's count (52 today; 57 when it allowed 0.96 of the card)."""
    llama3_8b = shape(8.03, layers=32, hidden=4096, heads=32, kv_heads=8, vocab=128256, intermediate=14336)
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, llama3_8b, Precision.bf16, context=8192, output_tokens=1024
    )
    n, capped = max_concurrency(req, H100, 1, RULES)
    assert 0.9 <= n / 53 <= 1.1 and not capped
    # n is the largest count the estimate fits: one more does not.
    usable = usable_gib(H100.memory_gb, MEM, req)
    assert estimate(replace(req, batch=n), MEM).total_gib <= usable < estimate(replace(req, batch=n + 1), MEM).total_gib


def test_cost_per_million_tokens() -> None:
    # ¥18/hour at 1000 tokens/s: 3.6M tokens per hour -> ¥5 per million.
    assert cost_per_million_tokens(1000, 18) == pytest.approx(5.0)
    with pytest.raises(ValueError):
        cost_per_million_tokens(0, 18)


def _tokens_per_s(req: Request, g: Gpu) -> float:
    t = training_hours(req, 1e9, g, 1, RULES)
    return 1e9 / (t.step_hours * 3600)


def test_finetuning_speed_follows_qwens_profile_not_pretraining_mfu() -> None:
    """Qwen's README profiles Qwen-7B on one A100-SXM4-80G at batch 1 (gradient accumulation 8):
    LoRA 5.2 s/it and Q-LoRA 7.0 s/it at 2,048 tokens, 1.5 and 3.0 s/it at 512. The published
    ratios, not this engine's, are the expectations: QLoRA is 0.74x LoRA at 2,048 tokens and
    0.50x at 512 (its dequantization is a fixed cost per micro-step, so short sequences lose more)."""
    qwen7b = Arch.from_params(7.72, layers=32, hidden=4096, heads=32, kv_heads=32, intermediate=11008,
                              vocab=151936, defaults=RULES.memory.arch_defaults)  # fmt: skip
    lora = Request.with_defaults(RULES.defaults, Workload.lora, qwen7b, Precision.bf16, context=2048)
    qlora = replace(lora, workload=Workload.qlora)
    assert _tokens_per_s(qlora, A100) / _tokens_per_s(lora, A100) == pytest.approx(5.2 / 7.0, rel=0.1)
    short_lora, short_qlora = replace(lora, context=512), replace(qlora, context=512)
    assert _tokens_per_s(short_qlora, A100) / _tokens_per_s(short_lora, A100) == pytest.approx(1.5 / 3.0, rel=0.15)
    # 512-token micro-steps are slower per token than 2,048 (published 2,731 vs 3,151 tokens/s)
    assert _tokens_per_s(short_lora, A100) < _tokens_per_s(lora, A100)
    # no checkpointing: nothing recomputed, faster; pre-training keeps the published MFU unchanged
    assert _tokens_per_s(replace(lora, grad_checkpointing=False), A100) > _tokens_per_s(lora, A100)
    pre = Request.with_defaults(RULES.defaults, Workload.pretrain, qwen7b, Precision.bf16, context=2048)
    t = training_hours(pre, 1e9, A100, 1, RULES)
    assert t.mfu == pytest.approx(0.48)  # rules.yaml Ampere MFU, no fine-tuning costs
    assert training_hours(lora, 1e9, A100, 1, RULES).mfu < 0.48 * (4 / 3) / (3 / 2)


def test_card_classes_keep_their_datasheet_ratios() -> None:
    """One rule for cards without a published MFU (rules.yaml: the MFU of the architecture whose BF16
    tensor-core path they share, on their own FP32-accumulate peak): an RTX 4090 and an RTX 3090 keep
    the ratio of their datasheet BF16 figures (Ada whitepaper 165.2, GA102 whitepaper 71 TFLOPS with
    FP32 accumulate: 2.33x) within ±10 %, and every card of one architecture gets the same MFU."""
    cat_gpus = {
        g["id"]: Gpu.model_validate(g) for g in yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text())["gpus"]
    }
    r4090, r3090 = cat_gpus["rtx-4090-24g"], cat_gpus["rtx-3090-24g"]
    datasheet = r4090.tensor_tflops / r3090.tensor_tflops
    assert datasheet == pytest.approx(165.2 / 71)
    arch = Arch.from_params(7, defaults=RULES.memory.arch_defaults)
    for workload in (Workload.lora, Workload.full, Workload.pretrain):
        req = Request.with_defaults(RULES.defaults, workload, arch, Precision.bf16, context=2048)
        ratio = _tokens_per_s(req, r4090) / _tokens_per_s(req, r3090)
        assert 0.9 * datasheet <= ratio <= 1.1 * datasheet, (workload, ratio)
    by_arch: dict[str, set[float]] = {}
    for g in cat_gpus.values():
        by_arch.setdefault(g.architecture, set()).add(platform(g, SPEED).mfu)
    assert all(len(m) == 1 for m in by_arch.values())
    assert platform(r4090, SPEED).mfu == platform(r3090, SPEED).mfu  # Ada takes Ampere's figure, marked
    assert not platform(r4090, SPEED).confirmed and platform(r3090, SPEED).confirmed


def test_serving_cap_follows_vllms_defaults_per_card() -> None:
    """vLLM EngineArgs.get_batch_defaults: max_num_seqs 1024 "For GPUs like H100, H200, and MI300x"
    (at least 70 GiB and not an A100), 256 elsewhere (its own test, test_defaults_with_usage_context)."""
    from generator.engine.speed import serving_cap

    cat_gpus = {
        g["id"]: Gpu.model_validate(g) for g in yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text())["gpus"]
    }
    sv = RULES.speed.serving
    assert [serving_cap(cat_gpus[g], sv) for g in ("h100-sxm-80g", "h200-sxm-141g", "mi300x")] == [1024] * 3
    assert [serving_cap(cat_gpus[g], sv) for g in ("a100-sxm-80g", "a100-pcie-80g", "l40s", "rtx-4090-24g")] == [
        256
    ] * 4
    req = Request.with_defaults(RULES.defaults, Workload.inference, shape(0.5, layers=24, hidden=896, heads=14,
                                kv_heads=2, vocab=151936, intermediate=4864), Precision.bf16, context=1024)  # fmt: skip
    assert max_concurrency(req, cat_gpus["h100-sxm-80g"], 1, RULES) == (1024, True)  # a small model: the cap binds
    assert max_concurrency(req, cat_gpus["a100-sxm-80g"], 1, RULES) == (256, True)


def test_node_scaling_reproduces_the_published_runs() -> None:
    """The two published pairs the fabric figures come from, and what they imply."""
    from generator.engine.scaling import node_scaling

    sc = RULES.speed.scaling
    # MLPerf v3.1: 3x the GPUs (3,584 -> 10,752 H100 on InfiniBand), 10.9 / 3.92 = 2.78x the speed
    ib = node_scaling(10752, 8, "infiniband", 50, 3584, sc)
    assert ib.efficiency == pytest.approx((10.9 / 3.92) / 3, rel=0.01) and not ib.extrapolated
    # Llama 3 405B: 16,384 H100 at 400 TFLOPs/GPU against 430 on 8,192 (RoCE)
    assert node_scaling(16384, 8, "roce", None, 8192, sc).efficiency == pytest.approx(400 / 430, rel=0.01)
    # up to the size the MFU was measured on, nothing beyond the platform MFU; one node needs no fabric
    assert node_scaling(2048, 8, "roce", 50, 8192, sc).efficiency == 1.0
    assert node_scaling(8, 8, "none", None, 8, sc).efficiency == 1.0
    with pytest.raises(ValueError, match="no fabric between nodes"):
        node_scaling(16, 8, "none", None, 8, sc)
    assert node_scaling(16384, 8, "infiniband", 25, 3584, sc).extrapolated  # 200 Gb/s per GPU: not modelled


A100_SXM = gpu(
    id="a100-sxm-80g", name="A100 80GB SXM", architecture="Ampere", compute_capability=8.0,
    memory_bandwidth_gbps=2039.0, fp32_tflops=19.5, fp64_tflops=9.7, fp16_tflops_dense=312.0,
    bf16_tflops_dense=312.0, fp8_tflops_dense=None, int8_tops_dense=624.0, tdp_w=400,
    interconnect="NVLink 3", interconnect_gbps=600.0, pcie_gen=4,
)  # fmt: skip


def test_cross_node_loss_starts_beyond_the_cluster_the_mfu_was_measured_on() -> None:
    """Hand-worked: Ampere's MFU holds on LLaMA's 2,048 A100 (rules.yaml measured_gpus). 8,192 A100 over
    InfiniBand are 4x that, two doublings: 0.955^2 = 0.912025; over RoCE 0.93^2 = 0.8649. At 2,048 or
    fewer nothing is lost beyond the MFU, and Hopper at Llama 3's 16,384 is not discounted again."""
    from generator.engine.scaling import Cluster

    assert platform(A100_SXM, SPEED).measured_gpus == 2048
    ib, roce = Cluster(8, "infiniband"), Cluster(8, "roce")
    assert scaling_efficiency(A100_SXM, 8192, RULES, ib)[0] == pytest.approx(0.912025)
    assert scaling_efficiency(A100_SXM, 8192, RULES, roce)[0] == pytest.approx(0.8649)
    assert scaling_efficiency(A100_SXM, 2048, RULES, ib)[0] == 1.0
    assert scaling_efficiency(A100_SXM, 4096, RULES, ib)[0] == pytest.approx(0.955)
    assert scaling_efficiency(H100, 16384, RULES, roce)[0] == 1.0
    # within one server the fabric plays no part, even "none"
    assert scaling_efficiency(A100_SXM, 8, RULES, Cluster(8, "none"))[0] == 1.0
    with pytest.raises(ValueError, match="no fabric between nodes"):
        scaling_efficiency(A100_SXM, 16, RULES, Cluster(8, "none"))
    # The job time follows: pre-training has no per-step fixed cost, so hours scale as 1 / (cards x efficiency).
    req = Request.with_defaults(RULES.defaults, Workload.pretrain, LLAMA2_7B, Precision.bf16, context=4096)
    small = training_hours(req, 1e12, A100_SXM, 2048, RULES, ib)
    big = training_hours(req, 1e12, A100_SXM, 8192, RULES, ib)
    assert big.hours / small.hours == pytest.approx(2048 / (8192 * 0.912025))
    assert big.scaling == pytest.approx(0.912025)
    # Without an offer, the cards cross nodes over rules.yaml's unknown_fabric (InfiniBand).
    assert training_hours(req, 1e12, A100_SXM, 8192, RULES).hours == pytest.approx(big.hours)


def test_adapter_training_over_pcie_is_slower_not_refused() -> None:
    """LoRA / QLoRA all-reduce only the adapters' gradients: data parallel over PCIe keeps
    rules.yaml adapter_pcie (0.96, marked assumption) where full training keeps the pcie table's 0.75 at
    4 cards. A base too big for one card is sharded (ZeRO-3) and all-gathered in each of the three passes
    (forward, recomputed forward, backward): hand-worked for a 13B base in BF16 on 2 RTX 4090 (PCIe 4.0,
    31.5 GB/s per direction), 3 x (2 bytes x N x 1/2) / 31.5e9 s per micro-step; at 128-token micro-steps
    the gathers outlast the compute, so the job is micro-steps x (gather + fixed cost) / goodput."""
    from generator.engine.speed import zero3_gather_seconds

    assert scaling_efficiency(RTX4090, 4, RULES, adapter=True)[0] == 0.96
    assert scaling_efficiency(RTX4090, 4, RULES)[0] == 0.75
    assert scaling_efficiency(H100, 8, RULES, adapter=True)[0] == 1.0  # NVLink: the same table as before
    llama13 = shape(13.02, layers=40, hidden=5120, heads=40, kv_heads=40, vocab=32000, intermediate=13824)
    req = Request.with_defaults(RULES.defaults, Workload.lora, llama13, Precision.bf16, context=128, gpus=2)
    assert req.zero_stage == 3 and req.grad_checkpointing
    gather = 3 * (2 * llama13.params / 2) / 31.5e9
    assert zero3_gather_seconds(req, RTX4090, 2, RULES) == pytest.approx(gather)
    tokens = 1e8
    micro_steps = tokens / (128 * 2)
    fixed = SPEED.training.finetune.micro_step_overhead_s
    t = training_hours(req, tokens, RTX4090, 2, RULES)
    assert t.hours == pytest.approx(micro_steps * (gather + fixed) / 3600 / SPEED.training.goodput)
    # every card holding the whole model (data parallel): no gathers, faster
    assert training_hours(req, tokens, RTX4090, 2, RULES, replicated=True).hours < t.hours / 2
    # one card, and full fine-tuning, never gather a frozen base
    assert zero3_gather_seconds(replace(req, gpus=1), RTX4090, 1, RULES) == 0.0
    assert zero3_gather_seconds(replace(req, workload=Workload.full), RTX4090, 2, RULES) == 0.0


def test_a_quantized_models_16_bit_head_adds_to_its_dequantizing_layers() -> None:
    """Qwen2.5-32B AWQ (int4, 16-bit embeddings) decoding one token on an A100: the layers' 4-bit weights
    are dequantized on the CUDA cores (31.20e9 Linear weights x ops / 19.5 TFLOPS), and the 16-bit lm_head
    (152,064 x 5,120 x 2 B) is a GEMV of its own that streams memory afterwards (2,039 GB/s x the
    bandwidth share), so the two add rather than overlap. Worked by hand from the datasheet and config."""
    qwen25_32b = shape(32.76, layers=64, hidden=5120, heads=40, kv_heads=8, intermediate=27648, vocab=152064)
    d = RULES.speed.decode
    ops = d.dequant_ops_per_weight[Precision.int4]
    step = decode_step(qwen25_32b, Precision.int4, Precision.bf16, 1, 1, A100, 1, RULES)
    linear = 32.76e9 - 2 * 152064 * 5120
    dequant = linear * ops / 19.5e12
    head = 152064 * 5120 * 2 / (2039e9 * d.bandwidth_efficiency)
    kv = 64 * 8 * 128 * 2 * 2 / (2039e9 * d.bandwidth_efficiency)  # one token's K and V
    assert step.dequant == pytest.approx(dequant)
    assert step.seconds == pytest.approx(dequant + head + kv + d.step_overhead_ms / 1000)
    # Control: a 16-bit model has no separate head term; its whole weights stream in one max().
    bf16 = decode_step(qwen25_32b, Precision.bf16, Precision.bf16, 1, 1, A100, 1, RULES)
    assert bf16.seconds == pytest.approx(bf16.weights + kv + d.step_overhead_ms / 1000)


def test_a_fabric_slower_than_the_published_runs_is_said_not_hidden() -> None:
    """AWS P4d sells 400 Gbit/s of EFA per 8-GPU instance (AWS's P4d deep-dive post), 50 per GPU; the
    per-doubling figures come from runs at 400 Gbit/s per GPU (rules.yaml published_gbps_per_gpu: 50 GB/s).
    A job across P4d servers says its efficiency is an extrapolation; at 400 per GPU (P5) or inside one
    server nothing is said. The loss of the slower network is not modelled: the hours are the same."""
    from generator.engine.scaling import Cluster
    from generator.pages.messages import explain

    req = Request.with_defaults(RULES.defaults, Workload.pretrain, LLAMA2_7B, Precision.bf16, context=4096)

    def scaling_reason(cluster: Cluster, cards: int) -> Reason:
        t = training_hours(req, 1e12, A100_SXM, cards, RULES, cluster)
        return next(a.message for a in t.assumptions if a.key == "scaling")

    p4d, p5 = Cluster(8, "efa", 50), Cluster(8, "efa", 400)
    slow = scaling_reason(p4d, 16).params["slower_fabric"]
    assert isinstance(slow, Reason)
    assert explain(slow) == (
        "机间网络每卡约 50 Gb/s，低于这一效率所依据的公开运行（每卡 400 Gb/s），多机效率是外推，本站未计入网络更慢的损失，实际可能更低"
    )
    assert "slower_fabric" not in scaling_reason(p5, 16).params
    assert "slower_fabric" not in scaling_reason(p4d, 8).params
    hours = [training_hours(req, 1e12, A100_SXM, 16, RULES, c).hours for c in (p4d, p5)]
    assert hours[0] == pytest.approx(hours[1])


# --------------------------------------------------------------------------- the runtime's schedule (issue 18)


def _plain_transformers() -> Rules:
    """The rules with transformers' host floor and KV traffic switched off: only its layer split is left."""
    rt = dict(RULES.speed.runtimes)
    rt[Runtime.transformers] = rt[Runtime.transformers].model_copy(update={"host_ms_per_layer": 0.0, "kv_traffic": 1.0})
    return RULES.model_copy(update={"speed": RULES.speed.model_copy(update={"runtimes": rt})})


def test_transformers_splits_layers_and_the_cards_work_one_after_another() -> None:
    """device_map puts each card's run of layers on it: a decode step streams all 13.22 GB of Llama 2 7B's
    weights (6.74e9 x 2 B less the 32,000 x 4,096 x 2 B input-embedding lookup) at ONE card's bandwidth
    (A100: 2,039 GB/s x the bandwidth share), with one hop between the two cards and no all-reduce; vLLM's
    two-way tensor parallelism streams half per card at the same time. Worked by hand."""
    bw = 2039e9 * SPEED.decode.bandwidth_efficiency
    weights = 6.74e9 * 2 - 32000 * 4096 * 2
    rules = _plain_transformers()
    split = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 1, A100, 2, rules, Runtime.transformers)
    assert split.weights == pytest.approx(weights / bw)
    assert split.comm == pytest.approx(SPEED.decode.pipeline_hop_us * 1e-6)  # one hop, no all-reduce
    kv = 32 * 2 * 32 * 128 * 2 / bw  # one token's K and V in every layer, read card after card
    assert split.kv == pytest.approx(kv)
    # Control: vLLM on the same two cards halves the weights per card and pays two all-reduces per layer.
    tp = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 1, A100, 2, rules, Runtime.vllm)
    assert tp.weights == pytest.approx(weights / 2 / bw)
    assert tp.comm > 32 * 2 * SPEED.decode.allreduce_latency_us.nvlink * 1e-6


def test_transformers_decode_never_beats_the_hosts_per_layer_floor() -> None:
    """Eager PyTorch issues every layer's kernels from Python: 32 layers x host_ms_per_layer is the
    shortest step, longer than streaming Llama 2 7B's 13.22 GB on an A100 (8.6 ms at the bandwidth share);
    the KV cache of one 1-token context (32 layers x K and V x 32 heads x 128 x 2 B) moves kv_traffic
    times. Worked by hand; vLLM (CUDA graphs) has no floor."""
    rt = RULES.speed.runtimes[Runtime.transformers]
    bw = 2039e9 * SPEED.decode.bandwidth_efficiency
    step = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 1, A100, 1, RULES, Runtime.transformers)
    floor = 32 * rt.host_ms_per_layer / 1000
    kv = 32 * 2 * 32 * 128 * 2 * rt.kv_traffic / bw
    assert floor > (6.74e9 * 2 - 32000 * 4096 * 2) / bw
    assert step.seconds == pytest.approx(floor + kv + SPEED.decode.step_overhead_ms / 1000)
    assert step.bound == "host"
    vllm = decode_step(LLAMA2_7B, Precision.bf16, Precision.bf16, 1, 1, A100, 1, RULES, Runtime.vllm)
    assert vllm.seconds < step.seconds and vllm.bound == "memory"


def test_static_batching_makes_every_request_wait_for_the_whole_batchs_prefill() -> None:
    """generate() prefills the batch in one forward before any sequence gets a token: 8 requests of 2,048
    prompt tokens all see their first token after the prefill of 8 x 2,048 tokens. vLLM (continuous
    batching) gives an idle replica's request its first token after its own prompt."""
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=2304, runtime=Runtime.transformers
    )
    hf = serve(req, A100, 1, RULES, 2048, 256, 8)
    assert hf.ttft_s == pytest.approx(prefill_seconds(req, A100, 1, RULES, 2048, 8))
    vllm = serve(replace(req, runtime=Runtime.vllm), A100, 1, RULES, 2048, 256, 8)
    assert vllm.ttft_s == pytest.approx(prefill_seconds(replace(req, runtime=Runtime.vllm), A100, 1, RULES, 2048, 1))
    assert vllm.ttft_s < hf.ttft_s / 4


def test_layer_split_prefill_computes_on_one_card_at_a_time() -> None:
    """A 2,048-token prompt of Llama 2 7B on two A100s: layer split runs the whole prompt's FLOPs on one
    card at a time (as slow as one card, plus a hop); tensor parallelism splits them over both."""
    req = Request.with_defaults(RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, context=2048)
    one = prefill_seconds(replace(req, runtime=Runtime.llama_cpp), A100, 1, RULES, 2048, 1)
    two = prefill_seconds(replace(req, runtime=Runtime.llama_cpp), A100, 2, RULES, 2048, 1)
    assert two == pytest.approx(one + SPEED.decode.pipeline_hop_us * 1e-6)
    assert prefill_seconds(req, A100, 2, RULES, 2048, 1) < 0.75 * one


def _llamacpp_dispatch(us: float) -> Rules:
    """The rules with llama.cpp's host cost per routed expert set to ``us`` microseconds."""
    rt = dict(RULES.speed.runtimes)
    rt[Runtime.llama_cpp] = rt[Runtime.llama_cpp].model_copy(update={"host_us_per_routed_expert": us})
    return RULES.model_copy(update={"speed": RULES.speed.model_copy(update={"runtimes": rt})})


def test_llamacpp_pays_for_every_routed_expert_it_dispatches_from_the_host() -> None:
    """llama.cpp's mul_mat_id (the builds of the published DeepSeek-R1 cases) synchronizes and issues one matmul
    per routed expert: Mixtral (32 MoE layers, top-2 of 8) at 100 us per expert adds 32 x 2 x 100 us = 6.4 ms
    to a one-sequence step; two sequences touch 8 x (1 - (6/8)^2) = 3.5 experts per layer on average: 11.2 ms.
    A 1,024-token prompt runs as two 512-token ubatches, each touching all 8 experts of every layer
    (8 x (1 - 0.75^512) = 8.000): 2 x 32 x 8 x 100 us = 51.2 ms. Worked by hand; a dense model and vLLM pay nothing."""
    on, off = _llamacpp_dispatch(100.0), _llamacpp_dispatch(0.0)

    def step(rules: Rules, batch: int, arch: Arch = MIXTRAL, runtime: Runtime = Runtime.llama_cpp) -> float:
        return decode_step(arch, Precision.q8_0, Precision.fp16, batch, 512, H100, 1, rules, runtime).seconds

    assert step(on, 1) - step(off, 1) == pytest.approx(6.4e-3)
    assert step(on, 2) - step(off, 2) == pytest.approx(11.2e-3)
    assert decode_step(MIXTRAL, Precision.q8_0, Precision.fp16, 1, 512, H100, 1, on, Runtime.llama_cpp).bound == "host"
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, MIXTRAL, Precision.q8_0, context=1024, runtime=Runtime.llama_cpp
    )
    assert prefill_seconds(req, H100, 1, on, 1024, 1) - prefill_seconds(req, H100, 1, off, 1024, 1) == pytest.approx(
        51.2e-3
    )
    assert step(on, 1, LLAMA2_7B) == pytest.approx(step(off, 1, LLAMA2_7B))
    assert step(on, 1, runtime=Runtime.vllm) == pytest.approx(step(off, 1, runtime=Runtime.vllm))


def _geforce(peer_to_peer: bool | None) -> Gpu:
    """An RTX 4090-like PCIe 4.0 card without NVLink (Ada whitepaper), with or without peer-to-peer."""
    return gpu(
        id="rtx-4090-24g", form_factor=FormFactor.pcie, memory_gb=24.0, memory_bandwidth_gbps=1008.0,
        interconnect=None, interconnect_gbps=None, topology=None, pcie_gen=4, peer_to_peer=peer_to_peer,
    )  # fmt: skip


def test_an_all_reduce_without_peer_to_peer_goes_through_host_memory() -> None:
    """Worked by hand, 1 MB over 2 PCIe 4.0 cards (31.5 GB/s a direction, 45 us): with peer-to-peer
    45e-6 + 2 x 1/2 x 1e6 / 31.5e9 = 76.75 us; through host memory (x1.4 latency, half the bandwidth)
    63e-6 + 1e6 / 15.75e9 = 126.49 us. A card that states nothing keeps the peer-to-peer figure."""
    from generator.engine.links import allreduce_seconds, through_host

    assert SPEED.decode.no_peer_to_peer.latency_factor == 1.4 and SPEED.decode.no_peer_to_peer.bandwidth_share == 0.5
    with_p2p = allreduce_seconds(_geforce(None), 2, 1e6, MEM, SPEED)
    without = allreduce_seconds(_geforce(False), 2, 1e6, MEM, SPEED)
    assert with_p2p == pytest.approx(76.746e-6, rel=1e-4)
    assert without == pytest.approx(126.49e-6, rel=1e-4)
    assert through_host(_geforce(False), 2, MEM) and not through_host(_geforce(None), 2, MEM)
    assert not through_host(_geforce(False), 1, MEM)  # one card: no all-reduce
    assert not through_host(gpu(peer_to_peer=False), 8, MEM)  # an NVLink server never goes through host


def test_the_no_peer_to_peer_factor_reproduces_the_club_3090_ab() -> None:
    """noonghunna/club-3090 issue #873: 2 x RTX 5090 decode 288.1 tok/s with P2P, 222.8 without
    (-22.7%). The fitted rule on the engine's stand-in (a 3B-active MoE, INT4, one sequence, TP=2 on a
    PCIe 5.0 card) loses within 2 points of that."""
    moe = shape(
        30.53, layers=48, hidden=2048, heads=32, kv_heads=4, head_dim=128, intermediate=768, vocab=151936,
        experts=128, experts_per_token=8, active_params_b=3.35,
    )  # fmt: skip
    kw: dict[str, Any] = dict(
        memory_gb=32.0, memory_bandwidth_gbps=1792.0, pcie_gen=5, fp32_tflops=104.8,
        fp16_tflops_dense=209.5, bf16_tflops_dense=209.5, fp8_tflops_dense=419.0, int8_tops_dense=838.0,
    )  # fmt: skip
    on, off = (
        decode_step(moe, Precision.int4, Precision.fp8, 1, 1024, _geforce(p).model_copy(update=kw), 2, RULES).seconds
        for p in (None, False)
    )
    assert on / off == pytest.approx(222.8 / 288.1, abs=0.02)


def test_geforce_cards_state_no_peer_to_peer_with_a_source() -> None:
    """The 4090's is sourced (tinygrad's P2P driver fork exists because the stock driver has none); the
    4090 D, the modded 48 GB board and the 5090 inherit the consumer-line rule, marked unconfirmed."""
    cards = {g["id"]: g for g in yaml.safe_load((ROOT / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]}
    stock = cards["rtx-4090-24g"]
    assert stock["peer_to_peer"] is False and "peer_to_peer" not in stock["unconfirmed"]
    assert stock["field_sources"]["peer_to_peer"] == "https://github.com/tinygrad/open-gpu-kernel-modules"
    for gid in ("rtx-4090d-24g", "rtx-4090-48g", "rtx-5090-32g"):
        assert cards[gid]["peer_to_peer"] is False and "peer_to_peer" in cards[gid]["unconfirmed"], gid
        assert "peer_to_peer" in cards[gid]["field_sources"], gid
    assert all("peer_to_peer" not in g for g in cards.values() if "GeForce" not in g["name"])


def test_tensor_parallel_serving_on_4090s_costs_more_without_peer_to_peer() -> None:
    """Llama-3.1-70B BF16 on 8 x RTX 4090 at the model page's load: the same plan with the 4090 stating
    nothing (peer-to-peer) is cheaper per million tokens, and only the no-P2P plan is marked extrapolated."""
    from dataclasses import replace as dc_replace

    from generator.data.validate import load_catalogue
    from generator.engine.sizing import Sizer
    from generator.results.model_pages import model_page

    cat, problems = load_catalogue(ROOT / "data", ROOT)
    assert cat is not None, problems
    stock = cat.gpus["rtx-4090-24g"]
    p2p = dc_replace(cat, gpus={**cat.gpus, stock.id: stock.model_copy(update={"peer_to_peer": None})})
    costs = []
    for c in (cat, p2p):
        page = model_page(c, c.models["llama-3.1-70b"], Workload.inference, Sizer(c.rules))
        o = page.rec.option_for(stock.id)
        assert o is not None and o.cards == 8 and o.cost_per_mtok_at_batch_cny is not None
        costs.append((o.cost_per_mtok_at_batch_cny, o.extrapolated_speed))
    (without, marked), (with_p2p, unmarked) = costs
    assert without > with_p2p * 1.1 and marked and not unmarked


def test_each_runtime_caps_concurrency_by_its_own_rule() -> None:
    """Llama-2-7B at 64-token contexts on an H100: the KV cache is 2·32·32·128·2 B = 512 KiB per token,
    32 MiB per sequence, so even 1,024 sequences (32 GiB + 13 GiB of weights) fit the 72 GiB vLLM
    reserves; memory never binds and each runtime's own cap does:

    * vLLM: max_num_seqs 1024 on a card of 70 GiB or more that is not an A100 (EngineArgs.get_batch_defaults);
    * llama.cpp: LLAMA_MAX_SEQ = 256 sequences per context (src/llama-cparams.h), whatever the card;
    * transformers generate(): no scheduler, the static batch the request names (8)."""
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, batch=8, context=64, output_tokens=32
    )
    assert max_concurrency(req, H100, 1, RULES) == (1024, True)
    assert max_concurrency(replace(req, runtime=Runtime.llama_cpp), H100, 1, RULES) == (256, True)
    assert max_concurrency(replace(req, runtime=Runtime.transformers), H100, 1, RULES) == (8, True)
    # transformers serves its batch at capacity too: the two figures are one
    figures = serving_figures(replace(req, runtime=Runtime.transformers), H100, 1, RULES)
    assert figures.at_capacity == figures.at_batch
    # the note names the basis of the cap it stopped at
    notes = size_workload(replace(req, runtime=Runtime.llama_cpp), H100, RULES).assumptions
    said = next(assumption_text(a) for a in notes if a.key == "serving")
    assert "并发数取 llama.cpp 一个上下文的序列上限（LLAMA_MAX_SEQ）允许的 256 路" in said
    # llama-server opens 4 slots without --parallel: 256 slots of 64 tokens need -c 16384
    assert "按 --parallel 256 -c 16384 启动" in said


def test_llama_server_launch_for_the_plan() -> None:
    """A llama.cpp plan serving 16 requests of 4,096 tokens: `--parallel 16 -c 65536` (each slot gets
    n_ctx / n_parallel = 4,096 tokens once -np is given); no launch note for vLLM or transformers."""
    req = Request.with_defaults(
        RULES.defaults, Workload.inference, LLAMA2_7B, Precision.bf16, batch=16, context=4096, output_tokens=512
    )
    launch = launch_reason(replace(req, runtime=Runtime.llama_cpp), 16, 4096, RULES)
    assert launch is not None and explain(launch) == (
        "llama-server 不加 --parallel 只开 4 个槽位（共用 -c 的上下文），"
        "按 --parallel 16 -c 65536 启动才能同时处理这么多路（每个槽位 4,096 token）"
    )
    assert launch_reason(req, 16, 4096, RULES) is None
    assert launch_reason(replace(req, runtime=Runtime.transformers), 16, 4096, RULES) is None
