/* Hand-written port of generator/engine/speed.py: training time, decode, prefill and serving
 * speed (numbers only; the assumption texts stay on the pages). */
import { BITS_PER_BYTE, GIB, defaultKvPrecision, kvBytesPerSequence, parallelLayout, weightBytes } from "./footprint.js";
import { allreduceSeconds, hasNvlinkClassLink, linkGbpsPerDirection, linkKind, tensorTflops } from "./links.js";
import { estimate, usableGib } from "./memory.js";
import { floorDiv, imul } from "./py.js";
import { reason } from "./reason.js";
import { clusterScaling } from "./scaling.js";
import { frozenBaseBytes } from "./training_memory.js";

const TERA = 1e12, GIGA = 1e9, SECONDS_PER_HOUR = 3600, MILLION = 1e6;
const TENSOR_TO_FP32 = 16;

function computeParams(arch) {
  const lookup = !arch.tied_embeddings ? arch.input_embedding_params : 0;
  return Math.max(0, arch.active_params - lookup);
}

/** forward_flops_per_token */
export function forwardFlopsPerToken(arch, context, speed) {
  const dense = speed.forward_flops_per_param * computeParams(arch);
  const attended = imul(arch.full_attention_layers, context) + imul(arch.window_layers, arch.attended(context));
  const attention = speed.attention_flops_per_layer_width_context * arch.attention_width * attended;
  return dense + attention;
}

/** train_flops: model FLOPs to train on `tokens` tokens. */
export function trainFlops(req, speed, tokens) {
  const frozen = req.workload === "lora" || req.workload === "qlora";
  const backward = frozen ? speed.frozen_backward_to_forward : speed.backward_to_forward;
  return forwardFlopsPerToken(req.arch, req.context, speed) * (1 + backward) * tokens;
}

/** platform: the training efficiency of the GPU's architecture, or the marked default. */
export function platform(gpu, speed) {
  const found = speed.training.platforms.find((p) => p.architecture === gpu.architecture);
  if (found) return found;
  return {
    architecture: gpu.architecture, mfu: speed.training.default_mfu, confirmed: false,
    measured_gpus: speed.training.default_measured_gpus,
  };
}

/** default_cluster: whole servers over scaling.unknown_fabric (cards sized without an offer). */
export function defaultCluster(rules) {
  return { gpus_per_node: rules.memory.inference.max_tensor_parallel, fabric: rules.speed.scaling.unknown_fabric, gbit_per_gpu: null };
}

/** scaling_efficiency: [fraction of linear speed-up, link kind]; inside a server the link table
 * (adapter_pcie for LoRA / QLoRA over PCIe), across servers also the fabric's loss beyond the platform's
 * measured cluster size. */
export function scalingEfficiency(gpu, cards, rules, cluster = null, adapter = false) {
  const link = linkKind(gpu, cards, rules.memory);
  if (link === "single") return [1, link];
  const where = cluster || defaultCluster(rules);
  const perNode = Math.min(cards, where.gpus_per_node);
  let intra = link;
  if (link === "multi_node" || perNode < cards) intra = hasNvlinkClassLink(gpu) ? "nvlink" : "pcie";
  const table = adapter && intra === "pcie" ? "adapter_pcie" : intra;
  const points = [...rules.speed.scaling[table]].sort((a, b) => a.cards - b.cards);
  let eff = points[0].efficiency;
  for (const p of points) if (p.cards <= perNode) eff = p.efficiency;
  if (perNode < cards) {
    const measured = platform(gpu, rules.speed).measured_gpus;
    eff *= clusterScaling(cards, where, measured, rules.speed.scaling).efficiency;
  }
  return [eff, link];
}

/** zero3_gather_seconds: one LoRA / QLoRA micro-step's all-gathers of a frozen base ZeRO-3 shards. */
export function zero3GatherSeconds(req, gpu, cards, rules) {
  if (!(req.workload === "lora" || req.workload === "qlora") || cards <= 1 || req.zero_stage < 3) return 0;
  const passes = 2 + (req.grad_checkpointing ? 1 : 0);
  const received = frozenBaseBytes(req, rules.memory) * (cards - 1) / cards;
  return passes * received / (linkGbpsPerDirection(gpu, cards, rules.memory, rules.speed) * GIGA);
}

/** training_hours: hours to train on `tokens` tokens with `cards` cards of `gpu` (in `cluster`'s servers);
 * `replicated`: every card holds the whole model (data parallel, no ZeRO-3 gathers). */
export function trainingHours(req, tokens, gpu, cards, rules, cluster = null, replicated = false) {
  const speed = rules.speed;
  const flops = trainFlops(req, speed, tokens);
  const plat = platform(gpu, speed);
  const adapter = req.workload === "lora" || req.workload === "qlora";
  const [eff] = scalingEfficiency(gpu, cards, rules, cluster, adapter);
  const peak = tensorTflops(gpu) * TERA;
  const fine = finetuneCosts(req, gpu, rules);
  const microSteps = tokens / (req.batch * req.context * cards);
  const compute = flops * fine.hardware_factor / (cards * peak * plat.mfu * eff);
  const gather = replicated ? 0 : zero3GatherSeconds(req, gpu, cards, rules);
  const stall = gather > 0 && microSteps > 0 ? Math.max(0, gather - compute / microSteps) : 0;
  const seconds = compute + microSteps * (fine.fixed_s + stall);
  const steps = seconds / SECONDS_PER_HOUR;
  const hours = steps / speed.training.goodput;
  const mfu = seconds > 0 ? flops / (cards * peak * seconds) : plat.mfu * eff;
  return { hours, gpu_hours: hours * cards, flops, mfu, confirmed: plat.confirmed };
}

/** finetune_costs: compute relative to the published pre-training runs' recomputation, and the fixed
 * seconds per micro-step per card (framework overhead + QLoRA dequantization). */
export function finetuneCosts(req, gpu, rules) {
  if (!["lora", "qlora", "full"].includes(req.workload)) return { hardware_factor: 1, fixed_s: 0 };
  const sp = rules.speed;
  const ft = sp.training.finetune;
  const frozen = req.workload === "lora" || req.workload === "qlora";
  const back = frozen ? sp.frozen_backward_to_forward : sp.backward_to_forward;
  const recompute = req.grad_checkpointing ? 1 : 0;
  const published = (2 + sp.backward_to_forward) / (1 + sp.backward_to_forward);
  const factor = ((1 + recompute + back) / (1 + back)) / published;
  let dequant = 0;
  if (req.workload === "qlora") {
    const weights = Math.max(0, req.arch.params - req.arch.embedding_params);
    dequant = (2 + recompute) * weights * ft.dequant_bytes_per_weight / (gpu.memory_bandwidth_gbps * GIGA);
  }
  return { hardware_factor: factor, fixed_s: ft.micro_step_overhead_s + dequant };
}

/** expected_experts_touched: E·(1 − (1 − k/E)^b) */
export function expectedExpertsTouched(experts, perToken, batch) {
  return experts * (1 - (1 - perToken / experts) ** batch);
}

function gemmTflops(gpu, precision, speed) {
  if (precision === "fp8" && gpu.fp8_tflops_dense) return tensorTflops(gpu) * speed.fp8_speedup;
  return tensorTflops(gpu);
}

function embeddingBits(prec, mem) {
  if (mem.experts_only_formats.includes(prec)) return (Object.hasOwn(mem.experts_only_rest_bits, prec) ? mem.experts_only_rest_bits[prec] : mem.embedding_bits);
  if (mem.embeddings_16bit_formats.includes(prec)) return mem.embedding_bits;
  return mem.bits_per_param[prec];
}

function touchedShare(arch, batch) {
  if (!(arch.experts && arch.experts_per_token)) return 1;
  return expectedExpertsTouched(arch.experts, arch.experts_per_token, batch) / arch.experts;
}

function weightsRead(arch, prec, mem, batch) {
  let t = weightBytes(arch, prec, mem);
  if (!arch.tied_embeddings) t -= arch.input_embedding_params * embeddingBits(prec, mem) / BITS_PER_BYTE;
  const untouched = arch.expert_params * (1 - touchedShare(arch, batch));
  return t - untouched * mem.bits_per_param[prec] / BITS_PER_BYTE;
}

function dequantParams(arch, prec, mem, batch) {
  const linear = arch.params - (mem.embeddings_16bit_formats.includes(prec) ? arch.embedding_params : 0);
  return Math.max(0, linear - arch.expert_params * (1 - touchedShare(arch, batch)));
}

/** sixteen_bit_head: bytes of the 16-bit output head a weight-only quantized format keeps (its own kernel). */
function sixteenBitHead(arch, prec, mem) {
  if (!mem.embeddings_16bit_formats.includes(prec)) return 0;
  return arch.input_embedding_params * mem.embedding_bits / BITS_PER_BYTE;
}

/** serving_layout: [tensor-parallel size, stages run one after another]; a layer-split runtime makes every card a stage. */
export function servingLayout(cards, runtime, rules) {
  if (rules.speed.runtimes[runtime].multi_card === "layer_split") return [1, cards];
  return parallelLayout(cards, rules.memory);
}

function dequantSeconds(arch, prec, gpu, cards, rules, batch, runtime) {
  const ops = rules.speed.decode.dequant_ops_per_weight[prec];
  if (!ops) return 0;
  const fp32 = (gpu.fp32_tflops || tensorTflops(gpu) / TENSOR_TO_FP32) * TERA;
  const [, pp] = servingLayout(cards, runtime, rules);
  return dequantParams(arch, prec, rules.memory, batch) / cards * pp * ops / fp32;
}

function commSeconds(arch, gpu, cards, tokens, rules, runtime) {
  const [tp, pp] = servingLayout(cards, runtime, rules);
  const message = imul(tokens, arch.hidden) * rules.memory.inference.activation_bytes;
  const perLayer = tp > 1 ? 2 * allreduceSeconds(gpu, tp, message, rules.memory, rules.speed) : 0;
  return arch.layers * perLayer + (pp - 1) * rules.speed.decode.pipeline_hop_us * 1e-6;
}

/** host_floor_seconds: layers x the host's time to issue one layer's kernels (0 with CUDA graphs). */
export function hostFloorSeconds(arch, runtime, rules) {
  return arch.layers * rules.speed.runtimes[runtime].host_ms_per_layer / 1000;
}

/** expert_dispatch_seconds: MoE layers x distinct experts `tokens` tokens route to x the runtime's host
 * cost per routed expert (an older llama.cpp build dispatching each expert from the host); 0 otherwise. */
export function expertDispatchSeconds(arch, runtime, rules, tokens) {
  const us = rules.speed.runtimes[runtime].host_us_per_routed_expert || 0;
  if (!(us && arch.experts && arch.experts_per_token && tokens > 0)) return 0;
  const touched = expectedExpertsTouched(arch.experts, arch.experts_per_token, tokens);
  return (arch.layers - arch.dense_layers) * touched * us * 1e-6;
}

/** _prefill_dispatch_seconds: the same over a prompt processed in the runtime's chunks (llama.cpp n_ubatch). */
export function prefillDispatchSeconds(arch, runtime, rules, tokens) {
  const chunk = rules.memory.inference.runtimes[runtime].max_batched_tokens || tokens;
  const full = chunk > 0 ? floorDiv(tokens, chunk) : 0;
  const rest = chunk > 0 ? tokens - full * chunk : tokens;
  const seconds = full * expertDispatchSeconds(arch, runtime, rules, chunk);
  return seconds + (rest ? expertDispatchSeconds(arch, runtime, rules, rest) : 0);
}

/** decode_step: one decode step of `batch` sequences of `context` tokens on `cards` cards. */
export function decodeStep(arch, prec, kvPrec, batch, context, gpu, cards, rules, runtime = "vllm") {
  const d = rules.speed.decode, mem = rules.memory;
  const rt = rules.speed.runtimes[runtime];
  const [tp, pp] = servingLayout(cards, runtime, rules);
  const bw = gpu.memory_bandwidth_gbps * GIGA * d.bandwidth_efficiency;
  const weights = weightsRead(arch, prec, mem, batch) / cards * pp / bw;
  const flops = forwardFlopsPerToken(arch, 0, rules.speed) * batch;
  const gemm = flops / (tp * gemmTflops(gpu, prec, rules.speed) * TERA * d.compute_efficiency);
  const dequant = dequantSeconds(arch, prec, gpu, cards, rules, batch, runtime);
  const head = dequant ? sixteenBitHead(arch, prec, mem) / tp / bw : 0;
  const split = rt.multi_card === "layer_split";
  const kv = kvBytesPerSequence(arch, kvPrec, mem, split ? 1 : cards, context) * batch * (split ? 1 : pp) * rt.kv_traffic / bw;
  const comm = commSeconds(arch, gpu, cards, batch, rules, runtime);
  const overhead = d.step_overhead_ms / 1000;
  const host = hostFloorSeconds(arch, runtime, rules);
  const dispatch = expertDispatchSeconds(arch, runtime, rules, batch);
  const seconds = Math.max(weights - head, gemm, dequant, host) + head + kv + comm + overhead + dispatch;
  return { seconds, weights, gemm, dequant, kv, comm, host, dispatch };
}

const kvPrecision = (req, mem) => req.kv_precision || defaultKvPrecision(req.precision, mem);

/** decode_throughput: steady-state decode speed of req.batch sequences at req.context tokens. */
export function decodeThroughput(req, gpu, cards, rules) {
  const step = decodeStep(req.arch, req.precision, kvPrecision(req, rules.memory), req.batch, req.context, gpu, cards, rules, req.runtime);
  return { tokens_per_s: req.batch / step.seconds, per_token_ms: step.seconds * 1000 };
}

/** prefill_seconds */
export function prefillSeconds(req, gpu, cards, rules, promptTokens = null, batch = null) {
  const speed = rules.speed, mem = rules.memory;
  const arch = req.arch, prec = req.precision;
  const prompt = promptTokens !== null ? promptTokens : req.context;
  const n = batch !== null ? batch : req.batch;
  const [tp] = servingLayout(cards, req.runtime, rules);
  const tokens = imul(n, prompt);
  const flops = forwardFlopsPerToken(arch, floorDiv(prompt, 2), speed) * tokens;
  const compute = flops / (tp * gemmTflops(gpu, prec, speed) * TERA * speed.prefill_mfu);
  const bw = gpu.memory_bandwidth_gbps * GIGA * speed.decode.bandwidth_efficiency;
  const weights = weightsRead(arch, prec, mem, n) / tp / bw;
  const dequant = dequantSeconds(arch, prec, gpu, cards, rules, n, req.runtime);
  const comm = commSeconds(arch, gpu, cards, tokens, rules, req.runtime);
  const host = hostFloorSeconds(arch, req.runtime, rules);
  const dispatch = prefillDispatchSeconds(arch, req.runtime, rules, tokens);
  return Math.max(compute, weights, dequant, host) + comm + speed.decode.step_overhead_ms / 1000 + dispatch;
}

/** serve: `concurrency` requests of prompt + output tokens, prefill and decode time-shared;
 * static batching (transformers): a request's first token waits for the whole wave's prefill. */
export function serve(req, gpu, cards, rules, prompt, output, concurrency) {
  const kvPrec = kvPrecision(req, rules.memory);
  const step = decodeStep(req.arch, req.precision, kvPrec, concurrency, prompt + floorDiv(output, 2), gpu, cards, rules, req.runtime);
  const prefill = prefillSeconds(req, gpu, cards, rules, prompt, concurrency);
  const stat = rules.speed.runtimes[req.runtime].batching === "static";
  const ttft = stat ? prefill : prefillSeconds(req, gpu, cards, rules, prompt, 1);
  const wave = prefill + output * step.seconds;
  return {
    concurrency,
    prompt_tokens: prompt,
    output_tokens: output,
    prefill_s: prefill,
    step_s: step.seconds,
    ttft_s: ttft,
    wave_s: wave,
    output_tokens_per_s: concurrency * output / wave,
    total_tokens_per_s: concurrency * (prompt + output) / wave,
  };
}

/** max_concurrency: [the most sequences whose estimate fits the usable memory (bisection), whether the engine's cap limits it]. */
/** serving_cap: vLLM's default max_num_seqs on this card (EngineArgs.get_batch_defaults). */
export function servingCap(gpu, serving) {
  const name = gpu.name.toLowerCase();
  if (gpu.memory_gb >= serving.large_card_min_gib && !serving.large_card_excluded_names.some((x) => name.includes(x))) {
    return serving.large_card_max_concurrency;
  }
  return serving.max_concurrency;
}

/** runtime_cap: the most sequences req.runtime serves at once (vLLM's max_num_seqs default, llama.cpp's LLAMA_MAX_SEQ, transformers' static batch). */
export function runtimeCap(req, gpu, rules) {
  const rt = rules.speed.runtimes[req.runtime];
  if (rt.concurrency === "batch") return req.batch;
  if (rt.concurrency === "slots" && rt.max_slots !== null) return rt.max_slots;
  return servingCap(gpu, rules.speed.serving);
}

/** cap_reason: why the runtime serves no more sequences than runtime_cap. */
export function capReason(req, rules) {
  const rt = rules.speed.runtimes[req.runtime];
  if (rt.concurrency === "batch") return reason("limit_static_batch");
  if (rt.concurrency === "slots") return reason("limit_max_slots");
  return reason("limit_engine_cap");
}

/** launch_reason: a slots server launched with --parallel slots -c slots x context; null for other runtimes. */
export function launchReason(req, slots, context, rules) {
  const rt = rules.speed.runtimes[req.runtime];
  if (rt.concurrency !== "slots" || rt.default_slots === null) return null;
  return reason("launch_slots", { default: rt.default_slots, slots: String(slots), ctx: String(slots * context), context });
}

export function maxConcurrency(req, gpu, cards, rules, cap = null) {
  const mem = rules.memory;
  const limit = cap || runtimeCap(req, gpu, rules);
  const usable = usableGib(gpu.memory_gb, mem, req);
  const fits = (count) => estimate({ ...req, batch: count, gpus: cards }, mem).total_gib <= usable;
  if (fits(limit)) return [limit, true];
  let lo = 1, hi = limit; // hi does not fit; lo is the answer when nothing larger fits
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return [lo, false];
}

/** cost_per_million_tokens */
export function costPerMillionTokens(tokensPerS, priceCnyPerHour) {
  if (tokensPerS <= 0) throw new Error("tokens_per_s must be positive");
  return priceCnyPerHour / (tokensPerS * SECONDS_PER_HOUR) * MILLION;
}
