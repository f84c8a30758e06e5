"""The write generation of a PostgreSQL index: one counter row per index schema, plus one for
the version catalog, in ``citewise_catalog.generations``::

    generations (location text PK, value bigint)   -- location: a schema, or '' (the catalog)

Every write transaction of a :class:`~citewise.index.postgres.PostgresStore` (ingest, delete,
ACL change, metadata, manifest) adds 1 to its schema's row as its last statement, and every
catalog change (create, promote, rollback, set_state, drop) adds 1 to the catalog's row, so the
counter becomes visible with the commit, never before it (a sequence would be seen before the
data it announces). :func:`read_generation` sums the store's row and the catalog's: a number
that changes after every committed write, in any process; caches keyed by it
(:mod:`citewise.serve.cache`) never serve what an earlier state computed.
"""

from __future__ import annotations

from typing import Any

GENERATIONS = "citewise_catalog.generations"
CATALOG_ROW = ""

SETUP = (
    "CREATE SCHEMA IF NOT EXISTS citewise_catalog",
    f"""CREATE TABLE IF NOT EXISTS {GENERATIONS} (
        location text PRIMARY KEY,
        value bigint NOT NULL)""",
)
_LOCK = "SELECT pg_advisory_xact_lock(hashtext('citewise:catalog'))"  # the catalog's lock


def ensure_generations(conn: Any) -> None:
    """Create the counter table if missing (concurrent openers wait on the catalog's lock)."""
    with conn.transaction():
        conn.execute(_LOCK)
        for statement in SETUP:
            conn.execute(statement)


def bump_generation(conn: Any, location: str) -> None:
    """+1 on ``location``'s counter, inside the caller's transaction."""
    conn.execute(f"INSERT INTO {GENERATIONS} (location, value) VALUES (%s, 1) "
                 f"ON CONFLICT (location) DO UPDATE SET value = {GENERATIONS}.value + 1",
                 (location,))


def read_generation(conn: Any, location: str) -> int:
    """The store's write count plus the catalog's change count (0 before any write)."""
    row = conn.execute(f"SELECT coalesce(sum(value), 0) FROM {GENERATIONS} "
                       "WHERE location = %s OR location = %s", (location, CATALOG_ROW)).fetchone()
    return int(row[0])
