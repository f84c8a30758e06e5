"""Do a document's slow, store-free work (parse, chunk, embed) before taking a write lock.

The server writes under one lock, so a delete or an ACL revocation queued behind an upload
waited for that upload to be parsed, chunked and embedded (a security review measured 38 s
behind one hostile file). :func:`prime` does that work first; the write then only compares
with the stored record, chunks again (cheap: token counts are the embedder's) and stores.

Priming changes nothing but timing: what it cannot do (the file fails to parse or chunk) it
leaves to the write, which fails the same way it always did and reports it the same way; a
vector primed for chunk settings that changed meanwhile is simply not used.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from citewise.batch_embed import embed_texts
from citewise.chunk import chunk_document
from citewise.config import Settings
from citewise.errors import LimitExceededError
from citewise.indexing import Pending, token_counter
from citewise.protocols import Embedder
from citewise.types import ParsedDocument


@dataclass(frozen=True)
class Primed:
    """``item`` with its document already loaded (``item.load`` returns it, or raises what
    loading raised), and the vectors of its chunks by embed hash, made by ``model_id``."""

    item: Pending
    vectors: dict[str, np.ndarray]
    model_id: str = ""
    model_seconds: float = 0.0  # spent embedding


@dataclass(frozen=True)
class _Loaded:
    """A load that already ran: returns its document or raises its exception again."""

    parsed: ParsedDocument | None
    error: BaseException | None

    def __call__(self) -> ParsedDocument:
        if self.error is not None:
            raise self.error
        assert self.parsed is not None
        return self.parsed


def prime(item: Pending, embedder: Embedder, settings: Settings,
          cached: Callable[[Sequence[str], str | None], set[str]] | None = None,
          max_chunks: int | None = None) -> Primed:
    """Load, chunk and embed ``item`` now (see the module docstring): only the texts
    ``cached`` (embed hashes, tenant -> the hashes the store holds vectors of) does not
    have. More than ``max_chunks`` passages is a :class:`LimitExceededError`, raised before
    any is embedded: a security review's 2 MB text upload, 4,405 chunks, held the server's
    one upload slot for 549 s, every tenant's uploads waiting behind it; and a second
    review's 72 KB ``.txt.gz`` of one paragraph repeated stored 19,600 passages (35 MB of
    index) with one embedded, when only those to embed were counted."""
    try:
        parsed = item.load()
    except Exception as exc:  # the write reports it, as for any file
        return Primed(Pending(item.label, item.doc_id, _Loaded(None, exc)), {})
    loaded = Pending(item.label, item.doc_id, _Loaded(parsed, None))
    doc_id = str(parsed.metadata.get("doc_id") or item.doc_id)
    upload = max_chunks is not None and max_chunks < settings.limits.max_chunks
    try:  # an upload's limit stops the chunking (a security review's 473 KB .md.gz made
        chunks = chunk_document(  # 8,214 passages in 82 s before its 413, the upload slot
            parsed, doc_id, settings.chunk, token_counter(embedder),  # held meanwhile)
            max_chunks=max_chunks if upload and max_chunks is not None
            else settings.limits.max_chunks)
    except LimitExceededError as exc:
        if not upload:
            return Primed(Pending(item.label, item.doc_id, _Loaded(None, exc)), {})
        raise LimitExceededError(
            f"{item.label}: more than {max_chunks} passages, more than an upload may hold "
            f"(serve.max_upload_chunks: {max_chunks}). Fix: ingest the file on the server "
            "(`citewise ingest FILE --groups ...`), upload it in parts, or raise "
            "serve.max_upload_chunks in the server's --config") from None
    except Exception as exc:  # noqa: BLE001 - the write reports it, as a load's error: it
        return Primed(Pending(item.label, item.doc_id, _Loaded(None, exc)), {})  # chunked
        # again under the server's write lock (a review: 60 s, an ACL change waiting)
    if max_chunks is not None and len(chunks) > max_chunks:
        raise LimitExceededError(
            f"{item.label}: {len(chunks)} passages, more than an upload may hold "
            f"(serve.max_upload_chunks: {max_chunks}). Fix: ingest the file on the server "
            "(`citewise ingest FILE --groups ...`), upload it in parts, or raise "
            "serve.max_upload_chunks in the server's --config")
    texts = {c.embed_hash: c.text_for_embedding for c in chunks}
    if cached is not None and texts:
        known = cached(list(texts), parsed.metadata.get("tenant"))
        texts = {h: t for h, t in texts.items() if h not in known}
    if not texts:
        return Primed(loaded, {}, embedder.model_id)
    started = time.perf_counter()
    vectors = embed_texts(embedder, list(texts.values()))
    return Primed(loaded, dict(zip(texts, vectors, strict=True)), embedder.model_id,
                  time.perf_counter() - started)
