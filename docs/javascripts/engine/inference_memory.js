/* Hand-written port of generator/engine/inference_memory.py: memory of serving a model on one
 * card (weights, KV cache, prefill temporaries) and of an image-generation pipeline. */
import { BITS_PER_BYTE, GIB, defaultKvPrecision, finish, kvBytesPerSequence, memoryLayout, total, weightBytes } from "./footprint.js";
import { imul, maxBy, sum } from "./py.js";

const PHASES = ["text_encoder", "denoiser", "vae"];
const isDenoiser = (c) => c.role === "unet" || c.role === "transformer";
const phaseOf = (c) => (isDenoiser(c) ? "denoiser" : c.role);

/** diffusion_estimate: the peak over text encoding, denoising and VAE decoding. */
export function diffusionEstimate(req, mem) {
  const d = mem.inference.diffusion;
  const prec = req.precision;
  const bits = mem.bits_per_param[prec];
  const scale = prec === "fp32" ? 2 : 1;
  const comps = req.arch.components;
  const upcast = prec === "fp16";
  const fp32Bytes = mem.bits_per_param.fp32 / BITS_PER_BYTE;

  const weights = (c, decoding) => {
    if (decoding && upcast && c.fp32_decode_in_fp16) return c.params * fp32Bytes;
    const kept = upcast ? c.fp32_params_in_fp16 : 0;
    return (c.params - kept) * bits / BITS_PER_BYTE + kept * fp32Bytes;
  };

  const mp = imul(req.resolution, req.resolution) / 1e6;
  const images = req.batch;
  const fp32Vae = upcast && comps.some((c) => c.role === "vae" && c.fp32_decode_in_fp16);
  const denoisers = comps.filter(isDenoiser)
    .map((c) => d.denoiser_gib_per_megapixel[c.role] * req.arch.denoiser_passes * images * mp * GIB);
  const acts = {
    text_encoder: 0,
    denoiser: (denoisers.length ? Math.max(...denoisers) : 0) * scale,
    vae: d.vae_decode_gib_per_megapixel * images * mp * GIB * (fp32Vae ? 2 : scale),
  };
  const totals = [];
  for (const phase of PHASES) {
    const onGpu = comps.filter((c) => req.offload === "none" || phaseOf(c) === phase);
    if (!comps.some((c) => phaseOf(c) === phase)) continue;
    const w = sum(onGpu.map((c) => weights(c, phase === "vae")));
    totals.push([phase, w, acts[phase]]);
  }
  const [phase, w, a] = maxBy(totals, ([, tw, ta]) => tw + ta);
  const breakdown = finish([["weights", w], ["kv_cache", 0], ["activations", a]], 1, 0, mem);
  return { total_gib: total(breakdown), breakdown, peak_phase: "inference", peak: phase };
}

/** inference_estimate */
export function inferenceEstimate(req, mem) {
  const arch = req.arch, n = req.gpus;
  if (arch.kind === "diffusion") return diffusionEstimate({ ...req, gpus: 1 }, mem);
  const ir = mem.inference;
  // vLLM: tensor parallel; a layer-split runtime (llama.cpp, transformers device_map): whole layers per card.
  const [tp] = memoryLayout(n, mem, req.runtime);
  const prec = req.precision;
  const weights = weightBytes(arch, prec, mem) / n;
  let transients = 0;
  if (mem.dequant_formats.includes(prec)) {
    transients = mem.dequant_copies * arch.largest_linear_params / tp * mem.embedding_bits / BITS_PER_BYTE;
  }
  // The runtime decides the KV type, the prefill step, the logits it keeps and its activation width.
  const rt = ir.runtimes[req.runtime];
  const kvPrec = req.kv_precision || rt.kv_precision || defaultKvPrecision(prec, mem);
  const tokens = imul(req.batch, req.context);
  const kv = kvBytesPerSequence(arch, kvPrec, mem, n, req.context, req.runtime) * req.batch;
  const actBytes = rt.activation_bytes || (prec === "fp32" ? ir.fp32_activation_bytes : ir.activation_bytes);
  const perToken = actBytes * (
    Math.max(ir.prefill_intermediate_copies * arch.routed_intermediate, ir.prefill_hidden_copies * arch.hidden) / tp
    + ir.prefill_resident_hidden_copies * arch.hidden
  );
  const logits = imul(req.batch, arch.vocab) * ir.last_token_logits_bytes_per_vocab / tp;
  // Tokens prefilled in one step: the runtime's chunk (vLLM's max_num_batched_tokens, llama.cpp's
  // n_ubatch), else the whole batch (transformers generate, or a request naming its own logits).
  const cap = req.prefill_logits ? null : (rt.max_batched_tokens ?? null);
  const prefill = cap ? Math.min(tokens, cap) : tokens;
  let layerTemps = perToken * prefill;
  const stackLogits = req.prefill_logits || rt.prefill_logits;
  if (stackLogits === "all_tokens") {
    const row = rt.logits_bytes_per_vocab || ir.all_token_logits_bytes_per_vocab;
    const every = imul(prefill, arch.vocab) * row / tp;
    layerTemps = Math.max(layerTemps, every + actBytes * ir.prefill_resident_hidden_copies * arch.hidden * prefill);
  }
  const activations = layerTemps + logits;
  const breakdown = finish(
    [["weights", weights], ["kv_cache", kv], ["activations", activations], ["transients", transients]], n, 0, mem,
  );
  return { total_gib: total(breakdown), breakdown, peak_phase: "inference" };
}
