"""The library surface the CLI (and later the HTTP API) call: one object per index.

``Engine`` holds settings, a store and an embedder; both are opened lazily, so building an
Engine is cheap and a ``delete`` never loads the model.

An Engine may live for days (a server holds one): its store follows the index's live version
(:class:`~citewise.index.follow.LiveStore`), so after a ``reindex`` or ``rollback`` in another
process its next search reads, and its next write reaches, the version live then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from citewise.batch_checks import check_sidecar, delete_read_parts, gone, not_read
from citewise.cache_scope import cache_scope, scope_of
from citewise.chunk.tokens import bounded
from citewise.config import ChunkSettings, Settings
from citewise.errors import (
    GenerationError,
    IndexMismatchError,
    ModelError,
    NotFoundError,
)
from citewise.facade import EngineVerbs
from citewise.index import open_store
from citewise.index.follow import pinned
from citewise.index.location import shown
from citewise.index.manifest import QUERY_FIELDS, check_manifest, make_manifest
from citewise.indexing import IngestReport, Pending, index_documents
from citewise.ingest.languages import mixed_languages
from citewise.ingest.sidecar import SidecarMatch
from citewise.prime import Primed, prime
from citewise.protocols import Embedder, Generator, HandDeletes, HandReaders, Reranker, Store
from citewise.retrieve import search
from citewise.sources import file_batch
from citewise.trace import IndexInfo
from citewise.types import Answer, Document, Manifest, Principal, SearchResult


def chunk_settings_of(manifest: Manifest) -> ChunkSettings | None:
    """The chunk settings that built ``manifest`` (``None`` when they cannot be rebuilt)."""
    params = dict(manifest.chunker_params)
    if params.pop("chunker", None) != ChunkSettings().params()["chunker"]:
        return None
    try:
        chunk = ChunkSettings(**params)
    except (TypeError, ValueError):
        return None
    return chunk if chunk.params_hash() == manifest.chunker_hash else None


class Engine(EngineVerbs):
    """citewise over one index. ``embedder`` may be injected (tests pass a fake)."""

    def __init__(self, db: str | Path, settings: Settings | None = None,
                 embedder: Embedder | None = None, store: Store | None = None) -> None:
        self.db = db
        self.settings = settings or Settings()
        self._embedder = embedder
        self._owns_embedder = embedder is None  # loaded from settings: may follow the index
        self._store = store
        self._seen_version: object = None  # the live version this Engine last checked
        self._warm = False
        self._checked_model: object = None  # the version whose manifest was checked
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
                             chunk.params_hash(), tenancy=self.settings.index.tenancy)

    def ingest(self, items: Iterable[Pending],
               on_progress: Callable[[int], None] | None = None, *,
               workers: int | None = None, ray: str | None = None,
               on_embedded: Callable[[int], None] | None = None,
               primed: Primed | None = None) -> IngestReport:
        """Index ``items``; ``workers`` > 1 or ``ray`` (an address) parse, chunk and embed in
        worker processes (see :mod:`citewise.parallel`), else all runs in this process.
        ``on_progress`` hears how many documents were written, ``on_embedded`` (in this
        process only) how many texts were embedded while a batch runs; ``primed``: what
        :meth:`prime` made (this process only; its vectors are used when the same model
        made them)."""
        self._observe()
        seen = self._seen_version
        try:
            self.store.ensure_manifest(self.expected_manifest())
        except IndexMismatchError:  # a reindex promoted a version since this Engine looked
            self._observe()
            if self._seen_version == seen:
                raise
            self.store.ensure_manifest(self.expected_manifest())
        vectors = primed.vectors if primed and primed.model_id == self.embedder.model_id \
            else None
        once = getattr(self.store, "purging_once", None)  # SQLite: one purge per ingest
        with once() if once is not None else nullcontext():
            if (workers or 1) > 1 or ray:
                from citewise.parallel import index_parallel

                return index_parallel(self.store, self.embedder, items, self.settings,
                                      workers=workers, ray=ray, on_progress=on_progress)
            return index_documents(self.store, self.embedder, items, self.settings,
                                   on_progress=on_progress, on_embedded=on_embedded,
                                   vectors=vectors)

    def prime(self, item: Pending, max_chunks: int | None = None) -> Primed:
        """Parse, chunk and embed ``item`` before a write lock is taken; then
        ``ingest([primed.item], primed=primed)`` only compares and stores
        (:mod:`citewise.prime`). Texts the index has vectors of are not embedded again;
        more than ``max_chunks`` passages is a :class:`LimitExceededError`."""
        self._observe()
        return prime(item, self.embedder, self.settings, self.store.cached_vectors,
                     max_chunks)

    def ingest_paths(self, paths: Sequence[str | Path], defaults: Mapping[str, Any],
                     sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                     on_progress: Callable[[int], None] | None = None, *,
                     workers: int | None = None, ray: str | None = None,
                     base_url: str | None = None, trust_file_acl: bool = False,
                     wider_readers: bool = False, undelete: bool = False,
                     follow_symlinks: bool = False, strict: bool = False, id_prefix: str = "",
                     on_total: Callable[[int], None] | None = None,
                     on_embedded: Callable[[int], None] | None = None,
                     exclude: Sequence[str] = (), prune: bool = False) -> IngestReport:
        """Index files and folders. ``defaults`` and ``sidecar`` are the operator's metadata;
        a file's own tenant is ignored and its groups only narrow the operator's unless
        ``trust_file_acl`` (:mod:`citewise.ingest.precedence`). Sidecar lines that match no
        document (or several) are reported in ``warnings``/``sidecar_problems``; with
        ``strict``, a path line that matches no file stops the batch before anything is
        written (:class:`ConfigError`). ``base_url``: citations link to ``base_url`` + the path
        relative to the folder (or a ``{path}``/``{stem}`` template); redirect stub pages are
        skipped and listed in ``report.redirects``, a page's source copy (Sphinx's
        ``_sources``) in ``report.copies``, pages marked noindex (mdBook's ``print.html``), a
        single-page edition of the others (Node's ``all.html``) and
        404 pages in ``report.noindex``, a page with the same text as another (mdBook's
        ``index.html``) in ``report.duplicates``; ``id_prefix`` goes before each doc_id
        taken from a path; boilerplate repeated across a folder's
        pages is not indexed (:mod:`citewise.ingest.boilerplate`). ``on_total`` hears how
        many files will be read before the first is, ``on_progress`` how many more are done,
        ``on_embedded`` how many texts were embedded (see :meth:`ingest`);
        files of a folder with an unsupported suffix are listed in ``report.skipped``;
        ``exclude``: glob patterns of a folder's paths not to walk
        (:func:`citewise.ingest.walk.excluded`); documents whose files left a walked folder
        are in ``report.gone``, deleted under ``prune`` (:func:`citewise.batch_checks.gone`)."""
        notes: list[str] = []
        skipped: list[Path] = []
        match = SidecarMatch(sidecar or {})
        batch = file_batch(paths, self.settings.limits, defaults, sidecar, base_url,
                           trust_file_acl=trust_file_acl, wider_readers=wider_readers,
                           undelete=undelete,
                           follow_symlinks=follow_symlinks,
                           notes=notes, match=match, skipped=skipped, id_prefix=id_prefix,
                           exclude=exclude)
        unread = not_read(batch, paths)  # resolves every file of the batch: once
        check_sidecar(match, batch, unread, strict,
                      lambda doc_id: self.store.get_document(doc_id) is not None)
        if on_total is not None:
            on_total(len(batch.items))
        report = self.ingest(batch.items, on_progress=on_progress, workers=workers, ray=ray,
                             on_embedded=on_embedded)
        report.redirects.extend(batch.redirects)
        report.copies.extend(batch.copies)
        report.noindex.extend(batch.noindex)
        report.duplicates.extend(batch.duplicates)
        report.skipped = [p.as_posix() for p in skipped]
        report.sidecar_problems = match.problems([o.doc_id for o in report.outcomes],
                                                 unread)
        left_out = [p for p, _ in batch.copies + batch.redirects + batch.duplicates]
        left_out = left_out + batch.noindex + [o.doc_id for o in report.includes_only]
        # (the ids' paths, prefixes included; include-only files indexed before with text)
        report.gone, moved = gone(
            self.store, paths, prune, exclude, id_prefix=id_prefix,
            tenant=str((defaults or {}).get("tenant") or "default"),
            keep={o.doc_id for o in report.outcomes})
        report.warnings[:0] = (notes + self._stale(left_out)
                               + delete_read_parts(self.store, batch, report)
                               + report.sidecar_problems + moved)
        skipped_ids = set(left_out)
        mixed = mixed_languages({p: lang for p, lang in batch.languages.items()
                                 if p not in skipped_ids})
        report.warnings.extend([mixed] if mixed else [])
        return report

    def _stale(self, left_out: Sequence[str]) -> list[str]:
        """A line when files this ingest leaves out (source copies, pages marked noindex,
        redirect stubs, duplicate pages, files of include lines only) are still in the
        index: an earlier ingest, or the page before it became a redirect, put them there."""
        stale = [doc for doc in left_out if self.store.get_document(doc) is not None]
        if not stale:
            return []
        return [f"{len(stale)} page(s) this ingest skips (source copies, pages marked noindex, "
                "redirect stubs, duplicates, include-only files) are still indexed from an "
                f"earlier ingest. Fix: citewise delete {' '.join(stale)}"]

    def check_query_model(self) -> None:
        """Refuse to search an index built with another embedder (vectors would be garbage).
        A version's manifest never changes once written, so one check per live version
        suffices (a reindex may promote a version built with another embedder)."""
        version = getattr(self.store, "version_number", 1)
        if self._checked_model == version:
            return
        stored = self.store.manifest()
        if stored is None:
            return
        self._follow(stored, version)
        check_manifest(stored, self.expected_manifest(), f"index {shown(self.db)}", QUERY_FIELDS)
        self._checked_model = version

    def _observe(self) -> None:
        """Note the live version (one catalog query); follow it if it changed."""
        version = getattr(self.store, "version_number", 1)
        if version != self._seen_version:
            stored = self.store.manifest()
            if stored is not None:
                self._follow(stored, version)

    def _follow(self, stored: Manifest, version: object) -> None:
        """After a promotion this Engine saw (a long-lived one: a reindex made another version
        live), adopt what that version was built with: its chunk settings, and its shipped
        embedding model when this Engine loads its own. A fresh Engine adopts only the chunk
        settings, and only when none were configured: after the README's own `citewise
        reindex --chunk-tokens 128`, a plain `citewise ingest` was refused as "built with a
        different pipeline". An explicit choice is never overridden silently: configured
        chunk settings or an embedding model must match the index."""
        seen, self._seen_version = self._seen_version, version
        if seen is None:
            chunk = chunk_settings_of(stored)
            if chunk is not None and not self.settings.chunk.model_fields_set:
                self.settings = self.settings.model_copy(update={"chunk": chunk})
            return
        if seen == version:
            return
        from citewise.reindex import settings_for_manifest

        settings = settings_for_manifest(self.settings, stored) if self._owns_embedder \
            else self.settings
        chunk = chunk_settings_of(stored)
        if chunk is not None:
            settings = settings.model_copy(update={"chunk": chunk})
        if settings.embed != self.settings.embed:
            self._embedder, self._warm = None, False
        self.settings = settings

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
        self._observe()
        embedder, load_ms = self.query_embedder() if mode != "bm25" else (None, 0.0)
        # one version for the search and its hydration; caches keyed by the asker's permissions
        with pinned(self.store) as store, cache_scope(self._scope(principal)):
            result = search(store, embedder, query, principal, self.settings.retrieve,
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

    def warm_up(self) -> str | None:
        """Load what answers need before the first question: the query embedder, and a local
        generator with the system message evaluated (llama.cpp's prompt cache then holds it,
        so no user pays for it). Returns why the generator could not be loaded, else None: a
        model file that does not load, or a missing xllamacpp, makes answers fall back and say
        so; ``generate.generator: local`` naming no existing model makes each answer fail with
        the fix (``serve``: 503), search unaffected. An embedder that does not fit the index
        raises."""
        from citewise.answer.prompt import SYSTEM_PROMPT

        if self.settings.retrieve.mode != "bm25":
            self.query_embedder()
        _ = self.reranker
        try:  # `generate.generator: local` without its model raises ModelError here
            warm = getattr(self.generator, "warm_up", None)
            if callable(warm):
                warm([{"role": "system", "content": SYSTEM_PROMPT}])
        except (GenerationError, ModelError) as exc:
            return str(exc)
        return None

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
        return bounded(counter(text) if counter else len(text.split()), text)  # see bounded()

    def index_info(self) -> IndexInfo:
        """What identifies the index answering: its version number and manifest fields."""
        manifest = self.store.manifest()
        version = getattr(self.store, "version_number", 1)
        if manifest is None:
            return IndexInfo(version)
        return IndexInfo(version, manifest.embedder_id, manifest.chunker_hash,
                         manifest.created_at)

    def ask(self, question: str, principal: Principal, *, generator: Generator | None = None,
            reranker: Reranker | None = None, dry_run: bool = False,
            on_token: Callable[[str], None] | None = None) -> Answer:
        """A grounded, cited answer or a decline; see :func:`citewise.answer.ask.ask`."""
        from citewise.answer.ask import ask

        with cache_scope(self._scope(principal)):  # the reranker's score cache, too
            return ask(self, question, principal, generator=generator, reranker=reranker,
                       dry_run=dry_run, on_token=on_token)

    def _scope(self, principal: Principal) -> str:
        return scope_of(principal, alone=self.settings.serve.cache_scope == "principal")

    def resolve_documents(self, refs: Sequence[str], *, moved: bool = False) -> list[str]:
        """Document ids for ``refs``: each an id or the path its document was ingested from
        (see :mod:`citewise.docref`); :class:`NotFoundError` for refs matching none. With
        ``moved``, an id the live version lacks that another version holds or was moved by
        hand to another tenant there (:meth:`_lost`) is its own (``delete`` forgets it)."""
        from citewise.docref import resolve_refs

        logged = {r for r in refs if moved and self._lost(r)}  # ids the live version lacks
        for ref in logged:  # and a live document's file too: say so rather than pick (the
            try:  # review of this stop: `delete -- a.md` in site/ deleted site/a.md)
                (other,) = resolve_refs([ref], self.store)
            except NotFoundError:
                continue
            raise NotFoundError(f"{ref} is both a document only a retired version holds (from "
                                f"before a rollback) and the file of {other}; nothing done. "
                                f"Fix: pass {other} for that one, or run the command from a "
                                f"folder where {ref} names no file for the other")
        found = iter(resolve_refs([r for r in refs if r not in logged], self.store))
        return [r if r in logged else next(found) for r in refs]

    def lost_document(self, doc_id: str) -> tuple[int, Document] | None:
        """The newest retired version holding ``doc_id`` and its record there, when the
        live version lacks it (a rollback past its ingest): a roll forward brings it back
        unless it is deleted."""
        kept = getattr(self.store, "kept_elsewhere", None)
        return kept(doc_id) if kept is not None else None

    def _lost(self, doc_id: str) -> bool:
        """Whether the live version lacks ``doc_id`` that another version still holds, or
        for which the change log holds readers set by hand (:class:`~citewise.protocols.
        HandReaders`: it was moved to another tenant there, and an ingest refuses it,
        :func:`~citewise.ingest.ownership.moved_out_problem`, until it is deleted)."""
        if self.store.get_document(doc_id) is not None:
            return False
        return (isinstance(self.store, HandReaders) and self.store.hand_readers(doc_id)
                is not None) or self.lost_document(doc_id) is not None

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents from every version; where the index remembers it
        (:class:`~citewise.protocols.HandDeletes`), an ingest of their files does not index
        them again unless told to (``--undelete``). An id only a retired version holds (a
        rollback past its ingest) is deleted there, so no roll forward brings it back."""
        away = [d for d in doc_ids if self._lost(d)]
        missing = [d for d in doc_ids if d not in away and self.store.get_document(d) is None]
        if missing:
            raise NotFoundError(f"not in the index: {', '.join(missing)}; "
                                f"list documents with `citewise status --documents`")
        if isinstance(self.store, HandDeletes):  # at most one each: a roll forward racing
            return min(len(set(doc_ids)), self.store.delete_by_hand(doc_ids) + len(away))
        return self.store.delete(doc_ids)  # the delete made a lost one live (a review)

    @property
    def unreached_versions(self) -> tuple[int, ...]:
        """Index versions the last delete or ACL change could not reach (their data is
        missing): each applies it when it is made live again."""
        return tuple(getattr(self.store, "unreached_versions", ()))

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        """Who may read ``doc_id`` (group names cleaned as at ingest), and its tenant."""
        from citewise.ingest.metadata import normalize_groups
        from citewise.ingest.normalize import drop_controls

        tenant = None if tenant is None else drop_controls(tenant).strip() or None
        if self.store.get_document(doc_id) is None and (kept := self.lost_document(doc_id)):
            import shlex

            raise NotFoundError(f"not in the live version: {doc_id} (retired version {kept[0]} "
                                "holds it, from before a rollback), so there is no copy to "
                                f"re-permission. Fix: `citewise delete -- {shlex.quote(doc_id)}`"
                                " (every version), or `citewise rollback` to that version first")
        self.store.set_acl(doc_id, normalize_groups(list(groups)), tenant)
