/* Hand-written port of generator/engine/cost.py (and rate_on of generator/data/catalogue.py):
 * what a month or a job really costs with one offer. Everything about pricing an offer lives in
 * this module, so a change to the Python's offer model is mirrored here and nowhere else.
 *
 * An offer (generator/pages/calculator.py _offer) carries its quoted price in its own currency and
 * basis: `price` (the middle of a quoted range), `per` (instance or card), `cards`, `unit`
 * (hour, day, month, year), `currency` and `as_of`. */
import { reason } from "./reason.js";

/** rate_on: the rate nearest in date at or before `on`, else the earliest after it (ties: first in the file). */
export function rateOn(rates, currency, on) {
  if (currency === "CNY") return null;
  const mine = rates.filter((r) => r.currency === currency)
    .map((r, i) => [r, i]).sort((a, b) => (a[0].as_of < b[0].as_of ? -1 : a[0].as_of > b[0].as_of ? 1 : a[1] - b[1]))
    .map(([r]) => r);
  if (!mine.length) return null;
  let at = 0;
  while (at < mine.length && mine[at].as_of <= on) at++; // bisect_right on ISO dates
  if (at === 0) return mine[0];
  const best = mine[at - 1];
  return mine.find((r) => r.as_of === best.as_of);
}

/** Pricing: the cost rules, the dated exchange rates and each provider's own extras in yuan
 * (`tariffs`: provider id -> {disk_cny_per_gb_month, disk_stopped_cny_per_gb_month (a stopped instance's
 * disk, where priced apart), egress_cny_per_gb, public_ip_cny_month}, null where the provider prices none, and stopped_bills_instance: true/false from its sourced terms, null unknown;
 * computed by generator/engine/tariff.py). */
export class Pricing {
  constructor(costRules, rates, tariffs = {}) {
    this.rules = costRules;
    this.rates = rates;
    this.tariffs = tariffs;
  }

  /** cny_factor: yuan per unit of the offer's currency (1 for yuan). */
  cnyFactor(offer) {
    if (offer.currency === "CNY") return 1;
    const rate = rateOn(this.rates, offer.currency, offer.as_of);
    if (rate === null) throw new Error(`no exchange rate for ${offer.currency} (offer ${offer.id})`);
    return rate.cny_per_unit;
  }
}

/** hours_per_unit */
export function hoursPerUnit(unit, costRules) {
  const month = costRules.hours_per_month;
  return { hour: 1, day: 24, month, year: 12 * month }[unit];
}

/** instance_price_cny: one whole instance for one `offer.unit`, in yuan. */
export function instancePriceCny(offer, pricing) {
  const cards = offer.per === "card" ? offer.cards : 1;
  return offer.price * cards * pricing.cnyFactor(offer);
}

/** instances_needed */
export function instancesNeeded(offer, cards) {
  return Math.ceil(cards / offer.cards);
}

/** monthly_cost: renting `cards` cards from `offer` for a month used as `usage` says. */
export function monthlyCost(offer, cards, usage, pricing) {
  const rules = pricing.rules;
  const hoursUsed = usage.hours_per_month;
  const instances = instancesNeeded(offer, cards);
  const block = hoursPerUnit(offer.unit, rules);
  const instanceHour = instancePriceCny(offer, pricing) / block;
  let rent, idle, billing, runs;
  if (offer.unit === "month" || offer.unit === "year") {
    const months = offer.unit === "year" ? 12 : 1;
    rent = instancePriceCny(offer, pricing) / months * instances;
    idle = rent * Math.max(0, 1 - hoursUsed / rules.hours_per_month);
    billing = "fixed_month";
    runs = 1; // share of the month the instance runs: a monthly instance is held all month
  } else {
    // a provider whose stopped instances still bill (its terms, with a source) charges the whole month
    const mine = Object.prototype.hasOwnProperty.call(pricing.tariffs, offer.provider) ? pricing.tariffs[offer.provider] : {};
    const running = mine.stopped_bills_instance ? rules.hours_per_month : hoursUsed;
    const billedHours = Math.ceil(Math.max(hoursUsed, running) / block) * block;
    rent = instanceHour * billedHours * instances;
    idle = instanceHour * (billedHours - hoursUsed) * instances;
    billing = "by_use";
    runs = Math.min(1, Math.max(hoursUsed, running) / rules.hours_per_month);
  }
  // the provider's own tariff where it publishes one, else the rules' marked assumption
  const own = Object.prototype.hasOwnProperty.call(pricing.tariffs, offer.provider) ? pricing.tariffs[offer.provider] : {};
  const pick = (mine, assumed) => (mine === null || mine === undefined ? assumed : mine);
  let diskRate = pick(own.disk_cny_per_gb_month, rules.disk_cny_per_gb_month);
  if (own.disk_stopped_cny_per_gb_month !== null && own.disk_stopped_cny_per_gb_month !== undefined) {
    // the disk is kept all month: the running rate while the instance runs, the provider's stopped rate for the rest
    diskRate = diskRate * runs + own.disk_stopped_cny_per_gb_month * (1 - runs);
  }
  const disk = usage.disk_gb * diskRate;
  const egress = usage.egress_gb_month * pick(own.egress_cny_per_gb, rules.egress_cny_per_gb);
  const publicIp = usage.public_ip ? pick(own.public_ip_cny_month, rules.public_ip_cny_month) * instances : 0;
  const sourced = [["disk", own.disk_cny_per_gb_month], ["egress", own.egress_cny_per_gb],
    ["public_ip", own.public_ip_cny_month]].filter(([, v]) => v !== null && v !== undefined).map(([k]) => k);
  const total = rent + disk + egress + publicIp;
  return {
    offer_id: offer.id, billing, instances, cards_rented: instances * offer.cards, hours_used: hoursUsed,
    gpu_rent: rent, disk, egress, public_ip: publicIp, idle_rent: idle, total, sourced,
    non_gpu_share: total === 0 ? 0 : (total - rent) / total,
  };
}

/** billed_hours: whole months on a monthly offer, whole days on a daily one, else the hours used. */
export function billedHours(offer, hours, rules) {
  const period = offer.billing === "monthly" ? rules.hours_per_month : offer.billing === "daily" ? 24 : null;
  if (period === null) return hours;
  return Math.ceil(hours / period - 1e-9) * period;
}

/** minimum_rental_note: said when a job is shorter than what the offer's tier bills (a reason record). */
export function minimumRentalNote(offer, hours, rules) {
  const billed = billedHours(offer, hours, rules);
  if (billed <= hours + 1e-9) return null;
  if (offer.billing === "monthly") return reason("minimum_months", { months: Math.round(billed / rules.hours_per_month) });
  return reason("minimum_days", { days: Math.round(billed / 24) });
}

/** job_cost_cny: rent for a job of `hours` wall-clock hours on `cards` cards, for the hours the tier bills. */
export function jobCostCny(offer, cards, hours, pricing) {
  const instanceHour = instancePriceCny(offer, pricing) / hoursPerUnit(offer.unit, pricing.rules);
  return instanceHour * instancesNeeded(offer, cards) * billedHours(offer, hours, pricing.rules);
}
