"""``Database``: one SQLite file's connection as every citewise object on it uses it.

Opened on first use and migrated (:mod:`.migrations`), shared between threads under one lock,
with ``reading`` (any sqlite error becomes the owner's :class:`StoreError`) and ``writing``
(one ``BEGIN IMMEDIATE`` transaction; any exception rolls it all back). The store and the
version catalog both hold one, each with its own error wording.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from citewise.errors import StoreError
from citewise.index.sqlite.migrations import connect, migrate, sqlite3

ErrorMapper = Callable[[Exception, str], StoreError]
"""``(sqlite error, action)`` -> the error the owner raises (``action``: "read", "migrate"…)."""


class Database:
    """A lazily opened, migrated connection to ``path``; cheap to construct."""

    def __init__(self, path: str, on_error: ErrorMapper) -> None:
        self.path = path
        self.on_error = on_error
        self.lock = threading.RLock()
        self._conn: Any = None

    def connection(self) -> Any:
        """The open connection (opened and migrated now if needed); call under ``lock``."""
        if self._conn is None:
            conn = connect(self.path)
            try:
                migrate(conn)
            except sqlite3.Error as exc:
                conn.close()
                raise self.on_error(exc, "migrate") from exc
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @contextmanager
    def reading(self, action: str = "read") -> Iterator[Any]:
        with self.lock:
            try:
                yield self.connection()
            except sqlite3.Error as exc:
                raise self.on_error(exc, action) from exc

    @contextmanager
    def writing(self) -> Iterator[Any]:
        """One ``BEGIN IMMEDIATE`` transaction; any exception rolls it all back."""
        with self.reading("write to") as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self.lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
