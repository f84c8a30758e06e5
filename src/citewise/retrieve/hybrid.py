"""The retrieval half of the query path: sparse + dense inside the ACL filter, RRF, dedup.

Both signals run with the principal's tenant and groups applied INSIDE the store query
(see :class:`citewise.protocols.Store`); nothing is filtered afterwards except duplicates.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from citewise.config import RetrieveSettings
from citewise.errors import ConfigError
from citewise.fuse import rrf
from citewise.protocols import Embedder, Store
from citewise.retrieve.exact import exact_run, identifiers, phrase_options, titled_names
from citewise.retrieve.release_notes import asks_about_changes, release_notes_later
from citewise.text import not_text
from citewise.types import SEARCH_MODES, Hit, Principal, ScoredId, SearchResult


@dataclass(frozen=True)
class Ranked:
    """The fused list before hydration: ``(chunk_id, fused score)`` plus each signal's run."""

    fused: list[tuple[str, float]]
    runs: Mapping[str, Sequence[ScoredId]]
    timings_ms: Mapping[str, float]
    rows: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)
    """Candidates already read as the principal (the exact run's): not read again."""


_EXECUTOR: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = ThreadPoolExecutor(max_workers=4, thread_name_prefix="citewise-bm25")
    return _EXECUTOR


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)


def check_mode(mode: str) -> str:
    if mode not in SEARCH_MODES:
        raise ConfigError(f"Unknown search mode {mode!r}. Supported modes: {list(SEARCH_MODES)}")
    return mode


def rank(store: Store, embedder: Embedder | None, query: str, principal: Principal,
         settings: RetrieveSettings, mode: str | None = None,
         candidates: int | None = None) -> Ranked:
    """Run the signals for ``mode`` and fuse them. Single-signal modes keep their own order
    (scored by the signal's raw score); ``hybrid`` fuses with RRF (rrf_k from settings)."""
    mode = check_mode(mode or settings.mode)
    depth = candidates or settings.candidates
    if mode != "bm25" and embedder is None:
        raise ConfigError(f"mode {mode!r} needs an embedder; use --mode bm25 or configure one")
    runs: dict[str, Sequence[ScoredId]] = {}
    timings: dict[str, float] = {}

    def sparse() -> None:
        t = time.perf_counter()
        runs["bm25"] = store.search_sparse(query, depth, principal, settings.title_weight)
        timings["bm25"] = _ms(t)

    def dense() -> None:
        t = time.perf_counter()
        vector = embedder.embed_query(query)
        timings["embed_query"] = _ms(t)
        t = time.perf_counter()
        runs["dense"] = store.search_dense(vector, depth, principal)
        timings["dense"] = _ms(t)

    if mode == "hybrid":
        # BM25 runs in a worker thread while the query is embedded here: SQLite and
        # onnxruntime both release the GIL, so the two signals overlap on two cores.
        pending = _executor().submit(sparse)
        dense()
        pending.result()
    elif mode == "bm25":
        sparse()
    else:
        dense()
    # A fixed run order: RRF breaks exact ties by run order, and the threads finish in any order.
    runs = {name: runs[name] for name in ("bm25", "dense") if name in runs}
    names = [*identifiers(query), *phrase_options(query)] if mode == "hybrid" else []
    titled = titled_names(query) if mode == "hybrid" else []
    rows: dict[str, tuple[Any, Any]] = {}
    if names or titled:
        t = time.perf_counter()
        runs["exact"], rows = _exact(store, runs, names, titled, principal)
        timings["exact"] = _ms(t)
    t = time.perf_counter()
    if mode == "hybrid":
        fused = rrf(runs, rrf_k=settings.rrf_k)
    else:
        fused = [(s.chunk_id, s.score) for s in runs[mode]]
    timings["fuse"] = _ms(t)
    return Ranked(fused=fused, runs=runs, timings_ms=timings, rows=rows)


def _exact(store: Store, runs: Mapping[str, Sequence[ScoredId]], names: Sequence[str],
           titled: Sequence[str], principal: Principal
           ) -> tuple[list[ScoredId], dict[str, tuple[Any, Any]]]:
    """``(run, rows)``: the candidates of both runs that name one of the question's
    identifiers, or whose title or headings title one of its ``titled`` names
    (:mod:`citewise.retrieve.exact`), and every candidate as read for it, as ``principal``
    (the ACL applies again)."""
    order = list(dict.fromkeys(s.chunk_id for run in runs.values() for s in run))
    rows = store.get_chunks(order, principal)
    read = [cid for cid in order if cid in rows]
    headings = {cid: (rows[cid][1].title or "", *rows[cid][0].heading_path) for cid in read}
    return exact_run(names, {cid: rows[cid][0].text for cid in read}, titled, headings), rows


def _in_question_language(store: Store, ranked: Ranked, query: str, principal: Principal,
                          page: int, notes: list[str]
                          ) -> tuple[list[tuple[str, float]], dict[str, tuple[Any, Any]]]:
    """``(fused order, hydrated rows)``: the first ``page`` candidates hydrated (those
    :func:`rank` read already are not read again); when their documents declare several
    languages and the question's is identified, every candidate hydrated and those in its
    language first (:mod:`citewise.retrieve.language`), said in ``notes``."""
    from citewise.retrieve.language import in_language_first, languages_of, question_language

    fused, rows = ranked.fused, dict(ranked.rows)
    unread = [cid for cid, _ in fused[:page] if cid not in rows]
    rows.update(store.get_chunks(unread, principal) if unread else {})
    langs = languages_of(rows[cid][1] for cid, _ in fused[:page] if cid in rows)
    lang = question_language(query, sorted(langs)) if len(langs) >= 2 else None
    if lang is None:
        return list(fused), rows
    rest = [cid for cid, _ in fused[page:] if cid not in rows]
    rows.update(store.get_chunks(rest, principal) if rest else {})
    notes.append(f"the hits' pages are in {len(langs)} languages ({', '.join(sorted(langs))}):"
                 f" those in {lang}, the question's, first")
    return in_language_first(fused, {c: d for c, (_, d) in rows.items()}, lang), rows


def _text_key(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


def search(store: Store, embedder: Embedder | None, query: str, principal: Principal,
           settings: RetrieveSettings | None = None, mode: str | None = None,
           top_k: int | None = None, explain: bool = False) -> SearchResult:
    """Search as ``principal``: returns up to ``top_k`` hydrated, de-duplicated hits.

    Duplicates (same normalised chunk text, e.g. a policy copied into two documents) keep
    only their best-ranked copy; what was dropped is listed in ``notes`` for ``--explain``.
    """
    if not query or not query.strip():
        raise ConfigError("the query is empty. Fix: pass words to search for, e.g. "
                          "`citewise search \"rotate the API key\" --groups staff`.")
    if (shown := not_text(query)) is not None:
        raise ConfigError(f"the query is not UTF-8 text ({shown}). Fix: pass it as UTF-8 "
                          "(a terminal with LANG=C.UTF-8, or `iconv -t UTF-8`).")
    settings = settings or RetrieveSettings()
    mode = check_mode(mode or settings.mode)
    top_k = top_k or settings.top_k
    ranked = rank(store, embedder, query, principal, settings, mode,
                  candidates=max(settings.candidates, top_k))
    t = time.perf_counter()
    by_signal = {name: {s.chunk_id: s for s in run} for name, run in ranked.runs.items()}
    hits: list[Hit] = []
    seen: dict[str, str] = {}
    notes: list[str] = []
    page = top_k * 2 + 10
    fused, hydrated = _in_question_language(store, ranked, query, principal, page, notes)
    if mode == "hybrid" and not asks_about_changes(query):
        fused, lowered = release_notes_later(fused, {c: d for c, (_, d) in hydrated.items()})
        if lowered:
            notes.append(f"{lowered} passage(s) of release notes or changelogs ranked lower: "
                         "the question asks about no version or change")
    for offset in range(0, len(fused), page):
        if len(hits) >= top_k:
            break
        window = fused[offset: offset + page]
        missing = [cid for cid, _ in window if cid not in hydrated]
        rows = {**hydrated, **(store.get_chunks(missing, principal) if missing else {})}
        for cid, score in window:
            if len(hits) >= top_k:
                break
            if cid not in rows:
                continue  # hydration re-applies the ACL predicate (defence in depth)
            chunk, document = rows[cid]
            key = _text_key(chunk.text)
            if key in seen:
                notes.append(f"dropped {cid} ({document.doc_id}): duplicate text of {seen[key]}")
                continue
            seen[key] = cid
            signals = {n: m[cid] for n, m in by_signal.items() if cid in m}
            hits.append(Hit(rank=len(hits) + 1, score=score, chunk=chunk, document=document,
                            signals=signals))
    timings = dict(ranked.timings_ms)
    timings["hydrate"] = _ms(t)
    return SearchResult(
        hits=tuple(hits), mode=mode,
        filter=store.describe_filter(principal) if explain else None,  # its lookups, on demand
        candidates={name: len(run) for name, run in ranked.runs.items()},
        timings_ms=timings, notes=tuple(notes))
