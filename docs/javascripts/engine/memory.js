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

/** usable_gib: memory a job can use on one card, GiB, from the datasheet figure. */
export function usableGib(gpuMemoryGb, mem) {
  return gpuMemoryGb * mem.usable_fraction;
}

/** estimate: peak memory on ONE card for `req`. */
export function estimate(req, mem) {
  return req.workload === "inference" ? inferenceEstimate(req, mem) : trainingEstimate(req, mem);
}
