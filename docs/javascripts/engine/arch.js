/* Hand-written port of generator/engine/arch.py: a model's shape with every field resolved.
 * Fields a model leaves empty are derived from the parameter count (Llama-like decoder,
 * rules.yaml memory.arch_defaults). Keep in step with the Python; tests/test_calculator_parity.py
 * compares the two on hundreds of inputs. */
import { floorDiv, imul, pyRound } from "./py.js";
import { form } from "./reason.js";

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
    tied_embeddings: m.tied_embeddings, kind: m.kind, kv_lora_rank: m.kv_lora_rank,
    qk_rope_dim: m.qk_rope_head_dim || 0, window: m.sliding_window, window_layers: m.sliding_window_layers || 0,
    linear_layers: m.linear_attention_layers || 0, linear_state: m.linear_state_values || 0,
    dense_layers: m.dense_layers || 0, shared_experts: m.shared_experts || 0,
  }, d);
}

/** shape_problem: [field, form record] of a shape no model can have, or null (figures as strings). */
export function shapeProblem(f) {
  const g = (k, dflt = null) => (f[k] === undefined || f[k] === null ? dflt : f[k]);
  const layers = g("layers"), hidden = g("hidden"), heads = g("heads"), kvHeads = g("kv_heads");
  const headDim = g("head_dim"), experts = g("experts"), k = g("experts_per_token");
  const windowLayers = g("window_layers", 0), linearLayers = g("linear_layers", 0), denseLayers = g("dense_layers", 0);
  const s = String;
  if (heads !== null && kvHeads !== null && g("kv_lora_rank") === null) {
    if (kvHeads > heads) return ["kv_heads", form("kv_over_heads", { kv_heads: s(kvHeads), heads: s(heads) })];
    if (heads % kvHeads) return ["kv_heads", form("heads_not_shared", { heads: s(heads), kv_heads: s(kvHeads) })];
  }
  if (hidden !== null && heads !== null && headDim === null && hidden % heads) {
    return ["heads", form("hidden_not_heads", { hidden: s(hidden), heads: s(heads) })];
  }
  if (experts !== null && k !== null && k > experts) {
    return ["experts_per_token", form("experts_per_token_over", { k: s(k), experts: s(experts) })];
  }
  if (windowLayers && g("window") === null) return ["window_layers", form("window_size_missing")];
  if (layers !== null) {
    if (windowLayers + linearLayers > layers) {
      return ["window_layers", form("window_linear_over_layers", { window_layers: s(windowLayers), linear_layers: s(linearLayers), layers: s(layers) })];
    }
    if (linearLayers >= layers) {
      return ["linear_layers", form("linear_all_layers", { linear_layers: s(linearLayers), layers: s(layers) })];
    }
    if (denseLayers >= layers) {
      return ["dense_layers", form("dense_all_layers", { dense_layers: s(denseLayers), layers: s(layers) })];
    }
  }
  return null;
}

const given = (v) => (v === undefined ? null : v);

/** Arch.from_params: resolve a shape from a parameter count (billions) and whatever fields are known. */
export function fromParams(paramsB, fields, d) {
  if (!(paramsB > 0)) throw new Error("params_b must be positive");
  const problem = shapeProblem(fields);
  if (problem !== null) throw new Error(`${problem[0]}: ${problem[1].kind}`);
  const kvLoraRank = given(fields.kv_lora_rank);
  const window = given(fields.window);
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
    kv_lora_rank: kvLoraRank, qk_rope_dim: fields.qk_rope_dim || 0, window,
    window_layers: window ? fields.window_layers || 0 : 0, linear_layers: fields.linear_layers || 0,
    linear_state: fields.linear_layers ? fields.linear_state || 0 : 0,
    dense_layers: experts ? fields.dense_layers || 0 : 0, shared_experts: experts ? fields.shared_experts || 0 : 0,
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
  const attentionLayers = a.layers - a.linear_layers;
  return Object.freeze({
    ...a,
    attention_layers: attentionLayers,
    full_attention_layers: attentionLayers - a.window_layers,
    attended: (context) => (a.window ? Math.min(context, a.window) : context),
    attention_width: a.kv_lora_rank !== null ? a.heads * (2 * a.kv_lora_rank + a.qk_rope_dim) / 2 : qWidth,
    params,
    active_params: a.active_params_b * 1e9,
    input_embedding_params: inputEmbedding,
    embedding_params: embedding,
    q_width: qWidth,
    kv_width: kvWidth,
    routed_intermediate: a.intermediate * ((a.experts_per_token || 1) + a.shared_experts),
    linear_shapes: shapes,
    expert_params: a.experts ? imul(a.layers - a.dense_layers, a.experts, 3, a.hidden, a.intermediate) : 0,
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
