/* Hand-written port of generator/engine/footprint.py: weight bytes, KV cache per token,
 * tensor/pipeline layout, LoRA adapter size and the per-card overhead. Numbers only: the
 * Chinese assumption texts of the Python stay on the model and scenario pages. */
import { imul, sum } from "./py.js";

export const GIB = 2 ** 30;
export const BITS_PER_BYTE = 8;
export const BREAKDOWN_KEYS = ["weights", "kv_cache", "activations", "gradients", "optimizer_states", "transients", "overhead"];
export const MLP_MODULES = ["gate_proj", "up_proj", "down_proj"];

/** weight_bytes: all weights at `precision`, one copy, all experts. */
export function weightBytes(arch, precision, mem, embeddingBits = null) {
  const bits = mem.bits_per_param[precision];
  if (mem.experts_only_formats.includes(precision)) {
    const experts = Math.min(arch.expert_params, arch.params);
    const rest = (Object.hasOwn(mem.experts_only_rest_bits, precision) ? mem.experts_only_rest_bits[precision] : mem.embedding_bits);
    return experts * bits / BITS_PER_BYTE + (arch.params - experts) * rest / BITS_PER_BYTE;
  }
  if (mem.embeddings_16bit_formats.includes(precision)) {
    const emb = Math.min(arch.embedding_params, arch.params);
    const embBits = embeddingBits !== null ? embeddingBits : mem.embedding_bits;
    return (arch.params - emb) * bits / BITS_PER_BYTE + emb * embBits / BITS_PER_BYTE;
  }
  return arch.params * bits / BITS_PER_BYTE;
}

/** default_kv_precision */
export function defaultKvPrecision(precision, mem) {
  if (precision === "fp32" && mem.kv_fp32_when_model_fp32) return "fp32";
  return mem.kv_default_precision;
}

/** parallel_layout: [tensor-parallel, pipeline-parallel] for serving on `gpus` cards. */
export function parallelLayout(gpus, mem) {
  const tp = Math.min(gpus, mem.inference.max_tensor_parallel);
  return [tp, Math.ceil(gpus / tp)];
}

/** memory_layout: [tensor-parallel, layer stages] of the weights and KV cache; a layer-split runtime
 * (llama.cpp --split-mode layer, transformers device_map) gives each card a run of whole layers: [1, gpus]. */
export function memoryLayout(gpus, mem, runtime = null) {
  if (runtime !== null && runtime !== undefined && mem.inference.runtimes[runtime].layer_split) return [1, gpus];
  return parallelLayout(gpus, mem);
}

/** _kv_values_per_layer_token: values one token caches in one attention layer on one card
 * (K and V of the card's KV heads; MLA: the latent and the rotary key, one copy per card). */
function kvValuesPerLayerToken(arch, tp) {
  if (arch.kv_lora_rank !== null) return arch.kv_lora_rank + arch.qk_rope_dim;
  return imul(2, Math.ceil(arch.kv_heads / tp), arch.head_dim);
}

/** kv_bytes_per_token: KV-cache bytes per token of context on one card (layers caching every token). */
export function kvBytesPerToken(arch, kvPrecision, mem, gpus = 1, runtime = null) {
  if (arch.kind === "diffusion") return 0;
  const [tp, pp] = memoryLayout(gpus, mem, runtime);
  const layers = Math.ceil(arch.attention_layers / pp);
  const bytesPer = mem.bits_per_param[kvPrecision] / BITS_PER_BYTE;
  return imul(layers, kvValuesPerLayerToken(arch, tp)) * bytesPer;
}

/** kv_bytes_per_sequence: KV cache and recurrent state of one sequence of `context` tokens on one card. */
export function kvBytesPerSequence(arch, kvPrecision, mem, gpus, context, runtime = null) {
  if (arch.kind === "diffusion") return 0;
  const [tp, pp] = memoryLayout(gpus, mem, runtime);
  const bytesPer = mem.bits_per_param[kvPrecision] / BITS_PER_BYTE;
  const per = kvValuesPerLayerToken(arch, tp);
  let tokens = imul(Math.ceil(arch.full_attention_layers / pp), context);
  if (arch.window_layers) tokens += imul(Math.ceil(arch.window_layers / pp), arch.attended(context));
  let values = imul(tokens, per);
  if (arch.linear_layers) values += imul(Math.ceil(arch.linear_layers / pp), arch.linear_state) / tp;
  return values * bytesPer;
}

/** finish: add the per-card overhead and convert bytes to GiB. `parts` is a list of [key, bytes]
 * in the Python dict's order (the sum follows it). */
export function finish(parts, n, extraOverhead, mem) {
  const o = mem.overhead;
  const subtotal = sum(parts.map(([, v]) => v));
  const fixed = o.cuda_context_gib * GIB + (n > 1 ? o.multi_card_comm_gib * GIB : 0);
  const overhead = fixed + extraOverhead + o.fragmentation_fraction * subtotal;
  const byKey = Object.fromEntries(parts);
  const out = {};
  for (const k of BREAKDOWN_KEYS) out[k] = k === "overhead" ? overhead / GIB : (byKey[k] || 0) / GIB;
  return out;
}

/** sum(breakdown.values()) in BREAKDOWN_KEYS order */
export function total(breakdown) {
  return sum(BREAKDOWN_KEYS.map((k) => breakdown[k]));
}
