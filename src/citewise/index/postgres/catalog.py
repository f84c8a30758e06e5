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
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

from psycopg import sql

from citewise.errors import StoreError, VersionError
from citewise.index.postgres.connection import psycopg_modules, redact, split_url
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
    *GENERATION_SETUP,
)
_LOCK = "SELECT pg_advisory_xact_lock(hashtext('citewise:catalog'))"
_COLUMNS = "number, location, state, created_at, note"


class PostgresCatalog:
    """Index versions of the database at ``url`` (constructor does no I/O)."""

    def __init__(self, url: str) -> None:
        self.url, _ = split_url(url)

    def __repr__(self) -> str:
        return f"PostgresCatalog({redact(self.url)!r})"

    def _connect(self) -> Any:
        psycopg, _ = psycopg_modules()
        try:
            conn = psycopg.connect(self.url, autocommit=True, prepare_threshold=None)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the version catalog of {redact(self.url)}: {exc}. "
                             "Fix: check the URL and that the server is running "
                             "(CI: `.ci/pg start`).") from exc
        try:
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
            return self._insert(conn, "shadow", note)

    def open(self, number: int) -> Any:
        from citewise.index.postgres.store import PostgresStore

        return PostgresStore(self.url, schema=self._get(number).location)

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
        """Make ``number`` live and the current live version ``retired``, atomically."""
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
            conn.execute(f"UPDATE {CATALOG_SCHEMA}.versions SET state = 'retired' "
                         "WHERE state = 'live'")
            conn.execute(f"UPDATE {CATALOG_SCHEMA}.versions SET state = 'live', note = %s "
                         "WHERE number = %s", (note or target.note, number))
            bump_generation(conn, CATALOG_ROW)

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


def _is_built(conn: Any, schema: str) -> bool:
    """Whether the version's schema holds a manifest (something was ingested into it)."""
    table = conn.execute("SELECT to_regclass(%s)", (f"{schema}.manifest",)).fetchone()[0]
    if table is None:
        return False
    query = sql.SQL("SELECT EXISTS (SELECT 1 FROM {}.manifest)").format(sql.Identifier(schema))
    return bool(conn.execute(query).fetchone()[0])
