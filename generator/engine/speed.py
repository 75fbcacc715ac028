"""How long a training job takes and how fast a card set generates tokens.

First-order roofline estimates: training is compute-bound (FLOPs / achieved FLOP/s),
decoding is bound by reading the weights and KV cache once per step or by the
matmul FLOPs, whichever is slower. Every constant lives in ``data/rules.yaml``
(:class:`~generator.rules.SpeedRules`); method notes in ``docs-dev/estimator.md``.
FP8 training is not assumed: training speed uses dense BF16 (else FP16) tensor TFLOPS.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.records import FormFactor, Gpu, Precision, Workload
from generator.data.rules import LinkKind, MemoryRules, Rules, SpeedRules
from generator.engine.arch import Arch
from generator.engine.footprint import default_kv_precision, kv_bytes_per_token, parallel_layout, weight_bytes
from generator.engine.request import Assumption, Request
from generator.engine.units import BITS_PER_BYTE, GIGA, MILLION, SECONDS_PER_HOUR, TERA


@dataclass(frozen=True)
class TrainTime:
    """Wall-clock estimate of a training job."""

    hours: float
    flops: float
    mfu: float
    scaling: float
    link: LinkKind
    assumptions: list[Assumption]


@dataclass(frozen=True)
class Throughput:
    """Decode speed of one replica (all its cards together)."""

    tokens_per_s: float  # output tokens per second over the whole batch
    per_token_ms: float  # one decode step = time between two tokens of one sequence
    bound: str  # "memory" | "compute"
    assumptions: list[Assumption]


# --------------------------------------------------------------------------- FLOPs


def _compute_params(arch: Arch) -> float:
    """Parameters that do matmul work per token: active parameters minus the input embedding
    lookup (Kaplan et al. 2020 count non-embedding N; the lm_head matmul is real work)."""
    lookup = arch.input_embedding_params if not arch.tied_embeddings else 0.0
    return max(0.0, arch.active_params - lookup)


def forward_flops_per_token(arch: Arch, context: int, rules: SpeedRules) -> float:
    """Forward FLOPs for one token that attends to ``context`` tokens.

    2·N (Kaplan et al. 2020 §2.1) + 4·layers·(heads·head_dim)·context for QKᵀ and AV
    (Chowdhery et al. 2022, PaLM App. B: 6N + 12·L·H·Q·T per training token = 3 × forward).
    """
    dense = rules.forward_flops_per_param * _compute_params(arch)
    attention = rules.attention_flops_per_layer_width_context * arch.layers * arch.q_width * context
    return dense + attention


def train_flops(req: Request, rules: SpeedRules, tokens: float | None = None) -> float:
    """Training FLOPs for ``tokens`` tokens (default: one step, batch × context × cards).

    Full / pre-training: forward + backward (2× forward) = 6·N per token (Kaplan 2020;
    EleutherAI "Transformer Math 101": C = 6PD), ×8/6 with gradient checkpointing, which
    re-runs the forward (Korthikanti et al. 2022 §5; PaLM App. B). LoRA / QLoRA: the frozen
    base needs activation gradients only, no weight gradients: ≈ 4·N (+2·N recompute).
    MoE: N = active parameters.
    """
    r = rules
    n_tokens = tokens if tokens is not None else req.tokens * req.gpus
    backward = (
        r.frozen_backward_to_forward if req.workload in (Workload.lora, Workload.qlora) else r.backward_to_forward
    )
    recompute = r.recompute_to_forward if req.grad_checkpointing else 0.0
    return forward_flops_per_token(req.arch, req.context, r) * (1 + backward + recompute) * n_tokens


# --------------------------------------------------------------------------- links and scaling


def link_kind(gpu: Gpu, cards: int, rules: MemoryRules) -> LinkKind:
    """How the cards of one job talk: single, nvlink, pcie, or multi_node (beyond one server)."""
    if cards <= 1:
        return LinkKind.single
    if cards > rules.inference.max_tensor_parallel:
        return LinkKind.multi_node
    if gpu.has_nvlink_class_link or (gpu.form_factor is FormFactor.nvl and cards <= 2):
        # H100 NVL pairs are NVLink-bridged two by two; beyond a pair they talk over PCIe.
        return LinkKind.nvlink
    return LinkKind.pcie


def scaling_efficiency(gpu: Gpu, cards: int, rules: Rules) -> tuple[float, LinkKind]:
    """Fraction of linear speed-up on ``cards`` cards, and the link kind it assumes."""
    link = link_kind(gpu, cards, rules.memory)
    if link is LinkKind.single:
        return 1.0, link
    intra = link
    if link is LinkKind.multi_node:
        intra = LinkKind.nvlink if gpu.has_nvlink_class_link else LinkKind.pcie
    points = sorted(getattr(rules.speed.scaling, intra.value), key=lambda p: p.cards)
    eff = points[0].efficiency
    for p in points:
        if p.cards <= cards:
            eff = p.efficiency
    if link is LinkKind.multi_node:
        eff *= rules.speed.scaling.multi_node_factor
    return eff, link


def training_hours(req: Request, tokens: float, gpu: Gpu, cards: int, all_rules: Rules) -> TrainTime:
    """Hours to train on ``tokens`` tokens with ``cards`` cards of ``gpu``.

    hours = FLOPs / (cards × dense 16-bit TFLOPS × MFU × scaling) / 3600. Container
    virtualization loss is not included (the delivery rules apply it).
    """
    rules = all_rules.speed
    flops = train_flops(req, rules, tokens)
    eff, link = scaling_efficiency(gpu, cards, all_rules)
    peak = gpu.tensor_tflops * TERA
    hours = flops / (cards * peak * rules.mfu * eff) / SECONDS_PER_HOUR
    mult = flops / (forward_flops_per_token(req.arch, req.context, rules) * tokens)
    link_zh = {
        LinkKind.single: "单卡",
        LinkKind.nvlink: "NVLink 互联",
        LinkKind.pcie: "仅 PCIe 互联",
        LinkKind.multi_node: "多机（机间需 InfiniBand）",
    }
    assumptions = [
        Assumption(
            "train_flops",
            flops,
            f"训练计算量按每 token 约 {mult:g} 倍前向计算（全参 6N、LoRA 4N，梯度检查点再加一次前向）估算，"
            f"共约 {flops:.3g} FLOPs。",
        ),
        Assumption(
            "mfu",
            rules.mfu,
            f"按 {gpu.name} 稠密 16 位算力 {gpu.tensor_tflops:g} TFLOPS、算力利用率（MFU）{rules.mfu:.0%} 计算，不假设使用 FP8。",
        ),
        Assumption(
            "scaling",
            eff,
            f"{cards} 张卡，{link_zh[link]}，多卡扩展效率按 {eff:.0%} 计。",
        ),
    ]
    return TrainTime(hours=hours, flops=flops, mfu=rules.mfu, scaling=eff, link=link, assumptions=assumptions)


# --------------------------------------------------------------------------- inference


def expected_experts_touched(experts: int, per_token: int, batch: int) -> float:
    """Expected distinct experts a decode step reads per MoE layer: E·(1 − (1 − k/E)^b),
    treating each sequence's top-k choice as independent and uniform."""
    return experts * (1 - (1 - per_token / experts) ** batch)


def _decode_tflops(gpu: Gpu, precision: Precision) -> float:
    """Peak the decode matmuls run at: FP8 tensor cores for fp8 weights, else 16-bit
    (weight-only int4/int8/nf4/GGUF kernels dequantize to 16-bit before the matmul)."""
    if precision is Precision.fp8 and gpu.fp8_tflops_dense:
        return gpu.fp8_tflops_dense
    return gpu.tensor_tflops


def decode_throughput(req: Request, gpu: Gpu, cards: int, all_rules: Rules) -> Throughput:
    """Steady-state decode speed of ``req.batch`` sequences at ``req.context`` tokens.

    Per step every card reads its share of the weights and of the KV cache
    (vLLM/PagedAttention decode is memory-bound at small batch) and does
    2·N_active·batch FLOPs plus attention; the step takes the longer of the two,
    divided across cards with a tensor-parallel efficiency.
    MoE: only experts some sequence routed to are read: E·(1 − (1 − k/E)^b) per layer.
    """
    rules, mem = all_rules.speed, all_rules.memory
    arch, prec = req.arch, req.precision
    bits = mem.bits_per_param[prec]
    total_weights = weight_bytes(arch, prec, mem)
    if not arch.tied_embeddings:
        # The input embedding is a lookup of `batch` rows, not a full read.
        total_weights -= arch.input_embedding_params * _embedding_bits(prec, mem) / BITS_PER_BYTE
    if arch.experts and arch.experts_per_token:
        touched = expected_experts_touched(arch.experts, arch.experts_per_token, req.batch) / arch.experts
        total_weights -= arch.expert_params * bits / BITS_PER_BYTE * (1 - touched)
    kv_prec = req.kv_precision or default_kv_precision(prec, mem)
    kv_read = kv_bytes_per_token(arch, kv_prec, mem, cards) * req.tokens  # per card
    bytes_per_card = total_weights / cards + kv_read
    link = link_kind(gpu, cards, mem)
    tp_eff = getattr(rules.decode.tp_efficiency, link.value)
    t_mem = bytes_per_card / (gpu.memory_bandwidth_gbps * GIGA * rules.decode.bandwidth_efficiency) / tp_eff
    flops = forward_flops_per_token(arch, req.context, rules) * req.batch / cards
    t_compute = flops / (_decode_tflops(gpu, prec) * TERA * rules.decode.compute_efficiency) / tp_eff
    step = max(t_mem, t_compute)
    bound = "memory" if t_mem >= t_compute else "compute"
    tp, pp = parallel_layout(cards, mem)
    assumptions = [
        Assumption(
            "decode_bandwidth",
            rules.decode.bandwidth_efficiency,
            f"每生成一步要把权重和 KV 缓存读一遍；按显存带宽 {gpu.memory_bandwidth_gbps:g} GB/s 的 "
            f"{rules.decode.bandwidth_efficiency:.0%} 计，权重约 {bits:g} 位/参数。",
        ),
        Assumption(
            "decode_batch",
            req.batch,
            f"{req.batch} 路并发、每路上下文 {req.context} token；瓶颈是"
            + ("显存带宽。" if bound == "memory" else "算力。"),
        ),
    ]
    if cards > 1:
        assumptions.append(
            Assumption(
                "decode_parallel",
                tp_eff,
                f"{cards} 张卡切分模型（张量并行 {tp} 路"
                + (f"、流水线 {pp} 段" if pp > 1 else "")
                + f"），并行效率按 {tp_eff:.0%} 计。",
            )
        )
    return Throughput(tokens_per_s=req.batch / step, per_token_ms=step * 1000, bound=bound, assumptions=assumptions)


def _embedding_bits(prec: Precision, mem: MemoryRules) -> float:
    """Bits of the embedding table as weight_bytes stores it."""
    if prec.value in mem.embeddings_16bit_formats:
        return mem.embedding_bits
    return mem.bits_per_param[prec]


def prefill_seconds(req: Request, gpu: Gpu, cards: int, all_rules: Rules, prompt_tokens: int | None = None) -> float:
    """Seconds to process the prompts of the whole batch (compute-bound: 2·N FLOPs per token
    plus attention, at ``prefill_mfu`` of the dense peak). Default prompt: ``req.context``."""
    rules = all_rules.speed
    tokens = prompt_tokens if prompt_tokens is not None else req.context
    # Causal attention over a prompt of T tokens: on average each token attends to ~T/2, but
    # PaLM's convention (full T) is kept so the figure aims high.
    flops = forward_flops_per_token(req.arch, tokens, rules) * tokens * req.batch
    tp_eff = getattr(rules.decode.tp_efficiency, link_kind(gpu, cards, all_rules.memory).value)
    return float(flops / (cards * _decode_tflops(gpu, req.precision) * TERA * rules.prefill_mfu * tp_eff))


def cost_per_million_tokens(tokens_per_s: float, price_cny_per_hour: float) -> float:
    """Yuan per million output tokens at ``tokens_per_s`` for ``price_cny_per_hour`` (all cards)."""
    if tokens_per_s <= 0:
        raise ValueError("tokens_per_s must be positive")
    return price_cny_per_hour / (tokens_per_s * SECONDS_PER_HOUR) * MILLION
