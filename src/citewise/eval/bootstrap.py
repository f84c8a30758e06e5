"""95% percentile bootstrap intervals over questions, slices, and paired differences.

Percentile bootstrap (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, §13.3):
draw B resamples of the n per-question values with replacement, take each resample's mean,
and report the 2.5th and 97.5th percentiles of those B means (numpy 'linear' percentiles).
The paired version (ibid. §15; Sakai 2014, "Statistical reform in IR?") resamples the
per-question *differences* new − base over the questions both runs scored, so question
difficulty cancels out. A fixed seed makes every interval reproducible.

Rates of a yes/no outcome per question listed in :data:`WILSON` (the judge's
``judge_correct``) get the Wilson score interval instead (Wilson 1927), which stays honest
near 0 and 1 where a bootstrap collapses to zero width.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from citewise.eval.record import EvalRun, QuestionRecord
from citewise.eval.scoring import score_run

SAMPLES = 1000
SEED = 0
WILSON = frozenset({"judge_correct"})


@dataclass(frozen=True)
class Figure:
    """A mean over ``n`` questions with its 95% bootstrap interval ``[lo, hi]``."""

    mean: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2.0

    def as_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "lo": self.lo, "hi": self.hi, "n": self.n}


def interval(values: Sequence[float], samples: int = SAMPLES, seed: int = SEED) -> Figure:
    """Mean of ``values`` with its percentile-bootstrap 95% interval. One value: a zero-width
    interval; no values: NaN everywhere with n = 0."""
    arr = np.asarray(values, dtype=np.float64)
    n = len(arr)
    if n == 0:
        return Figure(float("nan"), float("nan"), float("nan"), 0)
    mean = float(arr.mean())
    if n == 1:
        return Figure(mean, mean, mean, 1)
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, n, size=(samples, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return Figure(mean, float(lo), float(hi), n)


def wilson_interval(values: Sequence[float]) -> Figure:
    """The share of 1s among 0/1 ``values`` with its Wilson 95 % interval."""
    from citewise.answer.calibrate import wilson

    n = len(values)
    if n == 0:
        return Figure(float("nan"), float("nan"), float("nan"), 0)
    k = int(round(sum(values)))
    lo, hi = wilson(k, n)
    return Figure(k / n, lo, hi, n)


def summarize(scores: Iterable[Mapping[str, float]], samples: int = SAMPLES,
              seed: int = SEED) -> dict[str, Figure]:
    """Every figure present in any question's scores, over the questions that have it
    (bootstrap intervals; Wilson for the rates in :data:`WILSON`)."""
    columns: dict[str, list[float]] = {}
    for row in scores:
        for name, value in row.items():
            columns.setdefault(name, []).append(value)
    return {name: wilson_interval(vals) if name in WILSON else interval(vals, samples, seed)
            for name, vals in sorted(columns.items())}


SLICERS: dict[str, Callable[[QuestionRecord], str]] = {
    "kind": lambda r: r.question.kind,
    "persona": lambda r: r.persona or "(none)",
    "answerable": lambda r: "answerable" if r.answerable else "unanswerable",
}


def slices(run: EvalRun, samples: int = SAMPLES, seed: int = SEED,
           scores: Mapping[str, Mapping[str, float]] | None = None
           ) -> dict[str, dict[str, dict[str, Figure]]]:
    """``{slicer: {slice value: {figure: Figure}}}`` for kind, persona and answerability."""
    scores = scores if scores is not None else score_run(run)
    out: dict[str, dict[str, dict[str, Figure]]] = {}
    for slicer, key in SLICERS.items():
        groups: dict[str, list[Mapping[str, float]]] = {}
        for r in run.records:
            groups.setdefault(key(r), []).append(scores[r.id])
        out[slicer] = {g: summarize(rows, samples, seed) for g, rows in sorted(groups.items())}
    return out


def paired(base: Mapping[str, Mapping[str, float]], new: Mapping[str, Mapping[str, float]],
           metric: str, samples: int = SAMPLES, seed: int = SEED
           ) -> tuple[Figure, list[str]]:
    """Mean difference new − base of ``metric`` with its paired-bootstrap interval, over the
    questions both score on ``metric`` (their ids returned, in base order)."""
    ids = [q for q in base if metric in base[q] and metric in new.get(q, {})]
    diffs = [new[q][metric] - base[q][metric] for q in ids]
    return interval(diffs, samples, seed), ids


def run_summary(run: EvalRun, samples: int = SAMPLES, seed: int = SEED) -> dict[str, object]:
    """Every figure and every slice of ``run`` as plain data (for ``--json`` and files)."""
    scores = score_run(run)
    return {
        "name": run.name, "k": run.k, "questions": len(run.records),
        "answerable": sum(1 for r in run.records if r.answerable),
        "bootstrap": {"samples": samples, "seed": seed, "level": 0.95},
        "figures": {m: f.as_dict() for m, f in summarize(scores.values(), samples,
                                                          seed).items()},
        "slices": {s: {g: {m: f.as_dict() for m, f in figs.items()}
                       for g, figs in groups.items()}
                   for s, groups in slices(run, samples, seed, scores).items()},
        "judge": judge_summary(run),
        "warnings": run.warnings,
    }


def judge_summary(run: EvalRun) -> dict[str, object] | None:
    """Who judged ``run`` (model, prompt hash) and how many verdicts were asked, automatic
    (declines) or failed; None for a run that was not judged."""
    verdicts = [r.judge for r in run.records if r.judge is not None]
    if not verdicts:
        return None
    return {"model": verdicts[0].get("model"), "prompt_hash": verdicts[0].get("prompt_hash"),
            "asked": sum(1 for v in verdicts if v.get("p_correct") is not None),
            "declined": sum(1 for v in verdicts if str(v.get("reason", "")).startswith(
                "declined")),
            "failed": sum(1 for v in verdicts if str(v.get("reason", "")).startswith(
                "judge failed")),
            "interval": "wilson"}
