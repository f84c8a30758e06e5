"""The change log in a SQLite index's home file (migration m005; see
:mod:`citewise.index.changelog`)::

    index_changes (doc_id PK, seq UNIQUE, kind put|acl|delete, tenant, groups JSON,
                   by_hand 0|1, content_hash)   -- content_hash: a put's text (m009)
    index_versions.applied_seq   -- the last change each version has applied

Every function runs on the catalog's connection; the writing ones inside its transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citewise.index.changelog import Change, LiveState

LIVE_STATE_SQL = """SELECT v.number, v.applied_seq,
    (SELECT coalesce(max(seq), 0) FROM index_changes)
FROM index_versions AS v WHERE v.state = 'live'"""


_ROW = "seq, doc_id, kind, tenant, groups, by_hand, content_hash"


def live_state(conn: Any) -> LiveState | None:
    """The live version's number and applied seq, and the last seq logged (``None``: no live
    row)."""
    row = conn.execute(LIVE_STATE_SQL).fetchone()
    return None if row is None else LiveState(int(row[0]), int(row[1]), int(row[2]))


def last_seq(conn: Any) -> int:
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM index_changes").fetchone()[0])


def record(conn: Any, changes: Sequence[Change]) -> tuple[int, list[Change]]:
    """Log ``changes`` (each replaces its document's previous row); returns the last seq and
    the rows they replaced (for :func:`restore` if the write they describe fails)."""
    ids = json.dumps([c.doc_id for c in changes])
    previous = since_rows(conn, f"SELECT {_ROW} FROM index_changes "
                          "WHERE doc_id IN (SELECT value FROM json_each(?))", (ids,))
    seq = last_seq(conn)
    rows = []
    for change in changes:
        seq += 1
        rows.append(_row(replace(change, seq=seq)))
    conn.executemany(f"INSERT INTO index_changes({_ROW}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                     "ON CONFLICT (doc_id) DO UPDATE SET seq = excluded.seq, "
                     "kind = excluded.kind, tenant = excluded.tenant, "
                     "groups = excluded.groups, by_hand = excluded.by_hand, "
                     "content_hash = excluded.content_hash", rows)
    return seq, previous


def _row(c: Change) -> tuple[Any, ...]:
    return (c.seq, c.doc_id, c.kind, c.tenant,
            None if c.groups is None else json.dumps(list(c.groups)), int(c.by_hand),
            c.content_hash)


def restore(conn: Any, logged: Sequence[Change], previous: Sequence[Change]) -> None:
    """Undo :func:`record`: drop the rows it wrote and put back the ones it replaced."""
    conn.execute("DELETE FROM index_changes WHERE doc_id IN (SELECT value FROM json_each(?))",
                 (json.dumps([c.doc_id for c in logged]),))
    conn.executemany(f"INSERT INTO index_changes({_ROW}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     [_row(c) for c in previous])


def since(conn: Any, seq: int) -> list[Change]:
    """Every change logged after ``seq``, oldest first."""
    return since_rows(conn, f"SELECT {_ROW} FROM index_changes WHERE seq > ? ORDER BY seq",
                      (int(seq),))


def since_rows(conn: Any, sql: str, params: tuple[Any, ...]) -> list[Change]:
    return [Change(int(seq), doc_id, kind, tenant,
                   None if groups is None else tuple(json.loads(groups)), bool(by_hand), text)
            for seq, doc_id, kind, tenant, groups, by_hand, text in conn.execute(sql, params)]


def hand_deleted(conn: Any) -> set[str]:
    """The ids of the documents last deleted by someone's asking."""
    return {str(doc_id) for (doc_id,) in conn.execute(
        "SELECT doc_id FROM index_changes WHERE kind = 'delete' AND by_hand = 1")}


def hand_readers(conn: Any, doc_id: str) -> Change | None:
    """``doc_id``'s row when it set or kept readers by hand (see :class:`Change`)."""
    rows = since_rows(conn, f"SELECT {_ROW} FROM index_changes WHERE doc_id = ? AND kind <> "
                      "'delete' AND by_hand = 1", (doc_id,))
    return rows[0] if rows else None


def applied_seq(conn: Any, number: int) -> int:
    row = conn.execute("SELECT applied_seq FROM index_versions WHERE number = ?",
                       (int(number),)).fetchone()
    return 0 if row is None else int(row[0])


def mark_applied(conn: Any, number: int, seq: int) -> None:
    conn.execute("UPDATE index_versions SET applied_seq = max(applied_seq, ?) WHERE number = ?",
                 (int(seq), int(number)))
