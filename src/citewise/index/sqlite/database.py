"""``Database``: one SQLite file's connection as every citewise object on it uses it.

Opened on first use and migrated (:mod:`.migrations`), shared between threads under one lock,
with ``reading`` (any sqlite error becomes the owner's :class:`StoreError`) and ``writing``
(one ``BEGIN IMMEDIATE`` transaction; any exception rolls it all back). The store and the
version catalog both hold one, each with its own error wording.

A file's writes run on a second connection under their own lock: a write waiting for another
process's write lock (up to the 5 s busy timeout) or writing a batch never holds the lock the
readers of a shared store (a server's threads) need. WAL lets those readers go on meanwhile
and see the commit on their next statement. ``:memory:`` (one connection's private database)
reads and writes on its one connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from citewise.errors import StoreError
from citewise.index.sqlite.migrations import BUSY_TIMEOUT_MS, connect, migrate, sqlite3

SETTLE_WAIT_MS = 200
"""How long :meth:`Database.settle` waits for readers of an older snapshot."""


def checkpoint(conn: Any) -> bool:
    """Move ``conn``'s WAL into its file and empty it (TRUNCATE); true when done. With
    ``secure_delete`` the pages written back are zeroed where rows were, and the WAL no longer
    keeps the old pages of deleted rows or purged log records. A reader still on an older
    snapshot (a backup's long read) holds the newer pages in the WAL: waiting for it took a
    review's deletes 5 s each, so the wait is :data:`SETTLE_WAIT_MS`, then what can be moved
    is (PASSIVE; the rest goes at a later checkpoint)."""
    try:
        conn.execute(f"PRAGMA busy_timeout = {SETTLE_WAIT_MS}")
        try:
            row = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if row is None or row[0] != 0:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.Error:
        return False
    return row is not None and row[0] == 0


ErrorMapper = Callable[[Exception, str], StoreError]
"""``(sqlite error, action)`` -> the error the owner raises (``action``: "read", "migrate"…)."""


class Database:
    """A lazily opened, migrated connection to ``path``; cheap to construct."""

    def __init__(self, path: str, on_error: ErrorMapper) -> None:
        self.path = path
        self.on_error = on_error
        self.lock = threading.RLock()
        self.write_lock = threading.RLock() if path != ":memory:" else self.lock
        self._conn: Any = None
        self._write_conn: Any = None

    def connection(self) -> Any:
        """The open connection (opened and migrated now if needed); call under ``lock``."""
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _writer(self) -> Any:
        """The connection writes run on (call under ``write_lock``)."""
        if self.write_lock is self.lock:
            return self.connection()
        if self._write_conn is None:
            self._write_conn = self._open()
        return self._write_conn

    def _open(self) -> Any:
        conn = connect(self.path)
        try:
            migrate(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise self.on_error(exc, "migrate") from exc
        except BaseException:
            conn.close()
            raise
        return conn

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
        with self.write_lock:
            try:
                conn = self._writer()
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise self.on_error(exc, "write to") from exc

    def settle(self) -> bool:
        """Move the WAL into the file and empty it (best effort; true when done): until a
        checkpoint, a delete lives only in the WAL, and a copy of the ``.db`` file alone,
        taken while a server held it open, still had a deleted document whole
        (:func:`checkpoint`)."""
        if self.path == ":memory:":
            return True
        with self.write_lock:
            return checkpoint(self._writer())

    def close(self) -> None:
        with self.write_lock:  # one lock at a time: never waits on one while holding the other
            if self._write_conn is not None:
                self._write_conn.close()
                self._write_conn = None
        with self.lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
