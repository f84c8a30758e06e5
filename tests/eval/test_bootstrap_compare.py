"""Bootstrap intervals, slices, and paired comparison with regression rules."""

import numpy as np
import pytest

from citewise.errors import ConfigError
from citewise.eval.bootstrap import interval, paired, slices, summarize
from citewise.eval.compare import compare_runs
from citewise.eval.questions import parse_question
from citewise.eval.record import EvalRun, QuestionRecord


def test_interval_is_reproducible_percentile_bootstrap():
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    fig = interval(values, samples=500, seed=3)
    rng = np.random.default_rng(3)
    means = np.asarray(values)[rng.integers(0, 8, size=(500, 8))].mean(axis=1)
    assert fig.mean == 0.625 and fig.n == 8
    assert (fig.lo, fig.hi) == tuple(np.percentile(means, [2.5, 97.5]))
    assert fig.lo < 0.625 < fig.hi
    assert interval(values, samples=500, seed=3) == fig


def test_interval_edge_cases():
    assert interval([0.4]).lo == interval([0.4]).hi == 0.4
    empty = interval([])
    assert empty.n == 0 and np.isnan(empty.mean)
    const = interval([1.0] * 5)
    assert const.lo == const.hi == 1.0 and const.half_width == 0.0


def test_summarize_uses_only_questions_with_the_figure():
    figs = summarize([{"a": 1.0, "b": 0.0}, {"a": 0.0}])
    assert figs["a"].n == 2 and figs["a"].mean == 0.5 and figs["b"].n == 1


def test_paired_difference():
    base = {"q1": {"m": 1.0}, "q2": {"m": 0.0}, "q3": {"m": 0.5}, "q4": {}}
    new = {"q1": {"m": 1.0}, "q2": {"m": 1.0}, "q3": {"m": 0.0}, "q4": {"m": 1.0}}
    fig, ids = paired(base, new, "m")
    assert ids == ["q1", "q2", "q3"] and fig.mean == pytest.approx((0 + 1 - 0.5) / 3)


def rec(qid, docs, kind="k", persona=None, relevant=("good",)):
    q = parse_question({"id": qid, "question": "?", "kind": kind,
                        "relevant": [{"doc": d} for d in relevant]}, "t")
    hits = [{"doc_id": d, "anchor": None, "heading_path": [], "start": 0, "end": 1,
             "text_hash": d, "tokens": 1, "score": 1.0} for d in docs]
    return QuestionRecord(q, persona, hits, latency_ms=1.0)


def test_slices_by_kind_persona_answerability():
    run = EvalRun([rec("a", ["good"], kind="x", persona="p"), rec("b", ["bad"], kind="y"),
                   rec("c", [], kind="y", relevant=())])
    s = slices(run, samples=50)
    assert s["kind"]["x"]["hit@1"].mean == 1.0 and s["kind"]["y"]["hit@1"].mean == 0.0
    assert set(s["persona"]) == {"p", "(none)"}
    assert s["answerable"]["unanswerable"]["latency_ms"].n == 1
    assert "hit@1" not in s["answerable"]["unanswerable"]


def test_compare_flags_a_clear_drop_and_lists_flips():
    base = EvalRun([rec(f"q{i}", ["good"]) for i in range(20)])
    new = EvalRun([rec(f"q{i}", ["bad"] if i < 15 else ["good"]) for i in range(20)])
    c = compare_runs(base, new, metrics=("hit@5", "ndcg@10"))
    assert not c.passed and len(c.reasons) == 2
    assert c.rows[0].delta == pytest.approx(-0.75)
    assert c.flipped["hit@5"]["lost"] == [f"q{i}" for i in range(15)]
    assert "hit@5 dropped 1.0000 -> 0.2500" in c.reasons[0]
    assert compare_runs(new, base, metrics=("hit@5",)).passed  # an improvement passes


def test_compare_tolerance_and_noise():
    base = EvalRun([rec(f"q{i}", ["good"]) for i in range(20)])
    one_lost = EvalRun([rec(f"q{i}", ["bad"] if i == 0 else ["good"]) for i in range(20)])
    # a drop of 0.05 with 1 of 20 questions: inside the paired interval half-width
    c = compare_runs(base, one_lost, metrics=("hit@5",))
    assert c.rows[0].allowed == pytest.approx(c.rows[0].hi / 2 - c.rows[0].lo / 2)
    assert c.passed and c.rows[0].allowed > 0.05 and c.flipped["hit@5"]["lost"] == ["q0"]
    assert compare_runs(base, one_lost, tolerance=0.1, metrics=("hit@5",)).passed
    assert not compare_runs(base, EvalRun([rec(f"q{i}", ["bad"]) for i in range(20)]),
                            tolerance=0.1, metrics=("hit@5",)).passed


def test_compare_lower_is_better_and_errors():
    base = EvalRun([rec(f"q{i}", ["good"]) for i in range(10)])
    slow = EvalRun([rec(f"q{i}", ["good"]) for i in range(10)])
    for r in slow.records:
        r.latency_ms = 50.0
    assert not compare_runs(base, slow, metrics=("latency_ms",)).passed
    with pytest.raises(ConfigError, match="no question is scored"):
        compare_runs(base, slow, metrics=("nope@3",))
    with pytest.raises(ConfigError, match="share no question"):
        compare_runs(base, EvalRun([rec("other", [])]))


def test_evals_summary_scores_a_run_json_again(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "evals" / "summary.py"
    spec = importlib.util.spec_from_file_location("evals_summary", script)
    summary = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summary)
    path = tmp_path / "run.json"
    path.write_text(EvalRun([rec("a", ["good"], persona="p"), rec("b", ["bad"])]).to_json())
    summary.main(str(path))
    out = capsys.readouterr().out
    assert out.startswith("2 questions (2 answerable)")
    assert "hit@5 0.500" in out and "persona p" in out
