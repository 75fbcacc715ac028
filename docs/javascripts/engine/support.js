/* Hand-written port of generator/engine/support.py: whether a plan's number format runs on a card,
 * from rules.support (the same table the Python engine reads). NVIDIA cards are matched by compute
 * capability, other vendors by name; the first kernel that runs is the plan's, its note said next to
 * the option; a format no kernel runs rules the card out with the nearest formats that do. */
import { fixed } from "./py.js";

/** runtime_for: serving text models -> the request's own runtime; training and image models -> training_runtime. */
export function runtimeFor(req, support) {
  if (req.workload === "inference" && req.arch.kind !== "diffusion") return req.runtime;
  return support.training_runtime;
}

/** kernel_runs */
function kernelRuns(kernel, gpu) {
  if (gpu.vendor === "NVIDIA") {
    const cc = gpu.compute_capability;
    return kernel.min_cc !== null && cc !== null && cc >= kernel.min_cc - 1e-9;
  }
  return kernel.vendors.includes(gpu.vendor);
}

/** first_kernel */
function firstKernel(rt, precision, gpu) {
  return (rt.formats[precision] || []).find((k) => kernelRuns(k, gpu)) || null;
}

const label = (support, p) => support.labels[p] || p;

/** nearest_running */
function nearestRunning(gpu, precision, rt, support) {
  return (support.nearest[precision] || []).filter((a) => firstKernel(rt, a, gpu) !== null).slice(0, 2);
}

/** refusal */
function refusal(gpu, precision, rt, support) {
  const name = label(support, precision);
  const kernels = rt.formats[precision];
  let head;
  if (gpu.vendor === "NVIDIA") {
    const needs = kernels.filter((k) => k.min_cc !== null)
      .map((k, i) => `${k.kernel} 要求${i === 0 ? "计算能力" : ""} ≥ ${fixed(k.min_cc, 1)}`).join("、");
    const cc = gpu.compute_capability || 0;
    head = needs
      ? `${gpu.name} 不支持 ${name}：${rt.name} 的 ${needs}，这张卡是 ${fixed(cc, 1)}`
      : `${gpu.name} 不支持 ${name}：${rt.name} 在 NVIDIA 卡上没有 ${name} 的实现`;
  } else {
    head = `${gpu.name} 不支持 ${name}：${rt.name} 在 ${gpu.vendor} 的卡上没有 ${name} 的实现`;
  }
  const alts = nearestRunning(gpu, precision, rt, support);
  if (!alts.length) return `${head}；这张卡上没有可替代的精度`;
  return `${head}；改用 ` + alts.map((a) => label(support, a)).join("/");
}

/** check: {kernel, note, refusal} for `precision` on `gpu` under `runtime`. */
export function check(gpu, precision, runtime, support) {
  const rt = support.runtimes[runtime];
  if (!(precision in rt.formats)) return { kernel: null, note: null, refusal: null };
  if (gpu.vendor !== "NVIDIA" && !rt.vendors.includes(gpu.vendor)) return { kernel: null, note: rt.unconfirmed, refusal: null };
  const kernel = firstKernel(rt, precision, gpu);
  if (kernel !== null) return { kernel: kernel.kernel, note: kernel.note, refusal: null };
  return { kernel: null, note: null, refusal: refusal(gpu, precision, rt, support) };
}

/** check_request: the request's precision under its runtime; QLoRA's stored base format too (first). */
export function checkRequest(gpu, req, rules) {
  if (req === null) return { kernel: null, note: null, refusal: null };
  const support = rules.support;
  const runtime = runtimeFor(req, support);
  const baseFormat = rules.memory.training.qlora_weight_format;
  if (req.workload === "qlora" && req.precision !== baseFormat) {
    const base = check(gpu, baseFormat, runtime, support);
    if (base.refusal !== null) return base;
  }
  return check(gpu, req.precision, runtime, support);
}
