"""The library surface the CLI (and later the HTTP API) call: one object per index.

``Engine`` holds settings, a store and an embedder; both are opened lazily, so building an
Engine is cheap and a ``delete`` never loads the model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from citewise.config import Settings
from citewise.errors import NotFoundError
from citewise.index import open_store
from citewise.index.manifest import QUERY_FIELDS, check_manifest, make_manifest
from citewise.indexing import IngestReport, Pending, index_documents
from citewise.protocols import Embedder, Store
from citewise.retrieve import search
from citewise.sources import file_sources
from citewise.types import Manifest, Principal, SearchResult


class Engine:
    """citewise over one index. ``embedder`` may be injected (tests pass a fake)."""

    def __init__(self, db: str | Path, settings: Settings | None = None,
                 embedder: Embedder | None = None, store: Store | None = None) -> None:
        self.db = db
        self.settings = settings or Settings()
        self._embedder = embedder
        self._store = store
        self._warm = False
        self._checked_model = False

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.db)
        return self._store

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from citewise.embed import load_embedder

            self._embedder = load_embedder(self.settings.embed)
        return self._embedder

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def expected_manifest(self) -> Manifest:
        chunk = self.settings.chunk
        return make_manifest(self.embedder.model_id, self.embedder.dim, chunk.params(),
                             chunk.params_hash())

    def ingest(self, items: Iterable[Pending],
               on_progress: Callable[[int], None] | None = None) -> IngestReport:
        self.store.ensure_manifest(self.expected_manifest())
        return index_documents(self.store, self.embedder, items, self.settings,
                               on_progress=on_progress)

    def ingest_paths(self, paths: Sequence[str | Path], defaults: Mapping[str, Any],
                     sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                     on_progress: Callable[[int], None] | None = None) -> IngestReport:
        items = file_sources(paths, self.settings.limits, defaults, sidecar)
        return self.ingest(items, on_progress=on_progress)

    def check_query_model(self) -> None:
        """Refuse to search an index built with another embedder (vectors would be garbage).
        An index's manifest never changes once written, so one check per Engine suffices."""
        if self._checked_model:
            return
        stored = self.store.manifest()
        if stored is None:
            return
        check_manifest(stored, self.expected_manifest(), f"index {self.db}", QUERY_FIELDS)
        self._checked_model = True

    def query_embedder(self) -> tuple[Embedder, float]:
        """The embedder, checked against the index and loaded: model loading (ms, 0 after the
        first call) is kept out of query latency and reported apart."""
        self.check_query_model()
        embedder, load_ms = self.embedder, 0.0
        if not self._warm:
            t = time.perf_counter()
            getattr(embedder, "warm_up", lambda: embedder.embed_query("warm up"))()
            load_ms = round((time.perf_counter() - t) * 1000.0, 3)
            self._warm = True
        return embedder, load_ms

    def search(self, query: str, principal: Principal, mode: str | None = None,
               top_k: int | None = None, explain: bool = False) -> SearchResult:
        mode = mode or self.settings.retrieve.mode
        embedder, load_ms = self.query_embedder() if mode != "bm25" else (None, 0.0)
        result = search(self.store, embedder, query, principal, self.settings.retrieve,
                        mode=mode, top_k=top_k, explain=explain)
        if load_ms:
            result = replace(result, timings_ms={"model_load": load_ms, **result.timings_ms})
        return result

    def delete(self, doc_ids: Sequence[str]) -> int:
        missing = [d for d in doc_ids if self.store.get_document(d) is None]
        if missing:
            raise NotFoundError(f"not in the index: {', '.join(missing)}; "
                                f"list documents with `citewise status --documents`")
        return self.store.delete(doc_ids)

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        self.store.set_acl(doc_id, groups, tenant)
