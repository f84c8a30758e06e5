"""The main process's side of a parallel ingest: dispatch, decide, embed in the pool, write.

Per batch of ``batch_docs`` documents (as :func:`citewise.indexing.index_documents`):

1. workers load, parse and chunk each document (dispatched up to ``ahead`` batches early, so
   the pool keeps working while the main process writes; at most ``ahead + 1`` batches of
   parsed documents are held in memory);
2. the main process, which alone owns the store, makes the content-hash skip decision
   (``unchanged`` / ``updated`` / ``changed`` / ``new``) exactly as the serial path does;
3. it asks the store which ``embed_hash`` values are cached and sends only the missing texts
   to the pool, in length-balanced shards, one or more per worker;
4. it writes the batch in one ``Store.write`` transaction.

Why chunk in the workers but decide and look up the cache here: a chunk's ``embed_hash`` is
known only after parsing and chunking, and only the store knows what is cached. A single
round trip would have to embed before knowing the cache (recomputing cached vectors) or let
workers query the store. The second round trip costs pickling texts out and vectors back.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future

import numpy as np

from citewise.batch_embed import texts_to_embed
from citewise.config import Settings
from citewise.errors import IngestError
from citewise.indexing import (
    DocIdClaims,
    IngestReport,
    Outcome,
    Pending,
    Prepared,
    batches,
    decide_record,
    index_failed,
    one_line,
    ready_to_write,
    take,
    unchanged,
    unclaimed,
    write_prepared,
)
from citewise.parallel.backends import Backend
from citewise.parallel.units import shippable
from citewise.parallel.worker import Parsed
from citewise.protocols import Store
from citewise.records import same_record
from citewise.source_claims import SourceClaims

#: Fewest texts worth a separate embedding task (below it, IPC outweighs the model call).
MIN_SHARD = 8

_Job = Future | Outcome


def run_pipeline(store: Store, backend: Backend, items: Iterable[Pending], settings: Settings,
                 *, batch_docs: int = 64, ahead: int = 2,
                 on_progress: Callable[[int], None] | None = None) -> IngestReport:
    """Index ``items`` with ``backend``'s workers; same report and transactions as the serial
    :func:`~citewise.indexing.index_documents`. A worker's exception propagates after the
    current batch is abandoned (earlier batches stay committed, each complete)."""
    report = IngestReport()
    started = time.perf_counter()
    window: deque[tuple[list[Pending], list[_Job]]] = deque()
    claims, sources = DocIdClaims(), SourceClaims(store)

    def drain(keep: int) -> None:
        while len(window) > keep:
            batch, jobs = window.popleft()
            _finish(store, backend, batch, jobs, report, claims, sources)
            if on_progress:
                on_progress(len(batch))

    for batch in batches(items, batch_docs):
        window.append((batch, [_dispatch(backend, item, settings) for item in batch]))
        drain(ahead)
    drain(0)
    report.seconds = time.perf_counter() - started
    return report


def _dispatch(backend: Backend, item: Pending, settings: Settings) -> _Job:
    shipped = shippable(item)
    if isinstance(shipped, Outcome):
        return shipped
    return backend.prepare(shipped, settings.chunk)


def _finish(store: Store, backend: Backend, batch: Sequence[Pending], jobs: Sequence[_Job],
            report: IngestReport, claims: DocIdClaims, sources: SourceClaims) -> None:
    prepared: list[Prepared] = []
    for item, job in zip(batch, jobs, strict=True):
        result = job if isinstance(job, Outcome) else backend.result(job)
        if not isinstance(result, Outcome):
            result = _decide(store, item, result)
        take(unclaimed(sources, claims.check(result)), report, prepared)
    if not prepared:
        return
    vectors = _embed_missing(store, backend, prepared, report)
    write_prepared(store, prepared, vectors, report)


def _decide(store: Store, item: Pending, result: Parsed) -> Prepared | Outcome:
    """The serial path's decision (see ``indexing._prepare``), on a worker's parse."""
    try:
        previous = store.get_document(result.doc_id)
        document = decide_record(store, result.parsed, result.doc_id, previous)
    except IngestError as exc:
        return Outcome(item.label, item.doc_id, "failed", error=one_line(exc))
    except Exception as exc:  # as in the serial path: one bad record fails one document,
        if index_failed(exc):  # the index's own error stops the batch
            raise
        return Outcome(item.label, item.doc_id, "failed",
                       error=one_line(f"{type(exc).__name__}: {exc}"))
    if previous is not None and same_record(previous, document):
        return unchanged(item.label, document)
    if result.chunk_error is not None:
        return Outcome(item.label, item.doc_id, "failed", error=result.chunk_error)
    return ready_to_write(item, document, list(result.chunks), previous, result.parsed)


def _embed_missing(store: Store, backend: Backend, prepared: Sequence[Prepared],
                   report: IngestReport) -> dict[str, np.ndarray]:
    shards = shard(texts_to_embed(store, prepared), backend.workers)
    futures = [backend.embed([t for _, t in s]) for s in shards]
    out: dict[str, np.ndarray] = {}
    for s, future in zip(shards, futures, strict=True):
        vectors, seconds = backend.result(future)
        report.model_seconds += seconds  # model time summed over workers
        out.update((h, vectors[i]) for i, (h, _) in enumerate(s))
    return out


def shard(todo: Sequence[tuple[str, str]], workers: int) -> list[list[tuple[str, str]]]:
    """Split ``(hash, text)`` pairs into at most ``workers`` shards of similar total length:
    longest first, dealt round-robin (shard i gets ranks i, i+n, ...), and no shard under
    :data:`MIN_SHARD` texts unless there are fewer texts than that."""
    if not todo:
        return []
    n = max(1, min(workers, math.ceil(len(todo) / MIN_SHARD)))
    ranked = sorted(todo, key=lambda pair: -len(pair[1]))
    return [ranked[i::n] for i in range(n)]
