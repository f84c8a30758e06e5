// The admin page: drift rates per time bucket from /v1/admin/drift as an inline SVG line
// chart, their totals, and the recent request log.
"use strict";
const SERIES = [
  ["abstention", "#d62728"], ["below_gate", "#ff7f0e"], ["empty_retrieval", "#1f77b4"],
  ["citation_failure", "#9467bd"], ["rerank_timeout", "#8c564b"], ["negative_feedback", "#2ca02c"],
];
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function chart(series) {
  const W = 760, H = 260, L = 44, R = 150, T = 10, B = 30;
  const root = svg("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                           "aria-label": "drift rates over time", id: "drift-chart"});
  const n = series.length;
  const x = (i) => L + (n <= 1 ? 0 : i * (W - L - R) / (n - 1));
  const top = Math.max(0.1, ...series.flatMap((b) => SERIES.map(([k]) => b.rates[k] || 0)));
  const y = (v) => T + (H - T - B) * (1 - v / top);
  for (let g = 0; g <= 4; g++) {
    const v = top * g / 4;
    root.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e3e3e3"}),
                svg("text", {x: 2, y: y(v) + 4}, `${(100 * v).toFixed(top < 0.2 ? 1 : 0)}%`));
  }
  series.forEach((b, i) => {
    if (i % Math.ceil(n / 8) === 0) {
      root.append(svg("text", {x: x(i) - 16, y: H - 8},
                      new Date(b.start * 1000).toISOString().slice(5, 10)));
    }
  });
  SERIES.forEach(([key, color], j) => {
    const pts = series.map((b, i) => `${x(i).toFixed(1)},${y(b.rates[key] || 0).toFixed(1)}`);
    root.append(svg("polyline", {points: pts.join(" "), fill: "none", stroke: color,
                                 "stroke-width": 2, "data-rate": key}));
    root.append(svg("rect", {x: W - R + 10, y: T + 16 * j, width: 10, height: 10, fill: color}),
                svg("text", {x: W - R + 26, y: T + 9 + 16 * j}, key.replace("_", " ")));
  });
  return root;
}

async function load() {
  const [window, bucket] = document.getElementById("window").value.split("|");
  const err = document.getElementById("error");
  err.hidden = true;
  try {
    const d = await cw.api(`/v1/admin/drift?window=${window}&bucket=${bucket}`);
    document.getElementById("chart").replaceChildren(chart(d.series));
    const t = d.total;
    document.getElementById("totals").replaceChildren(cw.el("p", {},
      `${t.requests} requests (${t.asks} asks) in ${window}: ` +
      Object.entries(t.rates).map(([k, v]) => `${k.replace("_", " ")} ${(100 * v).toFixed(1)}%`).join(", ")));
    const log = await cw.api("/v1/log?limit=50");
    const rows = log.records.reverse().map((r) => cw.el("tr", {},
      cw.el("td", {}, r.time.slice(0, 19)), cw.el("td", {}, r.principal), cw.el("td", {}, r.kind),
      cw.el("td", {}, r.query === null ? "(hashed)" : r.query),
      cw.el("td", {}, r.declined ? `declined: ${r.reason}` : (r.validation || "")),
      cw.el("td", {}, r.feedback === null ? "" : (r.feedback > 0 ? "helpful" : "not helpful"))));
    document.getElementById("requests").replaceChildren(cw.el("table", {},
      cw.el("thead", {}, cw.el("tr", {}, ...["time", "who", "kind", "query", "outcome", "feedback"]
        .map((h) => cw.el("th", {}, h)))), cw.el("tbody", {}, ...rows)));
  } catch (e) { err.textContent = e.message; err.hidden = false; }
}

document.getElementById("window").addEventListener("change", load);
cw.bindKeyForm(() => {  // another key: its tenant's figures; none: nothing of the last one's
  for (const id of ["chart", "totals", "requests"]) document.getElementById(id).replaceChildren();
  document.getElementById("error").hidden = true;
  if (cw.key()) load();
});
cw.showWho().then((me) => { if (me) load(); });
