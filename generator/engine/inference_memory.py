"""Memory of serving a model on one card: weights, KV cache, prompt-processing temporaries,
and image-generation pipelines.
"""

from __future__ import annotations

import math
from dataclasses import replace

from generator.data.records import ComponentRole, ModelKind, Offload, Precision
from generator.data.rules import MemoryRules, PrefillLogits
from generator.engine.arch import Arch, Component
from generator.engine.footprint import (
    common_assumptions,
    default_kv_precision,
    finish,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    memory_layout,
    weight_bytes,
)
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.request import Assumption, Estimate, PeakPhase, Request
from generator.engine.units import BITS_PER_BYTE, GIB

#: Phases of one image-generation call, in the order they run.
_PHASES = ("text_encoder", "denoiser", "vae")
_PHASE_REASON = {
    "text_encoder": ReasonKind.phase_text_encoder,
    "denoiser": ReasonKind.phase_denoiser,
    "vae": ReasonKind.phase_vae,
}
_ROLE_REASON = {
    ComponentRole.unet: ReasonKind.role_denoiser,
    ComponentRole.transformer: ReasonKind.role_denoiser,
    ComponentRole.text_encoder: ReasonKind.role_text_encoder,
    ComponentRole.vae: ReasonKind.role_vae,
}


def _phase_of(c: Component) -> str:
    return "denoiser" if c.role.denoiser else c.role.value


def diffusion_estimate(req: Request, rules: MemoryRules) -> Estimate:
    """Image generation: the peak over the pipeline's three phases (text encoding, denoising,
    VAE decoding) of the weights on the GPU plus that phase's activations.

    * weights: each component at ``req.precision``; ``offload=none`` keeps every component on
      the GPU, ``offload=model`` (diffusers ``enable_model_cpu_offload``) only the one at work;
      a VAE marked ``fp32_decode_in_fp16`` is upcast to fp32 for decoding in fp16 pipelines
      (diffusers SDXL pipeline: "make sure the VAE is in float32 mode, as it overflows in float16");
    * denoiser activations: ``denoiser_gib_per_megapixel[role]`` per image pass per megapixel,
      with ``denoiser_passes`` passes per image (2 with classifier-free guidance);
    * VAE decode: ``vae_decode_gib_per_megapixel`` per image per megapixel, doubled in fp32.

    Constants and the published peaks they come from: rules.yaml ``inference.diffusion``.
    A pipeline is never split across cards (diffusers runs it on one device).
    """
    d = rules.inference.diffusion
    prec = req.precision
    bits = rules.bits_per_param[prec]
    scale = 2.0 if prec is Precision.fp32 else 1.0  # activations per 16-bit value
    comps = req.arch.components
    upcast = prec is Precision.fp16

    fp32_bytes = rules.bits_per_param[Precision.fp32] / BITS_PER_BYTE

    def weights(c: Component, decoding: bool) -> float:
        if decoding and upcast and c.fp32_decode_in_fp16:
            return c.params * fp32_bytes
        kept = c.fp32_params_in_fp16 if upcast else 0.0  # T5 'wo' stays fp32 under fp16 (transformers)
        return (c.params - kept) * bits / BITS_PER_BYTE + kept * fp32_bytes

    mp, images = req.megapixels, req.batch
    fp32_vae = upcast and any(c.fp32_decode_in_fp16 for c in comps if c.role is ComponentRole.vae)
    acts = {
        "text_encoder": 0.0,  # prompts of at most a few hundred tokens: megabytes
        "denoiser": max(
            (
                getattr(d.denoiser_gib_per_megapixel, c.role.value) * req.arch.denoiser_passes * images * mp * GIB
                for c in comps
                if c.role.denoiser
            ),
            default=0.0,
        )
        * scale,
        "vae": d.vae_decode_gib_per_megapixel * images * mp * GIB * (2.0 if fp32_vae else scale),
    }
    totals: dict[str, tuple[float, float]] = {}
    for phase in _PHASES:
        on_gpu = [c for c in comps if req.offload is Offload.none or _phase_of(c) == phase]
        if not any(_phase_of(c) == phase for c in comps):
            continue
        w = sum(weights(c, phase == "vae") for c in on_gpu)
        totals[phase] = (w, acts[phase])
    peak = max(totals, key=lambda k: sum(totals[k]))
    w, a = totals[peak]
    breakdown = finish({"weights": w, "kv_cache": 0.0, "activations": a}, 1, 0.0, rules)

    assumptions = [x for x in common_assumptions(req, rules) if x.key != "derived_arch"]
    where = ReasonKind.offload_none if req.offload is Offload.none else ReasonKind.offload_model
    passes = req.arch.denoiser_passes
    diffusion: dict[str, Param] = {
        "where": Reason(where),
        "precision": prec.value,
        "images": str(images),
        "resolution": str(req.resolution),
        "passes": str(passes),
        "guidance": Reason(ReasonKind.guidance_cfg if passes > 1 else ReasonKind.guidance_distilled),
        "peak": Reason(_PHASE_REASON[peak]),
    }
    assumptions.append(Assumption("diffusion", req.resolution, message=Reason(ReasonKind.diffusion, diffusion)))
    if fp32_vae:
        assumptions.append(Assumption("vae_upcast", True, message=Reason(ReasonKind.vae_upcast)))
    detail = tuple(
        (
            Reason(
                ReasonKind.component,
                {"name": c.name, "role": Reason(_ROLE_REASON[c.role]), "params_b": f"{c.params / 1e9:.2f}"},
            ),
            weights(c, False) / GIB,
        )
        for c in comps
    )
    return Estimate(sum(breakdown.values()), breakdown, assumptions, PeakPhase.inference, detail)


def _kv_layout(arch: Arch) -> dict[str, Param]:
    """What the KV cache holds for the attention variants (none for ordinary attention): the
    optional parts of the ``kv_cache`` reason."""
    out: dict[str, Param] = {}
    if arch.kv_lora_rank is not None:
        mla: dict[str, Param] = {"kv_lora_rank": str(arch.kv_lora_rank), "rope_dim": str(arch.qk_rope_dim)}
        out["mla"] = Reason(ReasonKind.kv_mla, mla)
    if arch.window_layers:
        window: dict[str, Param] = {
            "attention_layers": str(arch.attention_layers),
            "window_layers": str(arch.window_layers),
            "window": arch.window or 0,  # set wherever window_layers are (arch.py)
        }
        out["window"] = Reason(ReasonKind.kv_window, window)
    if arch.linear_layers:
        out["linear"] = Reason(ReasonKind.kv_linear, {"linear_layers": str(arch.linear_layers)})
    return out


def inference_estimate(req: Request, rules: MemoryRules) -> Estimate:
    arch, n = req.arch, req.gpus
    if arch.kind is ModelKind.diffusion:
        # Diffusion pipelines are not split across cards here: one card must hold them.
        # Common tools do not split a diffusion pipeline across cards: one card holds it all.
        return diffusion_estimate(replace(req, gpus=1), rules)
    ir = rules.inference
    # vLLM: tensor parallel inside a server, pipeline stages across servers; a layer-split runtime
    # (llama.cpp, transformers device_map): a run of whole layers per card, nothing split by tensor parallelism.
    tp, pp = memory_layout(n, rules, req.runtime)
    prec = req.precision
    # Weights split evenly over the cards (vLLM also shards embedding and lm_head: VocabParallelEmbedding;
    # a layer split gives each card its share of the layers). MoE: all experts held.
    weights = weight_bytes(arch, prec, rules) / n
    transients = 0.0
    if prec.value in rules.dequant_formats:
        # bnb dequantizes one whole weight to 16-bit before the matmul (bnb MatMul4Bit): a transient.
        transients = rules.dequant_copies * arch.largest_linear_params / tp * rules.embedding_bits / BITS_PER_BYTE
    # The runtime decides the KV type (vLLM / transformers: the model's dtype; llama.cpp: f16), the
    # prefill step, the logits it keeps and its activation width (rules.yaml memory.inference.runtimes).
    rt = ir.runtimes[req.runtime]
    kv_prec = req.kv_precision or rt.kv_precision or default_kv_precision(prec, rules)
    # Every runtime holds the KV cache of batch x context tokens at the peak: vLLM's pages for the
    # running sequences, transformers' DynamicCache grown to the last token, llama.cpp's n_ctx.
    kv = kv_bytes_per_sequence(arch, kv_prec, rules, n, req.context, req.runtime) * req.batch
    act_bytes = rt.activation_bytes or (ir.fp32_activation_bytes if prec is Precision.fp32 else ir.activation_bytes)
    # Prefill (of the whole batch, or of the stack's chunk below): the largest
    # per-layer temporaries — MLP gate/up/act (3·i) or attention q/k/v/out + norm upcast (~5·h) —
    # split by tensor parallelism, plus the residual stream kept whole on every card
    # (HF modeling_llama.py LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x))).
    per_token = act_bytes * (
        max(ir.prefill_intermediate_copies * arch.routed_intermediate, ir.prefill_hidden_copies * arch.hidden) / tp
        + ir.prefill_resident_hidden_copies * arch.hidden
    )
    # Sampling: last-position logits, fp32 + probabilities, one row per sequence.
    logits = req.batch * arch.vocab * ir.last_token_logits_bytes_per_vocab / tp
    # Tokens prefilled in one step: the runtime's chunk (vLLM's max_num_batched_tokens, llama.cpp's
    # n_ubatch), or the whole batch for a runtime without chunking (transformers generate) and for a
    # request that names its own logits.
    cap = rt.max_batched_tokens if req.prefill_logits is None else None
    prefill = min(req.tokens, cap) if cap else req.tokens
    layer_temps = per_token * prefill
    stack_logits = req.prefill_logits or rt.prefill_logits
    if stack_logits is PrefillLogits.all_tokens:
        # A stack that runs lm_head over every prompt token of the step holds a row per token (bf16; f32
        # in llama.cpp's compute buffer) once the last layer's temporaries are gone: the larger of the two
        # is the prefill peak.
        row = rt.logits_bytes_per_vocab or ir.all_token_logits_bytes_per_vocab
        every = prefill * arch.vocab * row / tp
        layer_temps = max(layer_temps, every + act_bytes * ir.prefill_resident_hidden_copies * arch.hidden * prefill)
    activations = layer_temps + logits
    parts = {"weights": weights, "kv_cache": kv, "activations": activations, "transients": transients}
    breakdown = finish(parts, n, 0.0, rules)

    bits = rules.bits_per_param[prec]
    if prec.value in rules.experts_only_formats:
        # the experts at the format's bits, the rest at 16: the average over all weights
        bits = round(weights * n * BITS_PER_BYTE / arch.params, 2)
    assumptions = common_assumptions(req, rules)
    stored: dict[str, Param] = {"precision": prec.value, "bits": f"{bits:g}"}
    if prec.value in rules.embeddings_16bit_formats:
        stored["embeddings16"] = Reason(ReasonKind.embeddings_16bit)
    if arch.experts:
        stored["experts"] = str(arch.experts)
    assumptions.append(Assumption("precision", prec.value, message=Reason(ReasonKind.weights_format, stored)))
    per_tok = kv_bytes_per_token(arch, kv_prec, rules, n, req.runtime)
    kv_params: dict[str, Param] = {
        "kv_precision": kv_prec.value,
        "kib": f"{per_tok / 1024:.0f}",
        "batch": str(req.batch),
        "context": str(req.context),
        **_kv_layout(arch),
    }
    assumptions.append(Assumption("kv_cache", kv_prec.value, message=Reason(ReasonKind.kv_cache, kv_params)))
    if n > 1 and rt.layer_split:
        by_layer: dict[str, Param] = {
            "cards": str(n),
            "runtime": rt.name,
            "layers": str(math.ceil(arch.layers / n)),
        }
        assumptions.append(
            Assumption("parallelism", f"layers/{n}", message=Reason(ReasonKind.parallelism_layers, by_layer))
        )
    elif n > 1:
        layout: dict[str, Param] = {"cards": str(n), "tp": str(tp)}
        if pp > 1:
            layout["pp"] = str(pp)
        assumptions.append(
            Assumption("parallelism", f"tp={tp},pp={pp}", message=Reason(ReasonKind.parallelism, layout))
        )
    if req.prefill_logits is None:
        # the runtime's own way, in its words (rules.yaml)
        logits_kept = Reason(ReasonKind.logits_runtime, {"allocates": rt.allocates_zh})
    elif req.prefill_logits is PrefillLogits.all_tokens:
        logits_kept = Reason(ReasonKind.logits_all_tokens)
    else:
        logits_kept = Reason(ReasonKind.logits_last_token)
    batch: dict[str, Param] = {"batch": str(req.batch), "context": str(req.context), "logits": logits_kept}
    if prefill < req.tokens:
        chunked: dict[str, Param] = {"runtime": rt.name, "chunk": prefill, "setting": str(rt.chunk_setting), **batch}
        prefill_reason = Reason(ReasonKind.prefill_chunked, chunked)
    else:
        prefill_reason = Reason(ReasonKind.prefill_whole, batch)
    assumptions.append(Assumption("prefill", prefill, message=prefill_reason))
    return Estimate(sum(breakdown.values()), breakdown, assumptions, PeakPhase.inference)
