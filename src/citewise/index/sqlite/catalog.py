"""``SQLiteCatalog``: the index versions of one SQLite ``--db`` file, and which one is live.

Layout: the file at ``--db PATH`` is the *home*. It holds the catalog (tables
``index_versions`` and ``index_version_log``, migration m003) and the data of version 1.
Version N > 1 is a complete index of its own in the sibling file ``PATH.vN`` (with its WAL
files ``PATH.vN-wal``/``-shm``); moving the home together with its siblings keeps the catalog
valid, since locations are derived from the home path, never stored.

``open_store(PATH)`` opens the live version: :func:`live_path` reads the live row with one
read-only query on the home file. An index made before m003 (or a new file) has no catalog
rows and is its own live version 1, exactly as before. ``promote`` flips the live row in one
transaction (the previous live version becomes ``retired``), so a process opening the index
sees either the old or the new version, never a mix; a store opened before the flip keeps
reading its version's file, which stays as it was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import StoreError, VersionError
from citewise.index import gate
from citewise.index.changelog import ChangeLogCalls, apply_changes, live_store
from citewise.index.sqlite import changes, cleanup
from citewise.index.sqlite.database import Database
from citewise.index.sqlite.migrations import sqlite3
from citewise.index.sqlite.store import SQLiteStore, read_only
from citewise.index.version_view import ReadOnlyVersion
from citewise.types import IndexVersion

STATES = ("live", "shadow", "retired", "refused")
SETTABLE = ("shadow", "retired", "refused")
_COLUMNS = "number, state, created_at, note"


def version_path(home: str | Path, number: int) -> str:
    """The file of version ``number`` of the index at ``home``: the home itself for 1, the
    sibling ``HOME.vN`` otherwise."""
    return str(home) if number == 1 else f"{home}.v{number}"


class VersionedStore(SQLiteStore):
    """A :class:`SQLiteStore` on one version of an index; ``version_number`` is its number in
    the home's catalog (reported by ``Engine.index_info``)."""

    def __init__(self, path: str | Path, version_number: int = 1) -> None:
        super().__init__(path)
        self.version_number = version_number


def live_version(home: str | Path) -> tuple[str, int]:
    """``(file, number)`` of the live version of the index at ``home``.

    One read-only query on the home file; a missing file, an in-memory index or an index
    without the catalog table (made before m003) is its own live version 1. A file that is not
    a database is returned as is, so ``SQLiteStore`` reports it as before."""
    target = str(home)
    if target == ":memory:" or not os.path.isfile(target):
        return target, 1
    try:
        conn = sqlite3.connect(f"{Path(target).resolve().as_uri()}?mode=ro", uri=True,
                               timeout=5.0)
    except sqlite3.Error:
        return target, 1
    try:
        row = conn.execute("SELECT number FROM index_versions WHERE state = 'live'").fetchone()
    except sqlite3.DatabaseError as exc:
        if "no such table" in str(exc) or "not a database" in str(exc):
            return target, 1
        raise StoreError(f"cannot read the version catalog of {target}: {exc}. Fix: retry; if "
                         "the file is damaged, restore it or re-create the index with "
                         "`citewise ingest --db NEW.db`.") from exc
    finally:
        conn.close()
    number = 1 if row is None else int(row[0])
    return version_path(target, number), number


_VERSION_FILE = re.compile(r"(?P<home>.+)\.v(?P<number>[1-9]\d*)")


def version_home(path: str | Path) -> tuple[str, int] | None:
    """``(home, number)`` when ``path`` is the file ``HOME.vN`` of a version that ``HOME``'s
    catalog lists, else None (one read-only query)."""
    match = _VERSION_FILE.fullmatch(str(path))
    if match is None or not os.path.isfile(match["home"]):
        return None
    number = int(match["number"])
    try:
        conn = sqlite3.connect(f"{Path(match['home']).resolve().as_uri()}?mode=ro", uri=True,
                               timeout=5.0)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT 1 FROM index_versions WHERE number = ?", (number,)
                           ).fetchone()
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
    return (match["home"], number) if row else None


class VersionView(ReadOnlyVersion, VersionedStore):
    """A version opened by its own file (``--db PATH.v2``): read, never written
    (:mod:`citewise.index.version_view`)."""

    def __init__(self, path: str | Path, home: str, number: int) -> None:
        VersionedStore.__init__(self, path, number)
        self.home, self.number = home, number


def live_path(home: str | Path) -> str:
    """The file of the live version of the index at ``home`` (see :func:`live_version`)."""
    return live_version(home)[0]


def open_live(home: str | Path) -> VersionedStore:
    """A store on the live version of the index at ``home`` (what ``open_store`` returns)."""
    return VersionedStore(*live_version(home))


def _replaced_by(number: int) -> str:
    """The log note of the version a promotion of ``number`` retired (read back by
    :meth:`SQLiteCatalog.replaced`)."""
    return f"replaced by version {number}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SQLiteCatalog(ChangeLogCalls):
    """The SQLite :class:`~citewise.protocols.VersionCatalog`. Cheap constructor; the home
    file is opened (and migrated) on first use. Thread-safe like :class:`SQLiteStore`."""

    _changes = changes  # the backend's change-log queries (ChangeLogCalls)

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._database = Database(self.path, self._error)

    def __repr__(self) -> str:
        return f"SQLiteCatalog({self.path!r})"

    def __enter__(self) -> SQLiteCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._database.close()

    # -- connection --------------------------------------------------------------------------

    def _error(self, exc: Exception, action: str) -> StoreError:
        if "readonly" in str(exc):
            return read_only(self.path, exc)
        return StoreError(f"cannot use the version catalog of {self.path}: {exc}. Fix: retry "
                          "when other writers finish; check the path.")

    def _check_file(self) -> None:
        if self.path in (":memory:", ""):
            raise VersionError("index versions need an index file (version N lives in the "
                               "sibling file PATH.vN). Fix: pass --db PATH, not :memory:.")

    @contextmanager
    def _reading(self) -> Iterator[Any]:
        self._check_file()
        with self._database.reading() as conn:
            yield conn

    @contextmanager
    def _writing(self) -> Iterator[Any]:
        self._check_file()
        with self._database.writing() as conn:
            yield conn

    def _version(self, row: tuple[Any, ...]) -> IndexVersion:
        number, state, created_at, note = row
        return IndexVersion(number=int(number), location=version_path(self.path, int(number)),
                            state=state, created_at=created_at, note=note)

    def _get(self, conn: Any, number: int) -> IndexVersion:
        row = conn.execute(f"SELECT {_COLUMNS} FROM index_versions WHERE number = ?",
                           (int(number),)).fetchone()
        if row is None:
            known = [r[0] for r in conn.execute("SELECT number FROM index_versions")]
            raise VersionError(f"index {self.path} has no version {number} (versions: "
                               f"{known}). Fix: list them with `citewise versions`.")
        return self._version(row)

    def _log(self, conn: Any, number: int, state: str, note: str) -> None:
        conn.execute("INSERT INTO index_version_log(number, state, note, at) VALUES (?, ?, ?, ?)",
                     (number, state, note, _now()))

    # -- VersionCatalog ----------------------------------------------------------------------

    def versions(self) -> list[IndexVersion]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM index_versions ORDER BY number")
            return [self._version(r) for r in rows]

    def get(self, number: int) -> IndexVersion:
        with self._reading() as conn:
            return self._get(conn, number)

    def live(self) -> IndexVersion:
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM index_versions "
                               "WHERE state = 'live'").fetchone()
        if row is None:
            raise VersionError(f"index {self.path} has no live version. Fix: make one live "
                               "with `citewise rollback N` (see `citewise versions`).")
        return self._version(row)

    def location(self, number: int) -> str:
        return version_path(self.path, number)

    def create(self, note: str = "") -> IndexVersion:
        """Register a new ``shadow`` version; its number skips any leftover sibling file (a
        file the catalog does not know is never reused or overwritten)."""
        with self._writing() as conn:
            number = int(conn.execute(  # the log keeps removed numbers: never reused
                "SELECT coalesce(max(number), 1) + 1 FROM (SELECT number FROM index_versions "
                "UNION ALL SELECT number FROM index_version_log)").fetchone()[0])
            while any(os.path.exists(version_path(self.path, number) + suffix)
                      for suffix in ("", "-wal", "-shm")):
                number += 1
            now = _now()
            live = changes.live_state(conn)  # the shadow copies the live records: it has
            applied = live.applied_seq if live else 0  # applied what the live version has
            conn.execute("INSERT INTO index_versions(number, state, created_at, changed_at, "
                         "note, applied_seq) VALUES (?, 'shadow', ?, ?, ?, ?)",
                         (number, now, now, note, applied))
            self._log(conn, number, "shadow", note)
            return self._get(conn, number)

    def open(self, number: int, wait_s: float | None = None) -> VersionedStore:
        """The store of version ``number``; only a ``shadow`` may be created by opening it (a
        missing file of another version is an error, never a new empty index). ``wait_s`` is
        PostgreSQL's: a version file's writers wait SQLite's busy timeout."""
        with self._reading() as conn:
            version = self._get(conn, number)
        if version.state != "shadow" and not os.path.isfile(version.location):
            raise VersionError(f"version {number}'s file {version.location} is missing. Fix: "
                               "restore the file, or pick another version.")
        return VersionedStore(version.location, version.number)

    def promote(self, number: int, note: str = "") -> None:
        """Make ``number`` live and the live version ``retired``, in one transaction, after
        applying to it every delete and ACL change logged since it was last live; all under
        the write gate, so no write can land on the version being retired."""
        with self.gate():
            self._check_built(self.get(number))  # opens the version: outside the write lock
            with self._reading() as conn:
                pending = changes.since(conn, changes.applied_seq(conn, number))
            if pending:
                with SQLiteStore(version_path(self.path, number)) as store, \
                        live_store(self) as live:
                    apply_changes(store, pending, live, live_unknown=live is None)
            self._flip(number, note, max((c.seq for c in pending), default=0))

    def _flip(self, number: int, note: str, applied: int) -> None:
        with self._writing() as conn:
            version = self._get(conn, number)
            self._check_state(version)
            changes.mark_applied(conn, number, applied)
            now = _now()
            for (old,) in conn.execute("SELECT number FROM index_versions WHERE state = 'live'"
                                       ).fetchall():
                conn.execute("UPDATE index_versions SET state = 'retired', changed_at = ? "
                             "WHERE number = ?", (now, old))
                self._log(conn, old, "retired", _replaced_by(number))
            conn.execute("UPDATE index_versions SET state = 'live', changed_at = ?, "
                         "note = CASE WHEN ? = '' THEN note ELSE ? END WHERE number = ?",
                         (now, note, note, number))
            self._log(conn, number, "live", note)

    def _check_state(self, version: IndexVersion) -> None:
        n = version.number
        if version.state == "live":
            raise VersionError(f"version {n} is already live. Fix: pick another version "
                               "(see `citewise versions`).")
        if version.state == "refused":
            raise VersionError(f"version {n} was refused ({version.note or 'no reason given'}). "
                               "Fix: run `citewise reindex` again (with --force to override "
                               "the evaluation), or roll back to a retired version.")

    def _check_built(self, version: IndexVersion) -> None:
        self._check_state(version)
        n = version.number
        if not os.path.isfile(version.location):
            raise VersionError(f"version {n}'s file {version.location} is missing. Fix: "
                               "restore the file, or pick another version.")
        with SQLiteStore(version.location) as store:
            if store.manifest() is None:
                raise VersionError(f"version {n} is empty (it was never built). Fix: build it "
                                   "with `citewise reindex`, or pick another version.")

    def set_state(self, number: int, state: str, note: str = "") -> None:
        if state not in SETTABLE:
            raise VersionError(f"cannot set a version's state to {state!r} (allowed: "
                               f"{', '.join(SETTABLE)}). Fix: make a version live with "
                               "`promote` (`citewise rollback N`).")
        with self._writing() as conn:
            version = self._get(conn, number)
            if version.state == "live":
                raise VersionError(f"version {number} is live; its state changes only when "
                                   "another version is promoted. Fix: promote another version "
                                   "first (`citewise rollback N`).")
            conn.execute("UPDATE index_versions SET state = ?, changed_at = ?, "
                         "note = CASE WHEN ? = '' THEN note ELSE ? END WHERE number = ?",
                         (state, _now(), note, note, number))
            self._log(conn, number, state, note)

    # -- the change log and the write gate (citewise.index.follow) ------------------------------

    def gate(self, timeout: float = gate.TIMEOUT_S) -> Any:
        """Hold the index's write gate (reentrant); ``timeout=0`` only tries (yields a bool)."""
        self._check_file()
        return gate.file_gate(self.path, timeout)

    def _change_conn(self, write: bool) -> Any:
        return self._writing() if write else self._reading()

    # -- removing versions (citewise versions --gc) ----------------------------------------------

    def building(self, number: int) -> AbstractContextManager[None]:
        """Hold while building version ``number``: :meth:`is_building` is true meanwhile."""
        return cleanup.build_lock(self.location(number))

    def is_building(self, number: int) -> bool:
        return cleanup.is_building(self.location(number))

    def purge(self, number: int) -> None:
        """Remove what deleted documents left in version ``number``'s file (FTS segments,
        WAL); see :func:`~citewise.index.sqlite.cleanup.purge_deleted`."""
        with self._reading() as conn:
            location = self._get(conn, number).location
        if not os.path.isfile(location):
            return
        database = Database(location, self._error)
        try:
            with database.reading("clean") as conn:
                cleanup.purge_deleted(conn)
        finally:
            database.close()

    def drop(self, number: int) -> None:
        """Delete a non-live version's data (files, or version 1's tables) and its row."""
        with self._writing() as conn:  # holds the write lock: no promotion meanwhile
            version = self._get(conn, number)
            if version.state == "live":
                raise VersionError(f"version {number} is live. Fix: promote another version "
                                   "first (`citewise rollback N`).")
            if number == 1:
                cleanup.clear_home_data(conn)
            else:
                cleanup.remove_files(version.location)
            conn.execute("DELETE FROM index_versions WHERE number = ?", (number,))
            self._log(conn, number, "removed", f"was {version.state}")
        if number == 1:
            with self._database.reading("clean") as conn:
                cleanup.compact(conn)

    # -- beyond the protocol -------------------------------------------------------------------

    def replaced(self) -> int | None:
        """The version the live one replaced: :meth:`promote` logs the old live version
        ``retired`` ("replaced by version N") right before N ``live``."""
        with self._reading() as conn:
            live = conn.execute("SELECT number FROM index_versions WHERE state = 'live'"
                                ).fetchone()
            if live is None:
                return None
            row = conn.execute(
                "SELECT number FROM index_version_log WHERE state = 'retired' AND note = ? "
                "ORDER BY id DESC LIMIT 1", (_replaced_by(live[0]),)).fetchone()
        return int(row[0]) if row else None

    def history(self) -> list[dict[str, Any]]:
        """Every state change, oldest first: ``{number, state, note, at}``."""
        with self._reading() as conn:
            rows = conn.execute("SELECT number, state, note, at FROM index_version_log "
                                "ORDER BY id").fetchall()
        return [{"number": n, "state": s, "note": note, "at": at} for n, s, note, at in rows]
