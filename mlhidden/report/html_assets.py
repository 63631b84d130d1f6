"""The results page's inline CSS and JavaScript (sorting, the precision toggle, the view selector,
unfolding the folded sections).

Kept apart from :mod:`mlhidden.report.html`, which writes the page's HTML, so that each stays short.
"""

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;background:#fff}
header{position:sticky;top:0;z-index:2;background:#f4f6f8;border-bottom:1px solid #ccd;padding:.5em 1.2em;
display:flex;flex-wrap:wrap;gap:1.2em;align-items:center}
header h1{font-size:1.15em;margin:0;flex:1 1 20em}
main{padding:0 1.2em 3em;max-width:100em;overflow-wrap:break-word}
section{margin-top:1em;scroll-margin-top:3.5em}
section>details>summary{cursor:pointer;border-bottom:1px solid #dde;padding:.2em 0}
h2{font-size:1.1em;display:inline;margin:0}
.scope{background:#fff8e1;border-left:4px solid #e0a800;padding:.4em .7em;margin:.6em 0}
h3{font-size:1em;margin:1.2em 0 .4em}
nav.toc{font-size:.9em;margin:.8em 0}nav.toc a{margin-right:1em}
table{border-collapse:collapse;margin:.4em 0 .2em;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.2em 0}
th,td{border:1px solid #dde;padding:.15em .5em;text-align:right;vertical-align:top}
th:first-child,td.text{text-align:left}
thead th{background:#eef1f5;text-align:left}thead th[data-sort=num]{text-align:right}
caption{white-space:nowrap}
.tables{display:flex;flex-wrap:wrap;gap:.4em 2.5em;align-items:flex-start}
.scroll{overflow-x:auto;max-width:100%;min-width:0}
th[data-sort]{cursor:pointer;user-select:none}
th[data-sort]::after{content:" \\2195";color:#99a}
th[aria-sort=ascending]::after{content:" \\25B2";color:#333}
th[aria-sort=descending]::after{content:" \\25BC";color:#333}
tfoot td,tfoot th{background:#f7f7f7;font-weight:600}
td.best{font-weight:700;background:#e8f3e8}
td.failed{color:#b00}
.rank{color:#777;font-size:.85em;margin-left:.3em}
.mark{color:#a60;margin-left:.2em}
.note{color:#555;font-size:.9em}
ul.notes{font-size:.85em;color:#555;margin:.2em 0 1em}
.plots{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.plots>*,.tables>*{min-width:0;max-width:100%}
figure{margin:0;max-width:100%}svg,img{max-width:100%;height:auto}
pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.8em;max-height:30em}
.good{color:#176317;font-weight:600}.bad{color:#b00;font-weight:600}
"""

JS = """
(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) { return null; }
    var v = cell.getAttribute("data-v");
    if (numeric) { return v === null || v === "" ? null : parseFloat(v); }
    return v !== null ? v : cell.textContent.trim();
  }
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-sort") === "num";
    var first = numeric && th.getAttribute("data-better") === "high" ? "descending" : "ascending";
    var now = th.getAttribute("aria-sort");
    var order = now ? (now === "ascending" ? "descending" : "ascending") : first;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column], numeric), y = key(b.cells[column], numeric);
      var tie = a.getAttribute("data-order") - b.getAttribute("data-order");
      if (x === null || y === null) { return x === y ? tie : (x === null ? 1 : -1); }
      var c = numeric ? x - y : String(x).localeCompare(String(y));
      return c === 0 ? tie : (order === "ascending" ? c : -c);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    th.parentNode.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", order);
  }
  document.querySelectorAll("th[data-sort]").forEach(function (th) {
    th.tabIndex = 0;
    th.addEventListener("click", function () { sortBy(th); });
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(th); } });
  });
  var precision = document.getElementById("precision");
  if (precision) {
    precision.addEventListener("change", function () {
      document.querySelectorAll("[data-p]").forEach(function (el) {
        var digits = precision.value === "auto" ? el.getAttribute("data-d") : precision.value;
        var value = parseFloat(el.getAttribute("data-p"));
        var sign = el.hasAttribute("data-signed") && value >= 0 ? "+" : "";
        el.textContent = sign + value.toFixed(parseInt(digits, 10));
      });
    });
  }
  function unfold(element) {
    var own = element && element.querySelector(":scope > details");
    if (own) { own.open = true; }
    for (var e = element; e; e = e.parentElement) {
      if (e.tagName === "DETAILS") { e.open = true; }
    }
  }
  var unfoldAll = document.getElementById("unfold");
  if (unfoldAll) {
    unfoldAll.addEventListener("click", function () {
      document.querySelectorAll("section>details").forEach(function (d) { d.open = true; });
    });
  }
  document.addEventListener("click", function (e) {
    var link = e.target.closest("a[href^='#']");
    if (link) { unfold(document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)))); }
  });
  if (location.hash) { unfold(document.getElementById(decodeURIComponent(location.hash.slice(1)))); }
  var view = document.getElementById("view");
  if (view) {
    var show = function () {
      document.querySelectorAll("div.view").forEach(function (div) {
        div.hidden = div.getAttribute("data-view") !== view.value;
      });
    };
    view.addEventListener("change", show);
    show();
  }
}());
"""
