/* Hand-written port of generator/engine/recommend.py: size, deliver and price every GPU, then rank
 * them with the reasons. Options that fit and have a price rank above those that do not; among
 * them training jobs rank by the cost to finish the job, everything else by the monthly total. */
import { jobCostCny, matchingOffers, minimumRentalNote, rankedCosts } from "./cost.js";
import { deliveryForm } from "./delivery.js";
import { describeLink, hasNvlinkClassLink } from "./links.js";
import { cny, compareTuples, fixed, grouped, groupedInt, percent } from "./py.js";
import { trainOn } from "./sizing.js";
import { checkRequest } from "./support.js";
import { costPerMillionTokens } from "./speed.js";

/** NOT_CUDA: said of every non-NVIDIA option that stays eligible. */
const NOT_CUDA = "这张卡不支持 CUDA：基于 PyTorch/CUDA 的代码要迁移到厂商自己的软件栈（如昇腾 CANN、AMD ROCm）才能跑";

const BILLING_ZH = { on_demand: "按量", daily: "按天", monthly: "包月" };

/** links_cards: whether `cards` cards are joined by a scale-up link. */
export function linksCards(gpu, cards) {
  if (gpu.interconnect === null) return false;
  return hasNvlinkClassLink(gpu) || cards <= 2;
}

/** The offers that may price an option: current, pickable (the page embeds only those), in an accepted tier. */
function accepted(cat, c) {
  return c.billing === null ? cat.offers : cat.offers.filter((o) => c.billing.includes(o.billing));
}

/** _no_offer_reason */
function noOfferReason(cat, gpu, delivery, billing) {
  const form = delivery === "bare_metal" ? "裸金属或整机云服务器" : "容器或云服务器";
  if (!gpu.offers_any) return "数据中还没有这张卡的报价";
  if (!gpu.offers_current) return `这张卡只有 ${cat.rules.prices.fresh_days} 天前的历史报价，不用于排名`;
  if (!cat.offers.some((o) => o.gpu === gpu.id)) return "这张卡只有抢占式或长期合约报价，不用于排名";
  if (billing !== null && !cat.offers.some((o) => o.gpu === gpu.id && billing.includes(o.billing))) {
    const tiers = billing.map((b) => BILLING_ZH[b] || b).join("、");
    return `这张卡没有所选计费方式（${tiers}）的当前报价`;
  }
  return `数据中还没有这张卡的${form}当前报价`;
}

const keepAfter = (offer, rules) => (offer.delivery === "bare_metal" ? 1 : 1 - rules.delivery.container_virtualization_loss);

/** evaluate_gpu: size, deliver and price one GPU. `cat` is the page's data with `offers` and a Pricing. */
export function evaluateGpu(gpu, sizing, cat, workload, c) {
  const rules = cat.rules;
  const cards = sizing.min_cards;
  const [delivery, why] = deliveryForm(workload, cards || 1, rules.delivery);
  const opt = {
    gpu, sizing, cards, delivery, delivery_reason: why, cards_billed: null, cards_used: null, replicas: 1,
    offer: null, offer_is_fallback: false, monthly: null,
    runner_ups: [], job_hours: null, job_cost_cny: null, decode_tokens_per_s: null, served_tokens_per_s: null,
    cost_per_mtok_cny: null, cost_per_mtok_at_batch_cny: null, excluded: null, reasons: [],
  };
  if (c.domestic_only && !gpu.domestic) {
    opt.excluded = "不满足国产化要求";
    return opt;
  }
  if (c.require_cuda && gpu.vendor !== "NVIDIA") {
    opt.excluded = "按依赖 CUDA 的代码计算：这张卡要把代码迁移到厂商自己的软件栈才能用";
    return opt;
  }
  if (cards === null) {
    opt.excluded = `即使用到 ${sizing.max_cards} 张卡，每张卡的显存也不够`;
    return opt;
  }
  const refusal = checkRequest(gpu, sizing.request, rules).refusal;
  if (refusal !== null) {
    opt.excluded = refusal;
    return opt;
  }
  if (delivery === "bare_metal" && !linksCards(gpu, cards)) {
    const link = describeLink(gpu, cards);
    opt.excluded = `${cards} 卡训练需要所有卡之间都有高速互联，而${/^[\x00-\x7f]/.test(link) || link === "" ? " " : ""}${link}`;
    return opt;
  }
  const [offers, fallback] = matchingOffers(accepted(cat, c), gpu.id, delivery, cards, rules.delivery.vm_whole_server_cards);
  const ranked = rankedCosts(offers, cards, c.usage, cat.pricing);
  if (!ranked.length) {
    opt.excluded = noOfferReason(cat, gpu, delivery, c.billing);
    return opt;
  }
  const byId = new Map(offers.map((o) => [o.id, o]));
  const monthly = ranked[0];
  const offer = byId.get(monthly.offer_id);
  Object.assign(opt, { offer, offer_is_fallback: fallback, monthly });
  const keep = keepAfter(offer, rules);
  opt.cards_billed = monthly.cards_rented;
  opt.cards_used = cards;
  if (sizing.job_hours !== null) {
    opt.job_hours = sizing.job_hours / keep;
    const whole = wholeMachineJob(sizing, gpu, cards, monthly.cards_rented, rules);
    if (whole !== null && whole.hours < sizing.job_hours) {
      opt.cards_used = monthly.cards_rented;
      opt.job_hours = whole.hours / keep;
    }
    opt.job_cost_cny = jobCostCny(offer, cards, opt.job_hours, cat.pricing);
  }
  opt.runner_ups = runnerUps(ranked.slice(1), byId, offer.provider, cards, sizing, gpu, rules, cat.pricing);
  if (sizing.serving !== null) {
    const hourly = monthly.gpu_rent / Math.max(monthly.hours_used, 1e-9);
    opt.replicas = Math.max(1, Math.floor(monthly.cards_rented / cards));
    opt.cards_used = opt.replicas * cards;
    opt.decode_tokens_per_s = sizing.serving.decode.tokens_per_s * keep;
    opt.served_tokens_per_s = sizing.serving.at_capacity.total_tokens_per_s * keep * opt.replicas;
    opt.cost_per_mtok_cny = costPerMillionTokens(opt.served_tokens_per_s, hourly);
    const atBatch = sizing.serving.at_batch.total_tokens_per_s * keep;
    opt.cost_per_mtok_at_batch_cny = costPerMillionTokens(atBatch, hourly);
  }
  if (c.budget_cny_month !== null && monthly.total > c.budget_cny_month) {
    opt.excluded = `月成本 ${cny(monthly.total)} 超出预算 ${cny(c.budget_cny_month)}`;
  }
  return opt;
}

/** _whole_machine_job: the training job on every billed card when the machine links them all. */
function wholeMachineJob(sizing, gpu, cards, billed, rules) {
  if (billed <= cards || !linksCards(gpu, billed)) return null;
  return trainOn(sizing, gpu, billed, rules);
}

/** Option.idle_cards: rented cards that do no work. */
export function idleCards(o) {
  if (o.cards_billed === null || o.cards_used === null) return 0;
  return Math.max(0, o.cards_billed - o.cards_used);
}

/** _runner_ups: the cheapest offer of each other provider, cheapest first. */
function runnerUps(rest, byId, pickProvider, cards, sizing, gpu, rules, pricing) {
  const seen = new Set([pickProvider]);
  const out = [];
  for (const m of rest) {
    if (out.length >= rules.prices.runner_ups) break;
    const offer = byId.get(m.offer_id);
    if (seen.has(offer.provider)) continue;
    seen.add(offer.provider);
    let job = null;
    if (sizing.job_hours !== null) {
      const whole = wholeMachineJob(sizing, gpu, cards, m.cards_rented, rules);
      const hours = whole !== null ? Math.min(sizing.job_hours, whole.hours) : sizing.job_hours;
      job = jobCostCny(offer, cards, hours / keepAfter(offer, rules), pricing);
    }
    out.push({ offer, monthly: m, job_cost_cny: job });
  }
  return out;
}

/** Option.sort_key plus the GPU id, as recommend() sorts. */
function sortKey(o, trainingJob) {
  const primary = trainingJob ? o.job_cost_cny : (o.monthly ? o.monthly.total : null);
  return [
    o.excluded === null ? 0 : 1,
    o.cards !== null ? 0 : 1,
    primary !== null ? primary : Infinity,
    o.monthly ? o.monthly.total : Infinity,
    o.cards || 1000,
    o.gpu.id,
  ];
}

/** recommend: rank every GPU for this workload. `sizingFor(gpu)` sizes it. */
export function recommend(cat, sizingFor, workload, c) {
  const trainingJob = workload !== "inference" && c.job_tokens_b !== null;
  const options = cat.gpus.map((g) => evaluateGpu(g, sizingFor(g), cat, workload, c));
  const keyed = options.map((o) => [sortKey(o, trainingJob), o]).sort((a, b) => compareTuples(a[0], b[0]));
  const ranked = keyed.map(([, o]) => o);
  for (const o of ranked) o.reasons = reasons(o, trainingJob, cat.pricing.rules, cat.rules);
  const pick = ranked.length && ranked[0].excluded === null ? ranked[0] : null;
  return { options: ranked, training_job: trainingJob, pick };
}

/** fallback_note */
export function fallbackNote(offer) {
  if (offer.delivery === "unspecified") return "没有对应交付形式的报价，按来源未注明交付形式的报价计算";
  return `没有容器或云服务器报价，按裸金属整机（${offer.cards} 卡）报价计算`;
}

/** form_note */
export function formNote(offer, delivery) {
  if (offer.delivery === "vm" && delivery === "container") return "按云服务器报价计算：GPU 云服务器能跑容器能跑的一切，只是启动稍慢";
  if (offer.delivery === "vm" && delivery === "bare_metal") {
    return `按 ${offer.cards} 卡整机云服务器报价计算：整台服务器的卡都在这台云服务器里，卡间 NVLink 与裸金属相同`;
  }
  return null;
}

/** _reasons: plain-Chinese reasons shown next to an option. */
function reasons(o, trainingJob, costRules, rules) {
  const out = [];
  const s = o.sizing;
  if (o.cards !== null) {
    out.push(`每卡峰值显存约 ${fixed(s.per_card_gib, 1)} GiB，可用约 ${fixed(s.usable_gib, 1)} GiB，需要 ${o.cards} 张卡`);
  }
  out.push(o.delivery_reason);
  if (o.monthly !== null) {
    const bill = o.monthly.billing === "by_use" ? "按小时计费" : "按月计费";
    out.push(`${bill}，每月合计约 ${cny(o.monthly.total)}（GPU 租金占 ${percent(1 - o.monthly.non_gpu_share)}）`);
  }
  if (o.cards !== null && o.cards_billed && o.cards_billed > o.cards) {
    if (idleCards(o)) {
      out.push(`报价按整机 ${o.cards_billed} 张卡计费，其中 ${idleCards(o)} 张闲置也要付钱`);
    } else if (o.replicas > 1) {
      out.push(`报价按整机 ${o.cards_billed} 张卡计费，整机同时跑 ${o.replicas} 份模型副本`);
    } else {
      out.push(`报价按整机 ${o.cards_billed} 张卡计费，任务用满整机的 ${o.cards_used} 张卡，跑得更快`);
    }
  }
  if (trainingJob && o.job_hours !== null && o.job_cost_cny !== null) {
    const note = o.offer !== null ? minimumRentalNote(o.offer, o.job_hours, costRules) : null;
    out.push(`参照任务约 ${grouped(o.job_hours, 0)} 小时完成，租金约 ${cny(o.job_cost_cny)}` + (note ? `（${note}）` : ""));
  }
  if (o.cost_per_mtok_cny !== null && o.served_tokens_per_s !== null && s.serving !== null) {
    const c = s.serving.at_capacity;
    out.push(
      `按显存可容纳的 ${c.concurrency} 路并发（每个请求提示 ${groupedInt(c.prompt_tokens)} + 输出 ${groupedInt(c.output_tokens)} token）`
      + (o.replicas > 1 ? `、${o.replicas} 份副本` : "")
      + `每秒约处理 ${grouped(o.served_tokens_per_s, 0)} token，每百万 token（提示与输出合计）约 ${cny(o.cost_per_mtok_cny, 2)}`,
    );
  }
  if (o.gpu.vendor !== "NVIDIA" && !o.excluded) out.push(NOT_CUDA);
  if (!o.excluded) {
    const note = checkRequest(o.gpu, s.request, rules).note;
    if (note !== null) out.push(note);
  }
  if (o.offer_is_fallback && o.offer !== null) {
    out.push(fallbackNote(o.offer));
  } else if (o.offer !== null) {
    const note = formNote(o.offer, o.delivery);
    if (note !== null) out.push(note);
  }
  if (o.excluded) out.push(o.excluded);
  return out;
}
