/* Hand-written. Makes every content table sortable by clicking a header.
 * Numbers are read from the cell text ("¥6,000–9,000" sorts by 6000, "—" sorts last),
 * so generated Markdown tables need no extra markup. Works with Material's instant
 * navigation through document$ when present. */
(function () {
  "use strict";

  function cellValue(cell) {
    var text = (cell.textContent || "").trim();
    if (text === "" || text === "—") return null;
    var m = text.replace(/,/g, "").match(/-?\d+(?:\.\d+)?/);
    return m ? parseFloat(m[0]) : text.toLowerCase();
  }

  function compare(a, b, dir) {
    if (a === null && b === null) return 0;
    if (a === null) return 1;           /* missing values always last */
    if (b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return dir * (a - b);
    return dir * String(a).localeCompare(String(b), "zh");
  }

  function makeSortable(table) {
    if (table.hasAttribute("data-sortable") || !table.tHead) return;
    table.setAttribute("data-sortable", ""); /* not a class: Material styles table:not([class]) */
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      /* an empty header cell (a comparison table's row-label column) has no name to sort by:
         leave it a plain cell rather than an unnamed button */
      if ((th.textContent || "").trim() === "") return;
      th.setAttribute("role", "button");
      th.setAttribute("tabindex", "0");
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          return compare(cellValue(r1.cells[index]), cellValue(r2.cells[index]), dir);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", function (e) {
        /* a link inside the header (the ladder's ⓘ to the explainer) navigates, it does not sort */
        if (e.target && e.target.closest && e.target.closest("a")) return;
        sort();
      });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  }

  function init() {
    document.querySelectorAll("article table").forEach(makeSortable);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
