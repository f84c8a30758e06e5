from __future__ import annotations

import pytest

from citewise.answer.calibrate import Record, best_point, calibrate, curve, is_dev, point, roc_auc
from citewise.errors import ConfigError
from citewise.types import Principal


def test_point_by_hand() -> None:
    scores = [0.9, 0.8, 0.3, 0.2, 0.6]
    answerable = [True, True, False, False, True]
    p = point(scores, answerable, 0.5)  # declines 0.3, 0.2 (both unanswerable)
    assert (p.abstention, p.false_decline, p.accuracy) == (1.0, 0.0, 1.0)
    p = point(scores, answerable, 0.7)  # declines 0.3, 0.2, 0.6
    assert (p.abstention, p.false_decline, p.accuracy) == (1.0, pytest.approx(1 / 3), 0.8)


def test_auc_by_hand() -> None:
    # pairs (pos, neg): (0.9,0.3) (0.9,0.5) (0.5,0.3) (0.5,0.5 tie) -> 3.5 / 4
    assert roc_auc([0.9, 0.5, 0.3, 0.5], [True, True, False, False]) == 0.875


def test_best_point_respects_false_decline_bound() -> None:
    scores = [0.9, 0.8, 0.35, 0.3, 0.2, 0.4]
    answerable = [True, True, True, False, False, False]
    pts = curve(scores, answerable)
    p = best_point(pts, 0.0)  # may not decline 0.35 -> threshold 0.35 (declines .3, .2)
    assert p.threshold == 0.35 and p.abstention == pytest.approx(2 / 3)
    p = best_point(pts, 0.34)  # may decline one answerable (0.35): 0.8 declines all unanswerable
    assert (p.threshold, p.abstention, p.false_decline) == (0.8, 1.0, pytest.approx(1 / 3))


def test_calibrate_picks_the_separating_signal() -> None:
    records = []
    for i in range(40):
        ans = i % 2 == 0
        records.append(Record(f"q{i}", {"good": 0.8 if ans else 0.2,
                                        "noise": (i * 37 % 10) / 10}, ans))
    result = calibrate(records, ["good", "noise"], max_false_decline=0.0)
    assert result.signal == "good" and result.threshold == 0.8
    assert result.dev.abstention == 1.0 and result.test.abstention == 1.0
    assert result.n_dev + result.n_test == 40
    assert result.n_dev == sum(is_dev(r.qid) for r in records)


def test_calibrate_needs_both_kinds() -> None:
    with pytest.raises(ConfigError, match="unanswerable"):
        calibrate([Record(f"q{i}", {"s": 1.0}, True) for i in range(10)], ["s"])


def _dev_ids(n: int, dev: bool) -> list[str]:
    return [q for q in (f"q{i}" for i in range(1000)) if is_dev(q) == dev][:n]


def test_a_calibration_that_declines_nothing_is_never_stored(tmp_path, monkeypatch) -> None:
    """Synthesized questions on valgrind gave one unanswerable dev question that no
    threshold could decline within 10 % false declines: the fit was "coverage >= 0", and
    storing it turned the index's gate off. Such a fit is refused: printed, not stored."""
    from pathlib import Path

    from click.testing import CliRunner

    from citewise.answer import calibration
    from citewise.cli.main import cli
    from citewise.config import Settings
    from citewise.engine import Engine
    from citewise.testing import FakeEmbedder

    unans, *ans = _dev_ids(11, dev=True)
    records = [Record(unans, {"s": 0.9}, False),  # reads like the best answerable ones
               *(Record(q, {"s": 0.5 + i / 100}, True) for i, q in enumerate(ans))]
    result = calibrate(records, ["s"], 0.1)
    assert result.dev.abstention == 0 and result.threshold == 0.0
    assert "not stored" in result.refusal and "Fix:" in result.refusal
    good = calibrate([*records, Record(_dev_ids(12, True)[-1], {"s": 0.1}, False)], ["s"])
    assert good.refusal is None

    monkeypatch.setattr(calibration, "calibrate", lambda *a, **k: result)
    monkeypatch.setattr("citewise.answer.reader_fit.fit_reader", lambda *a, **k: None)
    db = tmp_path / "i.db"
    root = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([root], {"groups": ["staff"]})
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "question": "leave policy", "relevant": []}\n')
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        out = engine.calibrate(questions, principal=Principal.of("staff"))
        assert not out.stored and engine.store.get_meta("gate.threshold") is None
    monkeypatch.setattr("citewise.cli.calibrate.engine_from",
                        lambda *a, **k: Engine(db, Settings(), embedder=FakeEmbedder()))
    ran = CliRunner().invoke(cli, ["calibrate", "--questions", str(questions), "--db", str(db),
                                   "--groups", "staff"])
    assert ran.exit_code != 0 and "not stored" in ran.output and "Fix:" in ran.output


def test_small_sets_warn_and_show_intervals() -> None:
    from click.testing import CliRunner  # noqa: F401  (print path below uses click.echo)

    from citewise.answer.calibrate import wilson
    from citewise.cli.calibrate import print_calibration
    from citewise.results import CalibrationResult

    records = [Record(f"q{i}", {"s": 0.9 if i % 2 else 0.1}, bool(i % 2)) for i in range(12)]
    result = calibrate(records, ["s"], 0.1)
    assert result.auc["s"] == 1.0 and result.warning and "Fix:" in result.warning
    lo, hi = result.dev.intervals()["abstention"]
    assert hi == 1.0 and lo < 0.7  # 100 % of a handful: a wide interval, not certainty
    data = CalibrationResult(result).to_dict()
    assert data["warning"] and data["intervals"]["dev"]["abstention"][0] == lo
    assert wilson(0, 0) == (0.0, 1.0) and wilson(50, 100) == pytest.approx((0.4038, 0.5962),
                                                                              abs=1e-3)
    big = [Record(f"q{i}", {"s": (i % 7) / 7 + (0.5 if i % 2 else 0)}, bool(i % 2))
           for i in range(400)]
    assert calibrate(big, ["s"], 0.1).warning is None
    import io
    from contextlib import redirect_stdout
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_calibration(result)
    assert "95%" in buf.getvalue() and "[" in buf.getvalue()


def test_rank_auc_matches_pairwise() -> None:
    import numpy as np

    from citewise.answer.calibrate import _rank_auc, auc_interval

    scores = [0.9, 0.5, 0.3, 0.5, 0.7, 0.1, 0.5]
    labels = [True, True, False, False, True, False, True]
    pos = np.array([s for s, a in zip(scores, labels, strict=True) if a])
    neg = np.array([s for s, a in zip(scores, labels, strict=True) if not a])
    assert _rank_auc(pos, neg) == pytest.approx(roc_auc(scores, labels))
    lo, hi = auc_interval(scores, labels, samples=200)
    assert 0.0 <= lo <= hi <= 1.0 and hi - lo > 0.1  # 7 questions: a wide interval


def test_a_fit_worse_than_the_gate_in_force_on_its_test_half_is_refused_unless_forced() -> None:
    """The eval-gated swap for the gate: the test half judges the new fit against the gate
    in force; dominated (no more abstention, no fewer false declines, worse on one) is not
    stored unless forced, and a fit that declines nothing never is."""
    from citewise.answer.calibrate import against

    dev_u, *dev_a = _dev_ids(6, dev=True)
    test_u, *test_a = _dev_ids(6, dev=False)
    records = [Record(dev_u, {"new": 0.2, "old": 0.2}, False),
               *(Record(q, {"new": 0.6, "old": 0.6}, True) for q in dev_a),
               Record(test_u, {"new": 0.2, "old": 0.2}, False),
               *(Record(q, {"new": 0.3 if i == 0 else 0.6, "old": 0.6}, True)
                 for i, q in enumerate(test_a))]
    fit = calibrate(records, ["new"], 0.0)
    assert (fit.threshold, fit.test.abstention, fit.test.false_decline) == (0.6, 1.0, 0.2)
    worse = against(fit, records, "old", 0.5, "shipped")
    assert worse.in_force.test.false_decline == 0.0
    assert "not stored" in worse.refusal and "--force" in worse.refusal
    assert not worse.may_store() and worse.may_store(force=True)
    level = against(fit, records, "old", 0.7, "index")  # the gate in force: FD 1.0
    assert level.refusal is None and level.may_store()
