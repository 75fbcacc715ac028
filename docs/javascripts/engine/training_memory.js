/* Hand-written port of generator/engine/training_memory.py: model states by precision and
 * ZeRO stage, activations with or without checkpointing, the loss and the optimizer step. */
import { BITS_PER_BYTE, MLP_MODULES, finish, total, weightBytes } from "./footprint.js";
import { imul, maxBy, sum } from "./py.js";

/** lora_params: rank × (d_in + d_out) per targeted Linear. */
export function loraParams(arch, rank, mem) {
  let perLayer = 0;
  for (const target of mem.training.lora_targets) {
    const [dIn, dOut] = arch.linear_shapes[target];
    const copies = arch.experts && MLP_MODULES.includes(target) ? arch.experts : 1;
    perLayer += imul(rank, dIn + dOut, copies);
  }
  return perLayer * arch.layers;
}

const usesZero = (req) => req.gpus > 1 && req.zero_stage >= 1;
const shard = (req, stage) => (usesZero(req) && req.zero_stage >= stage ? req.gpus : 1);

/** _optimizer_bytes: [persistent state bytes, step temporary bytes] per trained parameter. */
function optimizerBytes(req, mem, dtypeBytes, master, zero) {
  const opt = mem.training.optimizers[req.optimizer];
  if (!opt) throw new Error(`rules.yaml has no optimizer '${req.optimizer}'`);
  const stateBytes = opt.state_bytes !== null ? opt.state_bytes : dtypeBytes;
  const persistent = opt.states_per_param * stateBytes + master;
  const temps = zero ? mem.training.zero_step_temporaries_per_param : opt.step_temporaries_per_param;
  return [persistent, temps * dtypeBytes];
}

/** The error the Python raises for full training in a precision it has no recipe for. */
export function unsupportedFullPrecision(precision) {
  return `full training in ${precision} is not supported; use mixed, bf16, fp16 or fp32`;
}

/** _states */
function states(req, mem) {
  const arch = req.arch, tr = mem.training;
  const zero = usesZero(req);
  if (req.workload === "full" || req.workload === "pretrain") {
    const table = zero ? tr.zero_recipes : tr.recipes;
    const recipe = table[req.precision];
    if (!recipe) throw new Error(unsupportedFullPrecision(req.precision));
    const p = arch.params;
    const dtype = recipe.master_weights || recipe.weights;
    const [persistent, temp] = optimizerBytes(req, mem, dtype, recipe.master_weights, zero);
    return {
      weights: p * recipe.weights / shard(req, 3),
      autocast: (p - arch.input_embedding_params) * recipe.autocast_copy,
      dequant: 0,
      gradients: p * recipe.gradients / shard(req, 2),
      optimizer: p * persistent / shard(req, 1),
      step_temp: p * temp / shard(req, 1),
      zero_buffers: zeroBuffers(req, mem),
      regime: recipe.activations,
      use_zero: zero,
    };
  }
  let baseFormat, regime;
  const base = frozenBaseBytes(req, mem);
  if (req.workload === "qlora") {
    baseFormat = tr.qlora_weight_format;
    regime = tr.qlora_activations;
  } else if (req.precision === "mixed") {
    baseFormat = "fp32";
    regime = tr.recipes.mixed.activations;
  } else {
    baseFormat = req.precision;
    regime = baseFormat === "fp32" ? "fp32" : "bf16";
  }
  let autocast = 0, dequant = 0;
  if (req.precision === "mixed" && req.workload === "lora") {
    autocast = (arch.params - arch.input_embedding_params) * tr.recipes.mixed.autocast_copy;
  }
  if (mem.dequant_formats.includes(baseFormat)) {
    dequant = mem.dequant_copies * arch.largest_linear_params * mem.embedding_bits / BITS_PER_BYTE;
  }
  const adapters = loraParams(arch, req.lora_rank, mem);
  const aBytes = tr.lora_adapter_bits / BITS_PER_BYTE;
  const [persistent, temp] = optimizerBytes(req, mem, aBytes, 0, zero);
  return {
    weights: base / shard(req, 3) + adapters * aBytes,
    autocast,
    dequant,
    gradients: adapters * aBytes,
    optimizer: adapters * persistent,
    step_temp: adapters * temp,
    zero_buffers: zeroBuffers(req, mem),
    regime,
    use_zero: zero,
  };
}

/** frozen_base_bytes: a LoRA / QLoRA job's frozen base weights, all cards together (bytes). */
export function frozenBaseBytes(req, mem) {
  const tr = mem.training;
  if (req.workload === "qlora") return weightBytes(req.arch, tr.qlora_weight_format, mem, tr.qlora_embedding_bits);
  if (req.precision === "mixed") return req.arch.params * tr.recipes.mixed.weights;
  return weightBytes(req.arch, req.precision, mem);
}

/** _zero_buffers: ZeRO communication buffers on one card (bytes). */
function zeroBuffers(req, mem) {
  if (!usesZero(req)) return 0;
  const tr = mem.training, arch = req.arch;
  if (req.zero_stage >= 3) {
    const biggest = Math.max(arch.layer_params, arch.input_embedding_params);
    return tr.zero3_live_modules * biggest * tr.zero3_gather_bytes;
  }
  return tr.zero_reduce_bucket_elements * tr.zero_bucket_bytes;
}

/** _activations: [at the start of backward, at the end of backward], bytes per card. */
function activations(req, mem, regime) {
  const arch = req.arch, tr = mem.training;
  const t = imul(req.batch, req.context);
  const la = tr.layer_activations[regime];
  let perTokenLayer = la.per_hidden * arch.hidden + la.per_intermediate * arch.routed_intermediate + la.per_head * arch.heads;
  if (arch.experts) perTokenLayer += tr.moe_dispatch_bytes_per_hidden * arch.hidden * (arch.experts_per_token || 1);
  if (req.workload === "lora" || req.workload === "qlora") {
    for (const target of tr.lora_targets) {
      const copies = MLP_MODULES.includes(target) ? (arch.experts_per_token || 1) : 1;
      perTokenLayer += tr.lora_input_copy_bytes * arch.linear_shapes[target][0] * copies;
    }
  }
  const layer = perTokenLayer * t;
  const logits = imul(t, arch.vocab) * (tr.logits_held_bytes_per_vocab + tr.logits_backward_bytes_per_vocab);
  const finalNorm = imul(t, arch.hidden) * tr.final_norm_bytes_per_hidden;
  let start;
  if (req.grad_checkpointing) {
    const ckpt = tr.checkpoint_bytes_per_hidden[regime];
    const kept = imul(arch.layers, t, arch.hidden) * ckpt;
    start = kept + finalNorm + Math.max(logits, tr.recompute_layer_factor * layer);
  } else {
    start = arch.layers * layer + finalNorm + logits;
  }
  return [start, tr.recompute_layer_factor * layer];
}

/** training_estimate: the largest of three moments (start of backward, end of backward, optimizer step). */
export function trainingEstimate(req, mem) {
  const s = states(req, mem);
  const [actStart, actEnd] = activations(req, mem, s.regime);
  const earlyGrads = s.use_zero ? s.gradients : 0;
  const phases = [
    ["backward_start", [
      ["weights", s.weights], ["activations", actStart], ["gradients", earlyGrads],
      ["optimizer_states", s.optimizer], ["transients", s.autocast + s.dequant + s.zero_buffers],
    ]],
    ["backward_end", [
      ["weights", s.weights], ["activations", actEnd], ["gradients", s.gradients],
      ["optimizer_states", s.optimizer], ["transients", s.dequant + s.zero_buffers],
    ]],
    ["optimizer_step", [
      ["weights", s.weights], ["gradients", s.gradients], ["optimizer_states", s.optimizer],
      ["transients", s.step_temp + s.zero_buffers],
    ]],
  ];
  const finished = phases.map(([name, parts]) => {
    const breakdown = finish(parts, req.gpus, 0, mem);
    return { name, breakdown, total: sum(Object.values(breakdown)) };
  });
  const peak = maxBy(finished, (f) => f.total);
  return {
    total_gib: total(peak.breakdown),
    breakdown: peak.breakdown,
    peak_phase: peak.name === "optimizer_step" ? "optimizer_step" : "forward_backward",
  };
}
