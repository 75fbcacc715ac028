/* Hand-written. The rent-or-buy page's form: recomputes each row of the table for the
 * reader's own hours a day, years, electricity price, PUE, resale share and hosting price.
 * The formulas mirror generator/results/ownership.py (own_month, rent_month,
 * break_even_months, cheapest_rent); tests/test_ownership_js.py runs this file in node and
 * compares it with the Python functions. Text goes into the page through textContent only. */
(function (root) {
  "use strict";

  var DAY_HOURS = 24;
  var MONTHS_PER_YEAR = 12;

  /* LIMITS: what each input may physically be, [lowest, highest, lowest excluded]; the same
   * table as LIMITS in generator/results/ownership.py (tests/test_ownership_js.py compares them).
   * PUE is total power over IT power, so never below 1. */
  var LIMITS = {
    hours_per_day: [0, 24, true],
    years: [0, 10, true],
    electricity_cny_per_kwh: [0, 10, false],
    pue: [1, 3, false],
    resale_fraction: [0, 0.99, false],
    hosting_cny_per_kw_month: [0, 100000, false]
  };

  /* input_problem: why `value` cannot be the input `name`, or null */
  function inputProblem(name, value) {
    var l = LIMITS[name];
    var low = l[2] ? value <= l[0] : value < l[0];
    if (typeof value !== "number" || !isFinite(value) || low || value > l[1]) {
      return name + " must be " + (l[2] ? "above " : "from ") + l[0] + (l[2] ? " and at most " : " to ") + l[1] +
        ", got " + value;
    }
    return null;
  }

  /* OwnershipInputs' checks: an impossible input is refused, never computed with */
  function checkInputs(inputs) {
    Object.keys(LIMITS).forEach(function (name) {
      var problem = inputProblem(name, inputs[name]);
      if (problem !== null) throw new RangeError(problem);
    });
  }

  /* hours_per_month: hours of use in a month of `monthHours` hours */
  function hoursPerMonth(inputs, monthHours) {
    return inputs.hours_per_day * monthHours / DAY_HOURS;
  }

  /* own_month: depreciation to the resale value, power while working, hosting all month */
  function ownMonth(pricePerCard, tdpW, inputs, monthHours) {
    var kw = tdpW / 1000;
    var dep = pricePerCard * (1 - inputs.resale_fraction) / (MONTHS_PER_YEAR * inputs.years);
    var power = kw * inputs.pue * hoursPerMonth(inputs, monthHours) * inputs.electricity_cny_per_kwh;
    var hosting = kw * inputs.hosting_cny_per_kw_month;
    return { depreciation: dep, power: power, hosting: hosting, total: dep + power + hosting, running: power + hosting };
  }

  /* rent_month: one whole instance of the offer (engine.cost.monthly_cost), per card */
  function rentMonth(offer, inputs, monthHours) {
    var rent;
    if (offer.monthly) {
      rent = offer.price;
    } else {
      var block = offer.unit_hours;
      var billed = Math.ceil(hoursPerMonth(inputs, monthHours) / block) * block;
      rent = offer.price / block * billed;
    }
    return rent / offer.cards;
  }

  /* cheapest_rent: lowest per-card rent, ties to the offer id */
  function cheapestRent(offers, inputs, monthHours) {
    var best = null;
    offers.forEach(function (o) {
      var rent = rentMonth(o, inputs, monthHours);
      var key = Math.round(rent * 1e6) / 1e6;
      if (best === null || key < best.key || (key === best.key && o.id < best.offer.id)) {
        best = { key: key, rent: rent, offer: o };
      }
    });
    return best;
  }

  /* break_even_months: months until the rent saved pays for the card; null: never */
  function breakEven(pricePerCard, rent, own) {
    var saved = rent - own.running;
    return saved > 0 ? pricePerCard / saved : null;
  }

  /* One row of the table at these inputs. */
  function computeRow(row, inputs, monthHours) {
    checkInputs(inputs);
    var own = ownMonth(row.price_per_card, row.power_w, inputs, monthHours);
    var best = cheapestRent(row.offers, inputs, monthHours);
    if (best === null) return null;
    return { own: own, rent: best.rent, offer: best.offer.id, breakEven: breakEven(row.price_per_card, best.rent, own) };
  }

  var api = { LIMITS: LIMITS, inputProblem: inputProblem, checkInputs: checkInputs, hoursPerMonth: hoursPerMonth, ownMonth: ownMonth, rentMonth: rentMonth,
    cheapestRent: cheapestRent, breakEven: breakEven, computeRow: computeRow };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  }
  if (typeof document === "undefined") return;
  root.gpuOwnership = api;

  /* ------------------------------------------------------------------ the page */

  /* The form's fields; each is checked against LIMITS (shown in the field's own unit: 残值 in %). */
  var FIELDS = [
    { id: "own-hours", key: "hours_per_day", name: "每天使用小时", scale: 1 },
    { id: "own-years", key: "years", name: "持有年限", scale: 1 },
    { id: "own-price", key: "electricity_cny_per_kwh", name: "电价", scale: 1 },
    { id: "own-pue", key: "pue", name: "PUE", scale: 1 },
    { id: "own-resale", key: "resale_fraction", name: "残值", scale: 0.01 },
    { id: "own-hosting", key: "hosting_cny_per_kw_month", name: "托管", scale: 1 }
  ];

  function shown(value, scale) {
    return Math.round(value / scale * 1e9) / 1e9;
  }

  function yuan(v) {
    return "¥" + Math.round(v).toLocaleString("en-US");
  }

  /* The inputs, or the first problem: a message for the reader, never a silent clamp. */
  function readInputs() {
    var inputs = {};
    for (var i = 0; i < FIELDS.length; i++) {
      var f = FIELDS[i];
      var el = document.getElementById(f.id);
      var text = (el.value || "").trim();
      var v = Number(text);
      var l = LIMITS[f.key];
      if (text === "" || inputProblem(f.key, v * f.scale) !== null) {
        el.setAttribute("aria-invalid", "true");
        var range = (l[2] ? "大于 " : "不小于 ") + shown(l[0], f.scale) + "、不大于 " + shown(l[1], f.scale);
        return { error: f.name + "要填 " + range + " 的数字，现在是“" + text + "”。", field: el };
      }
      el.removeAttribute("aria-invalid");
      inputs[f.key] = v * f.scale;
    }
    return { inputs: inputs };
  }

  function setCell(index, name, text) {
    var el = document.querySelector('[data-own="' + index + '"][data-cell="' + name + '"]');
    if (el) el.textContent = text;
  }

  function update(data) {
    var read = readInputs();
    var message = document.getElementById("own-message");
    data.rows.forEach(function (row, index) {
      var r = read.error ? null : computeRow(row, read.inputs, data.hours_per_month);
      setCell(index, "own", r ? yuan(r.own.total) : "—");
      setCell(index, "rent", r ? yuan(r.rent) : "—");
      setCell(index, "break-even", r ? (r.breakEven === null ? "不会回本" : Math.round(r.breakEven).toLocaleString("en-US") + " 个月") : "—");
      setCell(index, "cheaper", r ? (r.own.total < r.rent ? "买" : "租") : "—");
      setCell(index, "depreciation", r ? yuan(r.own.depreciation) : "—");
      setCell(index, "power", r ? yuan(r.own.power) : "—");
      setCell(index, "hosting", r ? yuan(r.own.hosting) : "—");
    });
    message.textContent = read.error || "";
  }

  function init() {
    var script = document.getElementById("own-data");
    var form = document.getElementById("own-form");
    if (!script || !form || form.hasAttribute("data-ready")) return;
    form.setAttribute("data-ready", "");
    var data = JSON.parse(script.textContent);
    form.addEventListener("input", function () { update(data); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
  }

  if (root.document$ && typeof root.document$.subscribe === "function") {
    root.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})(typeof window !== "undefined" ? window : this);
