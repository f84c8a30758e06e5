"""The indexing flow: load → chunk → embed what is not cached → write, one transaction a batch.

Incremental by content hash: an unchanged document with unchanged governance data is skipped;
changed metadata or ACLs rewrite the record and reuse every cached vector (nothing embedded);
changed text re-chunks and embeds only chunks whose ``embed_hash`` is new. A failure inside a
batch (embedder crash, bad vector) rolls the whole batch back, so the index keeps its previous
state; a file that cannot be loaded is reported and skipped, never aborting the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citewise.batch_embed import embed_missing as _embed_missing
from citewise.chunk import chunk_document
from citewise.config import Settings
from citewise.errors import (
    ChangedSinceReadError,
    DamagedRecordError,
    IngestError,
    OnlyIncludesError,
    StoreError,
)
from citewise.ingest.hand_readers import (
    INDEX_OPTION,
    kept_note,
    moved_problem,
    readers_changed,
    set_by_hand,
)
from citewise.ingest_report import (
    DELETED,
    INCLUDES,
    OWN_LINK,
    IngestReport,
    Outcome,
    Pending,
)
from citewise.protocols import DocumentWrite, Embedder, HandReaders, ReadAs, Store
from citewise.records import make_document, same_record, write_status
from citewise.source_claims import SourceClaims, hand_deleted, may_undelete
from citewise.types import Chunk, Document, ParsedDocument

BATCH_CHUNKS = 1024
"""Chunks after which a batch is written even with fewer than ``batch_docs`` documents: a
folder of long pages (or one 8 MB page) would otherwise embed for many minutes before the
first document is written and counted."""


def unchanged(label: str, document: Document) -> Outcome:
    """The outcome of a document this ingest leaves as it is, with the note that it keeps
    readers set by hand (:func:`~citewise.ingest.hand_readers.kept_note`)."""
    return Outcome(label, document.doc_id, "unchanged", no_groups=not document.acl_groups,
                   note=kept_note(document, INDEX_OPTION))


@dataclass
class Prepared:
    """A document ready to write: its record, chunks, write status and parsed body, and the
    record it was decided on (``read``: None for a new document)."""

    pending: Pending
    document: Document
    chunks: list[Chunk]
    status: str
    parsed: ParsedDocument
    read: Document | None = None
    note: str | None = None  # a warning on who may read it (kept_note, readers_changed)


def _prepare(store: Store, item: Pending, settings: Settings,
             count_tokens: Callable[[str], int]) -> Prepared | Outcome:
    try:
        parsed = item.load()
        doc_id = str(parsed.metadata.get("doc_id") or item.doc_id)  # front matter may name it
        previous = store.get_document(doc_id)
        document = decide_record(store, parsed, doc_id, previous)
        if previous is not None and same_record(previous, document):
            return unchanged(item.label, document)
        chunks = chunk_document(parsed, doc_id, settings.chunk, count_tokens,
                                max_chunks=settings.limits.max_chunks)
        if not chunks:
            raise IngestError("no text to index after parsing; check the file has content")
    except Exception as exc:  # a loader bug must not abort the batch either
        if index_failed(exc):
            raise
        return load_failure(item, exc)
    return ready_to_write(item, document, chunks, previous, parsed)


def decide_record(store: Store, parsed: ParsedDocument, doc_id: str,
                  previous: Document | None) -> Document:
    """:func:`~citewise.records.make_document` on the record the live version holds; for a
    document it lacks, with the readers someone set by hand in any version
    (:class:`~citewise.protocols.HandReaders`: one look-up in the change log)."""
    logged = store.hand_readers(doc_id) if previous is None and \
        isinstance(store, HandReaders) else None
    return make_document(parsed, doc_id, previous, logged)


def index_failed(exc: Exception) -> bool:
    """Whether ``exc`` is the index's, not one file's or record's: a batch that lost its
    database went on, each later file "failed", and exited 0 (an operator's PostgreSQL
    restart), so such an error stops it; a damaged stored record fails its document alone
    (a reindex copies the rest)."""
    return isinstance(exc, StoreError) and not isinstance(exc, DamagedRecordError)


def load_failure(item: Pending, exc: Exception) -> Outcome:
    """The outcome of ``item`` whose load or chunking raised ``exc``: ``failed`` with its
    one-line message (a loader bug's type named), or :data:`INCLUDES` (not a failure: what
    it includes is read on its own)."""
    if isinstance(exc, OnlyIncludesError):
        return Outcome(item.label, item.doc_id, INCLUDES, error=one_line(exc))
    message = exc if isinstance(exc, IngestError) else f"{type(exc).__name__}: {exc}"
    return Outcome(item.label, item.doc_id, "failed", error=one_line(message))


def ready_to_write(item: Pending, document: Document, chunks: list[Chunk],
             previous: Document | None, parsed: ParsedDocument) -> Prepared:
    """The :class:`Prepared` write of ``document``; a re-ingest that changes who may read it
    carries a warning (:func:`readers_changed`), on the serial and the parallel path."""
    note = kept_note(document, INDEX_OPTION) or (
        readers_changed(previous, document)
        if previous is not None and previous.acl_groups != document.acl_groups else None)
    return Prepared(item, document, chunks, write_status(previous, document), parsed, previous,
                    note)


class DocIdClaims:
    """Which file of this ingest first named each doc_id: a later file naming the same one
    (two front matters saying ``doc_id: x``) fails alone, with a one-line reason, instead of
    overwriting the first or aborting its batch."""

    def __init__(self) -> None:
        self._first: dict[str, str] = {}

    def check(self, result: Prepared | Outcome) -> Prepared | Outcome:
        """``result``, or a ``failed`` outcome when an earlier file claimed its doc_id."""
        if isinstance(result, Outcome):
            if not result.indexed:
                return result  # a failed file claims nothing, nor one left out
            doc_id, label = result.doc_id, result.label
        else:
            doc_id, label = result.document.doc_id, result.pending.label
        first = self._first.setdefault(doc_id, label)
        if first is label:  # this very file (two files may share a label string)
            return result
        return Outcome(label, doc_id, "failed", error=(
            f"doc_id {doc_id!r} was already given by {first} in this ingest; not ingested "
            "(the first file keeps it). Fix: ingest one of them in its own command with "
            "--id-prefix NAME/, or give it its own doc_id (its front matter's doc_id line, or "
            "its sidecar line)."))


def one_line(message: object) -> str:
    """``message`` on one line (for per-file errors in reports)."""
    return " ".join(str(message).split())


def token_counter(embedder: Any) -> Callable[[str], int]:
    """How chunking counts tokens: the embedder's own count, else words."""
    return getattr(embedder, "count_tokens", None) or (lambda s: len(s.split()))


def batches(items: Iterable[Pending], size: int) -> Iterator[list[Pending]]:
    """``items`` in lists of ``size`` (the last may be shorter)."""
    batch: list[Pending] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def index_documents(store: Store, embedder: Embedder, items: Iterable[Pending],
                    settings: Settings, *, batch_docs: int = 64,
                    batch_chunks: int = BATCH_CHUNKS,
                    on_progress: Callable[[int], None] | None = None,
                    on_embedded: Callable[[int], None] | None = None,
                    vectors: Mapping[str, np.ndarray] | None = None) -> IngestReport:
    """Index ``items``; each batch (``batch_docs`` documents, or fewer once they hold
    ``batch_chunks`` chunks) is written in one transaction. ``on_progress`` hears how many
    more documents are done (those of a batch as their texts are embedded, the rest when it
    is written), ``on_embedded`` how many texts were embedded (every
    :data:`~citewise.batch_embed.EMBED_SLICE`),
    so a long batch shows it is alive.

    Exceptions from the embedder or the store propagate after rolling back the current batch
    (earlier batches stay committed, each complete). Per-file problems become ``failed``
    outcomes in the report, as does a file whose doc_id an earlier file of the run already
    gave (:class:`DocIdClaims`), or a new one read from a file the index holds under another
    id (:class:`~citewise.source_claims.SourceClaims`). ``vectors``: vectors already made
    for some chunks, by embed hash (:func:`citewise.prime.prime`), used instead of embedding
    those texts again.
    """
    report = IngestReport()
    started = time.perf_counter()
    count_tokens = token_counter(embedder)
    claims = DocIdClaims()
    prepared: list[Prepared] = []
    done = 0  # documents read since the last write

    def flush() -> None:
        nonlocal prepared, done
        told = 0  # documents on_progress heard of as embedded, before the write

        def embedded(count: int) -> None:
            nonlocal told
            told += count
            if on_progress:
                on_progress(count)

        if prepared:
            made = _embed_missing(store, embedder, prepared, report, on_embedded, vectors,
                                  embedded if on_progress else None)
            write_prepared(store, prepared, made, report)
        if on_progress and done > told:
            on_progress(done - told)
        prepared, done = [], 0

    sources = SourceClaims(store)
    for item in items:
        take(unclaimed(sources, claims.check(_prepare(store, item, settings, count_tokens))),
             report, prepared)
        done += 1
        if done >= batch_docs or sum(len(p.chunks) for p in prepared) >= batch_chunks:
            flush()
    flush()
    report.seconds = time.perf_counter() - started
    return report


def unclaimed(sources: SourceClaims, result: Prepared | Outcome) -> Prepared | Outcome:
    """``result``, or a ``failed`` outcome when it is a new document read from a file the
    index holds under another id (:mod:`citewise.source_claims`), on the serial and the
    parallel path (``--workers`` indexed such a file twice); or a new document with the
    text of one whose readers were set by hand and whose file is gone, when it would open
    it to more groups (:func:`~citewise.ingest.hand_readers.moved_problem`). A new document
    of a file whose id someone deleted is left out (:data:`DELETED`) unless its load says
    ``--undelete``."""
    if isinstance(result, Prepared) and result.status == "new" and \
            not may_undelete(result.parsed.metadata) and sources.deleted(result.document):
        return left_deleted(result)
    if isinstance(result, Prepared) and result.status == "new" and \
            (holder := sources.holder(result.document)) is not None:
        doc_id = result.document.doc_id
        return Outcome(result.pending.label, doc_id, "failed",
                       error=sources.problem(doc_id, holder))
    if isinstance(result, Prepared) and result.status == "new" and \
            (moved := sources.moved_from(result.document)) is not None and \
            (problem := moved_problem(result.document, moved, INDEX_OPTION,
                                      result.parsed.metadata)) is not None:
        return Outcome(result.pending.label, result.document.doc_id, "failed", error=problem)
    return result


def left_deleted(prepared: Prepared) -> Outcome:
    """The outcome of a file whose document someone deleted: left out (:data:`DELETED`)."""
    return Outcome(prepared.pending.label, prepared.document.doc_id, DELETED, error=(
        "deleted with `citewise delete`, so not indexed again. Fix: ingest it with "
        "--undelete to index it again, or leave the file out (--exclude)"))


def take(result: Prepared | Outcome, report: IngestReport, prepared: list[Prepared]) -> None:
    """File one document's result: an outcome (unchanged, failed, left out) goes to the
    report, noting a document nobody can read; a prepared document waits in ``prepared``
    for its batch."""
    if isinstance(result, Outcome) and result.status == INCLUDES:
        report.includes_only.append(result)
    elif isinstance(result, Outcome) and result.status == DELETED:
        report.deleted.append(result)
    elif isinstance(result, Outcome):
        report.outcomes.append(result)
        if result.no_groups:
            report.unreadable.append(result.doc_id)
        if result.note:
            report.warnings.append(result.note)
    else:
        prepared.append(result)


WRITE_TRIES = 3
"""Writes of a batch whose documents keep changing under it (:func:`write_prepared`)."""


def write_prepared(store: Store, prepared: Sequence[Prepared],
                   vectors: Mapping[str, np.ndarray], report: IngestReport) -> None:
    """Write ``prepared`` (its new ``vectors``) and report it. Each document is written
    only if it is still as it was read (:class:`~citewise.protocols.ReadAs`): one changed
    meanwhile by another command (``citewise acl``, a delete, another ingest or upload) is
    decided again on what the index holds now (:func:`redecide`), and the batch retried."""
    batch, tries = list(prepared), 0
    while batch:
        try:
            store.write([DocumentWrite(p.document, p.chunks, own_vectors(p.chunks, vectors),
                                       p.parsed, same_tenant=True, read_as=ReadAs.of(p.read),
                                       may_undelete=may_undelete(p.parsed.metadata),
                                       hand_readers=set_by_hand(p.document))
                         for p in batch])
            break
        except ChangedSinceReadError as exc:  # nothing of the batch was written
            tries += 1
            again = [redecide(store, p, give_up=tries >= WRITE_TRIES)
                     if p.document.doc_id in exc.doc_ids else p for p in batch]
            for result in again:
                if isinstance(result, Outcome):
                    take(result, report, [])
            batch = [p for p in again if isinstance(p, Prepared)]
    report.outcomes.extend(outcomes_of(batch, vectors))
    note_written(report, batch)


def redecide(store: Store, prepared: Prepared, give_up: bool = False) -> Prepared | Outcome:
    """``prepared`` decided again on its document as the index holds it now: not written
    back when deleted since it was read (a delete is never undone by an ingest already
    under way), nor when deleted by someone's asking since the ingest began (left out),
    unchanged when the index already holds its record, else its new write (readers set by
    hand meanwhile are kept: :func:`~citewise.records.make_document`).
    ``give_up``: it changed under every try (:data:`WRITE_TRIES`), so it fails."""
    item, doc_id = prepared.pending, prepared.document.doc_id
    if give_up:
        return Outcome(item.label, doc_id, "failed", error=(
            "changed by other commands during each of this ingest's writes. Fix: run the "
            "ingest again"))
    now = store.get_document(doc_id)
    if now is None and prepared.read is None and not may_undelete(prepared.parsed.metadata) \
            and doc_id in hand_deleted(store):  # deleted by someone since the ingest began
        return left_deleted(prepared)
    if now is None and prepared.read is not None:
        return Outcome(item.label, doc_id, "failed", error=(
            "deleted by another command while this ingest read it; not written back. Fix: "
            "ingest it again with --undelete to index it"))
    try:
        document = decide_record(store, prepared.parsed, doc_id, now)
    except IngestError as exc:  # moved to another tenant meanwhile, say
        return Outcome(item.label, doc_id, "failed", error=one_line(exc))
    if now is not None and same_record(now, document):
        return unchanged(item.label, document)
    return ready_to_write(item, document, prepared.chunks, now, prepared.parsed)


def note_written(report: IngestReport, prepared: Sequence[Prepared]) -> None:
    """Report the written documents nobody can read, and the notes their loads left
    (``_notes`` in the metadata: ACL values in the file that were ignored), then each one's
    note on who may read it."""
    report.unreadable.extend(p.document.doc_id for p in prepared if not p.document.acl_groups)
    for p in prepared:
        report.warnings.extend(p.parsed.metadata.get("_notes", ()))
        report.warnings.extend([p.note] if p.note else [])
        if link := p.parsed.metadata.get(OWN_LINK):
            report.own_links.append((p.pending.label, str(link)))
    report.relinked.extend(relinked(prepared))


def relinked(prepared: Sequence[Prepared]) -> list[tuple[str, str, str]]:
    """``(doc_id, web link before, link now)`` of each written document whose web link this
    ingest changed: a new user of the AWS CLI's examples re-ingested one folder as a fix told
    them to, with their base URL, and 51 pages' links silently lost a folder (reported as
    "metadata-only")."""
    out = []
    for p in prepared:
        before = p.read.source_url if p.read is not None else ""
        if before.startswith(("http://", "https://")) and before != p.document.source_url:
            out.append((p.document.doc_id, before, p.document.source_url))
    return out


def own_vectors(chunks: Sequence[Chunk],
                vectors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The new vectors ``chunks`` use (each document's write carries its own)."""
    return {c.embed_hash: vectors[c.embed_hash] for c in chunks if c.embed_hash in vectors}


def outcomes_of(prepared: Sequence[Prepared],
                vectors: Mapping[str, np.ndarray]) -> list[Outcome]:
    """Report lines for written documents; a vector shared by several counts once."""
    out = []
    claimed: set[str] = set()
    for p in prepared:
        fresh = {c.embed_hash for c in p.chunks if c.embed_hash in vectors} - claimed
        claimed |= fresh
        out.append(Outcome(p.pending.label, p.document.doc_id, p.status,
                           chunks=len(p.chunks), embedded=len(fresh)))
    return out
