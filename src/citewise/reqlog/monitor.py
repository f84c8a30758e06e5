"""Drift rates from the request log, and the alert rules ``citewise monitor`` applies.

Rates (per window): empty retrieval (searches and asks that found nothing the principal may
read), below gate (asks the grounding gate declined), abstention (declined asks) and by
reason, citation-validation failure (answered asks whose citations failed a check), rerank
timeout, negative feedback. An alert fires when a rate is over ``factor`` × its baseline (the
window before) and over an absolute floor, with enough requests to mean something.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citewise.errors import ConfigError
from citewise.reqlog.record import LogRecord

CUT = "client_gone"
"""The reason of an ask whose client left before it was written (``serve/query.py``)."""
UNSEARCHED = (CUT, "not_a_question")
"""Reasons of asks that ran no search: left out of the drift rates."""
RATES = ("empty_retrieval", "below_gate", "abstention", "citation_failure", "rerank_timeout",
         "negative_feedback")
MAX_BUCKETS = 1000
"""Most time buckets one drift series may have (the admin page asks for 24 or 30)."""


def parse_window(text: str) -> float:
    """``7d``, ``12h``, ``30m``, ``90s`` → seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([dhms])\s*", text or "")
    if not m:
        raise ConfigError(f"window {text!r}: use a number and d/h/m/s. Fix: e.g. "
                          "`citewise monitor --window 7d`")
    return float(m.group(1)) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[m.group(2)]


@dataclass(frozen=True)
class Rates:
    requests: int
    asks: int
    rates: dict[str, float] = field(default_factory=dict)
    abstention_by_reason: dict[str, float] = field(default_factory=dict)
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    denominators: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "asks": self.asks, "rates": dict(self.rates),
                "abstention_by_reason": dict(self.abstention_by_reason),
                "latency_p50_ms": self.latency_p50_ms, "latency_p95_ms": self.latency_p95_ms,
                "denominators": dict(self.denominators)}


def _ratio(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


def rates(records: Sequence[LogRecord]) -> Rates:
    """The drift rates of ``records``; an ask cut short by its client leaving (``reason:
    client_gone``) or declined as no question (``not_a_question``: "thanks!") ran no search
    and is in none of them (a review: a "thanks!" counted as an empty retrieval)."""
    records = [r for r in records if r.reason not in UNSEARCHED]
    asks = [r for r in records if r.kind == "ask"]
    answered = [r for r in asks if not r.declined]
    reasons = Counter(r.reason or "unknown" for r in asks if r.declined)
    rated = [r for r in records if r.feedback is not None]
    latency = [float(r.latencies_ms.get("request", r.latencies_ms.get("total", 0.0)))
               for r in records]
    return Rates(
        len(records), len(asks),
        {"empty_retrieval": _ratio(sum(r.empty for r in records), len(records)),
         "below_gate": _ratio(sum(r.gate_passed is False for r in asks), len(asks)),
         "abstention": _ratio(sum(r.declined for r in asks), len(asks)),
         "citation_failure": _ratio(sum(r.validation not in (None, "ok") for r in answered),
                                    len(answered)),
         "rerank_timeout": _ratio(sum(r.rerank_status == "timeout" for r in asks), len(asks)),
         "negative_feedback": _ratio(sum(r.feedback < 0 for r in rated), len(rated))},
        {k: _ratio(v, len(asks)) for k, v in sorted(reasons.items())},
        _pct(latency, 0.5), _pct(latency, 0.95),
        {"empty_retrieval": len(records), "below_gate": len(asks), "abstention": len(asks),
         "citation_failure": len(answered), "rerank_timeout": len(asks),
         "negative_feedback": len(rated)})


@dataclass(frozen=True)
class Alert:
    rate: str
    value: float
    baseline: float
    limit: float

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "value": self.value, "baseline": self.baseline,
                "limit": self.limit}

    def __str__(self) -> str:
        return (f"ALERT {self.rate}: {self.value:.1%} (baseline {self.baseline:.1%}, limit "
                f"{self.limit:.1%})")


def alerts(current: Rates, baseline: Rates, *, factor: float = 2.0, floor: float = 0.05,
           min_requests: int = 20) -> list[Alert]:
    """Rates over ``max(factor × baseline, floor)``; none measured on fewer than
    ``min_requests`` requests (e.g. asks for the abstention rate, rated ones for feedback),
    and none when the baseline window holds fewer than ``min_requests`` requests at all: a
    drift is a change from before, and an operator's new deployment (no requests the week
    before) paged three ALERTs against "baseline 0.0%" on its first busy window. A baseline
    of other requests (searches, a few asks) still compares: the floor holds there (the
    review of this stop: 300 asks 90 % declined after a week of 400 searches)."""
    if baseline.requests < min_requests:
        return []
    out = []
    for name in RATES:
        if current.denominators.get(name, 0) < min_requests:
            continue
        value, base = current.rates[name], baseline.rates.get(name, 0.0)
        limit = max(factor * base, floor)
        if value > limit:
            out.append(Alert(name, value, base, round(limit, 4)))
    return out


def series(records: Sequence[LogRecord], start: float, end: float,
           bucket_s: float) -> list[dict[str, Any]]:
    """Rates per time bucket in ``[start, end)`` (for the admin page's chart); at most
    :data:`MAX_BUCKETS` buckets (one list each: a long window in short buckets would take a
    server's memory)."""
    span = end - start
    if not (bucket_s > 0 and math.isfinite(span)) or span / bucket_s > MAX_BUCKETS:
        raise ConfigError(f"a window of {span:g} s in buckets of {bucket_s:g} s: at most "
                          f"{MAX_BUCKETS} buckets of more than 0 s. Fix: use a longer bucket "
                          "or a shorter window, e.g. window=30d&bucket=1d")
    n = max(1, int(span // bucket_s + (1 if span % bucket_s else 0)))
    buckets: list[list[LogRecord]] = [[] for _ in range(n)]
    for r in records:
        if start <= r.at < end:
            buckets[min(n - 1, int((r.at - start) // bucket_s))].append(r)
    return [{"start": start + i * bucket_s, **rates(b).to_dict()} for i, b in enumerate(buckets)]
