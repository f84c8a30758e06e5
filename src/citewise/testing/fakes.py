"""Deterministic fakes for tests. Never used by default: a user always gets the real model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hashed bag-of-words vectors: texts sharing words have higher cosine. Deterministic.

    Records every call so tests can assert what was (not) embedded:
    ``embedded`` lists every passage text, ``batch_count`` counts ``embed_batch`` calls.
    ``fail_after`` makes the n-th+1 passage raise, to simulate a crash mid-ingest.
    """

    def __init__(self, dim: int = 64, model_id: str = "fake-bow-64",
                 fail_after: int | None = None) -> None:
        self.dim = dim
        self.model_id = model_id
        self.fail_after = fail_after
        self.embedded: list[str] = []
        self.queries: list[str] = []
        self.batch_count = 0

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.batch_count += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if self.fail_after is not None and len(self.embedded) >= self.fail_after:
                raise RuntimeError("FakeEmbedder: simulated failure (fail_after reached)")
            self.embedded.append(text)
            out[i] = self._vector(text)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        """Whitespace words: a stand-in tokenizer for chunking tests."""
        return len(text.split())
