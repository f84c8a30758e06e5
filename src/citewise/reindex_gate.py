"""The evaluation gate of ``citewise reindex`` (:mod:`citewise.reindex`): run the eval set on
the live and the shadow version, compare them, and block promotion on a measured drop beyond
the tolerance (:func:`strict_verdict`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from citewise.config import EvalSettings
from citewise.engine import Engine
from citewise.types import Principal


class GateOutcome(Protocol):
    """What a gate returns (:class:`citewise.eval.compare.Comparison` is one)."""

    passed: bool
    reasons: list[str]


Gate = Callable[[Engine, Engine], GateOutcome]
"""``gate(live, shadow)``: evaluate both engines and say whether the shadow may go live."""


@dataclass
class GateResult:
    """The evaluation gate's verdict: ``comparison`` is the full
    :class:`~citewise.eval.compare.Comparison`; ``worse`` names the metrics that block."""

    passed: bool
    reasons: list[str]
    comparison: Any
    worse: list[str] = field(default_factory=list)

    @property
    def rows(self) -> list[Any]:
        return list(self.comparison.rows)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "reasons": self.reasons, "worse": self.worse,
                "comparison": self.comparison.as_dict()}


def strict_verdict(comparison: Any, tolerance: float) -> GateResult:
    """Block promotion when a headline metric measured worse than live by more than
    ``tolerance`` (the paired mean difference, in the metric's bad direction).

    Stricter than ``comparison.passed``, which forgives a drop inside the paired bootstrap
    interval: on a small eval set that interval is wide (±0.13 nDCG@10 on 12 questions), and
    a reindex changes what every user gets, so a measured drop needs an explicit
    ``eval.tolerance`` (or ``--force``). Every drop ``compare_runs`` calls a regression is
    also one here."""
    from citewise.eval.scoring import LOWER_IS_BETTER

    reasons, worse = list(comparison.reasons), []
    for row in comparison.rows:
        sign = 1.0 if row.metric in LOWER_IS_BETTER else -1.0
        if sign * row.delta > tolerance + 1e-12:
            worse.append(row.metric)
            if not row.regressed:
                reasons.append(
                    f"{row.metric} measured worse {row.base:.4f} -> {row.new:.4f} (Δ "
                    f"{row.delta:+.4f}, within the noise interval [{row.lo:+.4f}, "
                    f"{row.hi:+.4f}]) beyond the tolerance {tolerance:.4f}. Fix: keep the "
                    "live version, add questions to the eval set, or allow it with "
                    "--tolerance / eval.tolerance or --force.")
    return GateResult(passed=not reasons, reasons=reasons, comparison=comparison, worse=worse)


def eval_gate(questions: str | Path, personas: str | Path | None = None, *, k: int = 10,
              tolerance: float = 0.0, samples: int = 1000, seed: int = 0,
              principal: Principal | None = None,
              metrics: tuple[str, ...] | None = None) -> Gate:
    """The gate ``citewise reindex`` uses: run the eval set on both versions
    (:func:`citewise.eval.harness.run_eval`), compare them
    (:func:`citewise.eval.compare.compare_runs`) and apply :func:`strict_verdict`. The eval
    set and personas are loaded now, so a bad file fails before anything is built."""
    from citewise.eval.compare import compare_runs
    from citewise.eval.harness import run_eval
    from citewise.eval.questions import load_personas, load_questions

    qs = load_questions(questions)
    people = load_personas(personas) if personas else None

    def gate(live: Engine, shadow: Engine) -> GateOutcome:
        base = run_eval(live, qs, people, k=k, principal=principal, name="live")
        new = run_eval(shadow, qs, people, k=k, principal=principal, name="shadow")
        comparison = compare_runs(base, new, tolerance=tolerance,
                                  metrics=metrics or EvalSettings().metrics, samples=samples,
                                  seed=seed)
        return strict_verdict(comparison, tolerance)

    return gate


def comparison_summary(comparison: Any) -> str:
    """``ndcg@10 0.6100 -> 0.6400 (+0.0300); ...`` from a comparison's rows."""
    rows = getattr(comparison, "rows", None) or []
    return "; ".join(f"{r.metric} {r.base:.4f} -> {r.new:.4f} ({r.delta:+.4f})" for r in rows)
