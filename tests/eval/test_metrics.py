import math

import pytest

from citewise.eval.metrics import (
    hit_at_k,
    mean_over_queries,
    mrr_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
)
from citewise.eval.runs import read_qrels, write_trec_run

QRELS = {"d1": 1, "d3": 2, "d9": 0}
RANKING = ["d2", "d3", "d4", "d1"]


def test_recall_and_hit():
    assert recall_at_k(RANKING, QRELS, 2) == 1 / 2
    assert recall_at_k(RANKING, QRELS, 4) == 2 / 2
    assert hit_at_k(RANKING, QRELS, 1) == 0.0
    assert hit_at_k(RANKING, QRELS, 2) == 1.0
    assert recall_at_k(RANKING, {"d9": 0}, 10) == 0.0


def test_mrr_first_relevant_1_based():
    assert mrr_at_k(RANKING, QRELS, 10) == 1 / 2
    assert mrr_at_k(RANKING, QRELS, 1) == 0.0
    assert mrr_at_k([], QRELS, 10) == 0.0


def test_ndcg_graded_hand_computed():
    dcg = 2 / math.log2(3) + 1 / math.log2(5)  # d3 at rank 2 (grade 2), d1 at rank 4
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(RANKING, QRELS, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKING, QRELS, 1) == 0.0
    assert ndcg_at_k(["d3", "d1"], QRELS, 10) == pytest.approx(1.0)


def test_ndcg_cut_truncates_ideal_too():
    qrels = {"a": 1, "b": 1, "c": 1}
    assert ndcg_at_k(["a"], qrels, 1) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], qrels, 2) == pytest.approx(
        (1 / math.log2(3)) / (1 + 1 / math.log2(3)))


def test_mean_skips_unjudged_and_counts_missing_runs_as_zero():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 0}}
    runs = {"q1": ["d1"], "q3": ["d3"]}
    assert mean_over_queries(recall_at_k, runs, qrels, 10) == 0.5


def test_percentile_linear():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5
    assert percentile([10, 20], 95) == pytest.approx(19.5)


def test_trec_run_and_qrels_round_trip(tmp_path):
    run_path = tmp_path / "run.txt"
    write_trec_run(run_path, {"q1": [("d1", 0.5), ("d2", 0.25)]}, tag="t")
    assert run_path.read_text().splitlines() == ["q1 Q0 d1 1 0.500000 t", "q1 Q0 d2 2 0.250000 t"]
    beir = tmp_path / "test.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td7\t2\n")
    assert read_qrels(beir) == {"q1": {"d1": 1, "d7": 2}}
    trec = tmp_path / "qrels.txt"
    trec.write_text("q1 0 d1 1\n")
    assert read_qrels(trec) == {"q1": {"d1": 1}}
    # ids with spaces (hr/leave policy.md) stay one column each, and read back as written
    from citewise.eval.runs import read_trec_run, write_qrels

    write_trec_run(run_path, {"q 1": [("hr/leave policy.md", 0.5), ("50%\tx", 0.25)]})
    assert all(len(line.split()) == 6 for line in run_path.read_text().splitlines())
    assert read_trec_run(run_path) == {"q 1": [("hr/leave policy.md", 0.5), ("50%\tx", 0.25)]}
    write_qrels(trec, {"q 1": {"hr/leave policy.md": 1}})
    assert read_qrels(trec) == {"q 1": {"hr/leave policy.md": 1}}


def test_ties_keep_the_given_rank_order():
    # equal scores are not re-sorted: the ranking is scored in the order the engine returned
    from citewise.eval.matching import credit
    from citewise.eval.questions import parse_question

    q = parse_question({"id": "q", "question": "?", "relevant": [{"doc": "b"}]}, "t")
    tied = [{"doc_id": d, "score": 0.5, "anchor": None, "heading_path": []} for d in "ab"]
    ranking, qrels = credit(tied, q.relevant, "doc")
    assert mrr_at_k(ranking, qrels, 10) == 0.5
    assert ndcg_at_k(ranking, qrels, 10) == pytest.approx(1 / math.log2(3))


def test_context_precision_and_duplicates():
    from citewise.eval.metrics import context_precision, duplicate_rate, mean

    assert context_precision([True, False, False, True]) == 0.5
    assert context_precision([]) == 0.0
    passages = [("a", 0, 100, "h1"), ("a", 90, 200, "h2"),  # overlaps the first
                ("a", 200, 300, "h3"),                      # touches, does not overlap
                ("b", 0, 50, "h1")]                          # same text as the first
    assert duplicate_rate(passages) == 2 / 4
    assert duplicate_rate([]) == 0.0
    assert mean([1, 2]) == 1.5 and math.isnan(mean([]))
