"""5,000 documents of ~250 words with the real tokenizer must chunk well under 10 s."""

from __future__ import annotations

import random
import time

import pytest

from citewise.chunk import TokenCounter, chunk_document
from citewise.config import ChunkSettings

VOCAB = [
    "the", "index", "stores", "chunks", "with", "offsets", "into", "normalized", "text", "while",
    "retrieval", "fuses", "bm25", "and", "dense", "rankings", "using", "reciprocal", "rank",
    "fusion", "permissions", "filter", "candidates", "inside", "queries", "embeddings", "cache",
    "keyed", "by", "hash", "tokenizer", "counts", "wordpiece", "units", "configuration", "loader",
    "markdown", "html", "pdf", "tables", "code", "blocks", "sections", "headings",
]


def _paragraph(rng: random.Random, n_words: int) -> str:
    sentences, left = [], n_words
    while left > 0:
        n = min(left, rng.randint(8, 20))
        words = [rng.choice(VOCAB) for _ in range(n)]
        sentences.append(" ".join([words[0].capitalize(), *words[1:]]) + ".")
        left -= n
    return " ".join(sentences)


def corpus(make_doc, n_docs: int = 5000, seed: int = 7):
    """~250 words a document: three short sections, or (every 5th) one short section and one
    200-word paragraph (~270 tokens), which has to be split into windows."""
    rng = random.Random(seed)
    docs = []
    for i in range(n_docs):
        sizes = [50, 200] if i % 5 == 0 else [60, 90, 100]
        items = [("heading", f"Document {i}", 1)]
        for s, size in enumerate(sizes):
            items += [("heading", f"Part {s}", 2), ("text", _paragraph(rng, size))]
        docs.append(make_doc(*items, title=f"Document {i}"))
    return docs


@pytest.mark.slow
@pytest.mark.model
def test_5000_documents_chunk_in_bounded_time(make_doc, tokenizer_json):
    """A guard against super-linear chunking, not a speed target (about 3 s on an idle
    2-core machine; benchmarks measure speed): the bound leaves room for a loaded CI run."""
    docs = corpus(make_doc)
    counter = TokenCounter(tokenizer_json)
    counter("warm up")
    settings = ChunkSettings()
    t0 = time.perf_counter()
    n = sum(len(chunk_document(d, f"d{i}", settings, counter)) for i, d in enumerate(docs))
    elapsed = time.perf_counter() - t0
    assert n > len(docs)
    assert elapsed < 60.0, f"chunking 5,000 documents took {elapsed:.1f}s"
