"""A small thread-safe LRU of reranker scores keyed by (scope, model id, query hash, text
hash): the scope (the asker's tenant and groups, :mod:`citewise.cache_scope`) keeps one
permission set's hits from timing another's.

Texts and queries are keyed by their sha256, so the cache holds no document text.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

ScoreKey = tuple[str, str, str, str]


def score_key(model_id: str, query: str, text: str, scope: str = "") -> ScoreKey:
    """``(scope, model_id, sha256(query)[:16], sha256(text)[:16])``."""
    return (scope, model_id, hashlib.sha256(query.encode()).hexdigest()[:16],
            hashlib.sha256(text.encode()).hexdigest()[:16])


class ScoreCache:
    """Least-recently-used map of score keys to scores, at most ``size`` entries."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._items: OrderedDict[ScoreKey, float] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: ScoreKey) -> float | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: ScoreKey, value: float) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
