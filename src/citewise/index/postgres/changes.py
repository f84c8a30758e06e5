"""The change log in ``citewise_catalog`` (see :mod:`citewise.index.changelog`)::

    changes (doc_id text PK, seq bigint UNIQUE, kind put|acl|delete, tenant text, groups text[],
             by_hand boolean, content_hash text)
    SEQUENCE change_numbers
    versions.applied_seq bigint    -- the last change each version has applied

and the index's write gate: a session advisory lock held on its own connection
(:mod:`citewise.index.gate` makes it reentrant per thread).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citewise.index.changelog import Change, LiveState
from citewise.index.gate import POLL_S

SCHEMA = "citewise_catalog"


def add_column(table: str, column: str, definition: str) -> str:
    """A statement adding ``column`` to the catalog's ``table`` only when it is missing:
    ``ALTER TABLE … ADD COLUMN IF NOT EXISTS`` takes the table's exclusive lock on every
    catalog connection even when the column is there. It deadlocked against readers of the
    change log (two tests), and a security review's ``pg_dump`` (the README's backup)
    held its read lock, the next connection's ALTER queued behind it, and every search of
    every server queued behind the ALTER until the dump ended (52 s)."""
    return f"""DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema =
                       '{SCHEMA}' AND table_name = '{table}' AND column_name = '{column}') THEN
            ALTER TABLE {SCHEMA}.{table} ADD COLUMN {column} {definition};
        END IF;
    END $$"""


SETUP = (
    f"""CREATE TABLE IF NOT EXISTS {SCHEMA}.changes (
        doc_id text PRIMARY KEY,
        seq bigint NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('put', 'acl', 'delete')),
        tenant text,
        groups text[])""",
    f"CREATE SEQUENCE IF NOT EXISTS {SCHEMA}.change_numbers",
    # deletes someone asked for (changelog.py), false for older ones
    add_column("changes", "by_hand", "boolean NOT NULL DEFAULT false"),
    # the text a put stored: its readers are replayed onto that text only (changelog.py)
    add_column("changes", "content_hash", "text"),
    add_column("versions", "applied_seq", "bigint NOT NULL DEFAULT 0"),
)
GATE_KEY = "hashtext('citewise:write-gate')"
LIVE_STATE_SQL = f"""SELECT v.number, v.applied_seq,
    (SELECT coalesce(max(seq), 0) FROM {SCHEMA}.changes)
FROM {SCHEMA}.versions AS v WHERE v.state = 'live'"""
_ROW = "seq, doc_id, kind, tenant, groups, by_hand, content_hash"


def live_state(conn: Any) -> LiveState | None:
    row = conn.execute(LIVE_STATE_SQL).fetchone()
    return None if row is None else LiveState(int(row[0]), int(row[1]), int(row[2]))


def _rows(conn: Any, where: str, params: tuple[Any, ...]) -> list[Change]:
    rows = conn.execute(f"SELECT {_ROW} FROM {SCHEMA}.changes WHERE {where} ORDER BY seq",
                        params).fetchall()
    return [Change(int(s), d, k, t, None if g is None else tuple(g), bool(h), c)
            for s, d, k, t, g, h, c in rows]


def _values(c: Change) -> tuple[Any, ...]:
    return (c.seq, c.doc_id, c.kind, c.tenant, None if c.groups is None else list(c.groups),
            c.by_hand, c.content_hash)


def hand_deleted(conn: Any) -> set[str]:
    """The ids of the documents last deleted by someone's asking."""
    return {str(d) for (d,) in conn.execute(
        f"SELECT doc_id FROM {SCHEMA}.changes WHERE kind = 'delete' AND by_hand").fetchall()}


def hand_readers(conn: Any, doc_id: str) -> Change | None:
    """``doc_id``'s row when it set or kept readers by hand (see :class:`Change`)."""
    rows = _rows(conn, "doc_id = %s AND kind <> 'delete' AND by_hand", (doc_id,))
    return rows[0] if rows else None


def record(conn: Any, changes: Sequence[Change]) -> tuple[int, list[Change]]:
    """Log ``changes`` in one transaction; returns the last seq and the rows replaced."""
    with conn.transaction():
        previous = _rows(conn, "doc_id = ANY(%s)", ([c.doc_id for c in changes],))
        seq = 0
        with conn.cursor() as cur:
            for change in changes:
                seq = cur.execute(f"SELECT nextval('{SCHEMA}.change_numbers')").fetchone()[0]
                cur.execute(f"INSERT INTO {SCHEMA}.changes ({_ROW}) VALUES "
                            "(%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO UPDATE "
                            "SET seq = excluded.seq, kind = excluded.kind, tenant = "
                            "excluded.tenant, groups = excluded.groups, by_hand = "
                            "excluded.by_hand, content_hash = excluded.content_hash",
                            _values(replace(change, seq=seq)))
    return int(seq), previous


def restore(conn: Any, logged: Sequence[Change], previous: Sequence[Change]) -> None:
    with conn.transaction():
        conn.execute(f"DELETE FROM {SCHEMA}.changes WHERE doc_id = ANY(%s)",
                     ([c.doc_id for c in logged],))
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.changes ({_ROW}) VALUES "
                            "(%s, %s, %s, %s, %s, %s, %s)", [_values(c) for c in previous])


def since(conn: Any, seq: int) -> list[Change]:
    return _rows(conn, "seq > %s", (int(seq),))


def applied_seq(conn: Any, number: int) -> int:
    row = conn.execute(f"SELECT applied_seq FROM {SCHEMA}.versions WHERE number = %s",
                       (int(number),)).fetchone()
    return 0 if row is None else int(row[0])


def mark_applied(conn: Any, number: int, seq: int) -> None:
    conn.execute(f"UPDATE {SCHEMA}.versions SET applied_seq = greatest(applied_seq, %s) "
                 "WHERE number = %s", (int(seq), int(number)))


def gate_free(conn: Any) -> bool:
    """Take and at once release the gate's lock on ``conn``: whether it was free."""
    if not conn.execute(f"SELECT pg_try_advisory_lock({GATE_KEY})").fetchone()[0]:
        return False
    conn.execute(f"SELECT pg_advisory_unlock({GATE_KEY})")
    return True


def gate_acquire(connect: Any) -> Any:
    """``acquire(deadline)`` for :func:`citewise.index.gate.hold`: a new connection holding
    the session advisory lock (released with the connection if the process dies)."""
    def acquire(deadline: float) -> Any:
        conn = connect()
        try:
            while not conn.execute(f"SELECT pg_try_advisory_lock({GATE_KEY})").fetchone()[0]:
                if time.monotonic() >= deadline:
                    conn.close()
                    return None
                time.sleep(POLL_S)
        except BaseException:
            conn.close()
            raise
        return conn
    return acquire


def gate_release(conn: Any) -> None:
    try:
        conn.execute(f"SELECT pg_advisory_unlock({GATE_KEY})")
    finally:
        conn.close()
