/* Hand-written. The calculator page: the form, the URL and the results.
 *
 * The numbers come from ./engine/ (a port of generator/engine and of `gpu-guide recommend`'s
 * request building; tests/test_calculator_parity.py compares both on hundreds of inputs) over
 * the JSON the generator embeds in <script id="calc-data">. That JSON holds the model the form starts
 * with, whole, and the catalogue's first few others with what the list shows (name, kind, size, default
 * precision); every model, architecture included, is one static file (data.architectures.path, under
 * the site's root), fetched after the first calculation, or before it when a link names another
 * model, and then added to the list. The form's state is the query of
 * `recommend` flags: a field left empty is a flag left out (the engine's default, shown grey in
 * the box), hidden fields are never sent, and the address bar always holds the query, so a
 * copied link reproduces the result. All text reaches the page through textContent. */
import { cardCounts, estimate, usableGib } from "./engine/memory.js";
import { cny, fixed, grouped } from "./engine/py.js";
import { readHfConfig } from "./engine/hfconfig.js";
import { ARCH_FLAGS, KNOWN, VARIANT_FLAGS, catalogue, defaultPrecision, recommendResult } from "./engine/workload.js";
import { idleCards } from "./engine/recommend.js";
import { explain as explainRecord } from "./messages.js";

/** Cards in words, as the pages print them (Option.cards_label): "4", "8（用满整机）", "1（整机 8 张，7 张闲置）". */
function cardsText(o) {
  if (o.cards === null) return "—";
  if (!o.cards_billed || o.cards_billed === o.cards) return String(o.cards);
  const idle = idleCards(o);
  if (idle === 0) {
    return o.replicas === 1 ? `${o.cards_used}（用满整机）` : `${o.cards}（整机 ${o.cards_billed} 张，${o.replicas} 份副本）`;
  }
  return `${o.cards}（整机 ${o.cards_billed} 张，${idle} 张闲置）`;
}

/** What whole-machine billing means for the pick, in one clause. */
function billedText(o) {
  const idle = idleCards(o);
  if (idle) return `报价按整机 ${o.cards_billed} 张卡计费，其中 ${idle} 张闲置`;
  if (o.replicas > 1) return `整机 ${o.cards_billed} 张卡同时跑 ${o.replicas} 份模型副本`;
  return `整机 ${o.cards_billed} 张卡全部用上`;
}

/** Precisions offered per kind of job (the engine accepts others a link may carry). */
const PRECISION_CHOICES = {
  inference: ["bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "q4_k_m", "q8_0", "iq1_s", "fp32"],
  image: ["fp16", "bf16", "fp32", "fp8"],
  lora: ["bf16", "fp16", "mixed", "fp32", "int8", "int4"],
  qlora: ["nf4", "bf16", "fp16"],
  full: ["mixed", "bf16", "fp16", "fp32"],
  pretrain: ["mixed", "bf16", "fp16", "fp32"],
};
const PRECISION_HINT = { qlora: "计算精度（底座固定按 NF4 存储）" };
/** The label when the precision a model is served in by default is its published weights' (flags.default_precision). */
const CHECKPOINT_HINT = "精度（默认按官方发布的权重格式）";
/** Text fields in the order the URL lists them. */
const VARIANTS = VARIANT_FLAGS.map(([f]) => f);
const TEXT_FLAGS = ["params", ...ARCH_FLAGS, ...VARIANTS, "max-context", "experts", "experts-per-token", "active-params", "batch", "context",
  "prompt-tokens", "output-tokens", "resolution", "steps", "images-per-month", "job-tokens", "deadline-days", "lora-rank", "hours-per-month", "disk-gb", "egress-gb",
  "budget"];
const SELECT_FLAGS = ["runtime", "kv-precision", "offload", "optimizer", "zero-stage"];

/** `table[key]` only when `table` has that key itself: a link's value such as "constructor",
 * "__proto__" or "toString" is never read from Object.prototype. */
const own = (table, key) => (Object.hasOwn(table, key) ? table[key] : undefined);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function init() {
  const root = document.getElementById("gpu-calc");
  const holder = document.getElementById("calc-data");
  if (!root || !holder || root.hasAttribute("data-started")) return;
  root.setAttribute("data-started", "");
  const data = JSON.parse(holder.textContent);
  const cat = catalogue(data);
  const $ = (id) => document.getElementById(id);
  const input = (flag) => $("calc-" + flag);
  const form = $("calc-form");
  const defaults = data.rules.defaults;
  /** A form error record (engine/workload.js, hfconfig.js) in words, from the form tables the page ships. */
  const explainForm = (record) => explainRecord(data.messages, data.names.billing, record, "form");
  const gpuName = Object.fromEntries(data.gpus.map((g) => [g.id, g.name]));

  // ------------------------------------------------------------------ the form

  const modelSelect = input("model");
  const custom = el("option", "自己填参数量 / 粘贴 config.json");
  custom.value = "";
  const byId = new Map(data.models.map((m) => [m.id, m]));
  const modelOf = (id) => byId.get(id);
  /** Whether the list holds every model (the page's data, else once the file is here). */
  let listed = !data.architectures || data.architectures.count === data.models.length;

  /** The model list, grouped, in the catalogue's order; keeps the chosen value. */
  function fillModels() {
    const keep = modelSelect.value;
    const groups = { llm: el("optgroup"), diffusion: el("optgroup") };
    groups.llm.label = "语言模型";
    groups.diffusion.label = "图像模型";
    for (const m of data.models) {
      const opt = el("option", m.name + (m.kind === "llm" ? `（${fixed(m.params_b, m.params_b < 10 ? 2 : 1)}B）` : ""));
      opt.value = m.id;
      groups[m.kind].appendChild(opt);
    }
    const rest = el("option", "（其余模型载入中……）");
    rest.disabled = true;
    modelSelect.replaceChildren(...Object.values(groups).filter((g) => g.children.length), ...(listed ? [] : [rest]), custom);
    if (keep !== "") ensureOption(modelSelect, keep);
    else modelSelect.value = "";
  }
  fillModels();

  /** Models whose whole entry (architecture included) the page holds; the others are fetched once. */
  const whole = new Set(data.architectures ? data.architectures.inline : data.models.map((m) => m.id));
  let fetching = null;
  /** Every model, merged into data.models (the engine reads them there) in the file's order and
   * added to the list; a failed fetch is tried again by the next calculation that needs it. */
  function architectures() {
    if (!fetching) {
      // the path is under the site's root: this module is javascripts/calculator.bundle.js
      fetching = fetch(new URL("../" + data.architectures.path, import.meta.url))
        .then((r) => {
          if (!r.ok) throw new Error(`HTTP ${r.status}`);
          return r.json();
        })
        .then((all) => {
          data.models = all.map((a) => Object.assign(byId.get(a.id) || {}, a));
          for (const m of data.models) {
            byId.set(m.id, m);
            whole.add(m.id);
          }
          listed = true;
          fillModels();
        })
        .catch((e) => {
          fetching = null;
          throw e;
        });
    }
    return fetching;
  }
  const kind = () => {
    if (modelSelect.value === "") return "llm";
    const m = modelOf(modelSelect.value);
    return m ? m.kind : "llm";
  };

  /** [precision, source] the engine sizes the chosen model and job in when no precision is sent. */
  const modelDefault = () => defaultPrecision(data, modelSelect.value === "" ? undefined : modelSelect.value, input("workload").value);
  /** That default when the list was last filled: a precision still at it follows a newly chosen model's. */
  let shownDefault = null;

  /** Offer the precisions that fit the job; keep a value a link brought even if it does not. */
  function fillPrecisions(keep) {
    const sel = input("precision");
    const wl = input("workload").value;
    const choices = kind() === "diffusion" ? PRECISION_CHOICES.image : own(PRECISION_CHOICES, wl) || PRECISION_CHOICES.inference;
    const list = keep && !choices.includes(keep) ? [...choices, keep] : choices;
    sel.replaceChildren(...list.map((p) => {
      const o = el("option", own(data.names.precision, p) || p);
      o.value = p;
      return o;
    }));
    sel.value = keep && list.includes(keep) ? keep : choices[0];
    const [fallback, source] = modelDefault();
    shownDefault = fallback;
    const checkpoint = source === "checkpoint";
    $("calc-precision").previousElementSibling.textContent = own(PRECISION_HINT, wl) && kind() !== "diffusion" ? own(PRECISION_HINT, wl)
      : checkpoint ? CHECKPOINT_HINT : "精度";
  }


  /** Add an option for a value the list does not have (a link's typo), so the engine can name it. */
  function ensureOption(sel, value) {
    if (![...sel.options].some((o) => o.value === value)) {
      const o = el("option", `（无法识别：${value}）`);
      o.value = value;
      sel.appendChild(o);
    }
    sel.value = value;
  }

  /** Show the fields that apply: data-when lists conditions that must all hold. */
  function showFields() {
    const wl = input("workload").value;
    const k = kind();
    const on = {
      custom: modelSelect.value === "",
      llm: k === "llm",
      image: k === "diffusion",
      inference: wl === "inference",
      training: wl !== "inference" && k === "llm",
      lora: (wl === "lora" || wl === "qlora") && k === "llm",
    };
    for (const node of root.querySelectorAll("[data-when]")) {
      node.hidden = !node.dataset.when.split(" ").every((c) => on[c]);
    }
    for (const o of input("workload").options) {
      if (o.value === "inference") o.textContent = k === "diffusion" ? "生成图像" : data.names.workload.inference;
      else if (own(data.names.workload, o.value)) o.disabled = k === "diffusion"; // image models are sized for generation only
    }
    const batchLabel = root.querySelector('[data-field="batch"] label');
    batchLabel.textContent = k === "diffusion" ? "每次出图张数" : wl === "inference" ? "并发请求数" : "每卡批大小（条）";
  }

  const visible = (flag) => {
    const wrap = root.querySelector(`[data-field="${flag}"]`);
    if (!wrap) return false;
    for (let n = wrap; n && n !== root; n = n.parentElement) if (n.hasAttribute("hidden")) return false;
    return true;
  };

  /** Digits and signs typed with a Chinese IME come full-width (７, ．, －, ，): read them as ASCII. */
  const halfWidth = (text) => text.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/\u3000/g, " ");

  /** The form as query pairs: visible, non-empty fields only (empty = the engine's default). */
  function collect() {
    const pairs = [["workload", input("workload").value]];
    if (modelSelect.value !== "") pairs.push(["model", modelSelect.value]);
    for (const flag of TEXT_FLAGS) {
      if (flag === "params" && modelSelect.value !== "") continue;
      const box = input(flag);
      if (box && visible(flag) && halfWidth(box.value).trim() !== "") pairs.push([flag, halfWidth(box.value).trim()]);
    }
    const prec = input("precision").value;
    // sent unless it is both rules.yaml's and the model's own default (an FP8 checkpoint's link says fp8)
    if (prec !== defaults.precision || prec !== modelDefault()[0]) pairs.push(["precision", prec]);
    for (const flag of SELECT_FLAGS) if (visible(flag) && input(flag).value !== "") pairs.push([flag, input(flag).value]);
    if (visible("tied-embeddings") && input("tied-embeddings").checked) pairs.push(["tied-embeddings", "1"]);
    if (visible("grad-checkpointing") && input("grad-checkpointing").checked !== defaults.grad_checkpointing) {
      pairs.push([input("grad-checkpointing").checked ? "grad-checkpointing" : "no-grad-checkpointing", "1"]);
    }
    if (input("public-ip").checked !== defaults.public_ip) pairs.push([input("public-ip").checked ? "public-ip" : "no-public-ip", "1"]);
    if (input("require-cuda").checked !== defaults.require_cuda) {
      pairs.push([input("require-cuda").checked ? "require-cuda" : "no-require-cuda", "1"]);
    }
    if (input("domestic-only").checked) pairs.push(["domestic-only", "1"]);
    const tiers = [...root.querySelectorAll('input[name="billing"]')];
    const chosen = tiers.filter((t) => t.checked).map((t) => t.value);
    if (chosen.length !== tiers.length) pairs.push(["billing", chosen.join(",")]);
    // order as the URL shows it: workload and model first, then the rest as the command line lists them
    return pairs;
  }

  /** Put a query's values into the form (a link, or config.json's flags). */
  function apply(pairs) {
    const v = Object.fromEntries(pairs);
    if (v.workload !== undefined) ensureOption(input("workload"), v.workload);
    if (v.params !== undefined && v.model === undefined) modelSelect.value = "";
    else if (v.model !== undefined) ensureOption(modelSelect, v.model);
    for (const flag of TEXT_FLAGS) if (input(flag)) input(flag).value = v[flag] !== undefined ? v[flag] : "";
    fillPrecisions(v.precision || defaultPrecision(data, v.model, v.workload)[0]);
    for (const flag of SELECT_FLAGS) {
      if (v[flag] !== undefined) ensureOption(input(flag), v[flag]);
      else input(flag).value = "";
    }
    const on = (k) => v[k] === "1" || v[k] === "" || v[k] === "true";
    input("tied-embeddings").checked = on("tied-embeddings");
    input("grad-checkpointing").checked = on("grad-checkpointing") ? true : on("no-grad-checkpointing") ? false : defaults.grad_checkpointing;
    input("public-ip").checked = on("public-ip") ? true : on("no-public-ip") ? false : defaults.public_ip;
    input("require-cuda").checked = on("require-cuda") ? true : on("no-require-cuda") ? false : defaults.require_cuda;
    input("domestic-only").checked = on("domestic-only");
    const tiers = v.billing !== undefined ? v.billing.split(",") : null;
    for (const t of root.querySelectorAll('input[name="billing"]')) t.checked = tiers === null || tiers.includes(t.value);
    const arch = ARCH_FLAGS.concat(VARIANTS, ["max-context", "experts", "experts-per-token", "active-params", "tied-embeddings"]);
    $("calc-arch").open = arch.some((f) => v[f] !== undefined);
    showFields();
  }

  // ------------------------------------------------------------------ results

  const summary = $("calc-summary");
  const table = $("calc-table");
  const body = table.tBodies[0];
  const excludedBox = $("calc-excluded");

  function clearErrors() {
    for (const p of root.querySelectorAll(".gpu-calc__error")) p.textContent = "";
    for (const n of root.querySelectorAll("[aria-invalid]")) n.removeAttribute("aria-invalid");
  }

  /** Messages beside their fields; those of hidden or unknown fields go to the summary. */
  function showErrors(errors) {
    const loose = [];
    for (const e of errors) {
      const slot = $(`calc-${e.field}-error`);
      const message = e.record ? explainForm(e.record) : e.message; // the engine's records, the page's own words
      if (slot && visible(e.field)) {
        slot.textContent = message;
        const box = input(e.field);
        if (box) box.setAttribute("aria-invalid", "true");
      } else {
        loose.push(message);
      }
    }
    summary.className = "gpu-calc__summary gpu-calc__summary--error";
    summary.replaceChildren(el("p", "输入有误，先改正标红的项，才能算出结果。"));
    if (loose.length) {
      const ul = el("ul");
      for (const m of loose) ul.appendChild(el("li", m));
      summary.appendChild(ul);
    }
    body.replaceChildren();
    table.hidden = true;
    excludedBox.hidden = true;
  }

  const deliveryText = (o) => {
    const name = data.names.delivery[o.delivery];
    if (!o.offer) return name;
    return `${name} · ${o.offer.label}`;
  };

  function lastColumn(rec, o) {
    if (rec.training_job || o.job_cost_cny !== null) return o.job_cost_cny !== null ? `${cny(o.job_cost_cny)}（${grouped(o.job_hours, 0)} 小时）` : "—";
    if (o.cost_per_kimage_cny !== null && o.images_per_hour !== null) return `${cny(o.cost_per_kimage_cny, 2)}（每小时 ${grouped(o.images_per_hour, 0)} 张）`;
    const perM = loadCost(o);
    if (perM !== null) return `${cny(perM, 2)}/百万 token`;
    return "—";
  }

  /** ¥ per million tokens at the request's own load (what serving ranks by), else at capacity. */
  const loadCost = (o) => (o.load && o.load.cost_per_mtok_cny !== null ? o.load.cost_per_mtok_cny : o.cost_per_mtok_cny);

  /** What the table is ordered by, in the words of its last column. */
  function orderText(rec, serving, image) {
    if (rec.training_job) return "完成任务的租金";
    if (image) return "每千张图的成本";
    if (serving) return "本负载下每百万 token 的成本";
    return "每月合计";
  }

  /** A reason or exclusion record in words, from the message tables the page ships (messages.js). */
  const explain = (record) => explainRecord(data.messages, data.names.billing, record);
  const explainExclusion = (ex) => explainRecord(data.messages, data.names.billing, ex, "exclusion");

  /** How long a job runs: hours under a day, days (and hours) from a day on; never "0.0 天". */
  const duration = (h) => (h < 24 ? `${grouped(h, 1)} 小时` : `${fixed(h / 24, 1)} 天（${grouped(h, 0)} 小时）`);

  /** The pick's figure the workload is measured by: job rent and time, ¥ per million tokens with
   * TTFT and per-user speed, or images per hour and ¥ per 1,000 images. */
  function measureText(rec, p) {
    if (rec.training_job && p.job_cost_cny !== null && p.job_hours !== null) {
      return `任务约 ${duration(p.job_hours)}，租金约 ${cny(p.job_cost_cny)}`;
    }
    if (p.cost_per_kimage_cny !== null && p.images_per_hour !== null) {
      return `每小时约 ${grouped(p.images_per_hour, 0)} 张图，每千张约 ${cny(p.cost_per_kimage_cny, 2)}`;
    }
    const perM = loadCost(p);
    if (perM !== null) {
      const speed = p.load ? `（首 token 约 ${grouped(p.load.ttft_s, 2)} 秒，每个用户每秒约 ${grouped(p.load.user_tokens_per_s, 1)} token）` : "";
      return `每百万 token 约 ${cny(perM, 2)}${speed}`;
    }
    return data.names.delivery[p.delivery];
  }

  /** The per-card memory estimate as the model pages list it, in a <details> the reader opens. */
  const MEMORY_PARTS = [["weights", "权重"], ["kv_cache", "KV 缓存"], ["activations", "激活值"], ["gradients", "梯度"],
    ["optimizer_states", "优化器状态"], ["transients", "临时缓冲"], ["overhead", "运行时开销"]];
  function memoryDetails(o) {
    const est = o.sizing.estimate;
    const box = el("details", null, "gpu-calc__memory");
    box.appendChild(el("summary", `显存组成：每卡约 ${fixed(est.total_gib, 1)} GiB（可用 ${fixed(o.sizing.usable_gib, 1)} GiB）`));
    const t = el("table", null, "gpu-calc__table gpu-calc__table--plain");
    const tb = el("tbody");
    for (const [key, label] of MEMORY_PARTS) {
      const v = est.breakdown[key] || 0;
      if (v <= 0 && key !== "weights" && key !== "overhead") continue;
      const tr = el("tr");
      tr.dataset.part = key;
      tr.append(el("td", label), el("td", `${fixed(v, 1)} GiB`));
      tb.appendChild(tr);
    }
    const sum = el("tr");
    sum.dataset.part = "total";
    sum.append(el("td", "峰值合计"), el("td", `${fixed(est.total_gib, 1)} GiB`));
    tb.appendChild(sum);
    t.appendChild(tb);
    box.appendChild(t);
    return box;
  }

  function reasonsRow(o, open) {
    const tr = el("tr", null, "gpu-calc__why");
    tr.hidden = !open;
    const td = el("td");
    td.colSpan = 8;
    const ul = el("ul");
    for (const r of o.reasons) ul.appendChild(el("li", explain(r)));
    if (o.excluded) ul.appendChild(el("li", explainExclusion(o.excluded)));
    if (o.runner_ups.length) {
      ul.appendChild(el("li", "其他平台同样配置：" + o.runner_ups.map((u) => `${u.offer.label}，每月约 ${cny(u.monthly.total)}`).join("；")));
    }
    td.appendChild(ul);
    if (o.sizing.estimate && o.sizing.estimate.breakdown) td.appendChild(memoryDetails(o));
    tr.appendChild(td);
    return tr;
  }

  function optionRow(rec, o, rank, isPick, label) {
    const tr = el("tr", null, isPick ? "is-pick" : o.excluded ? "is-over" : "");
    tr.dataset.gpu = o.gpu.id;
    if (o.cards !== null) tr.dataset.cards = String(o.cards);
    const cell = (text, cls, name) => {
      const td = el("td", text, cls);
      if (name) td.dataset.label = name;
      tr.appendChild(td);
      return td;
    };
    cell(label || String(rank), "gpu-calc__rank");
    const g = cell(null, "gpu-calc__gpu");
    const a = el("a", o.gpu.name);
    a.href = `../gpus/${o.gpu.id}/`;
    g.appendChild(a);
    if (isPick) g.appendChild(el("span", "推荐", "gpu-calc__badge"));
    cell(cardsText(o), "", "卡数");
    cell(`${fixed(o.sizing.per_card_gib, 1)} / ${fixed(o.sizing.usable_gib, 1)} GiB`, "", "每卡显存");
    cell(deliveryText(o), "gpu-calc__offer", "交付与报价");
    const m = cell(o.monthly ? cny(o.monthly.total) : "—", "gpu-calc__month", "每月");
    if (o.monthly) m.dataset.total = o.monthly.total.toFixed(2);
    const last = cell(lastColumn(rec, o), "gpu-calc__last", rec.training_job ? "任务租金" : o.images_per_hour !== null ? "每千张图" : "每百万 token");
    if (rec.training_job && o.job_cost_cny !== null) last.dataset.job = o.job_cost_cny.toFixed(2);
    if (!rec.training_job && o.cost_per_kimage_cny === null && loadCost(o) !== null) last.dataset.permtok = loadCost(o).toFixed(4);
    const why = cell(null, "gpu-calc__toggle");
    const button = el("button", isPick ? "收起" : "理由");
    button.type = "button";
    button.setAttribute("aria-expanded", String(isPick));
    why.appendChild(button);
    // other rows' reasons are made when first opened
    let detail = isPick ? reasonsRow(o, true) : null;
    button.addEventListener("click", () => {
      if (detail === null) {
        detail = reasonsRow(o, false);
        tr.after(detail);
      }
      detail.hidden = !detail.hidden;
      button.textContent = detail.hidden ? "理由" : "收起";
      button.setAttribute("aria-expanded", String(!detail.hidden));
    });
    return detail ? [tr, detail] : [tr];
  }

  /** Why nothing qualifies, and the nearest option. */
  function emptyResult(r) {
    const rec = r.rec;
    const box = [el("p", "没有满足全部条件的方案。", "gpu-calc__headline")];
    const over = rec.options.filter((o) => o.monthly && o.excluded && o.excluded.kind === "over_budget");
    const ul = el("ul");
    const counts = new Map();
    for (const o of rec.options) {
      const key = o.excluded.kind === "over_budget" ? `超出月预算 ${cny(r.constraints.budget_cny_month)}` : explainExclusion(o.excluded);
      counts.set(key, (counts.get(key) || []).concat(o.gpu.name));
    }
    for (const [why, gpus] of counts) {
      ul.appendChild(el("li", `${gpus.length} 款卡${why.startsWith("超出") ? "" : "："}${why}${gpus.length <= 3 ? `（${gpus.join("、")}）` : ""}`));
    }
    box.push(ul);
    let nearest = null;
    if (over.length) {
      nearest = over[0]; // ranked: the cheapest that fits and has a price
      const extra = nearest.monthly.total - r.constraints.budget_cny_month;
      box.push(el("p", `最接近的方案：${nearest.gpu.name} × ${nearest.cards}，每月约 ${cny(nearest.monthly.total)}，超出预算 ${cny(extra)}。`
        + (r.constraints.usage.hours_per_month > 1 ? "减少每月使用小时或放宽预算就能用上它。" : "")));
    } else {
      const tooBig = rec.options.filter((o) => o.cards === null && o.excluded.kind === "too_big");
      if (tooBig.length) {
        const biggest = tooBig.reduce((a, b) => (b.gpu.memory_gb > a.gpu.memory_gb ? b : a));
        const most = cardCounts(data.rules.memory, data.max_cards).slice(-1)[0];
        const req = { ...r.request, gpus: most };
        const need = estimate(req, data.rules.memory).total_gib;
        box.push(el("p", `最接近的是显存最大的 ${biggest.gpu.name}：用 ${most} 张时每张卡仍需约 ${fixed(need, 1)} GiB，`
          + `可用约 ${fixed(usableGib(biggest.gpu.memory_gb, data.rules.memory), 1)} GiB。换更低的精度、更短的上下文或更小的批大小再试。`));
      }
    }
    summary.className = "gpu-calc__summary gpu-calc__summary--empty";
    summary.replaceChildren(...box);
    return nearest;
  }

  function showResult(r) {
    const rec = r.rec;
    const training = r.request.workload !== "inference";
    const serving = !training && r.request.arch.kind === "llm";
    const image = !training && !serving;
    $("calc-last-head").textContent = training ? "任务租金" : serving ? "每百万 token（本负载）" : "每千张图";
    const eligible = rec.options.filter((o) => o.excluded === null);
    const rows = [];
    let nearest = null;
    if (rec.pick) {
      const p = rec.pick;
      // the workload's own measure first, the monthly bill (with its hours) second
      const parts = [`${p.gpu.name} × ${p.cards} 张，${measureText(rec, p)}`,
        `每月约 ${cny(p.monthly.total)}（按每月 ${grouped(p.monthly.hours_used, 0)} 小时），${data.names.delivery[p.delivery]}`];
      if (p.cards_billed && p.cards_billed > p.cards) parts.push(billedText(p));
      summary.className = "gpu-calc__summary gpu-calc__summary--pick";
      summary.replaceChildren(el("p", "推荐：" + parts.join("；") + "。", "gpu-calc__headline"),
        el("p", `报价：${p.offer.label}。${eligible.length} 款卡满足条件，按${orderText(rec, serving, image)}从低到高排列${eligible.some((o) => o.unconfirmed_support || o.unconfirmed_speed) ? "（依据未确认支持或未确认速度数字的方案排在已确认的之后）" : ""}。`
          + (training && !rec.training_job ? "填上要训练的 token 数，就能算出整个任务的租金并按它排序。" : "")));
    } else {
      nearest = emptyResult(r);
    }
    eligible.forEach((o, i) => rows.push(...optionRow(rec, o, i + 1, i === 0)));
    if (nearest) rows.push(...optionRow(rec, nearest, 0, false, "超预算"));
    body.replaceChildren(...rows);
    table.hidden = rows.length === 0;

    const excluded = rec.options.filter((o) => o.excluded !== null && o !== nearest);
    excludedBox.hidden = excluded.length === 0;
    excludedBox.querySelector("summary").textContent = `不在候选内的 ${excluded.length} 款卡及原因`;
    excludedBox.querySelector("tbody").replaceChildren(...excluded.map((o) => {
      const tr = el("tr");
      tr.dataset.gpu = o.gpu.id;
      tr.append(el("td", o.gpu.name), el("td", explainExclusion(o.excluded)));
      return tr;
    }));
  }

  function share(pairs) {
    const query = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2C/g, ",")}`).join("&");
    const url = `${location.pathname}?${query}`;
    history.replaceState(null, "", url);
    $("calc-share").hidden = false;
    const link = $("calc-link");
    link.href = url;
    link.textContent = "打开这组输入";
    const words = pairs.map(([k, v]) => (v === "1" && ["require-cuda", "no-require-cuda", "domestic-only", "tied-embeddings", "public-ip",
      "no-public-ip", "grad-checkpointing", "no-grad-checkpointing"].includes(k) ? `--${k}` : `--${k} ${v}`));
    $("calc-cli").textContent = ["gpu-guide recommend", ...words].join(" ");
  }

  /** Counts calculations: one that waited for the architectures runs only if none came after it. */
  let latest = 0;

  /** Calculate for `pairs`; when they name a model whose architecture is still to come, fetch it
   * first (data-state "loading") and return the promise of that calculation. `drawLater`: draw in a
   * later task. */
  function run(pairs, drawLater = false) {
    const named = pairs.find(([k]) => k === "model");
    const ticket = ++latest;
    if (named && !whole.has(named[1]) && (modelOf(named[1]) || !listed)) {
      const known = modelOf(named[1]);
      root.dataset.state = "loading";
      summary.className = "gpu-calc__summary";
      summary.replaceChildren(el("p", "正在载入模型结构数据……"));
      return architectures().then(
        () => {
          if (ticket !== latest) return;
          if (!known) apply(pairs); // a link's model the page did not list: its default precision is here now
          run(pairs);
        },
        () => {
          if (ticket !== latest) return;
          summary.className = "gpu-calc__summary gpu-calc__summary--error";
          summary.replaceChildren(el("p", "模型结构数据没有载入（网络中断？）。刷新页面再试，或选“自己填参数量 / 粘贴 config.json”。"));
          body.replaceChildren();
          table.hidden = true;
          excludedBox.hidden = true;
          root.dataset.state = "error";
        },
      );
    }
    clearErrors();
    if (pairs.some(([k, v]) => k === "billing" && v === "")) {
      // the engine would say 计费方式不认识“”: say what to do instead
      showErrors([{ field: "billing", message: "至少勾选一种计费方式（按小时、按天或按月），才能比较价格。" }]);
      share(pairs);
      root.dataset.state = "error";
      return;
    }
    const r = recommendResult(data, pairs, cat);
    const draw = () => {
      if (ticket !== latest) return;
      if (r.errors.length) showErrors(r.errors);
      else showResult(r);
      share(pairs);
      root.dataset.state = r.errors.length ? "error" : r.rec.pick ? "pick" : "empty";
    };
    if (!drawLater) return draw();
    return new Promise((resolve) => setTimeout(resolve, 0)).then(draw);
  }

  function update() {
    showFields();
    run(collect());
  }

  // ------------------------------------------------------------------ events

  input("workload").addEventListener("change", () => {
    // each workload starts at its own default precision (full fine-tuning: mixed, as the pages use;
    // serving a model released in FP8 or MXFP4: its published weights')
    const [published, source] = modelDefault();
    fillPrecisions(kind() === "diffusion" ? input("precision").value : source === "checkpoint" ? published : undefined);
    update();
  });
  // 只看国产加速卡: domestic accelerators do not run CUDA, so asking for both finds nothing
  input("domestic-only").addEventListener("change", () => {
    if (input("domestic-only").checked) input("require-cuda").checked = false;
  });
  input("require-cuda").addEventListener("change", () => {
    if (input("require-cuda").checked) input("domestic-only").checked = false;
  });
  modelSelect.addEventListener("change", () => {
    const m = modelOf(modelSelect.value);
    if (m && m.kind === "diffusion" && m.pipeline_precision) input("workload").value = "inference";
    showFields();
    // a precision still at the last model's default follows the new model's (Llama BF16 -> Kimi K2 FP8)
    const atDefault = input("precision").value === shownDefault;
    fillPrecisions(m && m.kind === "diffusion" ? m.pipeline_precision : atDefault ? modelDefault()[0] : input("precision").value);
    update();
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  form.addEventListener("input", (e) => {
    if (e.target.id === "calc-config") return;
    update();
  });
  form.addEventListener("change", (e) => {
    if (e.target === modelSelect || e.target === input("workload") || e.target.id === "calc-config") return;
    update();
  });
  $("calc-config-read").addEventListener("click", () => {
    const out = readHfConfig($("calc-config").value);
    const msg = $("calc-config-message");
    if (out.error) {
      msg.textContent = explainForm(out.error);
      msg.className = "gpu-calc__error";
      msg.scrollIntoView({ block: "nearest" });
      return;
    }
    for (const flag of [...ARCH_FLAGS, ...VARIANTS, "max-context", "params", "experts", "experts-per-token", "active-params"]) {
      input(flag).value = out.flags[flag] !== undefined ? out.flags[flag] : "";
    }
    input("tied-embeddings").checked = out.flags["tied-embeddings"] === "1";
    $("calc-arch").open = true;
    msg.className = "gpu-calc__note";
    msg.textContent = `读到 ${grouped(out.total, 0)} 个参数（${fixed(out.total / 1e9, 2)}B），已填入参数量和结构。${out.note ? explainForm(out.note) : ""}`;
    update();
    msg.scrollIntoView({ block: "nearest" });
  });
  $("calc-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $("calc-copied").textContent = "已复制";
    } catch (e) {
      $("calc-copied").textContent = "复制失败，请直接复制地址栏";
    }
  });

  // ------------------------------------------------------------------ start: the link's inputs, else the default

  const linked = [...new URLSearchParams(location.search)].filter(([k]) => KNOWN.has(k));
  const start = linked.length ? linked : data.start;
  apply(start);
  // first result: calculated, then drawn, each in a task of its own (short main-thread tasks: TBT).
  // Ready once it is shown and every architecture is here (or could not be fetched)
  new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => (latest === 0 ? run(start, true) : null)) // unless an input changed meanwhile
    .then(() => (data.architectures ? architectures() : null))
    .catch(() => {})
    .finally(() => root.setAttribute("data-ready", ""));
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
