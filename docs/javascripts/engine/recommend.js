/* Hand-written port of generator/engine/recommend.py: size, deliver and price every GPU, then rank
 * them with the reasons. Options that fit and have a price rank above those that do not; among
 * them training jobs rank by the cost to finish the job, everything else by the monthly total. */
import { minimumRentalNote } from "./cost.js";
import { deliveryForm } from "./delivery.js";
import { fabricReason, hasNvlinkClassLink, linkReason, throughHost } from "./links.js";
import { bestPerProvider, fasterPlan, planValue, Planner } from "./plans.js";
import { cny, compareTuples, fixed, general, grouped, percent, roundTo } from "./py.js";
import { reason } from "./reason.js";
import { checkRequest } from "./support.js";
import { costPerMillionTokens, launchReason, servingLayout } from "./speed.js";
import { servingLimit } from "./sizing.js";

/** links_cards: whether `cards` cards are joined by a scale-up link. */
export function linksCards(gpu, cards) {
  if (gpu.interconnect === null) return false;
  return hasNvlinkClassLink(gpu) || cards <= 2;
}

/** The offers that may price an option: current, pickable (the page embeds only those), in an accepted tier. */
function accepted(cat, c) {
  return c.billing === null ? cat.offers : cat.offers.filter((o) => c.billing.includes(o.billing));
}

/** An exclusion record, as generator/engine/exclusion.py's Exclusion.record(): {kind, params}. */
const exclusion = (kind, params = {}) => ({ kind, params });

/** _no_offer_reason */
function noOfferReason(cat, gpu, delivery, billing) {
  if (!gpu.offers_any) return exclusion("no_offers");
  if (!gpu.offers_current) return exclusion("history_only", { fresh_days: cat.rules.prices.fresh_days });
  if (!cat.offers.some((o) => o.gpu === gpu.id)) return exclusion("spot_only");
  if (billing !== null && !cat.offers.some((o) => o.gpu === gpu.id && billing.includes(o.billing))) {
    return exclusion("no_billing_tier", { tiers: [...billing] });
  }
  return exclusion(delivery === "bare_metal" ? "no_whole_server_offer" : "no_container_offer");
}

/** evaluate_gpu: size one GPU, then find its cheapest plan by the workload's measure (plans.js). */
export function evaluateGpu(gpu, sizing, cat, workload, c) {
  const rules = cat.rules;
  const cards = sizing.min_cards;
  const [delivery, why] = deliveryForm(workload, cards || 1, rules.delivery, dataParallelOk(workload, cards));
  const opt = {
    gpu, sizing, cards, delivery, delivery_reason: why, needed: delivery, cards_billed: null, cards_used: null, replicas: 1,
    offer: null, offer_is_fallback: false, monthly: null,
    runner_ups: [], job_hours: null, job_cost_cny: null, decode_tokens_per_s: null, served_tokens_per_s: null,
    cost_per_mtok_cny: null, cost_per_mtok_at_batch_cny: null, images_per_hour: null, cost_per_kimage_cny: null,
    excluded: null, reasons: [],
    plan: null, faster: null, measure_value: null, load: null,
    unconfirmed_support: false, unconfirmed_speed: false, extrapolated_speed: false,
  };
  if (c.domestic_only && !gpu.domestic) {
    opt.excluded = exclusion("not_domestic");
    return opt;
  }
  if (c.require_cuda && gpu.vendor !== "NVIDIA") {
    opt.excluded = exclusion("needs_cuda");
    return opt;
  }
  if (cards === null) {
    opt.excluded = thinHeadroom(sizing, gpu) || exclusion("too_big", { max_cards: sizing.max_cards });
    return opt;
  }
  const verdict = checkRequest(gpu, sizing.request, rules);
  if (verdict.refusal !== null) {
    opt.excluded = verdict.refusal;
    return opt;
  }
  if (delivery === "bare_metal" && !linksCards(gpu, Math.min(cards, rules.delivery.vm_whole_server_cards))) {
    opt.excluded = exclusion("no_scale_up_link", { cards, link: linkReason(gpu, cards, rules.delivery.vm_whole_server_cards) });
    return opt;
  }
  const offers = accepted(cat, c).filter((o) => o.gpu === gpu.id);
  if (!offers.length) {
    opt.excluded = noOfferReason(cat, gpu, delivery, c.billing);
    return opt;
  }
  const measure = measureOf(workload, sizing, c);
  const need = {
    workload, copy_cards: cards, measure, usage: c.usage, deadline_hours: c.deadline_hours,
    images_per_month: c.images_per_month ?? null, latency_floor: c.latency_floor ?? true,
  };
  const planner = new Planner(rules, cat.pricing, linksCards);
  const search = planner.search(offers, need, sizing, gpu);
  const best = search.best;
  if (best === null) {
    const fewer = search.refusal === "needs_fabric" || search.refusal === "needs_link" || search.refusal === null;
    opt.excluded = (fewer && thinHeadroom(sizing, gpu)) || noPlanReason(search.refusal, gpu, cards, c, rules, Math.max(...offers.map((o) => o.cards)));
    return opt;
  }
  applyPlan(opt, best, measure);
  opt.unconfirmed_support = !verdict.confirmed;
  opt.unconfirmed_speed = measureUnconfirmed(measure, workload, gpu);
  opt.extrapolated_speed = measure === "cost_per_mtok" && allReducesThroughHost(gpu, sizing, cards, rules);
  if (measure === "job_rent") opt.faster = fasterPlan(search, rules.decision.faster_note_tolerance);
  opt.runner_ups = bestPerProvider(search, best.offer.provider, rules.prices.runner_ups).map((p) => ({
    offer: p.offer, monthly: p.monthly, job_cost_cny: p.job_cost_cny, cost_per_mtok_cny: p.load ? p.load.cost_per_mtok_cny : null,
    cost_per_kimage_cny: p.images ? p.images.cost_per_kimage_cny : null,
  }));
  if (c.budget_cny_month !== null && best.monthly.total > c.budget_cny_month) {
    opt.excluded = exclusion("over_budget", { total: cny(best.monthly.total), budget: cny(c.budget_cny_month) });
  }
  return opt;
}

/** thin_headroom: serving that fits fewer cards only above the share the runtime reserves, or null. */
/** _all_reduces_through_host: the serving speed's tensor-parallel all-reduces go through host memory. */
function allReducesThroughHost(gpu, sizing, cards, rules) {
  const runtime = sizing.request ? sizing.request.runtime : rules.defaults.runtime;
  const [tp] = servingLayout(cards, runtime, rules);
  return tp > 1 && throughHost(gpu, tp, rules.memory);
}

function thinHeadroom(sizing, gpu) {
  if (sizing.paper_cards === null || sizing.paper_need_gib === null || sizing.headroom_gib === null) return null;
  return exclusion("thin_headroom", {
    paper_cards: sizing.paper_cards, need_gib: fixed(sizing.paper_need_gib, 1), limit_gib: fixed(sizing.headroom_gib, 1),
    share: percent(sizing.headroom_gib / gpu.memory_gb),
  });
}

/** Option.tentative: the measure rests on unconfirmed format support or speed figures (ranked after confirmed ones). */
export const tentative = (o) => o.unconfirmed_support || o.unconfirmed_speed;

/** speed_unconfirmed: serving or image speed rests on a bandwidth or 16-bit tensor figure no datasheet confirms. */
export function speedUnconfirmed(gpu) {
  const tensor = gpu.bf16_tflops_dense ? "bf16_tflops_dense" : "fp16_tflops_dense";
  return gpu.unconfirmed.includes("memory_bandwidth_gbps") || gpu.unconfirmed.includes(tensor);
}

/** training_speed_unconfirmed: a training job's hours rest on an unconfirmed tensor figure (QLoRA: or bandwidth). */
export function trainingSpeedUnconfirmed(gpu, workload) {
  const tensor = gpu.bf16_tflops_dense ? "bf16_tflops_dense" : "fp16_tflops_dense";
  return gpu.unconfirmed.includes(tensor) || (workload === "qlora" && gpu.unconfirmed.includes("memory_bandwidth_gbps"));
}

/** measure_unconfirmed: the ranking measure rests on an unconfirmed speed figure (a monthly total does not). */
export function measureUnconfirmed(measure, workload, gpu) {
  if (measure === "cost_per_mtok" || measure === "cost_per_kimage") return speedUnconfirmed(gpu);
  if (measure === "job_rent") return trainingSpeedUnconfirmed(gpu, workload);
  return false;
}

/** data_parallel_ok */
const dataParallelOk = (workload) => workload === "lora" || workload === "qlora";

/** _measure */
function measureOf(workload, sizing, c) {
  if (workload !== "inference" && c.job_tokens_b !== null && sizing.job_hours !== null) return "job_rent";
  if (sizing.serving !== null) return "cost_per_mtok";
  if (sizing.image !== null) return "cost_per_kimage";
  return "monthly";
}

/** _apply */
function applyPlan(opt, plan, measure) {
  const offer = plan.offer;
  Object.assign(opt, { offer, monthly: plan.monthly, plan, load: plan.load });
  opt.offer_is_fallback = offer.delivery === "unspecified";
  opt.cards_billed = plan.cards_billed;
  opt.cards_used = plan.cards_used;
  opt.replicas = plan.replicas;
  opt.delivery = offer.delivery;
  opt.measure_value = planValue(plan, measure);
  if (plan.job_hours !== null) {
    opt.job_hours = plan.job_hours;
    opt.job_cost_cny = plan.job_cost_cny;
  }
  const serving = opt.sizing.serving;
  if (plan.load !== null && serving !== null) {
    const hourly = plan.monthly.gpu_rent / Math.max(plan.monthly.hours_used, 1e-9);
    opt.decode_tokens_per_s = serving.decode.tokens_per_s * plan.keep;
    opt.served_tokens_per_s = serving.at_capacity.total_tokens_per_s * plan.keep * plan.replicas;
    opt.cost_per_mtok_cny = costPerMillionTokens(opt.served_tokens_per_s, hourly);
    opt.cost_per_mtok_at_batch_cny = plan.load.cost_per_mtok_cny;
  }
  if (plan.images !== null) {
    opt.images_per_hour = plan.images.images_per_hour;
    opt.cost_per_kimage_cny = plan.images.cost_per_kimage_cny;
  }
}

/** _no_plan_reason: `largest` is the most cards one of the GPU's offers rents. */
function noPlanReason(kind, gpu, cards, c, rules, largest) {
  const whole = rules.delivery.vm_whole_server_cards;
  const most = rules.decision.max_plan_cards; // a count: the message table writes its separators
  if (kind === "needs_fabric" && cards <= whole) return exclusion("no_multi_card_offer", { cards, largest });
  if (kind === "needs_fabric") return exclusion("needs_fabric", { cards, nodes: Math.ceil(cards / whole), whole });
  if (kind === "deadline" && c.deadline_hours !== null) {
    return exclusion("deadline", { max_cards: most, days: general(c.deadline_hours / 24) });
  }
  if (kind === "volume" && c.images_per_month !== null && c.images_per_month !== undefined) {
    return exclusion("volume", { max_cards: most, images: grouped(c.images_per_month, 0) });
  }
  if (kind === "too_slow") {
    const floor = rules.decision.latency_floor;
    return exclusion("too_slow", { ttft_s: general(floor.ttft_s), tokens_per_s: general(floor.output_tokens_per_s) });
  }
  return exclusion("no_whole_server", { cards, link: linkReason(gpu, cards, whole) });
}

/** Option.idle_cards: rented cards that do no work. */
export function idleCards(o) {
  if (o.cards_billed === null || o.cards_used === null) return 0;
  return Math.max(0, o.cards_billed - o.cards_used);
}

/** Option.sort_key plus the GPU id, as recommend() sorts. */
function sortKey(o) {
  const primary = o.measure_value;
  return [
    o.excluded === null ? 0 : 1,
    tentative(o) ? 1 : 0,
    o.cards !== null ? 0 : 1,
    primary !== null ? roundTo(primary, 6) : Infinity,
    o.monthly ? roundTo(o.monthly.total, 6) : Infinity,
    o.cards || 1000,
    o.gpu.id,
  ];
}

/** recommend: rank every GPU for this workload. `sizingFor(gpu)` sizes it. */
export function recommend(cat, sizingFor, workload, c) {
  const trainingJob = workload !== "inference" && c.job_tokens_b !== null;
  const options = cat.gpus.map((g) => evaluateGpu(g, sizingFor(g), cat, workload, c));
  const keyed = options.map((o) => [sortKey(o), o]).sort((a, b) => compareTuples(a[0], b[0]));
  const ranked = keyed.map(([, o]) => o);
  for (const o of ranked) o.reasons = reasons(o, trainingJob, cat.pricing.rules, cat.rules);
  const pick = ranked.length && ranked[0].excluded === null ? ranked[0] : null;
  return { options: ranked, training_job: trainingJob, pick };
}

/** fallback_note */
export function fallbackNote(offer) {
  if (offer.delivery === "unspecified") return reason("fallback_unspecified");
  return reason("fallback_bare_metal", { cards: offer.cards });
}

/** form_note */
export function formNote(offer, delivery) {
  if (offer.delivery === "bare_metal" && delivery === "container") return reason("form_bare_metal", { cards: offer.cards });
  if (offer.delivery === "vm" && delivery === "container") return reason("form_vm_container");
  if (offer.delivery === "vm" && delivery === "bare_metal") return reason("form_vm_bare_metal", { cards: offer.cards });
  return null;
}

/** _reasons: the reasons shown next to an option, as records (calculator.js words them from the table). */
function reasons(o, trainingJob, costRules, rules) {
  const out = [];
  const s = o.sizing;
  if (o.cards !== null) {
    out.push(reason("memory", { per_card_gib: fixed(s.per_card_gib, 1), usable_gib: fixed(s.usable_gib, 1), cards: o.cards }));
  }
  out.push(o.delivery_reason);
  if (o.monthly !== null) {
    const bill = o.monthly.billing === "by_use" ? "month_by_use" : "month_fixed";
    out.push(reason(bill, {
      hours: grouped(o.monthly.hours_used, 0), total: cny(o.monthly.total), gpu_share: percent(1 - o.monthly.non_gpu_share),
    }));
  }
  const plan = o.plan;
  if (plan !== null && plan.instances > 1 && o.cards !== null && plan.replicas < plan.instances) {
    out.push(reason("cluster", {
      instances: plan.instances, server_cards: plan.offer.cards, cards_billed: plan.cards_billed, fabric: fabricReason(plan.offer.fabric),
    }));
  } else if (o.cards !== null && o.cards_billed && o.cards_billed > o.cards) {
    if (idleCards(o)) {
      out.push(reason("idle_cards", { cards_billed: o.cards_billed, idle_cards: idleCards(o) }));
    } else if (o.replicas > 1) {
      out.push(reason("replicas", { cards_billed: o.cards_billed, replicas: o.replicas }));
    } else {
      out.push(reason("whole_machine", { cards_billed: o.cards_billed, cards_used: o.cards_used || 0 }));
    }
  }
  if (trainingJob && o.job_hours !== null && o.job_cost_cny !== null) {
    const note = o.offer !== null ? minimumRentalNote(o.offer, o.job_hours, costRules) : null;
    const job = { cards: o.cards_used || 0, hours: grouped(o.job_hours, 0), rent: cny(o.job_cost_cny) };
    if (note !== null) job.minimum = note;
    out.push(reason("job", job));
  }
  if (o.faster !== null && o.faster.job_hours !== null && o.faster.job_cost_cny !== null) {
    const f = o.faster;
    out.push(reason("faster", {
      cards: f.cards_billed, provider: f.offer.provider, rent: cny(f.job_cost_cny), hours: grouped(f.job_hours, 0),
    }));
  }
  const load = o.load;
  if (load !== null && o.cost_per_mtok_at_batch_cny !== null && s.serving !== null) {
    const c = s.serving.at_capacity;
    const atLoad = {
      batch: s.request ? s.request.batch : 1, prompt_tokens: c.prompt_tokens, output_tokens: c.output_tokens,
      ttft_s: grouped(load.ttft_s, 2), user_tokens_per_s: grouped(load.user_tokens_per_s, 1),
      tokens_per_s: grouped(load.tokens_per_s, 0), cost: cny(load.cost_per_mtok_cny, 2),
    };
    if (load.copies > 1) atLoad.copies = load.copies;
    if (s.request !== null) {
      const launch = launchReason(s.request, load.per_copy, s.request.context, rules);
      if (launch !== null) atLoad.launch = launch;
    }
    out.push(reason("serving_load", atLoad));
  }
  if (o.cost_per_mtok_cny !== null && o.served_tokens_per_s !== null && s.serving !== null && s.request !== null) {
    const c = s.serving.at_capacity;
    const full = { limit: servingLimit(s.request, s.serving, rules), concurrency: c.concurrency, tokens_per_s: grouped(o.served_tokens_per_s, 0), cost: cny(o.cost_per_mtok_cny, 2) };
    if (o.replicas > 1) full.replicas = o.replicas;
    out.push(reason("serving_capacity", full));
  }
  if (o.images_per_hour !== null && o.cost_per_kimage_cny !== null) {
    const images = { per_hour: grouped(o.images_per_hour, 0), cost: cny(o.cost_per_kimage_cny, 2) };
    const img = o.plan !== null ? o.plan.images : null;
    if (img !== null && img.volume !== null) Object.assign(images, { volume: grouped(img.volume, 0), hours: grouped(img.hours, 1) });
    out.push(reason("images", images));
  }
  if (o.gpu.vendor !== "NVIDIA" && !o.excluded) out.push(reason("not_cuda"));
  if (!o.excluded) {
    const note = checkRequest(o.gpu, s.request, rules).note;
    if (note !== null) out.push(reason("support_note", { note }));
  }
  if (o.offer_is_fallback && o.offer !== null) {
    out.push(fallbackNote(o.offer));
  } else if (o.offer !== null) {
    const note = formNote(o.offer, o.needed);
    if (note !== null) out.push(note);
  }
  return out;
}
