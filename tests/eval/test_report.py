"""report.html: tables with intervals, plots, worst questions first, everything escaped."""

from citewise.eval.questions import parse_question
from citewise.eval.record import EvalRun, QuestionRecord
from citewise.eval.report import render_report, worst_questions
from citewise.eval.scoring import score_run


def rec(qid, docs, text="?", relevant=("good",)):
    q = parse_question({"id": qid, "question": text, "kind": "k",
                        "relevant": [{"doc": d} for d in relevant]}, "t")
    hits = [{"rank": i, "doc_id": d, "anchor": None, "heading_path": [], "start": 0, "end": 1,
             "text_hash": d, "tokens": 3, "score": 1.0, "snippet": f"<b>{d}</b>"}
            for i, d in enumerate(docs, start=1)]
    return QuestionRecord(q, "p", hits, latency_ms=1.0)


def test_worst_first_and_escaped():
    run = EvalRun([rec("fine", ["good"]), rec("late", ["x", "y", "good"]),
                   rec("miss", ["x"], text="<script>alert(1)</script>"),
                   rec("none", [], relevant=())], name="r<1>")
    scores = score_run(run)
    assert [r.id for r in worst_questions(run, scores)] == ["miss", "late", "fine"]
    page = render_report(run, samples=50)
    assert "<script>" not in page and "&lt;script&gt;" in page and "r&lt;1&gt;" in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page
    assert page.index("<b>miss</b>") < page.index("<b>late</b>")
    assert page.count("<svg ") == 3  # kind, persona, answerable
    assert "4 questions (3 answerable, 1 unanswerable)" in page


def test_answers_add_tables_plots_and_the_answered_unanswerable():
    answered = rec("u", ["x"], relevant=())
    answered.answer = {"answer": "Made up [1].", "declined": False, "fabricated": [],
                       "unsupported": []}
    ok = rec("a", ["good"])
    ok.answer = {"answer": "Fine [1].", "declined": False, "fabricated": [], "unsupported": []}
    page = render_report(EvalRun([ok, answered]), samples=20)
    assert "<h2>Answers</h2>" in page and "abstention_accuracy" in page
    assert "answers by kind" in page and page.count("<svg ") == 6
    tail = page[page.index("Unanswerable, but answered"):]
    assert "<b>u</b>" in tail and "Made up" in tail
