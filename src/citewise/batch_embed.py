"""Embedding a batch's texts: those the store has no vector of (per tenant), a slice at a
time, saying as it goes how many texts, and how many documents, are done."""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from citewise.protocols import Embedder, Store

if TYPE_CHECKING:
    from citewise.indexing import Prepared
    from citewise.ingest_report import IngestReport

EMBED_SLICE = 256
"""Texts per embedding call of a batch; progress is reported after each."""


def texts_to_embed(store: Store, prepared: Sequence[Prepared]) -> list[tuple[str, str]]:
    """(embed_hash, text) of the batch's chunks whose vector the store does not cache yet for
    their document's tenant (one cache for all tenants unless ``index.tenancy: isolated``),
    each hash once."""
    by_tenant: dict[str, dict[str, str]] = {}
    for p in prepared:
        texts = by_tenant.setdefault(p.document.tenant, {})
        for c in p.chunks:
            texts.setdefault(c.embed_hash, c.text_for_embedding)
    todo: dict[str, str] = {}
    for tenant, texts in by_tenant.items():
        cached = store.cached_vectors(list(texts), tenant)
        todo.update((h, t) for h, t in texts.items() if h not in cached and h not in todo)
    return list(todo.items())


def embed_missing(store: Store, embedder: Embedder, prepared: Sequence[Prepared],
                   report: IngestReport, on_embedded: Callable[[int], None] | None = None,
                   primed: Mapping[str, np.ndarray] | None = None,
                   on_documents: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """Vectors of the batch's texts the store does not cache: taken from ``primed`` (by embed
    hash, see :mod:`citewise.prime`) or embedded :data:`EMBED_SLICE` at a time so
    ``on_embedded`` hears how many are done while a large batch runs, and ``on_documents``
    how many more of ``prepared`` have all their texts embedded."""
    primed = primed or {}
    todo = texts_to_embed(store, prepared)
    done = {h: primed[h] for h, _ in todo if h in primed}
    todo = [(h, t) for h, t in todo if h not in done]
    heard = _EmbeddedDocuments(prepared, todo, on_documents, on_embedded)
    heard(0)
    if not todo:
        return done
    t0 = time.perf_counter()
    vectors = embed_texts(embedder, [t for _, t in todo], heard)
    report.model_seconds += time.perf_counter() - t0
    return done | {h: vectors[i] for i, (h, _) in enumerate(todo)}


class _EmbeddedDocuments:
    """An ``on_embedded`` that also tells ``on_documents`` how many more documents have all
    their texts embedded: the bar counted documents only when their batch was written, so
    new users saw "0/59 file" for over two minutes while 1,024 chunks embedded, then 95 %."""

    def __init__(self, prepared: Sequence[Prepared], todo: Sequence[tuple[str, str]],
                 on_documents: Callable[[int], None] | None,
                 on_embedded: Callable[[int], None] | None) -> None:
        position = {h: i for i, (h, _) in enumerate(todo)}
        self.ends = sorted(1 + max((position.get(c.embed_hash, -1) for c in p.chunks),
                                   default=-1) for p in prepared)  # texts before it is done
        self.on_documents, self.on_embedded = on_documents, on_embedded
        self.embedded = self.told = 0

    def __call__(self, count: int) -> None:
        self.embedded += count
        finished = bisect_right(self.ends, self.embedded)
        if self.on_documents and finished > self.told:
            self.on_documents(finished - self.told)
        self.told = finished
        if self.on_embedded and count:
            self.on_embedded(count)


def embed_texts(embedder: Embedder, texts: Sequence[str],
                on_embedded: Callable[[int], None] | None = None) -> np.ndarray:
    """``texts`` embedded :data:`EMBED_SLICE` at a time (``on_embedded`` hears each slice)."""
    parts = []
    for start in range(0, len(texts), EMBED_SLICE):
        part = list(texts[start:start + EMBED_SLICE])
        parts.append(embedder.embed_batch(part))
        if on_embedded:
            on_embedded(len(part))
    return np.concatenate(parts)
