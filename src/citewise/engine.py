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
from citewise.protocols import Embedder, Generator, Reranker, Store
from citewise.retrieve import search
from citewise.sources import file_sources
from citewise.types import Answer, Manifest, Principal, SearchResult


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
        self._generator: Generator | None = None
        self.generator_reason = ""
        self._reranker: Reranker | None = None

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
               on_progress: Callable[[int], None] | None = None, *,
               workers: int | None = None, ray: str | None = None) -> IngestReport:
        """Index ``items``; ``workers`` > 1 or ``ray`` (an address) parse, chunk and embed in
        worker processes (see :mod:`citewise.parallel`), else all runs in this process."""
        self.store.ensure_manifest(self.expected_manifest())
        if (workers or 1) > 1 or ray:
            from citewise.parallel import index_parallel

            return index_parallel(self.store, self.embedder, items, self.settings,
                                  workers=workers, ray=ray, on_progress=on_progress)
        return index_documents(self.store, self.embedder, items, self.settings,
                               on_progress=on_progress)

    def ingest_paths(self, paths: Sequence[str | Path], defaults: Mapping[str, Any],
                     sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                     on_progress: Callable[[int], None] | None = None, *,
                     workers: int | None = None, ray: str | None = None,
                     on_total: Callable[[int], None] | None = None) -> IngestReport:
        """Index files and folders; ``on_total`` hears how many files will be read before
        the first is, ``on_progress`` how many more are done. Files of a folder with an
        unsupported suffix are listed in the report's ``skipped``."""
        skipped: list[Path] = []
        items = file_sources(paths, self.settings.limits, defaults, sidecar, skipped)
        if on_total is not None:
            on_total(len(items))
        report = self.ingest(items, on_progress=on_progress, workers=workers, ray=ray)
        report.skipped = [p.as_posix() for p in skipped]
        return report

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

    # -- answers ----------------------------------------------------------------------------

    @property
    def generator(self) -> Generator:
        """The configured generator, made once (``auto``: local if installed, else extractive)."""
        if self._generator is None:
            from citewise.generate import choose_generator

            choice = choose_generator(self.settings.generate, self.settings.generate.models_dir)
            self._generator, self.generator_reason = choice.generator, choice.reason
        return self._generator

    @property
    def reranker(self) -> Reranker | None:
        """The configured reranker, made once (``None`` when ``rerank.kind`` is ``none``)."""
        if self._reranker is None and self.settings.rerank.kind != "none":
            from citewise.rerank import make_reranker

            self._reranker = make_reranker(self.settings.rerank, self.settings.generate)
        return self._reranker

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the embedder's own tokenizer (the context budget's unit)."""
        counter = getattr(self.embedder, "count_tokens", None)
        return counter(text) if counter else len(text.split())

    def index_info(self) -> dict[str, Any]:
        """What identifies the index answering: manifest fields (and its version number)."""
        manifest = self.store.manifest()
        info: dict[str, Any] = {"version": getattr(self.store, "version_number", 1)}
        if manifest is not None:
            info.update(embedder=manifest.embedder_id, chunker=manifest.chunker_hash,
                        created_at=manifest.created_at)
        return info

    def ask(self, question: str, principal: Principal, *, generator: Generator | None = None,
            reranker: Reranker | None = None, dry_run: bool = False,
            on_token: Callable[[str], None] | None = None) -> Answer:
        """A grounded, cited answer or a decline; see :func:`citewise.ask.ask`."""
        from citewise.ask import ask

        return ask(self, question, principal, generator=generator, reranker=reranker,
                   dry_run=dry_run, on_token=on_token)

    def resolve_documents(self, refs: Sequence[str]) -> list[str]:
        """Document ids for ``refs``: each an id or the path its document was ingested from
        (see :mod:`citewise.docref`); :class:`NotFoundError` for refs matching none."""
        from citewise.docref import resolve_refs

        return resolve_refs(refs, self.store)

    def delete(self, doc_ids: Sequence[str]) -> int:
        missing = [d for d in doc_ids if self.store.get_document(d) is None]
        if missing:
            raise NotFoundError(f"not in the index: {', '.join(missing)}; "
                                f"list documents with `citewise status --documents`")
        return self.store.delete(doc_ids)

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        self.store.set_acl(doc_id, groups, tenant)
