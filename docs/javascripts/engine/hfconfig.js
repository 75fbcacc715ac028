/* Hand-written port of generator/engine/hfconfig.py: a Hugging Face config.json read into the
 * calculator's model flags (the same --params/--layers/--kv-lora-rank/… flags `gpu-guide recommend
 * --config-json` derives), so that the result is the engine's for that shape and the link can be
 * shared. The parameter count is summed from each family's blocks (embedding and lm_head, one table
 * when tied; attention, MLA's down/up projections, Qwen3-Next's Gated DeltaNet on its linear layers;
 * dense MLP or routed + shared experts and the router; two RMSNorms a layer; the final norm).
 * Family defaults: Gemma ties its embeddings, Gemma 2 alternates sliding and global layers, Gemma 3
 * has five sliding to one global, Llama 4 chunks three layers in four, Qwen3-Next puts full attention
 * on every fourth layer. Shapes no model has and keys of unknown architectures are refused with the
 * key and the reason. tests/test_calculator_js.py compares it with the Python on the published
 * configs in tests/fixtures/configs/. */
import { shapeProblem } from "./arch.js";
import { form, label } from "./reason.js";

const REQUIRED = [
  ["num_hidden_layers", label("field", "layers")],
  ["hidden_size", label("field", "hidden")],
  ["num_attention_heads", label("field", "heads")],
  ["vocab_size", label("field", "vocab")],
];
/** Keys of architectures the engine has no formula for. */
const UNSUPPORTED = [
  ["mamba_d_state", label("config_part", "mamba")],
  ["ssm_cfg", label("config_part", "ssm")],
  ["hybrid_override_pattern", label("config_part", "nemotron_h")],
  ["attn_layer_period", label("config_part", "jamba")],
];
/** Keys of a Qwen2.5-VL vision_config the vision tower's size needs. */
const VISION_REQUIRED = [
  ["depth", label("config_part", "vision_depth")],
  ["hidden_size", label("config_part", "vision_width")],
  ["intermediate_size", label("config_part", "vision_mlp")],
  ["out_hidden_size", label("config_part", "merger_out")],
];
/** Keys of a Llama 4 vision_config the vision encoder's size needs. */
const LLAMA4_VISION_REQUIRED = [
  ["num_hidden_layers", label("config_part", "vision_depth")],
  ["hidden_size", label("config_part", "vision_width")],
  ["intermediate_size", label("config_part", "vision_mlp")],
  ["image_size", label("config_part", "vision_image")],
  ["patch_size", label("config_part", "vision_patch")],
  ["projector_input_dim", label("config_part", "projector_in")],
  ["projector_output_dim", label("config_part", "projector_out")],
  ["vision_output_dim", label("config_part", "vision_output")],
];
/** Keys of a SigLIP vision_config (Gemma 3) the vision encoder's size needs. */
const SIGLIP_REQUIRED = [
  ["num_hidden_layers", label("config_part", "vision_depth")],
  ["hidden_size", label("config_part", "vision_width")],
  ["intermediate_size", label("config_part", "vision_mlp")],
  ["image_size", label("config_part", "vision_image")],
  ["patch_size", label("config_part", "vision_patch")],
];
/** Gemma 3's defaults for keys its config.json may leave out (HF Gemma3TextConfig; hfconfig.py _GEMMA3_DEFAULTS). */
const GEMMA3_DEFAULTS = { vocab_size: 262208, head_dim: 256, num_key_value_heads: 4, sliding_window: 4096 };
const EXPERT_KEYS = ["num_local_experts", "num_experts", "n_routed_experts"];

/** A key the reader cannot use; `record`: the form record that says why (FORM_ZH config_key). */
class ConfigError extends Error {
  constructor(key, reason) {
    super(`${key}: ${reason.kind}`);
    this.key = key;
    this.record = form("config_key", { key, reason });
  }
}

const absent = (v) => v === undefined || v === null;

function int(cfg, key, dflt = null, zero = false) {
  const v = cfg[key];
  if (absent(v)) return dflt;
  if (!Number.isInteger(v) || v < (zero ? 0 : 1)) {
    throw new ConfigError(key, form(zero ? "config_negative" : "config_not_positive", { value: JSON.stringify(v) }));
  }
  return v;
}

function need(cfg, key, what) {
  if (absent(cfg[key])) throw new ConfigError(key, form("config_missing", { key, what }));
  return int(cfg, key);
}

function textConfig(cfg) {
  if (cfg.num_hidden_layers === undefined && cfg.text_config && typeof cfg.text_config === "object" && !Array.isArray(cfg.text_config)) {
    let inner = cfg.text_config;
    const family = String(absent(cfg.model_type) ? "" : cfg.model_type);
    if (inner.model_type === undefined && family) inner = { ...inner, model_type: family };
    if (inner.tie_word_embeddings === undefined && cfg.tie_word_embeddings !== undefined) {
      inner = { ...inner, tie_word_embeddings: cfg.tie_word_embeddings };
    }
    return [inner, form("config_text_config")];
  }
  return [cfg, null];
}

/** [windowed layers, linear-attention layers] */
function layerKinds(cfg, layers) {
  const kinds = cfg.layer_types;
  if (Array.isArray(kinds) && kinds.length) {
    if (kinds.length !== layers) throw new ConfigError("layer_types", form("config_layer_types", { listed: String(kinds.length), layers: String(layers) }));
    const windowed = kinds.filter((k) => k === "sliding_attention" || k === "chunked_attention").length;
    return [windowed, kinds.filter((k) => k === "linear_attention").length];
  }
  const family = String(absent(cfg.model_type) ? "" : cfg.model_type);
  if (family.startsWith("qwen3_next")) {
    const interval = int(cfg, "full_attention_interval", 4);
    return [0, layers - Math.floor(layers / interval)];
  }
  if (!absent(cfg.attention_chunk_size)) {
    const flags = cfg.no_rope_layers;
    if (Array.isArray(flags) && flags.length) return [flags.filter((f) => f).length, 0];
    return [layers - Math.floor(layers / 4), 0];
  }
  if (absent(cfg.sliding_window) || cfg.use_sliding_window === false) return [0, 0];
  if (family.startsWith("gemma3")) return [layers - Math.floor(layers / int(cfg, "sliding_window_pattern", 6)), 0];
  if (family.startsWith("gemma2")) return [Math.ceil(layers / 2), 0];
  return [layers, 0];
}

/** llama4_vision: Llama 4's vision encoder and projector (see hfconfig.py _llama4_vision). */
function llama4Vision(raw, vision) {
  const [depth, width, inner, image, patch, projIn, projOut, out] = LLAMA4_VISION_REQUIRED.map(([k, w]) => need(vision, k, w));
  const channels = int(vision, "num_channels", 3);
  const text = raw.text_config && typeof raw.text_config === "object" && !Array.isArray(raw.text_config) ? raw.text_config : {};
  const textWidth = need(text, "hidden_size", label("config_part", "text_width"));
  const positions = Math.floor(image / patch) ** 2 + 1;
  return channels * patch * patch * width + width + positions * width + depth * (4 * width * width + 2 * width * inner) +
    inner * projIn + projOut * projOut + out * textWidth;
}

/** siglip_vision: Gemma 3's SigLIP encoder and projector (see hfconfig.py _siglip_vision). */
function siglipVision(raw, vision) {
  const [depth, width, inner, image, patch] = SIGLIP_REQUIRED.map(([k, w]) => need(vision, k, w));
  const channels = int(vision, "num_channels", 3);
  const text = raw.text_config && typeof raw.text_config === "object" && !Array.isArray(raw.text_config) ? raw.text_config : {};
  const textWidth = need(text, "hidden_size", label("config_part", "text_width"));
  const patches = Math.floor(image / patch) ** 2;
  return channels * patch * patch * width + patches * width + depth * (4 * width * width + 2 * width * inner) + width * textWidth;
}

/** family_defaults: the keys a family's HF config class fills in when absent (Gemma 3 only). */
function familyDefaults(cfg) {
  const family = String(absent(cfg.model_type) ? "" : cfg.model_type);
  return family.startsWith("gemma3") ? { ...GEMMA3_DEFAULTS, ...cfg } : cfg;
}

/** vision_params: the vision tower from vision_config (Qwen2.5-VL, Llama 4; 0 for other families). */
function visionParams(raw) {
  const vision = raw.vision_config;
  const family = String(absent(raw.model_type) ? "" : raw.model_type);
  if (!vision || typeof vision !== "object" || Array.isArray(vision)) return 0;
  if (family === "llama4") return llama4Vision(raw, vision);
  if (family === "gemma3") return siglipVision(raw, vision);
  if (!family.startsWith("qwen2_5_vl")) return 0;
  const [depth, width, inner, out] = VISION_REQUIRED.map(([k, w]) => need(vision, k, w));
  const patch = int(vision, "patch_size", 14);
  const frames = int(vision, "temporal_patch_size", 2);
  const channels = int(vision, "in_chans", 3);
  const merge = int(vision, "spatial_merge_size", 2);
  const merged = width * merge * merge;
  return channels * frames * patch * patch * width + depth * (4 * width * width + 3 * width * inner) + merged * (merged + out);
}

/** read_config: {flags, total, note, maxContext} from a parsed config.json (note: a form record or null); throws ConfigError. */
function readConfig(raw) {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ConfigError("config.json", form("config_not_object"));
  const vision = visionParams(raw);
  const [textCfg, textNote] = textConfig(raw);
  const cfg = familyDefaults(textCfg);
  const note = textNote && vision ? form("config_text_and_vision") : textNote;
  for (const [key, what] of UNSUPPORTED) {
    if (!absent(cfg[key])) throw new ConfigError(key, form("config_unsupported", { what }));
  }
  const [layers, h, heads, vocab] = REQUIRED.map(([k, w]) => need(cfg, k, w));
  const family = String(absent(cfg.model_type) ? "" : cfg.model_type);
  let kv = int(cfg, "num_key_value_heads", heads);
  const tiedDefault = family.startsWith("gemma");
  const tiedValue = cfg.tie_word_embeddings === undefined ? tiedDefault : cfg.tie_word_embeddings;
  const tied = Boolean(tiedValue === null ? tiedDefault : tiedValue);

  const rank = int(cfg, "kv_lora_rank");
  const rope = int(cfg, "qk_rope_head_dim", 0, true) || 0;
  let hd, attention;
  if (rank !== null) {
    const nope = int(cfg, "qk_nope_head_dim", 128), vDim = int(cfg, "v_head_dim", 128), qRank = int(cfg, "q_lora_rank");
    const qk = nope + rope;
    hd = qk;
    const q = qRank ? h * qRank + qRank + qRank * heads * qk : h * heads * qk;
    attention = q + h * (rank + rope) + rank + rank * heads * (nope + vDim) + heads * vDim * h;
    kv = heads;
  } else {
    const hdGiven = int(cfg, "head_dim");
    if (hdGiven === null && h % heads) throw new ConfigError("num_attention_heads", form("config_hidden_not_heads", { hidden: String(h), heads: String(heads) }));
    hd = hdGiven !== null ? hdGiven : Math.floor(h / heads);
    const gated = cfg.attn_output_gate === undefined ? family.startsWith("qwen3_next") : cfg.attn_output_gate;
    const gate = gated ? 2 : 1;
    attention = h * heads * hd * gate + 2 * h * kv * hd + heads * hd * h;
  }
  const problem = shapeProblem({ heads, kv_heads: kv, kv_lora_rank: rank });
  if (problem !== null) throw new ConfigError("num_key_value_heads", problem[1]);

  const [windowed, linear] = layerKinds(cfg, layers);
  const window = int(cfg, "attention_chunk_size") || (windowed ? int(cfg, "sliding_window") : null);
  let linearState = 0, linearAttention = 0;
  if (linear) {
    const nk = need(cfg, "linear_num_key_heads", label("config_part", "linear_key_heads"));
    const nv = need(cfg, "linear_num_value_heads", label("config_part", "linear_value_heads"));
    const dk = need(cfg, "linear_key_head_dim", label("config_part", "linear_key_dim"));
    const dv = need(cfg, "linear_value_head_dim", label("config_part", "linear_value_dim"));
    const kernel = int(cfg, "linear_conv_kernel_dim", 4);
    const conv = 2 * nk * dk + nv * dv;
    linearState = nv * dk * dv + (kernel - 1) * conv;
    linearAttention = h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv * kernel + 2 * nv + dv + nv * dv * h;
  }

  const expertKey = EXPERT_KEYS.find((k) => !absent(cfg[k]));
  const experts = expertKey === undefined ? null : int(cfg, expertKey);
  const moe = experts !== null && experts > 1;
  const denseI = int(cfg, "intermediate_size_mlp") || int(cfg, "intermediate_size");
  if (denseI === null && !moe) throw new ConfigError("intermediate_size", form("config_missing", { key: "intermediate_size", what: label("field", "intermediate") }));
  let k = 1, denseLayers = 0, shared = 0, expertI = denseI || 0, sharedI = 0;
  if (moe) {
    const kGiven = int(cfg, "num_experts_per_tok") || int(cfg, "experts_per_token");
    if (kGiven === null) throw new ConfigError("num_experts_per_tok", form("config_needs_experts_per_token"));
    if (kGiven > experts) throw new ConfigError("num_experts_per_tok", form("config_experts_per_token_over", { k: String(kGiven), experts: String(experts) }));
    k = kGiven;
    expertI = int(cfg, "moe_intermediate_size") || int(cfg, "intermediate_size") || 0;
    if (!expertI) throw new ConfigError("moe_intermediate_size", form("config_no_expert_width"));
    denseLayers = int(cfg, "first_k_dense_replace", 0, true) || 0;
    if (Array.isArray(cfg.mlp_only_layers)) denseLayers += cfg.mlp_only_layers.length;
    if (denseLayers && denseI === null) throw new ConfigError("intermediate_size", form("config_no_dense_width"));
    const nShared = int(cfg, "n_shared_experts", 0, true) || 0;
    sharedI = nShared * expertI + (int(cfg, "shared_expert_intermediate_size", 0, true) || 0);
    if (family.startsWith("llama4")) sharedI = expertI;
    shared = sharedI ? Math.round(sharedI / expertI) : 0;
    if (denseLayers >= layers) throw new ConfigError("first_k_dense_replace", form("config_dense_all_layers", { dense_layers: String(denseLayers), layers: String(layers) }));
  }
  const expert = 3 * h * expertI;
  const moeLayers = moe ? layers - denseLayers : 0;
  const gate = cfg.shared_expert_intermediate_size ? h : 0;
  const moeMlp = (experts || 0) * expert + h * (experts || 0) + 3 * h * sharedI + gate;
  const mlp = moeLayers * moeMlp + (layers - moeLayers) * 3 * h * (denseI || 0);
  const attentionTotal = (layers - linear) * attention + linear * linearAttention;
  const total = vocab * h * (tied ? 1 : 2) + attentionTotal + mlp + layers * 2 * h + h + vision;
  const flags = {
    params: String(total / 1e9), layers: String(layers), hidden: String(h), heads: String(heads), "kv-heads": String(kv),
    vocab: String(vocab), intermediate: String(moe ? expertI : denseI),
  };
  if (rank !== null || hd !== Math.floor(h / heads)) flags["head-dim"] = String(hd);
  if (moe) {
    flags.experts = String(experts);
    flags["experts-per-token"] = String(k);
    flags["active-params"] = String((total - vision - moeLayers * (experts - k) * expert) / 1e9);
    if (denseLayers) flags["dense-layers"] = String(denseLayers);
    if (shared) flags["shared-experts"] = String(shared);
  }
  if (tied) flags["tied-embeddings"] = "1";
  if (rank !== null) {
    flags["kv-lora-rank"] = String(rank);
    flags["qk-rope-head-dim"] = String(rope);
  }
  if (windowed && window !== null) {
    flags["sliding-window"] = String(window);
    flags["window-layers"] = String(windowed);
  }
  if (linear) {
    flags["linear-layers"] = String(linear);
    flags["linear-state"] = String(linearState);
  }
  // max_position_embeddings of the language model, else of the top level (ReadConfig.max_context)
  let maxContext = int(cfg, "max_position_embeddings");
  if (maxContext === null && cfg !== raw) maxContext = int(raw, "max_position_embeddings");
  if (maxContext !== null) flags["max-context"] = String(maxContext);
  return { flags, total, note, maxContext };
}

/** {flags, total, note} from config.json text, or {error, key}. `flags` maps flag names to strings;
 * `error` and `note` are form records (messages.js words them), `note` null when there is nothing to say. */
export function readHfConfig(text) {
  let cfg;
  try {
    cfg = JSON.parse(text);
  } catch (e) {
    return { error: form("config_not_json") };
  }
  try {
    return readConfig(cfg);
  } catch (e) {
    if (e instanceof ConfigError) return { error: e.record, key: e.key };
    throw e;
  }
}
