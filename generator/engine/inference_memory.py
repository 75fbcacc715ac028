"""Memory of serving a model on one card: weights, KV cache, prompt-processing temporaries,
and image-generation pipelines.
"""

from __future__ import annotations

from dataclasses import replace

from generator.data.records import ModelKind, Precision
from generator.data.rules import MemoryRules
from generator.engine.footprint import (
    common_assumptions,
    default_kv_precision,
    finish,
    kv_bytes_per_token,
    parallel_layout,
    weight_bytes,
)
from generator.engine.request import Assumption, Estimate, PeakPhase, Request
from generator.engine.units import BITS_PER_BYTE, GIB


def diffusion_estimate(req: Request, rules: MemoryRules) -> Estimate:
    """Image generation: all pipeline weights plus the denoise/VAE-decode peak, which grows
    with the image area. ``req.context`` is the image side in pixels for diffusion models."""
    ir = rules.inference
    weights = weight_bytes(req.arch, req.precision, rules)
    megapixels = req.batch * (req.context / 1000) ** 2
    activations = ir.diffusion_activation_gib_per_megapixel * megapixels * GIB
    breakdown = finish({"weights": weights, "kv_cache": 0.0, "activations": activations}, 1, 0.0, rules)
    # The transformer-shape fill-in does not apply to a diffusion pipeline: drop its note.
    assumptions = [a for a in common_assumptions(req, rules) if a.key != "derived_arch"]
    assumptions.append(
        Assumption(
            "diffusion",
            megapixels,
            f"图像生成：全部组件（去噪网络、文本编码器、VAE）按 {req.precision.value} 常驻显存；"
            f"每次生成 {req.batch} 张 {req.context}×{req.context} 图，去噪和 VAE 解码的峰值按每百万像素约 "
            f"{ir.diffusion_activation_gib_per_megapixel:g} GiB 估算。",
        )
    )
    return Estimate(sum(breakdown.values()), breakdown, assumptions, PeakPhase.inference)


def inference_estimate(req: Request, rules: MemoryRules) -> Estimate:
    arch, n = req.arch, req.gpus
    if arch.kind is ModelKind.diffusion:
        # Diffusion pipelines are not split across cards here: one card must hold them.
        # Common tools do not split a diffusion pipeline across cards: one card holds it all.
        return diffusion_estimate(replace(req, gpus=1), rules)
    ir = rules.inference
    tp, pp = parallel_layout(n, rules)
    prec = req.precision
    # Weights split evenly over the cards (tensor parallel inside a server, pipeline stages
    # across servers; vLLM also shards embedding and lm_head: VocabParallelEmbedding). MoE: all experts held.
    weights = weight_bytes(arch, prec, rules) / n
    if prec.value in rules.dequant_formats:
        # bnb dequantizes one whole weight to 16-bit before the matmul (bnb MatMul4Bit).
        weights += rules.dequant_copies * arch.largest_linear_params / tp * rules.embedding_bits / BITS_PER_BYTE
    kv_prec = req.kv_precision or default_kv_precision(prec, rules)
    kv = kv_bytes_per_token(arch, kv_prec, rules, n) * req.tokens
    act_bytes = ir.fp32_activation_bytes if prec is Precision.fp32 else ir.activation_bytes
    # Prefill of the whole batch at once (HF generate; vLLM without chunked prefill): the largest
    # per-layer temporaries — MLP gate/up/act (3·i) or attention q/k/v/out + norm upcast (~5·h) —
    # split by tensor parallelism, plus the residual stream kept whole on every card
    # (HF modeling_llama.py LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x))).
    per_token = act_bytes * (
        max(ir.prefill_intermediate_copies * arch.routed_intermediate, ir.prefill_hidden_copies * arch.hidden) / tp
        + ir.prefill_resident_hidden_copies * arch.hidden
    )
    # Last-position logits only (transformers generate(): logits_to_keep=1), fp32 + sampling probs.
    logits = req.batch * arch.vocab * ir.last_token_logits_bytes_per_vocab / tp
    activations = per_token * req.tokens + logits
    parts = {"weights": weights, "kv_cache": kv, "activations": activations}
    breakdown = finish(parts, n, 0.0, rules)

    bits = rules.bits_per_param[prec]
    assumptions = common_assumptions(req, rules)
    text = f"权重按 {prec.value} 存储，约 {bits:g} 位/参数"
    if prec.value in rules.embeddings_16bit_formats:
        text += "（词嵌入和输出层保持 16 位）"
    if arch.experts:
        text += f"；MoE 模型的全部 {arch.experts} 个专家都要放进显存"
    assumptions.append(Assumption("precision", prec.value, text + "。"))
    per_tok = kv_bytes_per_token(arch, kv_prec, rules, n)
    assumptions.append(
        Assumption(
            "kv_cache",
            kv_prec.value,
            f"KV 缓存按 {kv_prec.value} 存储，每个 token 每卡约 {per_tok / 1024:.0f} KiB，"
            f"按 {req.batch} 路并发 × {req.context} token 上下文预留。",
        )
    )
    if n > 1:
        assumptions.append(
            Assumption(
                "parallelism",
                f"tp={tp},pp={pp}",
                f"{n} 张卡按张量并行 {tp} 路" + (f"、流水线 {pp} 段" if pp > 1 else "") + "切分模型。",
            )
        )
    assumptions.append(
        Assumption(
            "prefill",
            req.tokens,
            f"预填充按 {req.batch} 条 × {req.context} token 一次处理，计入单层最大的临时张量。",
        )
    )
    return Estimate(sum(breakdown.values()), breakdown, assumptions, PeakPhase.inference)
