"""Rescore the top of a fused list with a :class:`~citewise.protocols.Reranker`, within a
deadline.

The reranker runs in a worker thread, ``batch_size`` texts per call. The caller waits at
most ``deadline_s``; then it stops waiting (the worker finishes the call it is in, starts no
other, and its late scores are discarded). What the outcome holds:

* ``ok``: all ``top_n`` hits were scored and are reordered by the reranker's score;
* ``timeout``: the ``scored`` hits finished in time are reordered among themselves at the top,
  every other hit keeps its fused order after them;
* ``error``: the reranker raised (or returned a wrong number of scores / a NaN): the fused order
  is kept and ``error`` holds the message;
* ``off``: no reranker, or nothing to score.

Hits keep their fused ``score`` and signals; a rescored hit gains a ``rerank`` signal
(reranker score, 1-based rank among the rescored hits). ``rank`` is renumbered 1..n.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from citewise.errors import ConfigError
from citewise.protocols import Reranker
from citewise.types import Hit, ScoredId

RerankStatus = Literal["ok", "timeout", "off", "error"]
RERANK_SIGNAL = "rerank"


@dataclass(frozen=True)
class RerankOutcome:
    """The reordered hits and what happened (for the answer trace)."""

    hits: tuple[Hit, ...]
    status: RerankStatus
    scored: int
    ms: float
    error: str | None = None


class _Job:
    """Scores ``texts`` batch by batch until done, failed or cancelled."""

    def __init__(self, reranker: Reranker, query: str, texts: list[str],
                 batch_size: int) -> None:
        self.reranker, self.query, self.texts, self.batch_size = (
            reranker, query, texts, batch_size)
        self.scores: list[float] = []
        self.error: str | None = None
        self.done = threading.Event()
        self.cancel = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            for start in range(0, len(self.texts), self.batch_size):
                if self.cancel.is_set():
                    return
                batch = self.texts[start:start + self.batch_size]
                scores = [float(s) for s in self.reranker.rerank(self.query, batch)]
                if len(scores) != len(batch) or any(math.isnan(s) for s in scores):
                    raise ValueError(f"returned {len(scores)} scores for {len(batch)} texts "
                                     f"(or a NaN): {scores[:4]}")
                with self.lock:
                    if self.cancel.is_set():
                        return  # too late: the caller has already moved on
                    self.scores.extend(scores)
        except Exception as exc:  # any reranker failure degrades to the fused order
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.done.set()

    def stop(self) -> list[float]:
        """Cancel and return the scores finished so far (never changed afterwards)."""
        with self.lock:
            self.cancel.set()
            return list(self.scores)


def rerank_with_deadline(reranker: Reranker | None, query: str, hits: Sequence[Hit],
                         top_n: int, deadline_s: float, batch_size: int = 1) -> RerankOutcome:
    """Rescore the first ``top_n`` of ``hits`` (fused order) within ``deadline_s`` seconds.

    Never waits past the deadline and never reports hits as rescored that were not: see the
    module docstring for each status. ``batch_size`` texts go to each reranker call, so a
    timeout keeps whole batches only: 1 (the default) keeps every pair finished in time, which
    matters for the LLM judge (about a second per pair on a CPU core); a cross-encoder gains
    from larger batches.
    """
    if deadline_s <= 0 or batch_size < 1 or top_n < 0:
        raise ConfigError(f"rerank needs deadline_s > 0, batch_size >= 1 and top_n >= 0 (got "
                          f"{deadline_s}, {batch_size}, {top_n}). Fix: set rerank.deadline_ms "
                          "and rerank.top_n to positive values.")
    if reranker is None or not hits or top_n == 0:
        return RerankOutcome(hits=_renumber(list(hits)), status="off", scored=0, ms=0.0)
    t0 = time.perf_counter()
    head = list(hits[:top_n])
    job = _Job(reranker, query, [hit.chunk.text for hit in head], batch_size)
    threading.Thread(target=contextvars.copy_context().run, args=(job.run,),  # cache scope
                     name="citewise-rerank", daemon=True).start()
    finished = job.done.wait(deadline_s)
    scores = job.stop()
    ms = round((time.perf_counter() - t0) * 1000.0, 3)
    if job.error is not None:
        return RerankOutcome(hits=_renumber(list(hits)), status="error", scored=0, ms=ms,
                             error=job.error)
    status: RerankStatus = "ok" if finished and len(scores) == len(head) else "timeout"
    return RerankOutcome(hits=reorder(hits, scores), status=status, scored=len(scores), ms=ms)


def reorder(hits: Sequence[Hit], scores: Sequence[float]) -> tuple[Hit, ...]:
    """The first ``len(scores)`` hits sorted by score (descending; ties keep fused order),
    then the rest in fused order; ranks renumbered from 1, a ``rerank`` signal added."""
    n = len(scores)
    order = sorted(range(n), key=lambda i: -scores[i])  # stable: ties keep fused order
    rescored = []
    for new_rank, i in enumerate(order, start=1):
        hit = hits[i]
        signal = ScoredId(hit.chunk.chunk_id, float(scores[i]), new_rank)
        rescored.append(replace(hit, signals={**hit.signals, RERANK_SIGNAL: signal}))
    return _renumber(rescored + list(hits[n:]))


def _renumber(hits: list[Hit]) -> tuple[Hit, ...]:
    return tuple(hit if hit.rank == rank else replace(hit, rank=rank)
                 for rank, hit in enumerate(hits, start=1))
