"""The seams of citewise: each a Protocol with one core method (or a small set, for Store).

Contracts:

* Constructors are cheap. Models load lazily, on first use, once per object.
* Methods raise :class:`citewise.errors.CitewiseError` subclasses for expected failures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from citewise.types import Chunk, Document, Manifest, ParsedDocument, Principal, ScoredId


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
class DocumentWrite:
    """One document to (re)write: its record, all its chunks, and vectors for the chunks'
    ``embed_hash`` values not yet cached in the store (others are reused)."""

    document: Document
    chunks: Sequence[Chunk]
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)


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

    def list_documents(self) -> list[Document]: ...

    def cached_vectors(self, embed_hashes: Sequence[str]) -> set[str]:
        """Which of these embedding hashes already have a vector for the manifest's model."""
        ...

    def write(self, batch: Sequence[DocumentWrite]) -> None: ...

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Remove documents, their chunks and their (unshared) vectors; returns how many."""
        ...

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None: ...

    def count(self) -> StoreCounts: ...

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
