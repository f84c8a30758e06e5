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
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

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
    n_unanswerable: int = 0
    n_answerable: int = 0

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Wilson 95 % intervals of ``abstention`` and ``false_decline``."""
        return {"abstention": wilson(round(self.abstention * self.n_unanswerable),
                                     self.n_unanswerable),
                "false_decline": wilson(round(self.false_decline * self.n_answerable),
                                        self.n_answerable)}


@dataclass(frozen=True)
class InForce:
    """The gate in force when calibrating (settings, the index's calibration or the shipped
    default) and how it does on the same test half."""

    signal: str
    threshold: float
    source: str
    test: CurvePoint | None


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
    auc_interval: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    reader: Any = None  # a citewise.answer.reader_fit.ReaderFit when the reader was fitted
    in_force: InForce | None = None
    tenant: str = "default"  # whose questions: the calibration is stored for this tenant

    @property
    def warning(self) -> str | None:
        """Set when the dev half is too small for its figures to mean much."""
        n_un, n_an = self.dev.n_unanswerable, self.dev.n_answerable
        if min(n_un, n_an) >= MIN_PER_CLASS:
            return None
        return (f"only {n_un} unanswerable and {n_an} answerable questions in the dev half: "
                f"the threshold, rates and AUC are unreliable (see the intervals). Fix: add "
                f"questions to the eval set, at least {MIN_PER_CLASS} of each kind per half.")


    @property
    def refusal(self) -> str | None:
        """Why this calibration must not replace the index's gate (None: it may): one that
        declines none of its dev half's unanswerable questions turns the gate off (a dev
        half with one near miss the signal cannot separate picked threshold 0); one that
        does worse on its test half than the gate in force (:func:`against`) is refused
        too, unless forced (:meth:`may_store`)."""
        if self.dev.abstention <= 0:
            return (f"it declines none of the {self.dev.n_unanswerable} unanswerable dev "
                    f"question(s) within {self.max_false_decline:.0%} false declines, so it "
                    "would turn the gate off; not stored, the index keeps its gate. Fix: "
                    "calibrate on more unanswerable questions (--questions, or a larger "
                    "--synthesize N)")
        now, new = (self.in_force.test if self.in_force else None), self.test
        if now is None or new is None or not _dominated(new, now):
            return None
        return (f"on the test half it declines {new.abstention:.0%} of unanswerable questions "
                f"with {new.false_decline:.0%} false declines, and the gate in force "
                f"({self.in_force.signal} >= {self.in_force.threshold:.4f}, "
                f"{self.in_force.source}) {now.abstention:.0%} with {now.false_decline:.0%}; "
                "not stored, the index keeps its gate. Fix: calibrate on more, or labelled, "
                "questions (--questions), or pass --force to store it anyway")

    def may_store(self, force: bool = False) -> bool:
        """Whether to store it: no :attr:`refusal`, or ``force`` and it declines something
        (a fit that declines nothing is never stored)."""
        return self.refusal is None or (force and self.dev.abstention > 0)


def _dominated(new: CurvePoint, now: CurvePoint) -> bool:
    """``new`` declines no more unanswerable and no fewer answerable questions than
    ``now``, and is worse on one of the two."""
    return (new.abstention <= now.abstention and new.false_decline >= now.false_decline
            and (new.abstention, new.false_decline) != (now.abstention, now.false_decline))


def against(result: Calibration, records: Sequence[Record], signal: str, threshold: float,
            source: str) -> Calibration:
    """``result`` with the gate in force (``signal`` >= ``threshold``) measured on its test
    half, so that a fit doing worse there is not stored (:attr:`Calibration.refusal`)."""
    test = [r for r in records if not is_dev(r.qid)]
    now = point([r.signals[signal] for r in test], [r.answerable for r in test],
                threshold) if test else None
    return replace(result, in_force=InForce(signal, threshold, source, now))


MIN_PER_CLASS = 30
"""Fewer unanswerable or answerable dev questions than this prints a warning."""


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (Wilson 1927); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p, d = k / n, 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def auc_interval(scores: Sequence[float], answerable: Sequence[bool], samples: int = 200,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of :func:`roc_auc`, resampling each class apart
    (AUC by ranks, ties averaged)."""
    rng = np.random.default_rng(seed)
    pos = np.array([s for s, a in zip(scores, answerable, strict=True) if a], dtype=float)
    neg = np.array([s for s, a in zip(scores, answerable, strict=True) if not a], dtype=float)
    if not len(pos) or not len(neg):
        return (float("nan"), float("nan"))
    values = []
    for _ in range(samples):
        p = rng.choice(pos, len(pos))
        n = rng.choice(neg, len(neg))
        values.append(_rank_auc(p, n))
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (round(float(lo), 4), round(float(hi), 4))


def _rank_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    both = np.concatenate([pos, neg])
    order = both.argsort(kind="mergesort")
    ranks = np.empty(len(both))
    sorted_vals = both[order]
    i = 0
    while i < len(both):  # average ranks over ties
        j = i
        while j + 1 < len(both) and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2
    return float(u / (len(pos) * len(neg)))


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
        accuracy=correct / len(scores) if scores else 0.0,
        n_unanswerable=len(unans), n_answerable=len(ans))


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
    curves, picks, auc, auc_ci = {}, {}, {}, {}
    for name in signals:
        scores = [r.signals[name] for r in dev]
        curves[name] = curve(scores, labels)
        picks[name] = best_point(curves[name], max_false_decline)
        auc[name] = round(roc_auc(scores, labels), 4)
        auc_ci[name] = auc_interval(scores, labels)
    signal = max(signals, key=lambda n: (picks[n].abstention, auc[n]))
    chosen = picks[signal]
    test_point = None
    if test:
        test_point = point([r.signals[signal] for r in test], [r.answerable for r in test],
                           chosen.threshold)
    return Calibration(signal=signal, threshold=chosen.threshold,
                       max_false_decline=max_false_decline, dev=chosen, test=test_point,
                       auc=auc, curves=curves, n_dev=len(dev), n_test=len(test),
                       auc_interval=auc_ci)
