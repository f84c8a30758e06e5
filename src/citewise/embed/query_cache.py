"""A query-embedding cache: the same query text with the same model is embedded once.

Wraps an :class:`~citewise.protocols.Embedder`; everything but ``embed_query`` passes
through. Keyed by (scope, model id, text), the scope being the asking principal's tenant and
groups (and name under ``serve.cache_scope: principal``; :mod:`citewise.cache_scope`): a hit's
speed never tells a reader what someone with other permissions asked.
Thread-safe LRU."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from citewise.cache_scope import current_scope


class CachedQueryEmbedder:
    def __init__(self, inner: Any, entries: int = 4096) -> None:
        self.inner, self.entries = inner, entries
        self._data: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_query(self, text: str) -> np.ndarray:
        key = (current_scope(), self.inner.model_id, text)
        with self._lock:
            vec = self._data.get(key)
            if vec is not None:
                self._data.move_to_end(key)
                self.hits += 1
                return vec
        vec = self.inner.embed_query(text)
        vec.setflags(write=False)
        with self._lock:
            self.misses += 1
            self._data[key] = vec
            while len(self._data) > self.entries:
                self._data.popitem(last=False)
        return vec


def cached_embedder(engine: Any, entries: int = 4096) -> Any:
    """``engine`` with its embedder wrapped in a :class:`CachedQueryEmbedder` (loaded now)."""
    if not isinstance(engine._embedder, CachedQueryEmbedder):
        engine._embedder = CachedQueryEmbedder(engine.embedder, entries)
    return engine
