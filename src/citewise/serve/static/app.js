// The ask page: stream an answer from /v1/ask (server-sent events over fetch, so the key
// travels in a header), then show citations, a decline with its reason, the trace, feedback.
"use strict";
const REASONS = {
  no_evidence: "nothing you may read matches the question",
  not_a_question: "that reads as a thanks or a greeting, not a question about the documents",
  weak_evidence: "the best matching passages are too weak to answer from",
  model_declined: "the sources retrieved do not answer the question",
  reader_no: "the model judged that the passages you may read do not answer the question",
  unsupported: "the generated answer was not supported by its sources",
};
const $ = (id) => document.getElementById(id);

// the gate's terms (lowercased, a version's number alone) as the question wrote them, once
function asAsked(question, terms) {
  const tokens = question.match(/[\w-]+(?:[./:][\w-]+)*/g) || [];
  const out = [];
  for (const term of terms) {
    const said = tokens.find((t) => t.toLowerCase() === term)
      || tokens.find((t) => t.toLowerCase().startsWith(term + ".")) || term;
    const named = namedVersion(question, said);
    if (!out.includes(named)) out.push(named);
  }
  const phrases = out.filter((s) => s.includes(" ")).map((s) => s.toLowerCase().split(" "));
  return out.filter((s) => !phrases.some((words) => words.includes(s.toLowerCase())));
}

// a version's number with the name before it ("Python 4", "version 2"), as cli/ask.py says it
function namedVersion(question, said) {
  if (!/^\d+(?:\.\d+)*$/.test(said)) return said;
  const escaped = said.replace(/\./g, "\\.");
  const before = question.match(new RegExp(`(?<![\\w+-])([A-Za-z][\\w+-]*)\\s+${escaped}(?![\\w.])`));
  if (before && (/^[A-Z]/.test(before[1])
                 || ["version", "release", "edition"].includes(before[1].toLowerCase()))) {
    return `${before[1]} ${said}`;
  }
  return said;
}

// why a decline happened, naming the question's terms no readable passage mentions
function declineReason(a) {
  const missing = asAsked(a.question || "",
                          (a.trace && a.trace.gate && a.trace.gate.missing) || []).join(", ");
  if (a.reason === "missing_terms") {
    return `none of the passages you may read that match the question best mentions ${missing}`;
  }
  const why = REASONS[a.reason] || a.reason;
  return a.reason === "weak_evidence" && missing ? `${why}, and none of them mentions ${missing}`
    : why;
}
let lastRequest = null;
let history = [];  // earlier turns of this conversation: follow-ups are rewritten server-side
let draft = "";  // the model's text so far, as it streams

// The streamed draft as the final answer will number it: source ids ([S3], [S3, S1]) become
// citation numbers in order of first use, and a bracket still open at the end ("[S") waits.
function numberedDraft(raw) {
  const numbers = new Map();
  const shown = raw.replace(/\[\s*([Ss]\d+(?:\s*(?:[,;]\s*)?[Ss]\d+)*)\s*(?:[,;]\s*)?\]/g,
    (_, ids) => "[" + [...new Set(ids.match(/[Ss]\d+/g).map((id) => {
      const key = "S" + parseInt(id.slice(1), 10);
      if (!numbers.has(key)) numbers.set(key, String(numbers.size + 1));
      return numbers.get(key);
    }))].join(", ") + "]");
  return shown.replace(/\[[Ss\d\s,;]*$/, "");
}

function resetResult() {
  $("result").hidden = false;
  $("error").hidden = true;
  $("answer").textContent = "";
  draft = "";
  $("answer").classList.add("streaming");
  $("decline").hidden = true;
  $("citations").replaceChildren();
  $("feedback").hidden = true;
  $("feedback-done").textContent = "";
  $("why-body").replaceChildren();
  $("why").open = false;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

async function ask(question) {
  resetResult();
  const r = await fetch("/v1/ask", {
    method: "POST",
    headers: cw.headers({"Content-Type": "application/json", "Accept": "text/event-stream"}),
    body: JSON.stringify({question, stream: true, history}),
  });
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw new Error(body.detail || `${r.status} ${r.statusText}`);
  }
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, {stream: true});
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      handleEvent(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
    }
  }
}

function handleEvent(block) {
  let event = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  const payload = data ? JSON.parse(data) : {};
  if (event === "start") lastRequest = payload.request_id;
  else if (event === "token") {
    draft += payload.text;
    $("answer").textContent = numberedDraft(draft);
  }
  else if (event === "answer") showAnswer(payload);
  else if (event === "error") showError(payload.detail);
}

function showAnswer(a) {
  lastRequest = a.request_id;
  history = history.concat([{question: a.question, answer: a.declined ? "" : a.answer}]).slice(-5);
  $("new-conversation").hidden = false;
  $("answer").classList.remove("streaming");
  $("answer").replaceChildren(...(a.declined ? [] : answerView(a.answer)));
  if (a.declined) {
    $("decline").hidden = false;
    $("decline").textContent =
      `Declined: ${declineReason(a)}. ${a.answer}`;
    $("decline").dataset.reason = a.reason || "";
  }
  for (const c of a.citations) $("citations").append(citationCard(c));
  $("feedback").hidden = false;
  $("why-body").append(...whyView(a.trace || {}));
}

// The answer's text with its fenced code blocks (quoted from the sources line for line) shown
// as code; everything stays text nodes, nothing is parsed as HTML.
function answerView(text) {
  const out = [];
  let code = null, prose = [];
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (code === null) {
        if (prose.length) out.push(document.createTextNode(prose.join("\n")));
        prose = []; code = [];
      } else {
        out.push(cw.el("pre", {class: "code"}, code.join("\n")));
        code = null;
      }
    } else if (code !== null) code.push(line);
    else prose.push(line);
  }
  if (code !== null) out.push(cw.el("pre", {class: "code"}, code.join("\n")));
  if (prose.length) out.push(document.createTextNode(prose.join("\n")));
  return out;
}

function citationCard(c) {
  const heading = (c.heading_path || []).filter(
    (h, i) => !(i === 0 && h.trim().toLowerCase() === c.title.trim().toLowerCase()));
  // each part in its own isolated span: a title's bidi override cannot reorder the heading
  const crumb = [c.title, ...heading].flatMap((part, i) =>
    [i ? " › " : null, cw.el("span", {}, part)]);
  const link = cw.el("a", {class: "source"}, "open source at this section");
  if (/^https?:\/\//.test(c.source)) {
    // the site it opens, shown: a title can copy another source's name (a security review)
    link.textContent = `open source at this section (${new URL(c.source).host})`;
    link.href = c.source; link.target = "_blank"; link.rel = "noopener";
  } else {
    link.href = `#doc=${encodeURIComponent(c.doc_id)}&anchor=${encodeURIComponent(c.anchor || "")}`;
    link.addEventListener("click", (ev) => { ev.preventDefault(); openSource(c.doc_id, c.anchor, c.quote); });
  }
  return cw.el("li", {class: "citation", "data-doc": c.doc_id},
    cw.el("div", {class: "crumb"}, `[${c.id}] `, ...crumb),
    c.updated_at ? cw.el("div", {class: "updated"}, `updated ${c.updated_at.slice(0, 10)}`) : null,
    cw.el("blockquote", {class: "quote"}, c.quote),
    link);
}

function table(headers, rows) {
  return cw.el("table", {},
    cw.el("thead", {}, cw.el("tr", {}, ...headers.map((h) => cw.el("th", {}, h)))),
    cw.el("tbody", {}, ...rows.map((r) => cw.el("tr", {}, ...r.map((v) => cw.el("td", {}, v))))));
}

function whyView(t) {
  const out = [];
  if (t.conversation) {
    out.push(cw.el("p", {class: "rewrite"},
      `Follow-up searched as: “${t.conversation.query}” (${t.conversation.method})`));
  }
  const gate = t.gate || {};
  if (gate.signal !== undefined) {
    out.push(cw.el("h3", {}, "Grounding gate"),
      cw.el("p", {class: "gate"},
        `${gate.signal} ${fmt(gate.score)} vs threshold ${fmt(gate.threshold)} (${gate.source}): ` +
        (gate.passed ? "passed" : `declined (${gate.reason})`)));
    const signals = Object.entries(gate.signals || {}).map(([k, v]) => [k, fmt(v)]);
    if (signals.length) out.push(table(["signal", "value"], signals));
  }
  const hits = ((t.retrieval || {}).hits || []);
  out.push(cw.el("h3", {}, `Retrieved (${hits.length})`),
    table(["rank", "document", "chunk", "fused", "bm25", "dense"], hits.map((h) => [
      h.rank, h.doc_id, h.chunk_id.slice(0, 12), fmt(h.score),
      h.signals.bm25 ? `#${h.signals.bm25.rank}` : "–",
      h.signals.dense ? `#${h.signals.dense.rank}` : "–"])));
  const ctx = t.context || {};
  if (ctx.passages) {
    out.push(cw.el("h3", {}, `In the prompt (${ctx.tokens} tokens)`),
      table(["id", "chunk", "tokens"], ctx.passages.map((p) => [p.id, p.chunk_id.slice(0, 12), p.tokens])));
    out.push(cw.el("h3", {}, `Dropped (${(ctx.dropped || []).length})`),
      table(["chunk", "why"], (ctx.dropped || []).map((d) => [d.chunk_id.slice(0, 12), d.reason])));
  }
  const times = Object.entries(t.timings_ms || {});
  const most = Math.max(1, ...times.map(([, v]) => v));
  out.push(cw.el("h3", {}, "Stage latencies (ms)"),
    cw.el("div", {class: "latencies"}, ...times.map(([k, v]) => cw.el("div", {class: "lat"},
      cw.el("span", {class: "lat-name"}, k),
      cw.el("span", {class: "lat-bar", style: `width:${Math.max(1, 200 * v / most)}px`}),
      cw.el("span", {}, fmt(v))))));
  if (t.rerank) out.push(cw.el("p", {}, `rerank: ${t.rerank.status}`));
  if (lastRequest) {
    const link = cw.el("a", {href: "#", id: "trace-link"}, "full trace (JSON)");
    link.addEventListener("click", async (ev) => {
      ev.preventDefault();
      const rec = await cw.api(`/v1/traces/${lastRequest}`);
      link.replaceWith(cw.el("pre", {class: "trace-json"}, JSON.stringify(rec, null, 2)));
    });
    out.push(link);
  }
  return out;
}

function fmt(v) {
  return typeof v === "number" ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3)) : String(v);
}

async function openSource(docId, anchor, quote) {
  const where = anchor ? `?anchor=${encodeURIComponent(anchor)}` : "";
  const doc = await cw.api(`/v1/documents/${encodeURIComponent(docId)}/content${where}`);
  const part = doc.blocks.length < doc.total_blocks ? " (the cited section)" : "";
  $("viewer-title").textContent = doc.document.title + part;
  const body = $("viewer-body");
  body.replaceChildren();
  let target = null;
  for (const b of doc.blocks) {
    const tag = b.kind === "heading" ? `h${Math.min(6, Math.max(2, b.level + 1))}` :
      (b.kind === "code" || b.kind === "table") ? "pre" : "p";
    const node = cw.el(tag, b.anchor && b.kind === "heading" ? {id: `src-${b.anchor}`} : {}, b.text);
    if (quote && b.text.includes(quote.slice(0, 40))) node.classList.add("quoted");
    if (!target && anchor && b.anchor === anchor) target = node;
    body.append(node);
  }
  $("viewer").hidden = false;
  (target || body.querySelector(".quoted") || body).scrollIntoView({block: "start"});
}

async function sendFeedback(rating) {
  if (!lastRequest) return;
  await cw.api("/v1/feedback", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({request_id: lastRequest, rating})});
  $("feedback-done").textContent = "thanks, noted";
}

$("ask-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("ask").disabled = true;
  try { await ask($("question").value); }
  catch (err) { showError(err.message); }
  finally { $("ask").disabled = false; }
});
$("thumbs-up").addEventListener("click", () => sendFeedback("up").catch((e) => showError(e.message)));
$("thumbs-down").addEventListener("click", () => sendFeedback("down").catch((e) => showError(e.message)));
$("new-conversation").addEventListener("click", () => {
  history = [];
  $("new-conversation").hidden = true;
  $("result").hidden = true;
  $("question").focus();
});
$("viewer-close").addEventListener("click", () => { $("viewer").hidden = true; });
cw.bindKeyForm(() => {  // another key, or none: the last one's answer and turns go
  history = [];
  for (const id of ["result", "viewer", "new-conversation", "error"]) $(id).hidden = true;
});
cw.showWho();
