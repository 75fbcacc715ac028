/* Hand-written port of generator/cli/workload.py (recommend_result, _arch, _request,
 * _serving_lengths) and of the flag checks of generator/cli/arguments.py: the calculator's state
 * is the flags of `gpu-guide recommend` (URL keys of the same names, switches as =1), checked and
 * turned into a request the same way. Errors name the field and carry a form record (words:
 * generator/pages/form_messages.py FORM_ZH, through messages.js) that says what to type. */
import { fromModel, fromParams, shapeProblem } from "./arch.js";
import { Pricing } from "./cost.js";
import { form, label } from "./reason.js";
import { recommend } from "./recommend.js";
import { Sizer, outputTokens, sizeWorkload } from "./sizing.js";

export const WORKLOADS = ["inference", "lora", "qlora", "full", "pretrain"];
export const PRECISIONS = ["fp32", "bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "nf4", "q4_k_m", "q8_0", "iq1_s", "mixed"];
export const OPTIMIZERS = ["adamw", "adamw-8bit", "sgd"];
export const OFFLOADS = ["none", "model"];
export const RUNTIMES = ["vllm", "transformers", "llama.cpp"];
export const BILLINGS = ["on_demand", "daily", "monthly", "spot", "reserved"];

export const ARCH_FLAGS = ["layers", "hidden", "heads", "kv-heads", "vocab", "intermediate", "head-dim"];
export const MOE_FLAGS = ["experts", "experts-per-token", "active-params", "tied-embeddings"];
/** LIMIT_FLAGS: what the model was built for, with --params (a catalogue model has its own max_context). */
export const LIMIT_FLAGS = ["max-context"];
/** VARIANT_FLAGS: [flag, Arch field] of the attention and MoE variants (never derived). */
export const VARIANT_FLAGS = [["kv-lora-rank", "kv_lora_rank"], ["qk-rope-head-dim", "qk_rope_dim"],
  ["sliding-window", "window"], ["window-layers", "window_layers"], ["linear-layers", "linear_layers"],
  ["linear-state", "linear_state"], ["dense-layers", "dense_layers"], ["shared-experts", "shared_experts"]];
const FLAG_OF = { kv_heads: "kv-heads", heads: "heads", experts_per_token: "experts-per-token",
  window_layers: "window-layers", linear_layers: "linear-layers", dense_layers: "dense-layers" };
const NUMBER_FLAGS = ["params", ...ARCH_FLAGS, ...VARIANT_FLAGS.map(([f]) => f), ...LIMIT_FLAGS, "experts", "experts-per-token",
  "active-params", "batch", "context",
  "lora-rank", "prompt-tokens", "output-tokens", "resolution", "budget", "hours-per-month", "job-tokens", "disk-gb",
  "egress-gb", "deadline-days", "steps", "images-per-month"];
const CHOICE_FLAGS = { workload: WORKLOADS, precision: PRECISIONS, "kv-precision": PRECISIONS, optimizer: OPTIMIZERS,
  "zero-stage": ["0", "1", "2", "3"], offload: OFFLOADS, runtime: RUNTIMES };
const SWITCHES = ["tied-embeddings", "domestic-only"];
/** --grad-checkpointing / --no-grad-checkpointing, --public-ip / --no-public-ip and --require-cuda /
 * --no-require-cuda (argparse BooleanOptionalAction) */
const PAIRS = { "grad-checkpointing": "grad_checkpointing", "public-ip": "public_ip", "require-cuda": "require_cuda" };
export const KNOWN = new Set(["model", "billing", ...NUMBER_FLAGS, ...Object.keys(CHOICE_FLAGS), ...SWITCHES,
  ...Object.keys(PAIRS), ...Object.keys(PAIRS).map((k) => "no-" + k)]);

/** A field at fault; `record`: the form record that says why. */
export class FieldError extends Error {
  constructor(field, record) {
    super(`${field}: ${record.kind}`);
    this.field = field;
    this.record = record;
  }
}

/** A field's name in a message. */
const named = (flag) => label("field", flag);

const fmt = (v) => String(v);

/** arguments.number / arguments.whole: a finite number in range, or a message. */
function checkNumber(flag, text, bound) {
  const t = text.trim();
  const decimal = /^[+-]?((\d(_?\d)*)(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/;
  const integer = /^[+-]?\d(_?\d)*$/;
  if (bound.whole ? !integer.test(t) : !decimal.test(t)) {
    throw new FieldError(flag, form(bound.whole ? "not_whole" : "not_number", { field: named(flag), text }));
  }
  const value = Number(t.replace(/_/g, ""));
  if (!Number.isFinite(value)) throw new FieldError(flag, form("not_finite", { field: named(flag), text }));
  if (bound.low !== null && (bound.low_open ? value <= bound.low : value < bound.low)) {
    throw new FieldError(flag, form(bound.low_open ? "not_above" : "below", { field: named(flag), low: fmt(bound.low), value: t }));
  }
  if (bound.high !== null && value > bound.high) {
    throw new FieldError(flag, form("above", { field: named(flag), high: fmt(bound.high), value: t }));
  }
  return value;
}

/** The query's flags checked one by one (argparse's part). `query`: [key, value] pairs.
 * Returns {values, errors}; a flag left out is absent from `values` (null for pairs). */
export function parseFlags(query, data) {
  const values = {};
  const errors = [];
  const seen = new Set();
  for (const [key, raw] of query) {
    const text = String(raw);
    try {
      if (!KNOWN.has(key)) continue; // other keys (e.g. analytics) are not the calculator's
      if (seen.has(key)) throw new FieldError(key.replace(/^no-/, ""), form("repeated", { field: named(key.replace(/^no-/, "")) }));
      seen.add(key);
      if (NUMBER_FLAGS.includes(key)) {
        values[key] = checkNumber(key, text, data.bounds[key]);
      } else if (Object.hasOwn(CHOICE_FLAGS, key)) {
        if (!CHOICE_FLAGS[key].includes(text)) throw new FieldError(key, form("unknown_choice", { field: named(key), text }));
        values[key] = key === "zero-stage" ? Number(text) : text;
      } else if (key === "model") {
        if (!text.trim()) throw new FieldError("model", form("no_model"));
        values.model = text.trim();
      } else if (key === "billing") {
        const tiers = [];
        for (const name of text.split(",").map((s) => s.trim())) {
          if (!BILLINGS.includes(name)) throw new FieldError("billing", form("unknown_billing", { text }));
          if (!tiers.includes(name)) tiers.push(name);
        }
        values.billing = tiers;
      } else {
        const on = text === "1" || text === "true" || text === "";
        if (!on && text !== "0" && text !== "false") throw new FieldError(key, form("bad_switch", { flag: key }));
        const pair = key.replace(/^no-/, "");
        if (Object.hasOwn(PAIRS, pair)) {
          if (!on) continue;
          const field = PAIRS[pair];
          if (Object.hasOwn(values, field)) throw new FieldError(pair, form("both_ways", { field: named(pair) }));
          values[field] = !key.startsWith("no-");
        } else if (on) {
          values[key] = true;
        }
      }
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      errors.push(e);
    }
  }
  if (!errors.length) {
    if (values.workload === undefined) errors.push(new FieldError("workload", form("no_workload")));
    if ((values.model === undefined) === (values.params === undefined)) {
      errors.push(new FieldError(values.model === undefined ? "params" : "model",
        form(values.model === undefined ? "model_or_params" : "model_and_params")));
    }
  }
  return { values, errors };
}

const has = (v, k) => v[k] !== undefined && v[k] !== null && v[k] !== false;

/** _arch: the model's shape. */
function arch(data, v) {
  const d = data.rules.memory.arch_defaults;
  const shape = [...ARCH_FLAGS, ...MOE_FLAGS, ...VARIANT_FLAGS.map(([f]) => f), ...LIMIT_FLAGS].filter((f) => has(v, f));
  if (v.model !== undefined) {
    if (shape.length) throw new FieldError(shape[0], form("shape_with_model", { field: named(shape[0]) }));
    const m = data.models.find((x) => x.id === v.model);
    if (!m) throw new FieldError("model", form("unknown_model", { model: v.model }));
    return fromModel(m, d);
  }
  if (v.experts === undefined && (v["experts-per-token"] !== undefined || v["active-params"] !== undefined)) {
    throw new FieldError("experts", form("moe_without_experts"));
  }
  if (v.experts !== undefined && v["experts-per-token"] !== undefined && v["experts-per-token"] > v.experts) {
    throw new FieldError("experts-per-token", form("experts_per_token_over", { k: String(v["experts-per-token"]), experts: String(v.experts) }));
  }
  if (v["active-params"] !== undefined && v["active-params"] > v.params) {
    throw new FieldError("active-params", form("active_over_total", { active: String(v["active-params"]), total: String(v.params) }));
  }
  const get = (k) => (v[k] === undefined ? null : v[k]);
  const variants = Object.fromEntries(VARIANT_FLAGS.map(([f, k]) => [k, get(f)]));
  if (variants.qk_rope_dim !== null && variants.kv_lora_rank === null) {
    throw new FieldError("qk-rope-head-dim", form("rope_without_mla"));
  }
  if ((variants.linear_state === null) !== (variants.linear_layers === null)) {
    throw new FieldError(variants.linear_layers === null ? "linear-state" : "linear-layers", form("linear_pair"));
  }
  if ((variants.dense_layers !== null || variants.shared_experts !== null) && v.experts === undefined) {
    throw new FieldError(variants.dense_layers !== null ? "dense-layers" : "shared-experts", form("dense_without_experts"));
  }
  const counts = {};
  for (const [k, value] of Object.entries(variants)) if (k !== "kv_lora_rank" && k !== "window") counts[k] = value === null ? 0 : value;
  const counted = ["window_layers", "linear_layers", "dense_layers"].filter((k) => counts[k]);
  if (counted.length && v.layers === undefined) {
    throw new FieldError(FLAG_OF[counted[0]], form("part_of_layers", { field: named(FLAG_OF[counted[0]]) }));
  }
  const fields = {
    layers: get("layers"), hidden: get("hidden"), heads: get("heads"), kv_heads: get("kv-heads"), vocab: get("vocab"),
    intermediate: get("intermediate"), head_dim: get("head-dim"), experts: get("experts"),
    experts_per_token: get("experts-per-token"), active_params_b: get("active-params"),
    tied_embeddings: Boolean(v["tied-embeddings"]), kind: "llm", kv_lora_rank: variants.kv_lora_rank,
    window: variants.window, ...counts,
  };
  const problem = shapeProblem(fields);
  if (problem !== null) throw new FieldError(FLAG_OF[problem[0]], problem[1]);
  return fromParams(v.params, fields, d);
}

/** flags.default_precision: [precision, source] a request without --precision is sized in. Serving a
 * language model released in a low precision: its checkpoint_precision ("checkpoint"); an image
 * model: its pipeline_precision ("pipeline"); else rules.yaml defaults.precision ("rules"). */
export function defaultPrecision(data, modelId, workload) {
  const m = modelId === undefined || modelId === null ? undefined : data.models.find((x) => x.id === modelId);
  if (m && workload === "inference") {
    if (m.kind === "llm" && m.checkpoint_precision) return [m.checkpoint_precision, "checkpoint"];
    if (m.kind === "diffusion" && m.pipeline_precision) return [m.pipeline_precision, "pipeline"];
  }
  return [data.rules.defaults.precision, "rules"];
}

/** _serving_lengths: [context, output tokens]. */
function servingLengths(data, v, llm) {
  const prompt = v["prompt-tokens"], output = v["output-tokens"];
  const serving = v.workload === "inference" && llm;
  if ((prompt !== undefined || output !== undefined) && !serving) {
    throw new FieldError(prompt !== undefined ? "prompt-tokens" : "output-tokens", form("lengths_not_serving"));
  }
  if (prompt !== undefined && output !== undefined) {
    if (v.context !== undefined && v.context !== prompt + output) {
      throw new FieldError("context", form("context_mismatch", { context: String(v.context), total: String(prompt + output) }));
    }
    return [prompt + output, output];
  }
  const context = v.context !== undefined ? v.context : data.rules.defaults.context;
  if (prompt !== undefined) {
    if (prompt >= context) throw new FieldError("prompt-tokens", form("prompt_fills_context", { prompt: String(prompt), context: String(context) }));
    return [context, context - prompt];
  }
  if (output !== undefined && output >= context) {
    throw new FieldError("output-tokens", form("output_over_context", { output: String(output), context: String(context) }));
  }
  return [context, serving ? outputTokens(output === undefined ? null : output, context, data.rules) : null];
}

/** limits.context_limit: the form record refusing a context longer than the model's positions
 * (`limit` null: no stated limit; `key`: where the limit was read), or null when it fits. */
export function contextLimit(context, limit, key) {
  if (limit === null || limit === undefined || context <= limit) return null;
  return form("context_over_model", { context: String(context), limit: String(limit), key });
}

/** The field a too-long context is blamed on (workload._context_flag): --context when given, else the
 * lengths that made it (prompt, then output tokens), else --context (the default's). */
function contextField(v) {
  if (v.context !== undefined) return "context";
  if (v["prompt-tokens"] !== undefined) return "prompt-tokens";
  if (v["output-tokens"] !== undefined) return "output-tokens";
  return "context";
}

/** _request (on one card) and the checks of Request.__post_init__. */
export function buildRequest(data, v) {
  const a = arch(data, v);
  const d = data.rules.defaults;
  const given = (k, dflt) => (v[k] === undefined || v[k] === null ? dflt : v[k]);
  const image = a.kind === "diffusion";
  if (image && v.workload !== "inference") {
    throw new FieldError("workload", form("image_training"));
  }
  if (image && v.context !== undefined) throw new FieldError("context", form("image_context"));
  if (v.runtime !== undefined && (image || v.workload !== "inference")) {
    throw new FieldError("runtime", form("runtime_not_llm"));
  }
  if (!image && (v.resolution !== undefined || v.offload !== undefined)) {
    throw new FieldError(v.resolution !== undefined ? "resolution" : "offload", form("image_only_memory"));
  }
  if (!image && (v.steps !== undefined || v["images-per-month"] !== undefined)) {
    throw new FieldError(v.steps !== undefined ? "steps" : "images-per-month", form("image_only_volume"));
  }
  const [context, output] = servingLengths(data, v, a.kind === "llm");
  const model = v.model === undefined ? undefined : data.models.find((m) => m.id === v.model);
  const limit = a.kind !== "llm" ? null : model ? contextLimit(context, model.max_context, "max_context")
    : contextLimit(context, given("max-context", null), "max_position_embeddings");
  if (limit !== null) throw new FieldError(contextField(v), limit);
  if (output !== null && !(output >= 1 && output < context)) {
    throw new FieldError("context", form("no_prompt"));
  }
  const precision = given("precision", defaultPrecision(data, v.model, v.workload)[0]);
  if (v.workload === "full" || v.workload === "pretrain") {
    // the precisions both recipe tables have: training_memory.js takes one card's from `recipes` and
    // several cards' from `zero_recipes`, and throws (in English) for a precision its table lacks
    const tr = data.rules.memory.training;
    const ok = Object.keys(tr.recipes).filter((p) => Object.hasOwn(tr.zero_recipes, p));
    if (!ok.includes(precision)) {
      throw new FieldError("precision", form("training_precision", { precisions: ok.map((p) => data.names.precision[p] || p) }));
    }
  }
  return {
    workload: v.workload, arch: a, precision, kv_precision: given("kv-precision", null),
    batch: given("batch", d.batch), context, grad_checkpointing: given("grad_checkpointing", d.grad_checkpointing),
    optimizer: given("optimizer", d.optimizer), lora_rank: given("lora-rank", d.lora_rank), gpus: 1,
    zero_stage: given("zero-stage", d.zero_stage), output_tokens: output, resolution: given("resolution", d.resolution),
    offload: given("offload", d.offload), runtime: given("runtime", d.runtime), prefill_logits: null,
    steps: given("steps", null),
  };
}

/** The page's data made ready for the engine: offers that may price an option, and the pricing. */
export function catalogue(data) {
  return { rules: data.rules, gpus: data.gpus, offers: data.offers, pricing: new Pricing(data.rules.cost, data.fx, data.tariffs || {}) };
}

/** recommend_result: every GPU ranked, with the pick, for the flags in `query`.
 * Returns {errors} (one per field at fault) or {request, usage, constraints, rec}. */
export function recommendResult(data, query, cat = catalogue(data)) {
  const { values: v, errors } = parseFlags(query, data);
  if (errors.length) return { errors };
  try {
    const req = buildRequest(data, v);
    const tiers = data.rules.prices.pick_billing;
    for (const t of v.billing || []) {
      if (!tiers.includes(t)) {
        throw new FieldError("billing", form("billing_not_ranked", { tier: data.names.billing[t] || t, tiers }));
      }
    }
    const r = data.rules;
    const usage = {
      hours_per_month: v["hours-per-month"] !== undefined ? v["hours-per-month"] : r.cost.hours_per_month,
      disk_gb: v["disk-gb"] !== undefined ? v["disk-gb"] : r.defaults.disk_gb,
      egress_gb_month: v["egress-gb"] !== undefined ? v["egress-gb"] : r.defaults.egress_gb_month,
      public_ip: v.public_ip !== undefined ? v.public_ip : r.defaults.public_ip,
    };
    const jobTokens = v["job-tokens"] !== undefined ? v["job-tokens"] : null;
    const constraints = {
      usage, domestic_only: Boolean(v["domestic-only"]), require_cuda: v.require_cuda !== undefined ? v.require_cuda : r.defaults.require_cuda,
      budget_cny_month: v.budget !== undefined ? v.budget : null, job_tokens_b: jobTokens,
      billing: v.billing !== undefined ? v.billing : null,
      deadline_hours: v["deadline-days"] !== undefined ? v["deadline-days"] * 24 : null,
      images_per_month: v["images-per-month"] !== undefined ? v["images-per-month"] : null,
    };
    const sizer = new Sizer(r);
    const rec = recommend(cat, (gpu) => sizeWorkload(req, gpu, r, jobTokens, sizer), req.workload, constraints);
    return { errors: [], values: v, request: req, usage, constraints, rec };
  } catch (e) {
    if (e instanceof FieldError) return { errors: [e] };
    throw e;
  }
}
