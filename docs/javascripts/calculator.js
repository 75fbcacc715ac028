/* Hand-written. The picker and cost calculator (calculator page).
 * Reads the JSON the generator embeds in <script id="calc-data"> and prices a month for
 * the reader's own hours, disk and traffic. The pricing mirrors generator/engine/cost.py
 * (monthly_cost, cheapest; matching_offers comes precomputed); tests/test_browser.py checks that both give
 * the same yuan. All text goes into the page through textContent, never innerHTML. */
(function () {
  "use strict";

  function yuan(v) {
    return "¥" + Math.round(v).toLocaleString("en-US");
  }

  /* generator.cost.monthly_cost */
  function monthlyCost(offer, cards, hours, disk, egress, publicIp, rates) {
    var instances = Math.ceil(cards / offer.cards);
    var rent;
    if (offer.monthly) {
      rent = offer.price * instances;
    } else {
      var block = offer.unit_hours;
      var billed = Math.ceil(hours / block) * block;
      rent = (offer.price / block) * billed * instances;
    }
    var other = disk * rates.disk_cny_per_gb_month + egress * rates.egress_cny_per_gb +
      (publicIp ? rates.public_ip_cny_month * instances : 0);
    return { offer: offer, instances: instances, rent: rent, other: other, total: rent + other };
  }

  /* generator.engine.cost.matching_offers, precomputed by the generator per GPU, delivery
   * form and card count (current offers in the billing tiers that may rank a pick). */
  function matchingOffers(data, gpu, delivery, cards) {
    return (data.matching[gpu + "|" + delivery + "|" + cards] || []).map(function (id) { return data.offers[id]; });
  }

  /* generator.cost.cheapest */
  function cheapest(data, gpu, delivery, cards, hours, disk, egress, publicIp) {
    var best = null;
    matchingOffers(data, gpu, delivery, cards).forEach(function (o) {
      var c = monthlyCost(o, cards, hours, disk, egress, publicIp, data);
      var key = Math.round(c.total * 1e6) / 1e6;
      if (best === null || key < best.key || (key === best.key && o.id < best.cost.offer.id)) {
        best = { key: key, cost: c };
      }
    });
    return best && best.cost;
  }

  function number(input, fallback) {
    var v = parseFloat(input.value);
    return isFinite(v) && v >= 0 ? v : fallback;
  }

  function cell(row, text) {
    var td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function init() {
    var holder = document.getElementById("calc-data");
    var root = document.getElementById("gpu-calc");
    if (!holder || !root || root.hasAttribute("data-ready")) return;
    root.setAttribute("data-ready", "");
    var data = JSON.parse(holder.textContent);
    var $ = function (id) { return document.getElementById(id); };
    var select = $("calc-workload");
    data.workloads.forEach(function (w) {
      var opt = document.createElement("option");
      opt.value = w.id;
      opt.textContent = w.label;
      select.appendChild(opt);
    });
    var params = new URLSearchParams(window.location.search);
    if (params.get("w")) select.value = params.get("w");
    $("calc-hours").value = params.get("hours") || data.hours_per_month;

    function render() {
      var w = data.workloads.filter(function (x) { return x.id === select.value; })[0] || data.workloads[0];
      var hours = Math.min(number($("calc-hours"), data.hours_per_month), 744);
      var disk = number($("calc-disk"), 0), egress = number($("calc-egress"), 0);
      var publicIp = $("calc-ip").checked, domestic = $("calc-domestic").checked;
      var budget = parseFloat($("calc-budget").value);
      var rows = [];
      w.options.forEach(function (o) {
        if (domestic && !data.gpus[o.gpu].domestic) return;
        var c = cheapest(data, o.gpu, o.delivery, o.cards, hours, disk, egress, publicIp);
        if (!c) return;
        if (isFinite(budget) && budget > 0 && c.total > budget) return;
        var job = o.job_hours === null ? null :
          (c.offer.price / c.offer.unit_hours) * c.instances * (o.job_hours / c.offer.keep);
        rows.push({ o: o, c: c, job: job });
      });
      rows.sort(function (a, b) {
        var ka = w.training && a.job !== null ? a.job : a.c.total;
        var kb = w.training && b.job !== null ? b.job : b.c.total;
        return ka - kb || a.c.total - b.c.total || a.o.cards - b.o.cards || (a.o.gpu < b.o.gpu ? -1 : 1);
      });
      var body = $("calc-table").tBodies[0];
      while (body.firstChild) body.removeChild(body.firstChild);
      rows.forEach(function (r, i) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-gpu", r.o.gpu);
        cell(tr, String(i + 1));
        cell(tr, data.gpus[r.o.gpu].name);
        cell(tr, String(r.o.cards));
        cell(tr, r.o.per_card_gib.toFixed(1) + " GiB");
        cell(tr, data.delivery_names[r.o.delivery]);
        var form = r.c.offer.delivery === r.o.delivery ? "" :
          r.c.offer.delivery === "unspecified" ? "（未注明交付形式）" :
          r.c.offer.delivery === "vm" ? "（云服务器）" : "（按裸金属整机计价）";
        cell(tr, r.c.offer.label + form);
        cell(tr, yuan(r.c.rent));
        cell(tr, yuan(r.c.other));
        cell(tr, yuan(r.c.total)).setAttribute("data-total", r.c.total.toFixed(2));
        cell(tr, r.job === null ? "—" : yuan(r.job));
        body.appendChild(tr);
      });
      $("calc-summary").textContent = rows.length
        ? "最省钱：" + data.gpus[rows[0].o.gpu].name + " × " + rows[0].o.cards + "，每月约 " + yuan(rows[0].c.total) +
          (w.training && rows[0].job !== null ? "，参照任务（" + w.job_tokens_b + "B token）租金约 " + yuan(rows[0].job) : "")
        : "没有满足条件的方案。";
    }

    root.querySelector("form").addEventListener("submit", function (e) { e.preventDefault(); });
    root.querySelectorAll("input, select").forEach(function (el) {
      el.addEventListener("input", render);
      el.addEventListener("change", render);
    });
    render();
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
