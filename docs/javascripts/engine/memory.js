/* Hand-written port of generator/engine/memory.py: peak memory per card and the card counts tried. */
import { inferenceEstimate } from "./inference_memory.js";
import { trainingEstimate } from "./training_memory.js";

/** card_counts: 1, 2, 4, 8 inside a server, then whole servers (16, 24, 32 …). */
export function cardCounts(mem, maxCards = 64) {
  const cc = mem.card_counts;
  const counts = cc.within_node.filter((c) => c <= maxCards);
  const top = Math.max(...cc.within_node);
  let n = (Math.floor(top / cc.node_step) + 1) * cc.node_step;
  while (n <= maxCards) {
    counts.push(n);
    n += cc.node_step;
  }
  return counts;
}

/** usable_gib: memory a job can use on one card, GiB, from the datasheet figure; serving a language model
 * on a runtime that reserves a share of the card (vLLM's gpu_memory_utilization) gets no more than it. */
export function usableGib(gpuMemoryGb, mem, req = null) {
  let fraction = mem.usable_fraction;
  if (req && req.workload === "inference" && req.arch.kind === "llm") {
    const reserved = mem.inference.runtimes[req.runtime].gpu_memory_utilization;
    if (reserved !== null && reserved !== undefined) fraction = Math.min(fraction, reserved);
  }
  return gpuMemoryGb * fraction;
}

/** estimate: peak memory on ONE card for `req`. */
export function estimate(req, mem) {
  return req.workload === "inference" ? inferenceEstimate(req, mem) : trainingEstimate(req, mem);
}
