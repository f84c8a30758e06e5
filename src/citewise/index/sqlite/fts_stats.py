"""Keeping BM25's statistics true to the rows an FTS5 table holds.

A ``contentless_delete`` table (:mod:`.migrations`) forgets a deleted row's terms but not
that it was counted: its row count N, which ``bm25()``'s idf reads (:mod:`.fts`), only
grows. Each re-ingest of a changed document and each ACL change (its rows deleted and
written again) added its chunks to N for good. A new user re-ingested Rust's release notes
twice, the second time byte for byte the original, and N read 4,036 for 1,818 chunks; BM25
scores moved (``GATs``: 6.58 on a fresh index, 7.24) and "In which Rust version was let-else
stabilized?" lost its answer. Such a table takes no ``'rebuild'``, and its ``'delete'``
command, which would take the deleted values off the totals, is refused.

So the table is written again from the stored chunks when the rows it counts exceed the rows
it holds by :data:`MAX_DEAD_SHARE` (:func:`restore_statistics`): N is then the true count
again, and the drift between two rewrites stays under that share. A rewrite costs one insert
per held row, and comes once per replaced rows numbering that share of them: about 1 ms per
replaced chunk, against some 10 ms to embed one (``benchmarks/fts_stats.py`` on this 2-core
machine while other jobs ran: 0.16 s at 2,000 chunks, 2.0 s at 20,000, 9.4 s at 100,000,
holding the write lock). It runs after the write that replaced or deleted the rows, with the
purge of their text (:func:`citewise.index.sqlite.cleanup.purge_fts`), or in an ACL change's
own write.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.index.sqlite.fts import FTS_INSERT
from citewise.index.sqlite.tenancy import SHARED_FTS, layout_of

MAX_DEAD_SHARE = 0.1
"""The share of the held rows that rows counted but gone may reach before a rewrite."""
_TENANT_TABLE = re.compile(r"chunks_fts_t(\d+)")


def counted_rows(conn: Any, table: str) -> int:
    """N as ``bm25()`` reads it: the first varint of the table's averages record (rowid 1 of
    its ``_data`` table; FTS5's file format), 0 before its first write."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return _varint(bytes(row[0])) if row and row[0] else 0


def _varint(data: bytes) -> int:
    """SQLite's varint: 7 bits a byte, high bit set while more follow; a 9th byte gives 8."""
    value = 0
    for index, byte in enumerate(data[:9]):
        if index == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value


def restore_statistics(conn: Any, table: str) -> bool:
    """Write FTS table ``table`` again from the stored chunks when it counts more than
    :data:`MAX_DEAD_SHARE` rows beyond those it holds (module docstring); whether it did.
    Inside the caller's write transaction: a reader sees the old rows or the new."""
    held = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    if counted_rows(conn, table) - held <= MAX_DEAD_SHARE * held:
        return False
    tenant = _TENANT_TABLE.fullmatch(table)
    if tenant is None and (table != SHARED_FTS or layout_of(conn).isolated):
        return False  # not a table of chunks, or the shared table an isolated index leaves empty
    conn.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
    if tenant is None:
        conn.execute(FTS_INSERT.format(fts=table))
    else:
        conn.execute(FTS_INSERT.format(fts=table) + "\nWHERE d.tenant_id = ?",
                     (int(tenant.group(1)),))
    return True
