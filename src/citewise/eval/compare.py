"""Compare two runs of the same eval set: paired differences, regressions, flipped questions.

A headline metric *regresses* when it gets worse by more than
``max(half-width of its paired 95% bootstrap interval, tolerance)``: a drop for metrics
where higher is better, a rise for those where lower is better (latency, tokens, …, see
:data:`citewise.eval.scoring.LOWER_IS_BETTER`). A question *flipped* on a metric when it
scored > 0 in one run and 0 in the other (``lost``: base > 0, new = 0; ``gained``: reverse).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citewise.errors import ConfigError
from citewise.eval.bootstrap import SAMPLES, SEED, paired
from citewise.eval.metrics import mean
from citewise.eval.record import EvalRun
from citewise.eval.scoring import LOWER_IS_BETTER, score_run

DEFAULT_METRICS = ("ndcg@10", "recall@10")


@dataclass(frozen=True)
class CompareRow:
    metric: str
    base: float
    new: float
    delta: float  # mean paired difference new − base
    lo: float
    hi: float
    allowed: float  # the drop tolerated: max(interval half-width, tolerance)
    regressed: bool
    n: int

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Comparison:
    passed: bool
    rows: list[CompareRow]
    reasons: list[str]
    flipped: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    only_in_base: list[str] = field(default_factory=list)
    only_in_new: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "rows": [r.as_dict() for r in self.rows],
                "reasons": self.reasons, "flipped": self.flipped,
                "only_in_base": self.only_in_base, "only_in_new": self.only_in_new}


def _row(metric: str, base_s: dict, new_s: dict, tolerance: float, samples: int,
         seed: int) -> tuple[CompareRow, dict[str, list[str]]]:
    diff, ids = paired(base_s, new_s, metric, samples, seed)
    if not ids:
        raise ConfigError(f"metric {metric!r}: no question is scored on it in both runs. "
                          "Fix: name a metric from `citewise eval run --json` (e.g. ndcg@10)")
    b = mean([base_s[q][metric] for q in ids])
    n = mean([new_s[q][metric] for q in ids])
    allowed = max(diff.half_width, tolerance)
    worse = diff.mean > allowed if metric in LOWER_IS_BETTER else diff.mean < -allowed
    flips = {"lost": [q for q in ids if base_s[q][metric] > 0 and new_s[q][metric] == 0],
             "gained": [q for q in ids if base_s[q][metric] == 0 and new_s[q][metric] > 0]}
    return CompareRow(metric, b, n, diff.mean, diff.lo, diff.hi, allowed, worse,
                      diff.n), flips


def compare_runs(base: EvalRun, new: EvalRun, tolerance: float = 0.0,
                 metrics: tuple[str, ...] | list[str] = DEFAULT_METRICS,
                 samples: int = SAMPLES, seed: int = SEED) -> Comparison:
    """Paired comparison of ``new`` against ``base`` over the questions both ran; ``passed``
    is false when any of ``metrics`` regressed (``reasons`` says which and by how much)."""
    if tolerance < 0:
        raise ConfigError(f"tolerance {tolerance} is negative. Fix: pass 0 or more")
    base_s, new_s = score_run(base), score_run(new)
    shared = [q for q in base_s if q in new_s]
    if not shared:
        raise ConfigError("the two runs share no question id. "
                          "Fix: compare runs of the same eval set")
    rows, reasons, flipped = [], [], {}
    for metric in metrics:
        row, flips = _row(metric, base_s, new_s, tolerance, samples, seed)
        rows.append(row)
        flipped[metric] = flips
        if row.regressed:
            reasons.append(
                f"{metric} {'rose' if metric in LOWER_IS_BETTER else 'dropped'} "
                f"{row.base:.4f} -> {row.new:.4f} (Δ {row.delta:+.4f}, 95% CI "
                f"[{row.lo:+.4f}, {row.hi:+.4f}]) beyond the allowed {row.allowed:.4f}; "
                f"{len(flips['lost'])} question(s) lost it: {', '.join(flips['lost'][:8])}")
    return Comparison(passed=not reasons, rows=rows, reasons=reasons, flipped=flipped,
                      only_in_base=[q for q in base_s if q not in new_s],
                      only_in_new=[q for q in new_s if q not in base_s])
