/* Hand-written port of generator/engine/arch.py: a model's shape with every field resolved.
 * Fields a model leaves empty are derived from the parameter count (Llama-like decoder,
 * rules.yaml memory.arch_defaults). Keep in step with the Python; tests/test_calculator_parity.py
 * compares the two on hundreds of inputs. */
import { floorDiv, imul, pyRound } from "./py.js";

/** Arch.from_model: a models.yaml entry (as generator/pages/calculator.py embeds it). */
export function fromModel(m, d) {
  if (m.kind === "diffusion") {
    const comps = m.components.map((c) => ({
      role: c.role,
      name: c.name,
      params: c.params,
      fp32_decode_in_fp16: c.fp32_decode_in_fp16,
      fp32_params_in_fp16: c.fp32_params_in_fp16,
    }));
    return diffusion(m.params_b, comps, m.denoiser_passes || 1, d, m.default_steps ?? null, m.denoiser_text_tokens || 0);
  }
  return fromParams(m.params_b, {
    layers: m.layers, hidden: m.hidden, heads: m.heads, kv_heads: m.kv_heads, vocab: m.vocab,
    intermediate: m.intermediate, head_dim: m.head_dim, experts: m.experts,
    experts_per_token: m.experts_per_token, active_params_b: m.active_params_b,
    tied_embeddings: m.tied_embeddings, kind: m.kind,
  }, d);
}

const given = (v) => (v === undefined ? null : v);

/** Arch.from_params: resolve a shape from a parameter count (billions) and whatever fields are known. */
export function fromParams(paramsB, fields, d) {
  if (!(paramsB > 0)) throw new Error("params_b must be positive");
  let layers = given(fields.layers), hidden = given(fields.hidden), heads = given(fields.heads);
  let kvHeads = given(fields.kv_heads), vocab = given(fields.vocab), intermediate = given(fields.intermediate);
  let headDim = given(fields.head_dim);
  const experts = given(fields.experts);
  let expertsPerToken = given(fields.experts_per_token);
  const activeB = given(fields.active_params_b);
  const tied = Boolean(fields.tied_embeddings);
  const kind = fields.kind || "llm";
  const derived = [];
  const total = paramsB * 1e9;
  const shapeParams = experts ? (activeB || paramsB) * 1e9 : total;

  if (vocab === null) {
    vocab = kind === "diffusion" ? 0 : d.vocab;
    derived.push("vocab");
  }
  const embCopies = tied ? 1 : 2;
  const blockAndEmbed = (h, nLayers) => nLayers * d.block_params_per_hidden_sq * h * h + vocab * h * embCopies;

  if (hidden === null) {
    let hRaw;
    if (layers === null) {
      hRaw = solveIncreasing((h) => blockAndEmbed(h, h / d.hidden_per_layer), shapeParams);
    } else {
      const fixedLayers = layers;
      hRaw = solveIncreasing((h) => blockAndEmbed(h, fixedLayers), shapeParams);
    }
    hidden = Math.max(d.hidden_multiple, pyRound(hRaw / d.hidden_multiple) * d.hidden_multiple);
    derived.push("hidden");
  }
  if (layers === null) {
    if (derived.includes("hidden")) {
      layers = Math.max(1, pyRound(hidden / d.hidden_per_layer));
    } else {
      const perLayer = d.block_params_per_hidden_sq * hidden * hidden;
      layers = Math.max(1, pyRound((shapeParams - imul(vocab, hidden, embCopies)) / perLayer));
    }
    derived.push("layers");
  }
  if (heads === null) {
    heads = Math.max(1, floorDiv(hidden, headDim || d.head_dim));
    derived.push("heads");
  }
  if (headDim === null) headDim = Math.max(1, floorDiv(hidden, heads));
  if (kvHeads === null) {
    kvHeads = heads;
    derived.push("kv_heads");
  }
  if (intermediate === null) {
    intermediate = deriveIntermediate(total, layers, hidden, heads, kvHeads, headDim,
      imul(vocab, hidden, embCopies), experts, derived, d);
    derived.push("intermediate");
  }
  if (experts && expertsPerToken === null) {
    expertsPerToken = d.moe_experts_per_token;
    derived.push("experts_per_token");
  }
  return makeArch({
    params_b: paramsB, active_params_b: activeB || paramsB, layers, hidden, heads, kv_heads: kvHeads,
    head_dim: headDim, intermediate, vocab, experts, experts_per_token: expertsPerToken,
    tied_embeddings: tied, kind, derived, components: [], denoiser_passes: 1, default_steps: null, denoiser_text_tokens: 0,
  });
}

/** Arch.diffusion: an image pipeline; its parts carry the sizes. */
export function diffusion(paramsB, components, denoiserPasses, d, defaultSteps = null, denoiserTextTokens = 0) {
  const shape = fromParams(paramsB, { kind: "diffusion" }, d);
  return makeArch({
    ...shape, components, denoiser_passes: denoiserPasses, derived: [], default_steps: defaultSteps,
    denoiser_text_tokens: denoiserTextTokens,
  });
}

/** The derived sizes of Arch (its properties), computed once. */
function makeArch(a) {
  const inputEmbedding = imul(a.vocab, a.hidden);
  const qWidth = a.heads * a.head_dim;
  const kvWidth = a.kv_heads * a.head_dim;
  const params = a.params_b * 1e9;
  const embedding = inputEmbedding * (a.tied_embeddings ? 1 : 2);
  const shapes = {
    q_proj: [a.hidden, qWidth],
    k_proj: [a.hidden, kvWidth],
    v_proj: [a.hidden, kvWidth],
    o_proj: [qWidth, a.hidden],
    gate_proj: [a.hidden, a.intermediate],
    up_proj: [a.hidden, a.intermediate],
    down_proj: [a.intermediate, a.hidden],
  };
  return Object.freeze({
    ...a,
    params,
    active_params: a.active_params_b * 1e9,
    input_embedding_params: inputEmbedding,
    embedding_params: embedding,
    q_width: qWidth,
    kv_width: kvWidth,
    routed_intermediate: a.intermediate * (a.experts_per_token || 1),
    linear_shapes: shapes,
    expert_params: a.experts ? imul(a.layers, a.experts, 3, a.hidden, a.intermediate) : 0,
    layer_params: Math.max(0, params - embedding) / a.layers,
    largest_linear_params: Math.max(...Object.values(shapes).map(([i, o]) => imul(i, o))),
  });
}

/** _solve_increasing: x > 0 with f(x) = target for an increasing f (bisection). */
function solveIncreasing(f, target) {
  let lo = 1, hi = 1;
  while (f(hi) < target) hi *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** _derive_intermediate: MLP width from the parameter count when the shape is given, else 8/3·h. */
function deriveIntermediate(total, layers, hidden, heads, kvHeads, headDim, embedding, experts, derived, d) {
  const fallback = d.intermediate_per_hidden * hidden;
  let value;
  if (derived.includes("hidden") || derived.includes("layers")) {
    value = fallback;
  } else {
    const big = (v) => BigInt(v);
    const attention = 2n * big(hidden) * big(heads) * big(headDim) + 2n * big(hidden) * big(kvHeads) * big(headDim);
    const mlpTotal = total - embedding - Number(big(layers) * attention);
    value = Math.max(0, mlpTotal / imul(layers, 3, hidden, experts || 1));
  }
  return Math.max(d.intermediate_multiple, pyRound(value / d.intermediate_multiple) * d.intermediate_multiple);
}
