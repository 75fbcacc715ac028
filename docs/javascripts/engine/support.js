/* Hand-written port of generator/engine/support.py: whether a plan's number format runs on a card,
 * from rules.support (the same table the Python engine reads). NVIDIA cards are matched by compute
 * capability, other vendors by name; the first kernel that runs is the plan's, its note said next to
 * the option; a format no kernel runs rules the card out with the nearest formats that do. */
import { fixed } from "./py.js";
import { reason } from "./reason.js";

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

/** refusal: an unsupported_format exclusion record {kind, params} (nested reasons say why and what instead). */
function refusal(gpu, precision, rt, support) {
  const name = label(support, precision);
  const kernels = rt.formats[precision];
  let why;
  if (gpu.vendor === "NVIDIA") {
    const floors = kernels.filter((k) => k.min_cc !== null)
      .map((k, i) => reason(i === 0 ? "kernel_floor_first" : "kernel_floor", { kernel: k.kernel, min_cc: fixed(k.min_cc, 1) }));
    const cc = gpu.compute_capability || 0;
    why = floors.length
      ? reason("format_below_cc", { runtime: rt.name, floors, cc: fixed(cc, 1) })
      : reason("format_no_nvidia_kernel", { runtime: rt.name, format: name });
  } else {
    why = reason("format_no_vendor_kernel", { runtime: rt.name, vendor: gpu.vendor, format: name });
  }
  const alts = nearestRunning(gpu, precision, rt, support);
  const instead = alts.length
    ? reason("format_instead", { formats: alts.map((a) => label(support, a)).join("/") })
    : reason("format_no_alternative");
  return { kind: "unsupported_format", params: { gpu: gpu.name, format: name, why, instead } };
}

/** check: {kernel, note, refusal, confirmed} for `precision` on `gpu` under `runtime`. */
export function check(gpu, precision, runtime, support) {
  const rt = support.runtimes[runtime];
  if (!(precision in rt.formats)) return { kernel: null, note: null, refusal: null, confirmed: true };
  if (gpu.vendor !== "NVIDIA" && !rt.vendors.includes(gpu.vendor)) {
    return { kernel: null, note: rt.unconfirmed, refusal: null, confirmed: false };
  }
  const kernel = firstKernel(rt, precision, gpu);
  if (kernel !== null) return { kernel: kernel.kernel, note: kernel.note, refusal: null, confirmed: kernel.confirmed };
  return { kernel: null, note: null, refusal: refusal(gpu, precision, rt, support), confirmed: true };
}

/** check_request: the request's precision under its runtime; QLoRA's stored base format too (first). */
export function checkRequest(gpu, req, rules) {
  if (req === null) return { kernel: null, note: null, refusal: null, confirmed: true };
  const support = rules.support;
  const runtime = runtimeFor(req, support);
  const baseFormat = rules.memory.training.qlora_weight_format;
  if (req.workload === "qlora" && req.precision !== baseFormat) {
    const base = check(gpu, baseFormat, runtime, support);
    if (base.refusal !== null) return base;
  }
  return check(gpu, req.precision, runtime, support);
}
