/* The header search box, backed by Pagefind (site/pagefind/, written by `gpu-guide build`).
 *
 * Nothing is fetched until the reader opens the box: then pagefind.js and its small entry
 * file load, and each query fetches only the index chunks its words live in (a few dozen KiB)
 * plus the excerpts of the results shown. Results are grouped by page kind (the
 * data-pagefind-meta "kind" the theme sets), groups ordered by their best match, so the
 * best page overall is always the first link.
 *
 * The order is Pagefind's, under the ranking options the search box carries
 * (data-pagefind-options) and the title weight each page kind sets at index time
 * (templates/overrides/main.html): a generic query ("推理") ranks the guide or scenario page
 * above the per-model pages that share its words. On top of it, pages named for the query
 * (their title holds every word) come first, by their kind's rank, then shortest title.
 */
(function () {
  "use strict";
  var input = document.getElementById("gg-search-input");
  var box = document.getElementById("gg-search-results");
  var toggle = document.getElementById("__search");
  if (!input || !box) return;
  var meta = box.querySelector(".md-search-result__meta");
  var list = box.querySelector(".md-search-result__list");
  var base = input.getAttribute("data-pagefind-base") || "/pagefind/";
  /* Results whose excerpts are fetched (one fragment file each, about 3 KB): also the window in which
   * pages named for the query are moved first (titledFirst). Under the box's ranking (termFrequency 0)
   * a generic 显存 has its guide page (指标怎么看, 显存带宽) 16th to 21st, behind per-model pages that
   * all say "需要多少显存", as their text changes; the window is 30 for a margin. */
  var SHOWN = 30;
  var OPTIONS = JSON.parse(input.getAttribute("data-pagefind-options") || "{}");
  var GLUE = { "和": 1, "与": 1, "跟": 1, "对比": 1, "vs": 1, "哪个好": 1, "的": 1 };
  var loading = null;
  var latest = 0;

  function pagefind() {
    if (!loading) {
      loading = import(new URL("pagefind.js", new URL(base, document.baseURI)).href).then(function (pf) {
        // the options' reasons are written beside them, in templates/overrides/partials/search.html
        return pf.options(OPTIONS).then(function () {
          pf.init();
          return pf;
        });
      });
    }
    return loading;
  }

  function text(tag, cls, content) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (content !== undefined) el.textContent = content;
    return el;
  }

  function render(query, items, total) {
    list.textContent = "";
    if (!items.length) {
      meta.textContent = "没有找到与“" + query + "”相关的页面";
      return;
    }
    meta.textContent = "找到 " + total + " 个相关页面" + (total > items.length ? "，显示最相关的 " + items.length + " 个" : "");
    var groups = [];
    var byKind = {};
    items.forEach(function (d) {
      var kind = (d.meta && d.meta.kind) || "指南";
      if (!byKind[kind]) {
        byKind[kind] = [];
        groups.push(kind);
      }
      byKind[kind].push(d);
    });
    groups.forEach(function (kind) {
      var li = text("li", "md-search-result__item gg-search-group");
      li.appendChild(text("div", "gg-search-kind", kind));
      byKind[kind].forEach(function (d) {
        var a = text("a", "md-search-result__link");
        a.href = d.url;
        var art = text("article", "md-search-result__article md-typeset");
        art.appendChild(text("h3", null, (d.meta && d.meta.title) || d.url));
        var p = text("p");
        // Pagefind's excerpt is the page's own text with matches wrapped in <mark>; rebuild it as nodes.
        String(d.excerpt || "").split(/(<mark>[\s\S]*?<\/mark>)/).forEach(function (part) {
          var m = /^<mark>([\s\S]*)<\/mark>$/.exec(part);
          if (m) p.appendChild(text("mark", null, decode(m[1])));
          else p.appendChild(document.createTextNode(decode(part)));
        });
        art.appendChild(p);
        a.appendChild(art);
        li.appendChild(a);
      });
      list.appendChild(li);
    });
  }

  /* Pages whose title holds every word of the query come first: by their kind's rank (meta
   * "rank": guides and scenarios 0, GPU, comparison and provider pages 1, model pages 2), then
   * shortest title ("4090 价格" → the RTX 4090's price page, not the 4090 D's), then Pagefind's
   * order; the rest keep Pagefind's order. */
  function titledFirst(query, items) {
    var words = query.toLowerCase().split(/\s+/).filter(function (w) { return w && !GLUE[w]; });
    var named = [];
    var rest = [];
    items.forEach(function (d, i) {
      var title = ((d.meta && d.meta.title) || "").toLowerCase();
      var all = words.length > 0 && words.every(function (w) { return title.indexOf(w) >= 0; });
      var rank = Number((d.meta && d.meta.rank) || 0);
      (all ? named : rest).push({ d: d, i: i, n: title.length, r: rank });
    });
    named.sort(function (a, b) { return a.r - b.r || a.n - b.n || a.i - b.i; });
    return named.concat(rest).map(function (x) { return x.d; });
  }

  function decode(s) {
    var t = document.createElement("textarea");
    t.innerHTML = s;
    return t.value;
  }

  function run() {
    var query = input.value.trim();
    var ticket = ++latest;
    if (!query) {
      list.textContent = "";
      meta.textContent = "输入关键词，例如 4090 价格、LoRA 微调、昇腾";
      return;
    }
    meta.textContent = "正在搜索…";
    var total = 0;
    pagefind()
      .then(function (pf) {
        return pf.debouncedSearch(query, {}, 150);
      })
      .then(function (found) {
        if (ticket !== latest || !found) return null;
        total = found.results.length;
        return Promise.all(found.results.slice(0, SHOWN).map(function (r) { return r.data(); }));
      })
      .then(function (items) {
        if (items && ticket === latest) render(query, titledFirst(query, items), total);
      })
      .catch(function () {
        if (ticket === latest) meta.textContent = "搜索索引没有加载成功，请刷新页面再试";
      });
  }

  input.addEventListener("input", run);
  if (input.form) input.form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
  input.addEventListener("focus", function () {
    // Material's CSS shows the results panel while #__search is checked (its own search code sets it).
    if (toggle && !toggle.checked) toggle.checked = true;
    pagefind();
  });
  if (toggle) {
    toggle.addEventListener("change", function () {
      if (toggle.checked) setTimeout(function () { input.focus(); }, 50);
    });
  }
  document.addEventListener("keydown", function (e) {
    if (!toggle) return;
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test((e.target && e.target.tagName) || "");
    if ((e.key === "/" || e.key === "s") && !typing && !toggle.checked) {
      e.preventDefault();
      toggle.checked = true;
      toggle.dispatchEvent(new Event("change"));
    } else if (e.key === "Escape" && toggle.checked) {
      toggle.checked = false;
      input.blur();
    }
  });
})();
