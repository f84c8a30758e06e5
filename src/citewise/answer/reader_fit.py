"""Fitting how the answerability reader and the retrieval signal combine (pure functions).

``citewise calibrate`` records, per labelled question, the gate's retrieval signals and, when
the reader ran (the retrieval signals passed), its P(Yes) under the key ``reader``. On the dev
half (:func:`citewise.answer.calibrate.is_dev`), among questions the chosen retrieval
(signal, threshold) lets through and the reader read, a logistic regression

    P(answerable) = sigmoid(b + w_s · signal + w_r · logit(P(Yes)))

is fitted by Newton's method (IRLS) with a small L2 penalty on the weights (numpy only). The
decline threshold on that probability (midpoints between consecutive dev scores, so it does not
sit on an observed answerable score) is the one with the highest dev abstention whose
*overall* dev false-decline rate (retrieval declines plus reader declines) stays within the
budget; test-half figures are reported for it. Questions the reader never read (declined by
the index's previous retrieval threshold, but let through by the new one) count as passed by
the reader.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from citewise.answer.calibrate import CurvePoint, Record, is_dev
from citewise.answer.reader import ReaderModel, logit

READER_KEY = "reader"
MIN_FIT = 4
"""Fewer answerable or unanswerable dev questions read by the reader than this: no fit."""


@dataclass(frozen=True)
class ReaderFit:
    model: ReaderModel
    dev: CurvePoint  # the whole gate (retrieval + reader) on dev
    test: CurvePoint | None
    n_fit: int


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 50) -> np.ndarray:
    """Weights (bias first) of an L2-penalised logistic regression, by Newton's method."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = np.diag([0.0] + [l2] * x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -60, 60)))
        grad = xb.T @ (p - y) + penalty @ w
        hess = xb.T @ (xb * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def _declines(records: Sequence[Record], signal: str, threshold: float, model: ReaderModel,
              reader_threshold: float) -> list[bool]:
    out = []
    for r in records:
        if r.signals[signal] < threshold:
            out.append(True)
        elif READER_KEY in r.signals:
            out.append(model.score(r.signals[READER_KEY], r.signals[signal]) < reader_threshold)
        else:
            out.append(False)
    return out


def gate_point(records: Sequence[Record], signal: str, threshold: float, model: ReaderModel,
               reader_threshold: float) -> CurvePoint:
    """Abstention and false declines of retrieval + reader together."""
    declined = _declines(records, signal, threshold, model, reader_threshold)
    un = [d for d, r in zip(declined, records, strict=True) if not r.answerable]
    an = [d for d, r in zip(declined, records, strict=True) if r.answerable]
    correct = sum(un) + len(an) - sum(an)
    return CurvePoint(reader_threshold, sum(un) / len(un) if un else 0.0,
                      sum(an) / len(an) if an else 0.0,
                      correct / len(records) if records else 0.0, len(un), len(an))


def fit_reader(records: Sequence[Record], signal: str, threshold: float,
               max_false_decline: float) -> ReaderFit | None:
    """The reader's combination and threshold on dev (None without enough read questions)."""
    dev = [r for r in records if is_dev(r.qid)]
    test = [r for r in records if not is_dev(r.qid)]
    read = [r for r in dev if READER_KEY in r.signals and r.signals[signal] >= threshold]
    labels = [r.answerable for r in read]
    if min(labels.count(True), labels.count(False)) < MIN_FIT:
        return None
    x = np.array([[r.signals[signal], logit(r.signals[READER_KEY])] for r in read])
    w = logistic(x, np.array(labels, dtype=float))
    model = ReaderModel(float(w[0]), float(w[1]), float(w[2]), 0.0, "index", signal)
    scores = sorted({round(model.score(r.signals[READER_KEY], r.signals[signal]), 6)
                     for r in read})
    best = gate_point(dev, signal, threshold, model, 0.0)
    for t in (round((a + b) / 2, 6) for a, b in zip(scores, scores[1:], strict=False)):
        p = gate_point(dev, signal, threshold, model, t)
        if p.false_decline <= max_false_decline + 1e-12 and p.abstention > best.abstention:
            best = p
    chosen = ReaderModel(model.bias, model.w_signal, model.w_reader, best.threshold, "index",
                         signal)
    test_point = gate_point(test, signal, threshold, chosen, best.threshold) if test else None
    return ReaderFit(chosen, best, test_point, len(read))


def describe(fit: ReaderFit) -> str:
    m = fit.model
    return (f"reader: P(answerable) = sigmoid({m.bias:+.3f} {m.w_signal:+.3f}·{m.signal} "
            f"{m.w_reader:+.3f}·logit(P(yes))) ≥ {m.threshold:.4f} (fitted on {fit.n_fit} dev "
            f"questions the reader read)" + ("" if math.isfinite(m.bias) else " (diverged)"))
