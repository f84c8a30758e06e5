from __future__ import annotations

import pytest

from citewise.errors import ConfigError
from citewise.generate.calibrate import Record, best_point, calibrate, curve, is_dev, point, roc_auc


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
