#include "pkg/simulate/html_report_assets.h"

namespace ksched::simulate {

const char kHtmlReportStyle[] = R"css(
:root { --fg: #1b1f24; --muted: #5b636d; --line: #d5dae0; --ok: #1a7f37; --bad: #b42318;
        --chosen: #fff4c2; --head: #f3f5f7; --before: #9db8d9; --after: #2f6db5; --over: #b42318; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 1.5rem; max-width: 1400px; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1rem; margin: 1.5rem 0 .4rem; }
.meta { color: var(--muted); margin: 0 0 .5rem; }
.summary span { display: inline-block; margin-right: 1.25rem; }
.summary b { font-size: 1.1rem; }
.warn { background: #fdecea; border-left: 4px solid var(--bad); padding: .5rem .75rem; }
table { border-collapse: collapse; margin: .25rem 0 .5rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--head); white-space: nowrap; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \2195"; color: var(--muted); font-size: .8em; }
table.sortable th[aria-sort="ascending"]::after { content: " \25B2"; color: var(--fg); }
table.sortable th[aria-sort="descending"]::after { content: " \25BC"; color: var(--fg); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { color: var(--ok); }
td.fail { color: var(--bad); }
td.skip { color: var(--muted); }
td.pending, td.evicted { color: var(--bad); font-weight: 600; }
tr.chosen td { background: var(--chosen); font-weight: 600; }
.marker { display: inline-block; background: #e0a800; color: #1b1f24; border-radius: 3px;
          padding: 0 .35rem; margin-right: .35rem; font-size: .8em; }
.cell-detail { color: var(--muted); font-size: .85em; white-space: nowrap; }
ul.reasons { margin: .25rem 0 .5rem 1.25rem; padding: 0; }
.note { color: var(--muted); font-size: .9em; }
svg text { font: 12px system-ui, sans-serif; fill: var(--fg); }
svg .track { fill: #eef1f4; }
svg .before { fill: var(--before); }
svg .after { fill: var(--after); }
svg .over { fill: var(--over); }
)css";

const char kHtmlReportScript[] = R"js(
(function () {
  'use strict';
  function key(cell, numeric) {
    var v = cell ? cell.getAttribute('data-v') : null;
    if (v === null) v = cell ? cell.textContent : '';
    if (!numeric) return v;
    var n = v === '' ? NaN : Number(v);
    return isNaN(n) ? -Infinity : n;
  }
  function sortBy(table, th) {
    var col = th.cellIndex;
    var numeric = th.getAttribute('data-type') === 'num';
    var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');
    th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (r, i) {
      return { row: r, at: i, k: key(r.cells[col], numeric) };
    });
    rows.sort(function (a, b) {
      var c = numeric ? (a.k < b.k ? -1 : (a.k > b.k ? 1 : 0)) : String(a.k).localeCompare(String(b.k));
      return c !== 0 ? c * dir : a.at - b.at;
    });
    rows.forEach(function (x) { body.appendChild(x.row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      th.addEventListener('click', function () { sortBy(table, th); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, th); }
      });
    });
  });
})();
)js";

}  // namespace ksched::simulate
