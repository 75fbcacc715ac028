"""The pieces every memory estimate is made of: weight bytes, KV cache per token,
tensor/pipeline layout, LoRA adapter size, and the per-card overhead.

Every constant comes from ``data/rules.yaml`` (:class:`~generator.data.rules.MemoryRules`);
every formula cites its source in a comment.
"""

from __future__ import annotations

import math

from generator.data.records import ModelKind, Precision, Runtime
from generator.data.rules import MemoryRules
from generator.engine.arch import Arch
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.request import BREAKDOWN_KEYS, Assumption, Request
from generator.engine.units import BITS_PER_BYTE, GIB

#: Linear layers of the MLP (one copy per expert in a MoE).
MLP_MODULES = ("gate_proj", "up_proj", "down_proj")


def weight_bytes(
    arch: Arch, precision: Precision | str, rules: MemoryRules, embedding_bits: float | None = None
) -> float:
    """Bytes to store all weights at ``precision`` (one copy, all experts).

    ``embedding_bits`` overrides the bits of embedding and lm_head for quantized formats.
    A format the checkpoint applies to the routed experts only (``experts_only_formats``: gpt-oss's
    MXFP4) stores the experts at its bits and every other weight at ``embedding_bits`` (or at the format's
    ``experts_only_rest_bits``: unsloth's dynamic 1.58-bit GGUF).
    """
    name = Precision(precision)
    bits = rules.bits_per_param[name]
    if name in rules.experts_only_formats:
        experts = min(arch.expert_params, arch.params)
        rest = rules.experts_only_rest_bits.get(name, rules.embedding_bits)
        return experts * bits / BITS_PER_BYTE + (arch.params - experts) * rest / BITS_PER_BYTE
    if name in rules.embeddings_16bit_formats:
        # Quantizers touch Linear layers of the blocks only; embedding / lm_head stay 16-bit
        # (bitsandbytes llm_int8_skip_modules=["lm_head"]; nn.Embedding is not a Linear).
        emb = min(arch.embedding_params, arch.params)
        emb_bits = embedding_bits if embedding_bits is not None else rules.embedding_bits
        return (arch.params - emb) * bits / BITS_PER_BYTE + emb * emb_bits / BITS_PER_BYTE
    return arch.params * bits / BITS_PER_BYTE


def default_kv_precision(precision: Precision | str, rules: MemoryRules) -> Precision:
    """KV-cache dtype when none is given (vLLM kv_cache_dtype="auto" follows the model dtype)."""
    if Precision(precision) is Precision.fp32 and rules.kv_fp32_when_model_fp32:
        return Precision.fp32
    return Precision(rules.kv_default_precision)


def parallel_layout(gpus: int, rules: MemoryRules) -> tuple[int, int]:
    """(tensor-parallel, pipeline-parallel) sizes for serving on ``gpus`` cards."""
    tp = min(gpus, rules.inference.max_tensor_parallel)
    return tp, math.ceil(gpus / tp)


def memory_layout(gpus: int, rules: MemoryRules, runtime: Runtime | None = None) -> tuple[int, int]:
    """(tensor-parallel size, layer stages) of the weights and KV cache on ``gpus`` cards. A layer-split
    runtime (``layer_split``: llama.cpp ``--split-mode layer``, transformers ``device_map``) gives each card
    a run of whole layers with all their KV heads: (1, gpus). Others (and ``runtime`` None):
    :func:`parallel_layout`."""
    if runtime is not None and rules.inference.runtimes[runtime].layer_split:
        return 1, gpus
    return parallel_layout(gpus, rules)


def _kv_values_per_layer_token(arch: Arch, tp: int) -> int:
    """Values one token caches in one attention layer on one card.

    Ordinary and grouped-query attention: K and V of the card's KV heads, 2 × kv_heads × head_dim
    (vLLM paper, Kwon et al. 2023 §2: "2 (key and value vectors) × 5120 (hidden state size) × 40
    (number of layers) × 2 (bytes per FP16)" = 800 KB for OPT-13B). Tensor parallelism splits KV
    heads; when there are fewer KV heads than cards each card keeps a replica of one (vLLM
    replicates KV heads), hence ceil.

    Multi-head latent attention: the compressed latent and the rotary key, kv_lora_rank +
    qk_rope_head_dim values (DeepSeek-V2 paper §2.1: "(d_c + d_h^R)·l elements" per token), one
    copy on every tensor-parallel card (vLLM's and SGLang's MLA backends cache it as a single KV
    head, which tensor parallelism cannot split).
    """
    if arch.kv_lora_rank is not None:
        return arch.kv_lora_rank + arch.qk_rope_dim
    return 2 * math.ceil(arch.kv_heads / tp) * arch.head_dim


def kv_bytes_per_token(
    arch: Arch, kv_precision: Precision | str, rules: MemoryRules, gpus: int = 1, runtime: Runtime | None = None
) -> float:
    """KV-cache bytes per token of context on one card, over the layers that cache every token
    (all attention layers for a model without windows; see :func:`kv_bytes_per_sequence`).
    Pipeline stages (every card of a layer-split ``runtime``) split the layers."""
    if arch.kind is ModelKind.diffusion:
        return 0.0
    tp, pp = memory_layout(gpus, rules, runtime)
    layers = math.ceil(arch.attention_layers / pp)
    bytes_per = rules.bits_per_param[Precision(kv_precision)] / BITS_PER_BYTE
    return layers * _kv_values_per_layer_token(arch, tp) * bytes_per


def kv_bytes_per_sequence(
    arch: Arch,
    kv_precision: Precision | str,
    rules: MemoryRules,
    gpus: int,
    context: int,
    runtime: Runtime | None = None,
) -> float:
    """KV cache (and recurrent state) of one sequence of ``context`` tokens on one card.

    * full-attention layers cache every token;
    * sliding-window and chunked layers cache at most ``window`` tokens (vLLM's hybrid KV-cache
      manager frees the blocks that fell out of the window; Llama 4's chunked layers attend within
      their chunk);
    * linear-attention layers (Qwen3-Next's Gated DeltaNet) keep ``linear_state`` values whatever
      the context, split over tensor-parallel cards by head, stored like the KV cache.

    Pipeline stages split the layers (each kind over the stages), and so do the cards of a layer-split
    ``runtime`` (:func:`memory_layout`): a card caches only its own layers, all their KV heads.
    """
    if arch.kind is ModelKind.diffusion:
        return 0.0
    tp, pp = memory_layout(gpus, rules, runtime)
    bytes_per = rules.bits_per_param[Precision(kv_precision)] / BITS_PER_BYTE
    per = _kv_values_per_layer_token(arch, tp)
    tokens = math.ceil(arch.full_attention_layers / pp) * context
    if arch.window_layers:
        tokens += math.ceil(arch.window_layers / pp) * arch.attended(context)
    values: float = tokens * per
    if arch.linear_layers:
        values += math.ceil(arch.linear_layers / pp) * arch.linear_state / tp
    return values * bytes_per


def finish(parts: dict[str, float], n: int, extra_overhead: float, rules: MemoryRules) -> dict[str, float]:
    """Add the per-card overhead and convert bytes to GiB."""
    o = rules.overhead
    subtotal = sum(parts.values())
    fixed = o.cuda_context_gib * GIB + (o.multi_card_comm_gib * GIB if n > 1 else 0.0)
    # Caching-allocator fragmentation as a share of what the job allocates (PyTorch CUDA caching allocator).
    overhead = fixed + extra_overhead + o.fragmentation_fraction * subtotal
    out = {k: parts.get(k, 0.0) / GIB for k in BREAKDOWN_KEYS if k != "overhead"}
    out["overhead"] = overhead / GIB
    return {k: out[k] for k in BREAKDOWN_KEYS}


def common_assumptions(req: Request, rules: MemoryRules) -> list[Assumption]:
    """What every estimate assumes: memory per card, a derived architecture, the runtime's overhead."""
    out = [Assumption("per_card", req.gpus, message=Reason(ReasonKind.per_card_memory, {"cards": req.gpus}))]
    if req.arch.derived:
        derived = Reason(ReasonKind.derived_arch, {"fields": tuple(req.arch.derived)})
        out.append(Assumption("derived_arch", ", ".join(req.arch.derived), message=derived))
    o = rules.overhead
    overhead: dict[str, Param] = {
        "cuda_gib": f"{o.cuda_context_gib:g}",
        "fragmentation": f"{o.fragmentation_fraction:.0%}",
    }
    if req.gpus > 1:
        overhead["comm_gib"] = f"{o.multi_card_comm_gib:g}"
    out.append(Assumption("overhead", o.cuda_context_gib, message=Reason(ReasonKind.overhead, overhead)))
    return out
