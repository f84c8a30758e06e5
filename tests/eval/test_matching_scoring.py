"""Section matching, piece credit and per-question figures, against hand-computed numbers."""

import math

import pytest

from citewise.eval.matching import credit, in_section, ranked_units
from citewise.eval.metrics import ndcg_at_k, recall_at_k
from citewise.eval.questions import parse_question
from citewise.eval.record import QuestionRecord
from citewise.eval.scoring import question_scores


def hit(doc, anchor=None, path=(), start=0, end=10, digest=None, tokens=5):
    return {"doc_id": doc, "anchor": anchor, "heading_path": list(path), "start": start,
            "end": end, "text_hash": digest or f"{doc}{start}", "tokens": tokens, "score": 1.0}


def pieces(*rel):
    return parse_question({"id": "q", "question": "?", "relevant": list(rel)}, "t").relevant


def test_in_section_rules():
    h = hit("a.md", "trains", ["Travel policy", "Booking", "Trains"])
    assert in_section(h, None)
    assert in_section(h, "trains") and in_section(h, "#Trains")
    assert in_section(h, "booking")  # an enclosing heading's slug
    assert in_section(h, "travel-policy")
    assert not in_section(h, "per-diem")
    assert not in_section(hit("a.md", None, []), "booking")


def test_doc_level_collapses_by_first_occurrence():
    hits = [hit("a"), hit("a", start=20), hit("b"), hit("a", start=40), hit("c")]
    assert [h["doc_id"] for h in ranked_units(hits, "doc")] == ["a", "b", "c"]
    assert len(ranked_units(hits, "section")) == 5


def test_credit_counts_each_piece_once_and_alternatives():
    ps = pieces({"doc": "b", "section": "x", "also": [{"doc": "c", "section": None}]},
                {"doc": "a", "section": "y", "grade": 2})
    hits = [hit("c"), hit("b", "x"), hit("z"), hit("a", "y")]
    ranking, qrels = credit(hits, ps, "section")
    # c finds piece 0 (via "also"); b#x would find piece 0 again: no credit
    assert ranking == ["p0", "-1", "-2", "p1"] and qrels == {"p0": 1, "p1": 2}
    dcg = 1 / math.log2(2) + 2 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(dcg / idcg)
    assert recall_at_k(ranking, qrels, 3) == 0.5


def test_credit_prefers_highest_grade_when_a_passage_satisfies_two_pieces():
    ps = pieces({"doc": "a", "section": None}, {"doc": "a", "section": "s", "grade": 3})
    ranking, _ = credit([hit("a", "s"), hit("a", "t")], ps, "section")
    assert ranking == ["p1", "p0"]


def test_question_scores_hand_computed():
    q = parse_question({"id": "q", "question": "?", "relevant": [
        {"doc": "a", "section": "s"}, {"doc": "b", "section": None}]}, "t")
    hits = [hit("a", "t", start=0, end=50, tokens=10),   # doc a, wrong section
            hit("a", "s", start=40, end=90, tokens=20),  # overlaps the first: a duplicate
            hit("c", tokens=30)]
    s = question_scores(QuestionRecord(q, None, hits, latency_ms=2.0), k=3)
    assert s["recall@3"] == 0.5 and s["hit@1"] == 1.0 and s["mrr@3"] == 1.0
    assert s["ndcg@3"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert s["section_mrr@3"] == 0.5 and s["section_recall@3"] == 0.5
    assert s["context_precision"] == pytest.approx(2 / 3)
    assert s["section_context_precision"] == pytest.approx(1 / 3)
    assert s["duplicate_rate"] == pytest.approx(1 / 3)
    assert s["tokens_per_request"] == 60.0 and s["latency_ms"] == 2.0


def test_empty_retrieval_scores_zero_not_error():
    q = parse_question({"id": "q", "question": "?", "relevant": [{"doc": "a"}]}, "t")
    s = question_scores(QuestionRecord(q, None, [], latency_ms=1.0), k=10)
    assert s["ndcg@10"] == 0.0 and s["context_precision"] == 0.0
    assert s["duplicate_rate"] == 0.0 and s["tokens_per_request"] == 0.0


def test_answer_figures_apply_to_the_right_questions():
    answerable = parse_question({"id": "a", "question": "?", "relevant": [{"doc": "d"}],
                                 "answer": "45 euros", "answers": ["forty-five euros"]}, "t")
    unanswerable = parse_question({"id": "u", "question": "?", "relevant": []}, "t")
    said = {"answer": "The allowance is 45 euros [1]. It is paid daily [2].",
            "declined": False, "fabricated": ["S9"], "unsupported": [{"sentence": "x"}]}
    s = question_scores(QuestionRecord(answerable, None, [], 1.0, answer=said), 10)
    assert s["false_decline_rate"] == 0.0 and s["containment"] == 1.0
    assert s["token_f1"] == pytest.approx(2 * (2 / 8) * 1 / (2 / 8 + 1))  # markers dropped
    assert s["citation_validity"] == 0.0 and s["unsupported_claim_rate"] == 0.5
    assert "abstention_accuracy" not in s
    declined = {"answer": "Not enough evidence.", "declined": True}
    s = question_scores(QuestionRecord(unanswerable, None, [], 1.0, answer=declined), 10)
    assert s["abstention_accuracy"] == 1.0
    assert "citation_validity" not in s and "false_decline_rate" not in s
    s = question_scores(QuestionRecord(answerable, None, [], 1.0, answer=declined), 10)
    assert s["false_decline_rate"] == 1.0 and s["token_f1"] == 0.0
