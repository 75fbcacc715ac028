/* Hand-written port of generator/engine/plans.py: every way to rent one GPU for a workload (whole
 * instances of one offer as it is sold), and the cheapest by the workload's own measure: a training
 * job's rent, a serving load's cost per million tokens, else the monthly total. */
import { jobCostCny, monthlyCost } from "./cost.js";
import { costPerKimage } from "./image_speed.js";
import { compareTuples, floorDiv, roundTo } from "./py.js";
import { clusterOf } from "./scaling.js";
import { trainOn } from "./sizing.js";
import { costPerMillionTokens, serve } from "./speed.js";

const MAX_STEPS = 4096;

/** NoPlan kinds, in order of telling (the later, the closer the offer came to a plan). */
const TELLING = ["needs_link", "needs_fabric", "too_slow", "volume", "deadline"];

/** keep_after */
export const keepAfter = (offer, rules) => (offer.delivery === "bare_metal" ? 1 : 1 - rules.delivery.container_virtualization_loss);

/** whole_server */
const wholeServer = (offer, rules) => offer.cards >= rules.delivery.vm_whole_server_cards && !offer.variant_unstated;

/** linked_form */
function linkedForm(offer, rules) {
  if (offer.variant_unstated) return false;
  if (offer.delivery === "bare_metal") return true;
  return (offer.delivery === "vm" || offer.delivery === "unspecified") && wholeServer(offer, rules);
}

/** Planner.has_fabric: the provider sells a fabric one job may span hosts over. */
const hasFabric = (offer) => offer.fabric !== null && offer.fabric !== undefined && offer.fabric.kind !== "none";

/** spans_hosts_ok */
const spansHostsOk = (offer, rules) =>
  hasFabric(offer) && (offer.delivery === "bare_metal" || offer.delivery === "vm") && wholeServer(offer, rules);

/** period_hours */
const periodHours = (offer, rules) => (offer.billing === "monthly" ? rules.cost.hours_per_month : offer.billing === "daily" ? 24 : 0);

/** Need.adapter: LoRA / QLoRA, whose frozen base needs no scale-up link on any card count. */
const adapter = (need) => need.workload === "lora" || need.workload === "qlora";
/** Need.data_parallel */
const dataParallel = (need) => adapter(need) && need.copy_cards === 1;

/** meets_floor: every user of the load gets the floor (first token soon enough, output fast enough). */
export const meetsFloor = (load, floor) => load.ttft_s <= floor.ttft_s && load.user_tokens_per_s >= floor.output_tokens_per_s;

/** Plan.value */
export function planValue(p, measure) {
  if (measure === "job_rent") return p.job_cost_cny !== null ? p.job_cost_cny : Infinity;
  if (measure === "cost_per_mtok") return p.load !== null ? p.load.cost_per_mtok_cny : Infinity;
  if (measure === "cost_per_kimage") return p.images !== null ? p.images.cost_per_kimage_cny : Infinity;
  return p.monthly.total;
}

/** Plan.key */
const planKey = (p, measure) => [
  roundTo(planValue(p, measure), 6),
  p.job_hours !== null ? roundTo(p.job_hours, 6) : 0,
  roundTo(p.monthly.total, 6),
  p.offer.id,
];

function makePlan(offer, instances, cardsUsed, replicas, monthly, keep, jobHours = null, jobCost = null, load = null, images = null) {
  return {
    offer, instances, cards_used: cardsUsed, replicas, monthly, keep, job_hours: jobHours, job_cost_cny: jobCost, load, images,
    cards_billed: instances * offer.cards,
  };
}

/** training_cards: cards a job uses on `instances` instances, or the NoPlan kind. */
function trainingCards(offer, instances, need, gpu, links, rules) {
  const k = offer.cards;
  if (instances > 1) return adapter(need) || links(gpu, k) ? instances * k : "needs_link";
  if (need.copy_cards > k) return "needs_fabric";
  if (dataParallel(need)) return k;
  if (k > 1 && links(gpu, k) && linkedForm(offer, rules)) return k;
  if (need.copy_cards === 1) return 1;
  if (links(gpu, need.copy_cards) && linkedForm(offer, rules)) return need.copy_cards;
  if (adapter(need)) return k;
  return "needs_link";
}

/** Planner */
export class Planner {
  constructor(rules, pricing, links) {
    this.rules = rules;
    this.pricing = pricing;
    this.links = links;
  }

  monthly(offer, instances, need) {
    return monthlyCost(offer, instances * offer.cards, need.usage, this.pricing);
  }

  training(offer, instances, need, sizing, gpu) {
    const used = trainingCards(offer, instances, need, gpu, this.links, this.rules);
    if (typeof used === "string") return used;
    const keep = keepAfter(offer, this.rules);
    // Across instances the job crosses the provider's fabric, discounted beyond the platform's measured size.
    const train = trainOn(sizing, gpu, used, this.rules, clusterOf(offer.cards, offer.fabric), dataParallel(need));
    if (train === null) return "needs_link";
    const hours = train.hours / keep;
    const job = jobCostCny(offer, instances * offer.cards, hours, this.pricing);
    return makePlan(offer, instances, used, 1, this.monthly(offer, instances, need), keep, hours, job);
  }

  servingLoad(sizing, gpu, copies, keep, hourly) {
    const req = sizing.request;
    const load = req.batch;
    const perCopy = Math.ceil(load / copies);
    const cap = sizing.serving.at_capacity;
    const s = serve(req, gpu, sizing.min_cards, this.rules, cap.prompt_tokens, cap.output_tokens, perCopy);
    const tokens = s.total_tokens_per_s * keep * load / perCopy;
    return {
      copies, per_copy: perCopy, tokens_per_s: tokens, ttft_s: s.ttft_s / keep, user_tokens_per_s: keep / s.step_s,
      cost_per_mtok_cny: costPerMillionTokens(tokens, hourly),
    };
  }

  serving(offer, need, sizing, gpu) {
    const k = offer.cards, m = need.copy_cards;
    if (m > k && !spansHostsOk(offer, this.rules)) return "needs_fabric";
    const perInstance = m <= k ? Math.floor(k / m) : 1;
    const group = m <= k ? 1 : Math.ceil(m / k);
    const capacity = sizing.serving.at_capacity.concurrency;
    const load = sizing.request.batch;
    let copies = Math.max(1, Math.ceil(load / capacity));
    let groups = Math.ceil(copies / perInstance);
    const floor = this.rules.decision.latency_floor;
    const keep = keepAfter(offer, this.rules);
    const limit = this.rules.decision.max_plan_cards;
    while (groups * group * k <= limit) {
      const instances = groups * group;
      copies = groups * perInstance;
      const monthly = this.monthly(offer, instances, need);
      const hourly = monthly.gpu_rent / Math.max(monthly.hours_used, 1e-9);
      const at = this.servingLoad(sizing, gpu, copies, keep, hourly);
      if (need.latency_floor === false || meetsFloor(at, floor)) {
        return makePlan(offer, instances, copies * m, copies, monthly, keep, null, null, at);
      }
      if (at.per_copy === 1) break;
      groups += 1;
    }
    return "too_slow";
  }

  simple(offer, need, gpu) {
    const k = offer.cards, m = need.copy_cards;
    if (m > k && !spansHostsOk(offer, this.rules)) return "needs_fabric";
    const sharded = need.workload !== "inference" && m > 1 && !adapter(need);
    if (sharded && !(this.links(gpu, Math.min(m, k)) && linkedForm(offer, this.rules))) return "needs_link";
    const instances = Math.ceil(m / k);
    return makePlan(offer, instances, m, 1, this.monthly(offer, instances, need), keepAfter(offer, this.rules));
  }

  /** images: every card runs a copy of the pipeline; without a volume one instance at its
   * throughput, with one the month's images as a job (fewest instances within the hours of use, up to
   * the first count that finishes within one billing period). */
  images(offer, need, sizing) {
    const k = offer.cards, m = need.copy_cards;
    if (m > k) return "needs_fabric";
    const keep = keepAfter(offer, this.rules);
    const copies = floorDiv(k, m);
    const perInstance = copies * sizing.image.images_per_hour * keep;
    const volume = need.images_per_month;
    if (volume === null || volume === undefined) {
      const monthly = this.monthly(offer, 1, need);
      const hourly = monthly.gpu_rent / Math.max(monthly.hours_used, 1e-9);
      const images = {
        images_per_hour: perInstance, cost_per_kimage_cny: costPerKimage(perInstance, hourly), hours: monthly.hours_used,
        volume: null,
      };
      return [makePlan(offer, 1, copies * m, copies, monthly, keep, null, null, null, images)];
    }
    const made = perInstance * need.usage.hours_per_month;
    const highest = floorDiv(this.rules.decision.max_plan_cards, k);
    const lowest = made > 0 ? Math.ceil(volume / made) : highest + 1;
    if (lowest > highest) return "volume";
    const period = periodHours(offer, this.rules);
    const plans = [];
    const end = Math.min(highest, lowest + MAX_STEPS);
    for (let n = Math.max(1, lowest); n <= end; n++) {
      const hours = volume / (n * perInstance);
      const rent = jobCostCny(offer, n * k, hours, this.pricing);
      const monthly = monthlyCost(offer, n * k, { ...need.usage, hours_per_month: hours }, this.pricing);
      const images = { images_per_hour: n * perInstance, cost_per_kimage_cny: rent / volume * 1000, hours, volume };
      plans.push(makePlan(offer, n, n * copies * m, n * copies, monthly, keep, null, null, null, images));
      if (period === 0 || hours <= period + 1e-9) break;
    }
    return plans;
  }

  jobPlans(offer, need, sizing, gpu) {
    const k = offer.cards, m = need.copy_cards;
    const lowest = Math.max(1, Math.ceil(m / k));
    const many = spansHostsOk(offer, this.rules);
    const highest = many ? Math.floor(this.rules.decision.max_plan_cards / k) : 1;
    if (lowest > highest) return many ? "deadline" : "needs_fabric";
    const at = (n) => this.training(offer, n, need, sizing, gpu);
    const first = at(lowest);
    if (typeof first === "string") return first;
    let start = lowest;
    if (need.deadline_hours !== null && first.job_hours !== null && first.job_hours > need.deadline_hours) {
      const last = at(highest);
      if (typeof last === "string" || last.job_hours === null || last.job_hours > need.deadline_hours) return "deadline";
      let lo = lowest, hi = highest;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        const p = at(mid);
        if (typeof p !== "string" && p.job_hours !== null && p.job_hours <= need.deadline_hours) hi = mid;
        else lo = mid;
      }
      start = hi;
    }
    const period = periodHours(offer, this.rules);
    const out = [];
    const end = Math.min(highest, start + MAX_STEPS);
    for (let n = start; n <= end; n++) {
      const p = n === lowest ? first : at(n);
      if (typeof p === "string") break;
      out.push(p);
      if (period === 0 || (p.job_hours !== null && p.job_hours <= period + 1e-9)) break;
    }
    return out;
  }

  search(offers, need, sizing, gpu) {
    const plans = [];
    const refusals = [];
    for (const offer of offers) {
      let found;
      if (need.measure === "job_rent") found = this.jobPlans(offer, need, sizing, gpu);
      else if (need.measure === "cost_per_mtok") found = this.serving(offer, need, sizing, gpu);
      else if (need.measure === "cost_per_kimage") found = this.images(offer, need, sizing);
      else found = this.simple(offer, need, gpu);
      if (typeof found === "string") refusals.push(found);
      else if (Array.isArray(found)) plans.push(...found);
      else plans.push(found);
    }
    const sorted = plans.map((p) => [planKey(p, need.measure), p]).sort((a, b) => compareTuples(a[0], b[0])).map(([, p]) => p);
    let refusal = null;
    for (const r of refusals) if (refusal === null || TELLING.indexOf(r) > TELLING.indexOf(refusal)) refusal = r;
    return { plans: sorted, best: sorted.length ? sorted[0] : null, refusal };
  }
}

/** faster_plan */
export function fasterPlan(search, tolerance) {
  const best = search.best;
  if (best === null || best.job_hours === null || best.job_cost_cny === null) return null;
  const ceiling = best.job_cost_cny * (1 + tolerance);
  const quick = search.plans.filter((p) => p.job_hours !== null && p.job_cost_cny !== null
    && p.job_cost_cny <= ceiling && p.job_hours <= best.job_hours / 2);
  if (!quick.length) return null;
  return quick.map((p) => [[roundTo(p.job_hours, 6), p.offer.id], p]).sort((a, b) => compareTuples(a[0], b[0]))[0][1];
}

/** best_per_provider */
export function bestPerProvider(search, exclude, count) {
  const seen = new Set([exclude]);
  const out = [];
  for (const p of search.plans) {
    if (out.length >= count) break;
    if (seen.has(p.offer.provider)) continue;
    seen.add(p.offer.provider);
    out.push(p);
  }
  return out;
}
