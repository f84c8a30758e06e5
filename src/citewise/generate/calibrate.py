"""Calibrating the grounding gate from labelled questions (pure functions).

Each record is a question id, the gate's candidate signals for what retrieval returned, and
whether the question is answerable from the corpus. Records are split into dev and test halves
by a hash of the id (stable, independent of file order). On dev, for every signal, every
observed score is tried as a threshold ("decline when score < t"):

* abstention accuracy = declined unanswerable / unanswerable,
* false-decline rate = declined answerable / answerable,

and the threshold with the highest abstention accuracy whose false-decline rate is at most
``max_false_decline`` is kept (ties: the lower threshold, i.e. fewer declines). The signal with
the best dev abstention wins (ties: higher ROC AUC). Test-half figures are reported for the
chosen pair so the choice is judged on questions it did not see.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from citewise.errors import ConfigError


@dataclass(frozen=True)
class Record:
    qid: str
    signals: Mapping[str, float]
    answerable: bool


@dataclass(frozen=True)
class CurvePoint:
    threshold: float
    abstention: float  # share of unanswerable declined
    false_decline: float  # share of answerable declined
    accuracy: float  # share of all questions decided correctly


@dataclass(frozen=True)
class Calibration:
    signal: str
    threshold: float
    max_false_decline: float
    dev: CurvePoint
    test: CurvePoint | None
    auc: Mapping[str, float]
    curves: Mapping[str, list[CurvePoint]] = field(default_factory=dict)
    n_dev: int = 0
    n_test: int = 0


def is_dev(qid: str) -> bool:
    """Stable half split: the low bit of sha256(id)."""
    return hashlib.sha256(qid.encode()).digest()[0] % 2 == 0


def point(scores: Sequence[float], answerable: Sequence[bool], threshold: float) -> CurvePoint:
    unans = [s for s, a in zip(scores, answerable, strict=True) if not a]
    ans = [s for s, a in zip(scores, answerable, strict=True) if a]
    declined_unans = sum(s < threshold for s in unans)
    declined_ans = sum(s < threshold for s in ans)
    correct = declined_unans + (len(ans) - declined_ans)
    return CurvePoint(
        threshold=threshold,
        abstention=declined_unans / len(unans) if unans else 0.0,
        false_decline=declined_ans / len(ans) if ans else 0.0,
        accuracy=correct / len(scores) if scores else 0.0)


def curve(scores: Sequence[float], answerable: Sequence[bool]) -> list[CurvePoint]:
    """One point per distinct score (plus "never decline"), in increasing threshold."""
    thresholds = sorted({0.0, *scores, max(scores, default=0.0) + 1e-6})
    return [point(scores, answerable, t) for t in thresholds]


def roc_auc(scores: Sequence[float], answerable: Sequence[bool]) -> float:
    """P(score of a random answerable > score of a random unanswerable), ties count 1/2
    (the Mann–Whitney U statistic / (n_pos · n_neg))."""
    pos = [s for s, a in zip(scores, answerable, strict=True) if a]
    neg = [s for s, a in zip(scores, answerable, strict=True) if not a]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def best_point(points: Sequence[CurvePoint], max_false_decline: float) -> CurvePoint:
    allowed = [p for p in points if p.false_decline <= max_false_decline + 1e-12]
    return max(allowed, key=lambda p: (p.abstention, -p.threshold))


def calibrate(records: Sequence[Record], signals: Sequence[str],
              max_false_decline: float = 0.1) -> Calibration:
    """Pick (signal, threshold) on the dev half; report it on the test half."""
    if not 0.0 <= max_false_decline <= 1.0:
        raise ConfigError("max_false_decline must be within [0, 1]. Fix: pass e.g. 0.1.")
    dev = [r for r in records if is_dev(r.qid)]
    test = [r for r in records if not is_dev(r.qid)]
    labels = [r.answerable for r in dev]
    if all(labels) or not any(labels):
        raise ConfigError(
            f"calibration needs answerable AND unanswerable questions in its dev half "
            f"({sum(labels)} of {len(labels)} answerable). Fix: add questions with "
            "`relevant: []` (unanswerable) and with relevant documents.")
    curves, picks, auc = {}, {}, {}
    for name in signals:
        scores = [r.signals[name] for r in dev]
        curves[name] = curve(scores, labels)
        picks[name] = best_point(curves[name], max_false_decline)
        auc[name] = round(roc_auc(scores, labels), 4)
    signal = max(signals, key=lambda n: (picks[n].abstention, auc[n]))
    chosen = picks[signal]
    test_point = None
    if test:
        test_point = point([r.signals[signal] for r in test], [r.answerable for r in test],
                           chosen.threshold)
    return Calibration(signal=signal, threshold=chosen.threshold,
                       max_false_decline=max_false_decline, dev=chosen, test=test_point,
                       auc=auc, curves=curves, n_dev=len(dev), n_test=len(test))
