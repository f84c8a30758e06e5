"""``report.html``: one static page per run — the metric table with 95% intervals, per-slice
bars with error bars (inline SVG drawn here, so the default install has them), and the worst
questions with what was retrieved. No JavaScript, no external files: it opens anywhere,
offline.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from citewise.eval.bootstrap import Figure, judge_summary, slices, summarize
from citewise.eval.record import EvalRun, QuestionRecord
from citewise.eval.scoring import ANSWER_HEADLINE, HEADLINE, score_run
from citewise.eval.svg import bar_chart

SLICE_METRICS = ("hit@5", "ndcg@10", "section_hit@5")
ANSWER_SLICE_METRICS = ("abstention_accuracy", "false_decline_rate", "containment")
WORST = 12
SHOWN_HITS = 5
CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px}
th{background:#f3f3f3;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.q{margin:1em 0;padding:.5em 1em;border-left:4px solid #c33;background:#fafafa}
.hit{color:#555;font-size:13px}.ok{color:#080;font-weight:600}.warn{color:#a50}
svg.plot{max-width:100%;height:auto;border:1px solid #eee;margin:.3em 0}"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _num(value: float, digits: int = 4) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def metric_table(figures: Mapping[str, Figure], names: Sequence[str]) -> str:
    rows = ["<table><tr><th>metric</th><th>mean</th><th>95% interval</th><th>n</th></tr>"]
    for name in names:
        if name in figures:
            f = figures[name]
            rows.append(f"<tr><td>{_e(name)}</td><td class=n>{_num(f.mean)}</td>"
                        f"<td class=n>[{_num(f.lo)}, {_num(f.hi)}]</td><td class=n>{f.n}</td></tr>")
    return "".join(rows) + "</table>"


def slice_plot(groups: Mapping[str, Mapping[str, Figure]], title: str,
               wanted: Sequence[str] = SLICE_METRICS) -> str | None:
    """Grouped bars (one group per slice value, one bar per metric) with 95% error bars, as
    inline SVG (:mod:`citewise.eval.svg`); None when no slice has these metrics."""
    metrics = [m for m in wanted if any(m in figs for figs in groups.values())]
    if not metrics:
        return None
    return bar_chart(groups, metrics, title)


def _expected(record: QuestionRecord) -> str:
    parts = []
    for piece in record.pieces:
        parts.append(" or ".join(f"{p.doc}#{p.section}" if p.section else p.doc
                                 for p in piece.places))
    return "; ".join(parts) or "(unanswerable)"


def _question_block(record: QuestionRecord, scores: Mapping[str, float]) -> str:
    q = record.question
    figs = ", ".join(f"{m} {scores[m]:.3f}" for m in ("hit@5", "ndcg@10", "section_hit@5")
                     if m in scores)
    out = [f"<div class=q><b>{_e(q.id)}</b> [{_e(q.kind)}; {_e(record.persona)}] "
           f"{_e(q.question)}<br>expected: <code>{_e(_expected(record))}</code> — {_e(figs)}"]
    for piece in record.pieces:
        if piece.annotations.get("evidence"):
            out.append(f"<div class=hit>evidence ({_e(piece.places[0].doc)}): "
                       f"<q>{_e(piece.annotations['evidence'])}</q></div>")
    for h in record.hits[:SHOWN_HITS]:
        where = f"{h['doc_id']}#{h['anchor']}" if h.get("anchor") else h["doc_id"]
        out.append(f"<div class=hit>{h['rank']}. <code>{_e(where)}</code> "
                   f"{_e(h.get('snippet', '')[:160])}…</div>")
    if not record.hits:
        out.append("<div class=hit>(nothing retrieved)</div>")
    if record.answer is not None:
        tag = "declined" if record.answer.get("declined") else "answered"
        out.append(f"<div class=hit><b>{tag}:</b> {_e(record.answer.get('answer', ''))}</div>")
    if record.judge is not None and record.judge.get("correct") is not None:
        p = record.judge.get("p_correct")
        out.append(f"<div class=hit>judge: {'correct' if record.judge['correct'] else 'incorrect'}"
                   f" ({_e(record.judge.get('reason'))}"
                   f"{'' if p is None else f', P(correct) {p:.2f}'})</div>")
    return "".join(out) + "</div>"


def worst_questions(run: EvalRun, scores: Mapping[str, Mapping[str, float]],
                    n: int = WORST) -> list[QuestionRecord]:
    """Answerable questions with the lowest nDCG@10 (then section hit@5), worst first."""
    answerable = [r for r in run.records if r.answerable]
    answerable.sort(key=lambda r: (scores[r.id].get("ndcg@10", 0.0),
                                   scores[r.id].get("section_hit@5", 0.0), r.id))
    return answerable[:n]


def render_report(run: EvalRun, samples: int = 1000, seed: int = 0) -> str:
    """The whole page as a string."""
    scores = score_run(run)
    figures = summarize(scores.values(), samples, seed)
    sliced = slices(run, samples, seed, scores)
    mode = run.settings.get("retrieve", {}).get("mode", "?")
    answerable = sum(1 for r in run.records if r.answerable)
    parts = [f"<!doctype html><meta charset=utf-8><title>citewise eval: {_e(run.name)}</title>"
             f"<style>{CSS}</style><h1>citewise eval: {_e(run.name)}</h1>"
             f"<p>{len(run.records)} questions ({answerable} answerable, "
             f"{len(run.records) - answerable} unanswerable), k={run.k}, mode {_e(mode)}, "
             f"{_e(run.created_at)}. Intervals: 95% percentile bootstrap over questions "
             f"({samples} resamples, seed {seed}).</p>"]
    parts += [f"<p class=warn>{_e(w)}</p>" for w in run.warnings]
    parts.append("<h2>Retrieval</h2>" + metric_table(figures, HEADLINE + ("acl_leaks",)))
    if run.with_answers:
        parts.append("<h2>Answers</h2>" + metric_table(figures, ANSWER_HEADLINE))
        if (judged := judge_summary(run)) is not None:
            parts.append(f"<p>judge_correct: LLM judge <code>{_e(judged['model'])}</code>, "
                         f"prompt <code>{_e(judged['prompt_hash'])}</code>; {judged['asked']} "
                         f"answers judged, {judged['declined']} declines counted incorrect, "
                         f"{judged['failed']} failed; Wilson 95% interval. Its agreement with "
                         "human labels: <code>citewise eval judge-check</code>.</p>")
    parts.append("<details><summary>all figures</summary>"
                 + metric_table(figures, sorted(figures)) + "</details>")
    parts.append("<h2>Slices</h2>")
    for slicer, groups in sliced.items():
        imgs = [slice_plot(groups, f"retrieval by {slicer}")]
        if run.with_answers:
            imgs.append(slice_plot(groups, f"answers by {slicer}", ANSWER_SLICE_METRICS))
        if any(imgs):
            parts.append(f"<h3>by {_e(slicer)}</h3>" + "".join(i for i in imgs if i))
    parts.append("<h2>Worst questions</h2>")
    parts += [_question_block(r, scores[r.id]) for r in worst_questions(run, scores)]
    answered = [r for r in run.records if not r.answerable and r.answer is not None
                and not r.answer.get("declined")]
    if answered:
        parts.append("<h2>Unanswerable, but answered</h2>")
        parts += [_question_block(r, scores[r.id]) for r in answered]
    return "\n".join(parts)
