/* Hand-written port of generator/engine/sizing.py: the smallest card count of a GPU that holds a
 * workload, with the estimate and the speed there. */
import { cardCounts, estimate, usableGib } from "./memory.js";
import { secondsPerImage } from "./image_speed.js";
import { floorDiv } from "./py.js";
import { capReason, decodeThroughput, maxConcurrency, serve, trainingHours } from "./speed.js";
import { reason } from "./reason.js";

/** Largest card count the sizing tries (eight 8-card servers). */
export const MAX_CARDS = 64;

/** output_tokens: tokens generated per request, as given, else rules.defaults.output_tokens
 * (always leaving the prompt at least half the context). */
export function outputTokens(given, context, rules) {
  if (given !== null && given !== undefined) return given;
  return Math.min(rules.defaults.output_tokens, Math.max(1, floorDiv(context, 2)));
}

/** Sizer: one request's estimates per card count and card counts per memory size, computed once. */
export class Sizer {
  constructor(rules) {
    this.rules = rules;
    this.estimates = new Map();
    this.minCards = new Map();
  }

  estimate(req) {
    const key = req.gpus;
    if (!this.estimates.has(key)) this.estimates.set(key, estimate(req, this.rules.memory));
    return this.estimates.get(key);
  }

  /** min_gpus: the smallest count in card_counts whose per-card peak fits the request's usable memory
   * (or `limitGib` when given: e.g. the plain share without the runtime's reservation); null if none does. */
  minGpus(req, memoryGb, limitGib = null) {
    const key = `${memoryGb}|${limitGib}`;
    if (!this.minCards.has(key)) {
      const limit = limitGib !== null ? limitGib : usableGib(memoryGb, this.rules.memory, req);
      const found = cardCounts(this.rules.memory, MAX_CARDS).find(
        (n) => this.estimate({ ...req, gpus: n }).total_gib <= limit,
      );
      this.minCards.set(key, found === undefined ? null : found);
    }
    return this.minCards.get(key);
  }
}

/** size_workload: smallest card count of `gpu` that holds `req`, with the estimate and speed there.
 * One Sizer serves one request (its memo is keyed by card count and memory size only). */
export function sizeWorkload(req, gpu, rules, jobTokensB, sizer) {
  const paper = sizer.minGpus(req, gpu.memory_gb, usableGib(gpu.memory_gb, rules.memory));
  const headroom = servingLimitGib(req, gpu.memory_gb, rules);
  const cards = sizer.minGpus(req, gpu.memory_gb); // inside the runtime's reserved share, when it has one
  const short = paper !== null && paper !== cards;
  const at = { ...req, gpus: cards || 1 };
  const est = sizer.estimate(at);
  let train = null, serving = null, image = null;
  if (cards !== null && jobTokensB && req.workload !== "inference") {
    train = trainingHours(at, jobTokensB * 1e9, gpu, cards, rules);
  }
  if (cards !== null && req.workload === "inference" && req.arch.kind === "llm") {
    serving = servingFigures(at, gpu, cards, rules);
  }
  if (cards !== null && req.workload === "inference" && req.arch.kind === "diffusion") {
    image = secondsPerImage(at, gpu, rules);
  }
  return {
    request: cards !== null ? at : null,
    job_tokens_b: train ? jobTokensB : null,
    min_cards: cards,
    max_cards: MAX_CARDS,
    usable_gib: usableGib(gpu.memory_gb, rules.memory, req),
    estimate: est,
    per_card_gib: est.total_gib,
    job_hours: train ? train.hours : null,
    decode_tokens_per_s: serving ? serving.decode.tokens_per_s : null,
    train,
    serving,
    image,
    paper_cards: short ? paper : null,
    paper_need_gib: short && paper ? sizer.estimate({ ...req, gpus: paper }).total_gib : null,
    headroom_gib: headroom,
  };
}

/** serving_limit_gib: LLM serving's most memory per card (the engine's default share), else null. */
export function servingLimitGib(req, memoryGb, rules) {
  const limit = usableGib(memoryGb, rules.memory, req);
  return limit < usableGib(memoryGb, rules.memory) ? limit : null;
}

/** Sizing.train_on: the training job on `cards` cards (at least min_cards) in `cluster`'s servers, or null without a job. */
export function trainOn(sizing, gpu, cards, rules, cluster = null, replicated = false) {
  if (sizing.request === null || sizing.job_tokens_b === null || sizing.min_cards === null || cards < sizing.min_cards) {
    return null;
  }
  return trainingHours({ ...sizing.request, gpus: cards }, sizing.job_tokens_b * 1e9, gpu, cards, rules, cluster, replicated);
}

/** serving_limit: what limits the concurrency at capacity (the runtime's cap or the KV cache memory holds). */
export function servingLimit(req, s, rules) {
  if (s.capped) return capReason(req, rules);
  return reason("limit_kv_cache");
}

/** serving_figures: serving speed on `cards` cards; prompt = context − output tokens. */
export function servingFigures(req, gpu, cards, rules) {
  const output = req.output_tokens || outputTokens(null, req.context, rules);
  const prompt = req.context - output;
  const [most, capped] = maxConcurrency(req, gpu, cards, rules);
  return {
    at_capacity: serve(req, gpu, cards, rules, prompt, output, most),
    capped,
    at_batch: serve(req, gpu, cards, rules, prompt, output, req.batch),
    decode: decodeThroughput(req, gpu, cards, rules),
  };
}
