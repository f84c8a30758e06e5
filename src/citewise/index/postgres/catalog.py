"""``PostgresCatalog``: the :class:`~citewise.protocols.VersionCatalog` of one PostgreSQL
database. Each index version is a schema (``citewise_v1``, ``citewise_v2``...) holding a
complete :class:`~citewise.index.postgres.PostgresStore`; the table
``citewise_catalog.versions`` records each version's number, schema, state and note::

    versions (number int PK, location text UNIQUE, state text CHECK (live|shadow|retired|refused),
              created_at text, note text)
    UNIQUE INDEX versions_one_live ON versions ((true)) WHERE state = 'live'
    SEQUENCE version_numbers                 -- numbers are never reused, even after drop()

``promote`` retires the live row and marks the new one live in ONE transaction (the partial
unique index makes two live rows impossible), so :func:`~citewise.index.open_store` on the URL
opens either the old or the new schema, never a mix. An empty database gets version 1, live,
on first use (``open_store`` of a fresh URL just works).

Deletes and ACL changes are logged in ``citewise_catalog.changes`` (:mod:`.changes`) and
applied to a version when it becomes live; writers following the live version
(:class:`~citewise.index.follow.LiveStore`) and ``promote`` serialise on the database's write
gate, a session advisory lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, get_args

from psycopg import sql

from citewise.errors import StoreError, VersionError
from citewise.index import gate
from citewise.index.changelog import ChangeLogCalls, apply_changes, live_store
from citewise.index.location import redact
from citewise.index.postgres import changes
from citewise.index.postgres.connection import (
    check_search_path,
    psycopg_modules,
    server_lost,
    split_url,
)
from citewise.index.postgres.generation import CATALOG_ROW, bump_generation
from citewise.index.postgres.generation import SETUP as GENERATION_SETUP
from citewise.types import IndexVersion, VersionState

CATALOG_SCHEMA = "citewise_catalog"
SCHEMA_PREFIX = "citewise_v"
_STATES = get_args(VersionState)

_SETUP = (
    f"CREATE SCHEMA IF NOT EXISTS {CATALOG_SCHEMA}",
    f"""CREATE TABLE IF NOT EXISTS {CATALOG_SCHEMA}.versions (
        number integer PRIMARY KEY,
        location text NOT NULL UNIQUE,
        state text NOT NULL CHECK (state IN ('live', 'shadow', 'retired', 'refused')),
        created_at text NOT NULL,
        note text NOT NULL DEFAULT '')""",
    f"""CREATE UNIQUE INDEX IF NOT EXISTS versions_one_live ON {CATALOG_SCHEMA}.versions ((true))
        WHERE state = 'live'""",
    f"CREATE SEQUENCE IF NOT EXISTS {CATALOG_SCHEMA}.version_numbers",
    *changes.SETUP,
    *GENERATION_SETUP,
    changes.add_column("versions", "replaced", "integer"),
)
_LOCK = "SELECT pg_advisory_xact_lock(hashtext('citewise:catalog'))"

_COLUMNS = "number, location, state, created_at, note"


def version_of_schema(url: str) -> int | None:
    """The number of the version whose schema ``url``'s ``?schema=`` names, when the
    database's catalog lists it, else None (a schema of no catalog: ``migrate`` into it). One
    read-only query; no catalog is created."""
    base, schema = split_url(url)
    if schema is None:
        return None
    psycopg, _ = psycopg_modules()
    try:
        with psycopg.connect(base, autocommit=True, prepare_threshold=None) as conn:
            exists = conn.execute("SELECT to_regclass(%s)", (f"{CATALOG_SCHEMA}.versions",)
                                  ).fetchone()[0]
            row = conn.execute(f"SELECT number FROM {CATALOG_SCHEMA}.versions WHERE "
                               "location = %s", (schema,)).fetchone() if exists else None
    except psycopg.Error:
        return None  # the store itself reports an unreachable server
    return None if row is None else int(row[0])


class PostgresCatalog(ChangeLogCalls):
    """Index versions of the database at ``url`` (constructor does no I/O)."""

    _changes = changes  # the backend's change-log queries (ChangeLogCalls)

    def __init__(self, url: str) -> None:
        self.store_url = url  # with its tuning parameters (?ef_search=...), for the stores
        self.url, _ = split_url(url)
        self._state_conn: Any = None
        self._state_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PostgresCatalog({redact(self.url)!r})"

    def _plain_connect(self) -> Any:
        psycopg, _ = psycopg_modules()
        try:
            return psycopg.connect(self.url, autocommit=True, prepare_threshold=None)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the version catalog of {redact(self.url)}: {exc}. "
                             "Fix: check the URL and that the server is running and "
                             "reachable.") from exc

    def _connect(self) -> Any:
        psycopg, _ = psycopg_modules()
        conn = self._plain_connect()
        try:
            check_search_path(conn, f"the version catalog of {redact(self.url)}")
            with conn.transaction():
                conn.execute(_LOCK)
                for statement in _SETUP:
                    conn.execute(statement)
                count = f"SELECT count(*) FROM {CATALOG_SCHEMA}.versions"
                if conn.execute(count).fetchone()[0] == 0:
                    self._insert(conn, "live", "created on first use")
        except psycopg.Error as exc:
            conn.close()
            raise StoreError(f"cannot set up the version catalog ({CATALOG_SCHEMA}) in "
                             f"{redact(self.url)}: {exc}. Fix: connect as a user allowed to "
                             "create schemas in this database, or create it once as its "
                             "owner.") from exc
        return conn

    def _insert(self, conn: Any, state: str, note: str) -> IndexVersion:
        number = conn.execute(f"SELECT nextval('{CATALOG_SCHEMA}.version_numbers')").fetchone()[0]
        version = IndexVersion(number=number, location=f"{SCHEMA_PREFIX}{number}",
                               state=state,  # type: ignore[arg-type]
                               created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                               note=note)
        conn.execute(f"INSERT INTO {CATALOG_SCHEMA}.versions ({_COLUMNS}) "
                     "VALUES (%s, %s, %s, %s, %s)",
                     (version.number, version.location, version.state, version.created_at,
                      version.note))
        bump_generation(conn, CATALOG_ROW)
        return version

    def versions(self) -> list[IndexVersion]:
        with self._connect() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM {CATALOG_SCHEMA}.versions "
                                "ORDER BY number").fetchall()
        return [IndexVersion(*row) for row in rows]

    def live(self) -> IndexVersion:
        with self._connect() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM {CATALOG_SCHEMA}.versions "
                               "WHERE state = 'live'").fetchone()
        if row is None:
            raise VersionError(f"{redact(self.url)} has no live index version. Fix: promote one "
                               "(`citewise rollback N`, see `citewise versions`).")
        return IndexVersion(*row)

    def create(self, note: str = "") -> IndexVersion:
        """A new ``shadow`` version (its schema is created when first opened)."""
        with self._connect() as conn, conn.transaction():
            conn.execute(_LOCK)
            made = self._insert(conn, "shadow", note)
            live = changes.live_state(conn)  # it copies the live records: it has applied
            changes.mark_applied(conn, made.number, live.applied_seq if live else 0)  # theirs
            return made

    def open(self, number: int, wait_s: float | None = None) -> Any:
        from citewise.index.postgres.store import PostgresStore

        # on the kept connection: a LiveStore reopens often
        version = self._on_state(lambda conn: self._get(number, conn))
        if version.state in ("retired", "refused") and not self._on_state(
                lambda conn: _schema_exists(conn, version.location)):
            raise StoreError(  # opened, it would be made again, empty (a review)
                f"the schema {version.location} of index version {number} is missing. "
                "Fix: restore it, or remove the version (`citewise versions --gc "
                "--retired`)")
        return PostgresStore(self.store_url, schema=version.location, lock_timeout_s=wait_s)

    def _get(self, number: int, conn: Any = None) -> IndexVersion:
        if conn is None:
            with self._connect() as own:
                return self._get(number, own)
        row = conn.execute(f"SELECT {_COLUMNS} FROM {CATALOG_SCHEMA}.versions WHERE number = %s",
                           (number,)).fetchone()
        if row is None:
            raise VersionError(f"index version {number!r} does not exist in {redact(self.url)}. "
                               "Fix: list them with `citewise versions`.")
        return IndexVersion(*row)

    def promote(self, number: int, note: str = "") -> None:
        """Make ``number`` live and the current live version ``retired``, atomically, after
        applying to it every delete and ACL change logged since it was last live; all under
        the write gate, so no write lands on the version being retired."""
        with self.gate():
            with self._connect() as conn:
                target = self._get(number, conn)
                pending = changes.since(conn, changes.applied_seq(conn, number))
            if pending and target.state in ("shadow", "retired") and _is_built_schema(
                    self, target.location):
                with self.open(number) as store, live_store(self) as live:
                    apply_changes(store, pending, live, live_unknown=live is None)
            self._flip(number, note, max((c.seq for c in pending), default=0))

    def _flip(self, number: int, note: str, applied: int) -> None:
        with self._connect() as conn, conn.transaction():
            conn.execute(_LOCK)
            target = self._get(number, conn)
            if target.state == "live":
                return
            if target.state == "refused":
                raise VersionError(f"index version {number} was refused ({target.note!r}). "
                                   "Fix: set_state it to 'shadow' first if it should go live.")
            if not _is_built(conn, target.location):
                raise VersionError(f"index version {number} is empty (no manifest in schema "
                                   f"{target.location}). Fix: build it first (`citewise "
                                   "reindex`), or promote another version.")
            old = conn.execute(f"SELECT number FROM {CATALOG_SCHEMA}.versions "
                               "WHERE state = 'live'").fetchone()
            conn.execute(f"UPDATE {CATALOG_SCHEMA}.versions SET state = 'retired' "
                         "WHERE state = 'live'")
            conn.execute(f"UPDATE {CATALOG_SCHEMA}.versions SET state = 'live', note = %s, "
                         "replaced = %s WHERE number = %s",
                         (note or target.note, old[0] if old else None, number))
            changes.mark_applied(conn, number, applied)
            bump_generation(conn, CATALOG_ROW)

    def replaced(self) -> int | None:
        """The version the live one replaced (kept by :meth:`promote`)."""
        with self._connect() as conn:
            row = conn.execute(f"SELECT replaced FROM {CATALOG_SCHEMA}.versions "
                               "WHERE state = 'live'").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def set_state(self, number: int, state: str, note: str = "") -> None:
        """Mark a non-live version ``refused``/``shadow``/``retired`` with a reason."""
        if state not in _STATES or state == "live":
            raise VersionError(f"cannot set state {state!r}. Fix: use one of shadow, retired, "
                               "refused (use promote() to make a version live).")
        with self._connect() as conn, conn.transaction():
            conn.execute(_LOCK)
            if self._get(number, conn).state == "live":
                raise VersionError(f"index version {number} is live. Fix: promote another "
                                   "version first.")
            conn.execute(f"UPDATE {CATALOG_SCHEMA}.versions SET state = %s, "
                         "note = CASE WHEN %s = '' THEN note ELSE %s END WHERE number = %s",
                         (state, note, note, number))
            bump_generation(conn, CATALOG_ROW)

    # -- the change log and the write gate (citewise.index.follow) ------------------------------

    def gate(self, timeout: float = gate.TIMEOUT_S) -> Any:
        """Hold the database's write gate (reentrant); ``timeout=0`` only tries."""
        busy = (f"index {redact(self.url)} is busy: another writer or a promotion (reindex, "
                f"rollback) held its write gate for over {timeout:.0f} s. Fix: retry when it "
                "finishes.")
        return gate.hold(f"postgres:{self.url}", changes.gate_acquire(self._plain_connect),
                         changes.gate_release, timeout=timeout, busy=busy)

    @contextmanager
    def _state(self) -> Iterator[Any]:
        """The catalog connection kept open for the calls a following store makes often."""
        psycopg, _ = psycopg_modules()
        with self._state_lock:
            if self._state_conn is None or self._state_conn.closed:
                self._state_conn = self._ready_connection()
            try:
                yield self._state_conn
            except psycopg.Error as exc:
                self._state_conn.close()
                self._state_conn = None
                raise StoreError(f"cannot use the version catalog of {redact(self.url)}: "
                                 f"{exc}. Fix: check that the server is running; retry.") from exc

    def _ready_connection(self) -> Any:
        """A connection to a set-up catalog: a plain one when the catalog exists (no DDL, no
        lock: a store following the live version opens one per process), else set up."""
        conn = self._plain_connect()
        ready = conn.execute("SELECT to_regclass(%s) IS NOT NULL AND EXISTS (SELECT 1 FROM "
                             f"{CATALOG_SCHEMA}.versions WHERE state = 'live') AND EXISTS ("
                             "SELECT 1 FROM information_schema.columns WHERE table_schema = "
                             "%s AND table_name = 'changes' AND column_name = 'by_hand')",
                             (f"{CATALOG_SCHEMA}.changes", CATALOG_SCHEMA)).fetchone()[0] \
            if conn.execute("SELECT to_regclass(%s)", (f"{CATALOG_SCHEMA}.versions",)
                            ).fetchone()[0] else False  # (a catalog older than by_hand: its
        # first connection sets it up; the change log's reads failed on the missing column)
        if ready:
            return conn
        conn.close()
        return self._connect()

    def gate_free(self) -> bool:
        """Whether no one holds the write gate now (a probe on the kept connection)."""
        return self._on_state(changes.gate_free)

    def _change_conn(self, write: bool) -> Any:
        return self._state()

    def _on_changes(self, write: bool, call: Callable[[Any], Any]) -> Any:
        return self._on_state(call) if not write else super()._on_changes(write, call)

    def _on_state(self, call: Callable[[Any], Any]) -> Any:
        """``call(conn)`` on the kept connection, and once more on a new one when the server
        had closed it: after a PostgreSQL restart, the first request to a running server
        failed with a 503 ("cannot use the version catalog"; run as a user would: the pool
        and the request log recovered, this connection did not). Writes are not run again."""
        try:
            with self._state() as conn:
                return call(conn)
        except StoreError as exc:
            if exc.__cause__ is None or not server_lost(exc.__cause__):
                raise
        with self._state() as conn:
            return call(conn)

    def close(self) -> None:
        with self._state_lock:
            if self._state_conn is not None:
                self._state_conn.close()
                self._state_conn = None

    @contextmanager
    def building(self, number: int) -> Iterator[None]:
        """Hold while building version ``number``: a session advisory lock on its own
        connection, which the server drops when the builder dies (even by ``kill -9``)."""
        conn = self._connect()
        try:
            conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (_build_key(number),))
            yield
        finally:
            conn.close()

    def is_building(self, number: int) -> bool:
        """Whether a live session holds version ``number``'s build lock."""
        with self._connect() as conn:
            got = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))",
                               (_build_key(number),)).fetchone()[0]
            if got:
                conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (_build_key(number),))
        return not got

    def drop(self, number: int) -> None:
        """Delete a non-live version's schema and row (frees its space)."""
        with self._connect() as conn, conn.transaction():
            conn.execute(_LOCK)
            version = self._get(number, conn)
            if version.state == "live":
                raise VersionError(f"index version {number} is live. Fix: promote another "
                                   "version first.")
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(version.location)))
            conn.execute(f"DELETE FROM {CATALOG_SCHEMA}.versions WHERE number = %s", (number,))
            bump_generation(conn, CATALOG_ROW)


def _is_built_schema(catalog: PostgresCatalog, schema: str) -> bool:
    with catalog._connect() as conn:
        return _is_built(conn, schema)


def _build_key(number: int) -> str:
    return f"citewise:build:{number}"


def _schema_exists(conn: Any, schema: str) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s)",
                        (schema,)).fetchone()[0]


def _is_built(conn: Any, schema: str) -> bool:
    """Whether the version's schema holds a manifest (something was ingested into it)."""
    table = conn.execute("SELECT to_regclass(%s)", (f"{schema}.manifest",)).fetchone()[0]
    if table is None:
        return False
    query = sql.SQL("SELECT EXISTS (SELECT 1 FROM {}.manifest)").format(sql.Identifier(schema))
    return bool(conn.execute(query).fetchone()[0])
