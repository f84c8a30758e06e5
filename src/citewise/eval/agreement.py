"""Agreement between two raters of the same items (a judge vs human labels), pure functions.

Labels are booleans (True = "correct"). With n items, the confusion counts are
``both`` (both say correct), ``human_only``, ``judge_only`` and ``neither``:

* accuracy (observed agreement) p_o = (both + neither) / n;
* Cohen's kappa (Cohen 1960) κ = (p_o − p_e) / (1 − p_e), where the chance agreement
  p_e = p_h · p_j + (1 − p_h)(1 − p_j) from each rater's share of "correct" p_h, p_j.
  κ is undefined (NaN) when p_e = 1 (both raters gave one label to every item).

Intervals: Wilson for accuracy (a proportion); a percentile bootstrap over items for kappa
(Efron & Tibshirani 1993, §13.3), resamples where kappa is undefined skipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from citewise.errors import ConfigError


@dataclass(frozen=True)
class Confusion:
    both: int  # human correct, judge correct
    human_only: int  # human correct, judge incorrect
    judge_only: int  # human incorrect, judge correct
    neither: int  # both incorrect

    @property
    def n(self) -> int:
        return self.both + self.human_only + self.judge_only + self.neither

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def confusion(human: Sequence[bool], judge: Sequence[bool]) -> Confusion:
    if len(human) != len(judge):
        raise ConfigError(f"{len(human)} human labels vs {len(judge)} judge labels. Fix: "
                          "judge every labelled item once")
    pairs = list(zip(human, judge, strict=True))
    return Confusion(both=sum(1 for h, j in pairs if h and j),
                     human_only=sum(1 for h, j in pairs if h and not j),
                     judge_only=sum(1 for h, j in pairs if not h and j),
                     neither=sum(1 for h, j in pairs if not h and not j))


def accuracy(human: Sequence[bool], judge: Sequence[bool]) -> float:
    """Share of items both raters label alike (NaN for no items)."""
    c = confusion(human, judge)
    return (c.both + c.neither) / c.n if c.n else math.nan


def cohen_kappa(human: Sequence[bool], judge: Sequence[bool]) -> float:
    """Cohen's kappa of two binary raters (see the module docstring); NaN when undefined."""
    c = confusion(human, judge)
    if c.n == 0:
        return math.nan
    p_o = (c.both + c.neither) / c.n
    p_h, p_j = (c.both + c.human_only) / c.n, (c.both + c.judge_only) / c.n
    p_e = p_h * p_j + (1 - p_h) * (1 - p_j)
    return math.nan if p_e >= 1.0 else (p_o - p_e) / (1 - p_e)


def kappa_interval(human: Sequence[bool], judge: Sequence[bool], samples: int = 1000,
                   seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap 95 % interval of :func:`cohen_kappa` over items."""
    h, j = np.asarray(human, dtype=bool), np.asarray(judge, dtype=bool)
    if len(h) < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    values = []
    for idx in rng.integers(0, len(h), size=(samples, len(h))):
        k = cohen_kappa(h[idx].tolist(), j[idx].tolist())
        if not math.isnan(k):
            values.append(k)
    if not values:
        return (math.nan, math.nan)
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (round(float(lo), 4), round(float(hi), 4))
