/* Hand-written. Reads a Hugging Face config.json into the calculator's model flags (the same
 * --params/--layers/… flags `gpu-guide recommend` takes), so that the result is the engine's for
 * that shape and the link can be shared. The parameter count is summed from the Llama-style
 * blocks the engine assumes (HF modeling_llama.py / modeling_mixtral.py): embedding and lm_head
 * (one table when tied), per layer q/k/v/o projections, a SwiGLU MLP per expert, the router and
 * two RMSNorms, and the final norm. Bias terms (Qwen2's q/k/v) are left out: under 0.01 %.
 * Shapes the engine cannot describe (shared experts, multi-head latent attention, missing keys)
 * are refused with a message instead of being guessed. */

const REQUIRED = [
  ["num_hidden_layers", "层数"],
  ["hidden_size", "隐藏维度"],
  ["num_attention_heads", "注意力头数"],
  ["vocab_size", "词表大小"],
  ["intermediate_size", "MLP 中间维度"],
];
/** Keys of shapes the engine's formulas do not cover, with what they are. */
const UNSUPPORTED = [
  ["n_shared_experts", "共享专家（DeepSeek 式 MoE）"],
  ["shared_expert_intermediate_size", "共享专家（Qwen MoE）"],
  ["kv_lora_rank", "多头潜在注意力（MLA）"],
  ["first_k_dense_replace", "前几层为稠密层的 MoE"],
  ["moe_intermediate_size", "与稠密层不同宽度的专家"],
  ["num_experts", "Qwen 式 MoE"],
];

const positiveInt = (v) => Number.isInteger(v) && v > 0;

/** {flags, note} from config.json text, or {error}. `flags` maps flag names to strings. */
export function readHfConfig(text) {
  let cfg;
  try {
    cfg = JSON.parse(text);
  } catch (e) {
    return { error: "这不是合法的 JSON：请粘贴模型仓库里 config.json 的全部内容" };
  }
  if (cfg === null || typeof cfg !== "object" || Array.isArray(cfg)) {
    return { error: "config.json 应该是一个 { … } 对象" };
  }
  let note = "";
  if (cfg.num_hidden_layers === undefined && cfg.text_config && typeof cfg.text_config === "object") {
    cfg = cfg.text_config; // multimodal models keep the language model's shape here
    note = "读取了 text_config（多模态模型的语言部分，视觉编码器未计入）。";
  }
  for (const [key, what] of UNSUPPORTED) {
    if (cfg[key] !== undefined && cfg[key] !== null && cfg[key] !== 0) {
      return { error: `这个模型用了${what}（${key}），本站的公式算不准它的结构：请改填参数量` };
    }
  }
  for (const [key, label] of REQUIRED) {
    if (cfg[key] === undefined) return { error: `config.json 里没有 ${key}（${label}），读不出模型结构：请改填参数量` };
    if (!positiveInt(cfg[key])) return { error: `${key}（${label}）应该是正整数，现在是 ${JSON.stringify(cfg[key])}` };
  }
  const L = cfg.num_hidden_layers, h = cfg.hidden_size, heads = cfg.num_attention_heads;
  const V = cfg.vocab_size, i = cfg.intermediate_size;
  const kv = cfg.num_key_value_heads === undefined || cfg.num_key_value_heads === null ? heads : cfg.num_key_value_heads;
  if (!positiveInt(kv)) return { error: `num_key_value_heads（KV 头数）应该是正整数，现在是 ${JSON.stringify(kv)}` };
  const hd = cfg.head_dim === undefined || cfg.head_dim === null ? Math.floor(h / heads) : cfg.head_dim;
  if (!positiveInt(hd)) return { error: `head_dim（每头维度）应该是正整数，现在是 ${JSON.stringify(hd)}` };
  const E = cfg.num_local_experts === undefined || cfg.num_local_experts === null ? 1 : cfg.num_local_experts;
  if (!positiveInt(E)) return { error: `num_local_experts（专家数）应该是正整数，现在是 ${JSON.stringify(E)}` };
  const moe = E > 1;
  const k = moe ? cfg.num_experts_per_tok : 1;
  if (moe && !positiveInt(k)) return { error: "混合专家模型需要 num_experts_per_tok（每个 token 用的专家数）" };
  if (moe && k > E) return { error: `num_experts_per_tok（${k}）不能多于 num_local_experts（${E}）` };
  const tied = cfg.tie_word_embeddings === true;

  const attention = 2 * h * heads * hd + 2 * h * kv * hd;
  const expert = 3 * h * i;
  const perLayer = attention + E * expert + (moe ? h * E : 0) + 2 * h;
  const total = V * h * (tied ? 1 : 2) + L * perLayer + h;
  const flags = {
    params: String(total / 1e9), layers: String(L), hidden: String(h), heads: String(heads), "kv-heads": String(kv),
    vocab: String(V), intermediate: String(i),
  };
  if (hd !== Math.floor(h / heads)) flags["head-dim"] = String(hd);
  if (moe) {
    flags.experts = String(E);
    flags["experts-per-token"] = String(k);
    flags["active-params"] = String((total - L * (E - k) * expert) / 1e9);
  }
  if (tied) flags["tied-embeddings"] = "1";
  return { flags, total, note };
}
