"""Prometheus metrics of one server (its own registry): request counts, the drift rates'
numerators (empty retrieval, below gate, abstention by reason, citation validation failure,
rerank timeout), per-stage latency histograms, tokens, index lag and chunk age, documents per
version. Rates are these counters divided by ``citewise_requests_total``."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from citewise.reqlog.record import LogRecord

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
INDEX_REFRESH_S = 10.0
"""How long the index gauges (documents per version, chunk age) are kept before a scrape
reads the index again. Reading it lists every document (0.21 s at 21,000), and a security
review's 100 threads scraping ``/metrics`` with no key, one at a time behind the scrape
lock, held the server's worker threads: a keyed ``/v1/search`` took 21 s instead of 5 ms.
Prometheus scrapes every 15 s or more."""


class Metrics:
    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self._scraping = threading.Lock()
        self._refreshed: float | None = None  # time.monotonic() of the last index read
        self._last: bytes | None = None  # the last exposition text
        self.requests = Counter("citewise_requests", "API requests", ["endpoint", "status"],
                                registry=r)
        self.empty = Counter("citewise_empty_retrieval", "Searches/asks that retrieved "
                             "nothing the principal may read", ["kind"], registry=r)
        self.below_gate = Counter("citewise_below_gate", "Asks the grounding gate declined",
                                  registry=r)
        self.abstentions = Counter("citewise_abstentions", "Declined asks by reason",
                                   ["reason"], registry=r)
        self.citation_failures = Counter("citewise_citation_validation_failures",
                                         "Answers whose citations failed validation",
                                         ["kind"], registry=r)
        self.rerank_timeouts = Counter("citewise_rerank_timeouts", "Reranks that hit the "
                                       "deadline", registry=r)
        self.log_failures = Counter("citewise_log_write_failures", "Requests whose log "
                                    "record could not be written", registry=r)
        self.cache = Counter("citewise_cache", "Cache lookups", ["kind", "result"], registry=r)
        self.stage = Histogram("citewise_stage_seconds", "Latency per pipeline stage",
                               ["stage"], buckets=_BUCKETS, registry=r)
        self.tokens = Counter("citewise_tokens", "LLM tokens", ["direction"], registry=r)
        self.index_lag = Histogram("citewise_index_lag_seconds", "Time until a document is "
                                   "searchable, from its upload or from its source updated_at",
                                   ["since"], buckets=(0.1, 0.5, 1, 5, 30, 60, 300, 3600, 86400,
                                                       604800), registry=r)
        self.chunk_age = Gauge("citewise_chunk_age_seconds", "Age of the documents' "
                               "updated_at in the live version", ["stat"], registry=r)
        self.documents = Gauge("citewise_documents", "Documents per index version",
                               ["version", "state"], registry=r)

    def observe(self, record: LogRecord) -> None:
        if record.empty:
            self.empty.labels(record.kind).inc()
        if record.kind == "ask":
            if record.gate_passed is False:
                self.below_gate.inc()
            if record.declined:
                self.abstentions.labels(record.reason or "unknown").inc()
            if record.validation not in (None, "ok"):
                self.citation_failures.labels(record.validation).inc()
            if record.rerank_status == "timeout":
                self.rerank_timeouts.inc()
            self.tokens.labels("in").inc(record.tokens_in)
            self.tokens.labels("out").inc(record.tokens_out)
        for stage, ms in record.latencies_ms.items():
            self.stage.labels(stage).observe(float(ms) / 1000.0)

    def scrape(self, engine: Any) -> bytes:
        """The exposition text, the index gauges read at most every :data:`INDEX_REFRESH_S`.
        One scrape renders at a time, since :meth:`refresh_index` clears a gauge before it
        sets it again (a review's two concurrent scrapes: 14 of 4000 lacked the live
        version's series); a scrape arriving meanwhile gets the last text at once instead of
        waiting in a worker thread (:data:`INDEX_REFRESH_S`). An index that cannot be read
        leaves its gauges as they were and is tried again after :data:`INDEX_REFRESH_S`
        (a review: while no scrape had succeeded, every scrape waited for a failing read)."""
        if not self._scraping.acquire(blocking=self._last is None):
            return self._last or b""
        try:
            self._refresh_if_due(engine)
            self._last = generate_latest(self.registry)
            return self._last
        finally:
            self._scraping.release()

    def _refresh_if_due(self, engine: Any) -> None:
        now = time.monotonic()
        if self._refreshed is not None and now - self._refreshed < INDEX_REFRESH_S:
            return
        self._refreshed = now  # a failed read is not retried by every scrape
        try:
            self.refresh_index(engine)
        except Exception:  # the index unreadable: the request figures are still served
            logging.getLogger("citewise.serve").warning("metrics: the index could not be "
                                                        "read", exc_info=True)

    def refresh_index(self, engine: Any) -> None:
        """Gauges read from the index (on each /metrics scrape, :meth:`scrape`)."""
        try:
            counts = {(str(v.number), v.state): v.documents for v in engine.versions()
                      if v.documents is not None}
        except Exception:  # an in-memory index has no versions
            counts = {("1", "live"): engine.store.count().documents}
        self.documents.clear()  # a version's old state, or a removed version, is no series:
        for (number, state), n in counts.items():  # a review's scrape showed three "live"
            self.documents.labels(number, state).set(n)
        ages = sorted(time.time() - t for t in (epoch(d.updated_at) for d in
                                                engine.store.list_documents()) if t)
        self.chunk_age.clear()
        if ages:
            self.chunk_age.labels("min").set(ages[0])
            self.chunk_age.labels("median").set(ages[len(ages) // 2])
            self.chunk_age.labels("max").set(ages[-1])


def epoch(text: str | None) -> float | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        from datetime import UTC

        when = when.replace(tzinfo=UTC)
    return when.timestamp()
