"""The seams of citewise: each a Protocol with one core method (or a small set, for Store).

Contracts:

* Constructors are cheap. Models load lazily, on first use, once per object.
* Methods raise :class:`citewise.errors.CitewiseError` subclasses for expected failures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from citewise.types import (
    Chunk,
    Document,
    Generation,
    IndexVersion,
    Manifest,
    ParsedDocument,
    Principal,
    Prompt,
    ScoredId,
)


@runtime_checkable
class Loader(Protocol):
    """Turns one file's bytes into a :class:`ParsedDocument`.

    Raises :class:`~citewise.errors.IngestError` (or a subclass) when the bytes are not
    valid for the format or exceed a limit.
    """

    format: str

    def load(self, data: bytes, path: Path) -> ParsedDocument: ...


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors of ``dim`` dimensions.

    ``model_id`` names the weights exactly (it is recorded in the index manifest and in the
    embedding cache key). ``embed_batch`` returns an array of shape ``(len(texts), dim)``.
    ``embed_query`` applies the model's query prefix; ``embed_batch`` is for passages.
    """

    model_id: str
    dim: int

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass(frozen=True)
class ReadAs:
    """A document's readers and version as a writer read them before deciding its new record
    (``version`` 0: it was not in the index). A write carrying one replaces the document only
    if it is still so, checked inside the write transaction: a security review's
    ``citewise acl`` (or delete) made while an ingest embedded its batch was undone by the
    ingest's write a minute later, with exit 0 and no warning."""

    version: int = 0
    tenant: str = ""
    groups: tuple[str, ...] = ()

    @classmethod
    def of(cls, document: Document | None) -> ReadAs:
        if document is None:
            return cls()
        return cls(document.version, document.tenant, tuple(sorted(set(document.acl_groups))))


@dataclass(frozen=True)
class DocumentWrite:
    """One document to (re)write: its record, all its chunks, vectors for the chunks'
    ``embed_hash`` values not yet cached in the store (others are reused), and the parsed
    document itself (kept so the index can be re-chunked without the source files)."""

    document: Document
    chunks: Sequence[Chunk]
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)
    parsed: ParsedDocument | None = None
    same_tenant: bool = False
    """Replace a document only of the same tenant, checked inside the write (an ingest checked
    before it parsed and embedded the batch, and another process's upload of the same id to
    another tenant in between was overwritten); a version catch-up or migrate copies a
    record as it is."""
    read_as: ReadAs | None = None
    """When set, write only if the document is still as read (:class:`ReadAs`); else the
    store raises :class:`~citewise.errors.ChangedSinceReadError` and writes nothing."""
    may_undelete: bool = True
    """Whether this write may bring back a document deleted by someone's asking
    (:class:`HandDeletes`); an ingest of a file not told ``--undelete`` may not: a store that
    remembers such deletes checks it under its write gate, raising
    :class:`~citewise.errors.ChangedSinceReadError` (a review's delete made while an ingest
    ran was written back when the ingest read the file after it)."""
    hand_readers: bool = False
    """Whether the readers this write gives were set by hand and kept by it
    (:func:`~citewise.ingest.hand_readers.set_by_hand`): logged so, a later ingest of the
    document where the live version lacks it keeps them too (:class:`HandReaders`)."""


@dataclass(frozen=True)
class StoreCounts:
    documents: int
    chunks: int
    vectors: int


@runtime_checkable
class Store(Protocol):
    """Documents, chunks, ACLs, vectors and the manifest, behind one transactional interface.

    Guarantees every backend must keep (checked by
    :class:`citewise.testing.StoreConformanceTests`):

    * ``write`` is atomic for the whole batch: on any error nothing of it is visible.
    * A document's old chunks are replaced, never mixed with new ones.
    * After ``delete``/``set_acl`` return, searches reflect the change.
    * ``search_sparse``/``search_dense``/``get_chunks`` apply the principal's tenant and
      groups INSIDE the query: a chunk the principal may not read is never a candidate.
    """

    def manifest(self) -> Manifest | None: ...

    def ensure_manifest(self, manifest: Manifest) -> Manifest:
        """Record ``manifest`` on an empty index, or check it matches the stored one
        (raise :class:`IndexMismatchError` naming what differs)."""
        ...

    def get_document(self, doc_id: str) -> Document | None: ...

    def get_parsed(self, doc_id: str) -> ParsedDocument | None:
        """The parsed document last written with ``doc_id`` (``None`` if unknown or written
        without one); used by ``reindex`` to re-chunk without the source files."""
        ...

    def get_meta(self, key: str) -> str | None:
        """A value recorded about this index outside its identity (e.g. the calibrated
        grounding threshold ``gate.threshold``), or ``None``."""
        ...

    def set_meta(self, key: str, value: str) -> None: ...

    def list_documents(self) -> list[Document]: ...

    def cached_vectors(self, embed_hashes: Sequence[str], tenant: str | None = None) -> set[str]:
        """Which of these embedding hashes already have a vector for the manifest's model in
        the cache documents of ``tenant`` may use: one cache for all tenants, or (under
        ``index.tenancy: isolated``) the tenant's own, where ``tenant=None`` finds nothing."""
        ...

    def write(self, batch: Sequence[DocumentWrite]) -> None: ...

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Remove documents, their chunks and their (unshared) vectors; returns how many."""
        ...

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None: ...

    def count(self) -> StoreCounts: ...

    def generation(self) -> int:
        """A number that changes after every committed write (ingest, delete, ACL change;
        on PostgreSQL also metadata and version-catalog changes), seen by every process on
        the same index; equal numbers mean nothing was written in between. Caches key on it."""
        ...

    def search_sparse(self, query: str, top_k: int, principal: Principal,
                      title_weight: float = 1.0) -> list[ScoredId]: ...

    def search_dense(self, vector: np.ndarray, top_k: int,
                     principal: Principal) -> list[ScoredId]: ...

    def get_chunks(self, chunk_ids: Sequence[str],
                   principal: Principal) -> dict[str, tuple[Chunk, Document]]: ...

    def describe_filter(self, principal: Principal) -> str:
        """The ACL/tenant predicate as the backend applies it, for ``--explain``."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class HandDeletes(Protocol):
    """A store that remembers which deletes someone asked for (an index with versions:
    :class:`~citewise.index.follow.LiveStore`), so an ingest of a deleted document's file
    does not bring it back unasked (:mod:`citewise.source_claims`)."""

    def delete_by_hand(self, doc_ids: Sequence[str]) -> int: ...

    def hand_deleted(self) -> set[str]:
        """The ids of the documents deleted so and not written since (ids are one namespace:
        a document moved to another tenant and deleted there stays deleted)."""
        ...


@runtime_checkable
class HandReaders(Protocol):
    """A store that remembers whose readers someone set by hand in any version (an index
    with versions: :class:`~citewise.index.follow.LiveStore`), so an ingest of a document
    the live version lacks (a rollback to a version before it) keeps them."""

    def hand_readers(self, doc_id: str) -> tuple[str, frozenset[str]] | None:
        """The tenant and groups ``doc_id``'s readers were last set to by hand (and kept by
        every ingest since), or None."""
        ...


@runtime_checkable
class VersionCatalog(Protocol):
    """The index versions of one ``--db`` target and which one is live.

    A version is a complete Store (own manifest, chunks, vectors). ``open_store(db)`` serves
    the live one (following promotions, :mod:`citewise.index.follow`); ``open(n)`` stays on
    version ``n``. ``promote`` makes another version live atomically: a reader sees either the
    old or the new version, never a mix; old versions are kept (state ``retired``) for
    ``rollback``. Before the flip it applies every delete and ACL change logged since the
    version was last live (:mod:`citewise.index.changelog`), so no promise made on one version
    is broken by making another live.
    """

    def versions(self) -> list[IndexVersion]: ...

    def live(self) -> IndexVersion: ...

    def create(self, note: str = "") -> IndexVersion:
        """Register a new, empty ``shadow`` version and return it (open it with ``open``)."""
        ...

    def open(self, number: int, wait_s: float | None = None) -> Store:
        """The store of version ``number``. ``wait_s``: how long its writes wait for a lock
        another session holds (PostgreSQL's ``lock_timeout``, then
        :class:`~citewise.errors.BusyError`; None: as long as it takes)."""
        ...

    def promote(self, number: int, note: str = "") -> None: ...

    def replaced(self) -> int | None:
        """The version the live one replaced when it was last promoted (None: unknown)."""
        ...

    def set_state(self, number: int, state: str, note: str = "") -> None:
        """Mark a non-live version ``refused`` (or ``shadow``/``retired``) with a reason."""
        ...

    def drop(self, number: int) -> None:
        """Delete a non-live version's data and its catalog row (``citewise versions --gc``)."""
        ...

    def building(self, number: int) -> AbstractContextManager[None]:
        """Held by the process building shadow ``number``; released when it exits or dies."""
        ...

    def is_building(self, number: int) -> bool: ...


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, passage) pairs; higher = more relevant. ``model_id`` names the weights
    (part of any cache key). One score per text, in order. Callers bound the time it may take
    (``citewise.rerank.rerank_with_deadline``), so implementations just score."""

    model_id: str

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...


@runtime_checkable
class Generator(Protocol):
    """Writes an answer for a :class:`Prompt`. ``on_token`` (if given) receives text pieces as
    they are produced (streaming). Raises :class:`~citewise.errors.GenerationError` on
    failure or when ``timeout_s`` passes."""

    model_id: str

    def generate(self, prompt: Prompt, *, max_tokens: int = 512,
                 on_token: Callable[[str], None] | None = None,
                 timeout_s: float | None = None) -> Generation: ...
