"""What runs inside a worker process or Ray actor: parse + chunk a document, embed texts.

The embedder is built ONCE per process, lazily, from a picklable factory given when the
worker starts (:func:`init_worker`); the ONNX session then lives for the worker's lifetime.
Workers never touch the store: skip decisions and writes belong to the main process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from citewise.chunk import chunk_document
from citewise.config import ChunkSettings
from citewise.errors import IngestError
from citewise.indexing import Outcome, Pending, load_failure, one_line, token_counter
from citewise.protocols import Embedder
from citewise.types import Chunk, ParsedDocument

EmbedderFactory = Callable[[], Embedder]

_factory: EmbedderFactory | None = None
_embedder: Embedder | None = None


@dataclass(frozen=True)
class Parsed:
    """A loaded document, chunked. ``chunk_error`` is set when chunking failed or found no
    text: the main process reports it as ``failed`` unless the document is unchanged (the
    serial path never chunks an unchanged document, so it never fails one)."""

    doc_id: str
    parsed: ParsedDocument
    chunks: tuple[Chunk, ...]
    chunk_error: str | None = None


def init_worker(factory: EmbedderFactory) -> None:
    """Process initializer: remember the factory; the embedder is built on first use."""
    global _factory, _embedder
    _factory, _embedder = factory, None


def embedder() -> Embedder:
    global _embedder
    if _embedder is None:
        if _factory is None:
            raise RuntimeError("worker used before init_worker(factory) was called")
        _embedder = _factory()
    return _embedder


def prepare(item: Pending, chunking: ChunkSettings) -> Parsed | Outcome:
    """Load ``item`` and chunk it with the embedder's tokenizer; a load error is an outcome."""
    try:
        parsed = item.load()
        doc_id = str(parsed.metadata.get("doc_id") or item.doc_id)  # front matter may name it
    except Exception as exc:  # a loader bug must not abort the batch either
        return load_failure(item, exc)
    model = embedder()
    count_tokens = token_counter(model)
    try:
        chunks = tuple(chunk_document(parsed, doc_id, chunking, count_tokens))
    except Exception as exc:
        message = exc if isinstance(exc, IngestError) else f"{type(exc).__name__}: {exc}"
        return Parsed(doc_id, parsed, (), one_line(message))
    if not chunks:
        return Parsed(doc_id, parsed, (), "no text to index after parsing; check the file has "
                                          "content")
    return Parsed(doc_id, parsed, chunks)


def embed(texts: Sequence[str]) -> tuple[np.ndarray, float]:
    """Passage vectors for ``texts`` and the seconds the model took."""
    model = embedder()
    started = time.perf_counter()
    vectors = model.embed_batch(list(texts))
    return vectors, time.perf_counter() - started
