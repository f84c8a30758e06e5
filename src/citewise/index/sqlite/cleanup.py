"""Removing index versions from disk (``citewise versions --gc``), and the build lock that
tells an abandoned shadow from one being built.

A version N > 1 is the sibling file ``PATH.vN`` with its ``-wal``/``-shm``: removing it deletes
the three files. Version 1 lives in the home file next to the catalog, so removing it empties
its tables instead and VACUUMs the file, which rewrites it without the freed pages (with
``secure_delete`` on, deleted rows are zeroed as well). Both happen in the catalog's write
transaction that deletes the version's row, so no promotion can pick the version meanwhile;
a kill after the files went but before the commit leaves a row whose file is missing, which
the next ``--gc`` removes.

:func:`purge_deleted` rewrites the FTS segments of a version still in use, which keep a
deleted document's terms until they merge.

A shadow is being built while its builder holds an exclusive ``flock`` on ``PATH.vN.lock``.
The kernel drops the lock when the process dies, even by ``kill -9``, so a shadow whose lock
is free (or has no lock file) has no builder: it is abandoned.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from citewise.index.sqlite.fts_stats import restore_statistics
from citewise.index.sqlite.tenancy import fts_table_exists, fts_tables
from citewise.private import open_lock

log = logging.getLogger(__name__)
VERSION_SUFFIXES = ("", "-wal", "-shm", ".lock")
_VERSION_DATA = (
    "INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')",
    "DELETE FROM chunks", "DELETE FROM doc_groups", "DELETE FROM doc_sources",
    "DELETE FROM documents", "DELETE FROM vectors", "DELETE FROM tenants",
    "DELETE FROM groups", "DELETE FROM manifest", "DELETE FROM index_meta",
)


def lock_path(location: str) -> str:
    return f"{location}.lock"


@contextmanager
def build_lock(location: str) -> Iterator[None]:
    """Hold the build lock of the version at ``location`` (see the module docstring)."""
    fd = open_lock(lock_path(location))  # not a planted one, held (a review)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        with suppress(OSError):
            os.unlink(lock_path(location))
        os.close(fd)


def is_building(location: str) -> bool:
    """Whether a live process holds the build lock of the version at ``location``."""
    try:
        fd = os.open(lock_path(location), os.O_RDWR | os.O_NOFOLLOW)
    except OSError:  # missing, or a link (ELOOP): nothing of ours holds it
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a lock taken here
    return False


def remove_files(location: str) -> None:
    """Delete a version's file, its WAL files and its lock file (missing ones are fine)."""
    for suffix in VERSION_SUFFIXES:
        with suppress(FileNotFoundError):
            os.unlink(location + suffix)


def clear_home_data(conn: Any) -> None:
    """Empty version 1's tables in the home file (the catalog tables stay); run inside the
    caller's transaction, then :func:`compact` after it commits."""
    for statement in _VERSION_DATA:
        conn.execute(statement)


def compact(conn: Any) -> None:
    """VACUUM the file (rewritten without free pages) and truncate its WAL (VACUUM wrote the
    new file there)."""
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def purge_deleted(conn: Any) -> None:
    """Rewrite what still holds deleted text in a version file (:func:`purge_fts`), then move
    the WAL into the file and truncate it. ``secure_delete`` zeroes the freed pages."""
    purge_fts(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def purge_fts(conn: Any, tables: Iterable[str] | None = None) -> None:
    """Merge the segments of each FTS5 table of ``tables`` (default: all) into one
    ("optimize"), which drops what deleted and replaced rows left: a ``contentless_delete``
    table only marks a deleted row, keeping its terms, positions, group and tenant tokens in
    the file until segments merge (FTS5's ``secure-delete`` option does not apply to such
    tables). A security review read a deleted document back, word by word, from a copy of
    the file. Cost: the table is rewritten, 0.06 s at 2,000 chunks and 1.6 s at 100,000 on
    this 2-core machine (``benchmarks/purge.py``). Then BM25's counts, which kept the rows,
    are set to those it holds (:func:`~citewise.index.sqlite.fts_stats.restore_statistics`;
    in a transaction that writes no rows)."""
    for table in fts_tables(conn) if tables is None else sorted(tables):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        restore_statistics(conn, table)


class Purger:
    """Purges what a store's writes removed (:func:`purge_fts` on the tables they deleted
    rows from, then the WAL into the file: :meth:`Database.settle`), after the write has
    committed and as a best effort: a delete or revocation never waits on, or fails with,
    the cleanup of its leftovers (a review's full disk rolled deletes back when the purge ran
    inside their transaction). A failed purge is logged and done again by the next one, or
    by ``citewise versions --gc``. :meth:`once` holds the calling thread's purges until its
    block ends: one rewrite for an ingest's batches, not one per batch (a server's other
    threads purge as before)."""

    def __init__(self, database: Any) -> None:
        self.database = database
        self._local = threading.local()  # what this thread's open block holds back

    def removed(self, tables: Iterable[str]) -> None:
        """Purge ``tables`` now, or when this thread's :meth:`once` block ends."""
        held: set[str] | None = getattr(self._local, "held", None)
        if held is not None:
            held.update(tables)
        elif tables := set(tables):
            self._purge(tables)

    @contextmanager
    def once(self) -> Iterator[None]:
        if getattr(self._local, "held", None) is not None:  # nested: the outer block purges
            yield
            return
        self._local.held = set()
        try:
            yield
        finally:
            tables, self._local.held = self._local.held, None
            if tables:
                self._purge(tables)

    def recount(self, tables: Iterable[str]) -> None:
        """Set BM25's counts of ``tables`` to the rows they hold, after a write that replaced
        rows and removed no text (an ACL change), as a best effort like a purge."""
        try:
            with self.database.writing() as conn:
                for table in sorted(t for t in tables if fts_table_exists(conn, t)):
                    restore_statistics(conn, table)
        except Exception as exc:  # noqa: BLE001 - best effort: the write itself is done
            log.warning("could not recount %s (%s); the next delete or `citewise versions "
                        "--gc` does", self.database.path, exc)

    def _purge(self, tables: set[str]) -> None:
        try:
            with self.database.writing() as conn:
                present = {t for t in tables if fts_table_exists(conn, t)}
                purge_fts(conn, present)
        except Exception as exc:  # noqa: BLE001 - best effort: the write itself is done
            log.warning("could not purge removed text from %s (%s); `citewise versions "
                        "--gc` purges it", self.database.path, exc)
        self.database.settle()
