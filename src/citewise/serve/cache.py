"""Retrieval and answer caches keyed by permission.

A key is ``(kind, index marker, tenant, permission-set hash, principal, normalised query,
settings hash, options)``: two principals share an entry only when they have the same tenant
and the same groups, i.e. when they may read exactly the same chunks, and (``serve.cache_scope:
principal``) only when they are the same principal: a shared hit is fast, which tells the
second asker that someone with their permissions asked the same question. The index marker
is the live version plus the store's write generation and this server's write count, so
every write (ingest, delete, ACL change, promotion, rollback), here or in another process,
makes every older entry unreachable (and the cache is emptied when the marker moves). The
generation comes from :meth:`~citewise.protocols.Store.generation` (SQLite:
``meta.generation``; PostgreSQL: a counter row in ``citewise_catalog.generations`` bumped by
every write transaction and catalog change). A store without one is not cached at all.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from citewise.config import Settings
from citewise.types import Principal


def permission_hash(principal: Principal) -> str:
    blob = principal.tenant + "\x00" + "\x00".join(sorted(principal.groups))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def normalise(query: str) -> str:
    """``query`` with its blanks collapsed, its case kept: an identifier matches as written
    (``-S`` is not ``-s``), so a colleague's search for one must not be served the other's
    ranking (a security review)."""
    return " ".join(query.split())


def settings_hash(settings: Settings) -> str:
    blob = settings.model_dump_json(exclude={"log", "serve"})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def store_generation(store: Any) -> Hashable | None:
    """Which store and its write generation (:meth:`~citewise.protocols.Store.generation`),
    or None for a store that cannot say when it changed (then nothing is cached)."""
    current = getattr(store, "current", None)  # a store that follows the live version:
    if callable(current):                      # read one version for all three parts
        store = current()
    generation = getattr(store, "generation", None)
    if not callable(generation):
        return None
    value = generation()  # first: a PostgresStore resolves its schema on first use
    return (type(store).__name__, getattr(store, "path", None) or getattr(store, "schema", None),
            value)


class PermissionCache:
    """An LRU of results by permission-keyed key; thread-safe."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._data: OrderedDict[tuple, Any] = OrderedDict()
        self._marker: Hashable | None = None
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def key(self, kind: str, marker: Hashable, principal: Principal, query: str,
            settings: Settings, *options: Hashable) -> tuple:
        alone = principal.name if settings.serve.cache_scope == "principal" else None
        return (kind, marker, principal.tenant, permission_hash(principal), alone,
                normalise(query), settings_hash(settings), options)

    def get(self, key: tuple) -> Any | None:
        with self._lock:
            if key[1] != self._marker:  # the index changed: nothing older may be served
                self._data.clear()
                self._marker = key[1]
            value = self._data.get(key)
            if value is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: tuple, value: Any) -> None:
        if self.entries <= 0:
            return
        with self._lock:
            if key[1] != self._marker:
                return  # computed against an index that has changed since
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.entries:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
