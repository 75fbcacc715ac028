/* Hand-written port of generator/engine/delivery.py: container or bare metal, with the reason. */
import { reason } from "./reason.js";

/** delivery_form: [delivery, reason record] for `cards` cards of this workload. */
export function deliveryForm(workload, cards, rules, dataParallel = false) {
  const training = workload !== "inference";
  if (training && dataParallel) {
    return ["container", reason("delivery_adapter")];
  }
  if (training && cards >= rules.bare_metal_min_training_cards) {
    return ["bare_metal", reason("delivery_sharded", { cards })];
  }
  if (training) return ["container", reason("delivery_single")];
  return ["container", reason("delivery_serving")];
}
