"""Keeping BM25's statistics true to the rows an FTS5 table holds.

A ``contentless_delete`` table (:mod:`.migrations`) forgets a deleted row's terms but not
that it was counted: the row count N and each column's token total in its averages record,
which ``bm25()`` reads (N for idf, total / N for the average length: :mod:`.fts`), only grow.
Each re-ingest of a changed document and each ACL change (its rows deleted and written
again) added its chunks to them for good. A new user re-ingested Rust's release notes twice,
the second time byte for byte the original, and N read 4,036 for 1,818 chunks; BM25 scores
moved (``GATs``: 6.58 on a fresh index, 7.24) and "In which Rust version was let-else
stabilized?" lost its answer. Such a table takes no ``'rebuild'``, and its ``'delete'``
command, which would take a deleted row's tokens off the totals, is refused. (How many rows
hold a term, the other count, is found by matching, which skips deleted rows.)

So when the record counts other rows than the table holds, :func:`restore_statistics`
writes it again from the ``_docsize`` table, which holds each live row's token count per
column: N is the number of its rows, each total their sum, the record FTS5 itself writes
for a fresh table of the same rows (byte for byte). One read of the sizes and one row
written: 0.29 s at 100,000 chunks, 0.06 s at 20,000 on this 2-core machine
(``benchmarks/fts_stats.py``).
Writing the table's rows again instead held the write lock 20 s there, beyond another
process's 5 s wait for it (a review). FTS5 writes the record at the commit of each
transaction that writes rows, from what it read at the start: so this runs in a
transaction of its own after such a write (the purge after a write or delete, or after an
ACL change), never in the one that wrote rows.
"""

from __future__ import annotations

from typing import Any


def counted_rows(conn: Any, table: str) -> int:
    """N as ``bm25()`` reads it: the first varint of the table's averages record (rowid 1 of
    its ``_data`` table; FTS5's file format), 0 before its first write."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return (_varints(bytes(row[0])) or [-1])[0] if row and row[0] else 0  # -1: unreadable


def restore_statistics(conn: Any, table: str) -> bool:
    """Write FTS table ``table``'s averages record again from its ``_docsize`` rows when it
    counts other rows than the table holds (module docstring); whether it did. Outside a
    transaction (``citewise versions --gc``) in one of its own, so no other process's rows
    come between the count and the write (the second review). An empty table is left as
    it is: FTS5 reads a record of no rows as a damaged file."""
    if not conn.in_transaction:
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = restore_statistics(conn, table)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return done
    held = conn.execute(f"SELECT count(*) FROM {table}_docsize").fetchone()[0]
    if held == 0 or counted_rows(conn, table) == held:
        return False
    totals: list[int] = []
    for (sizes,) in conn.execute(f"SELECT sz FROM {table}_docsize"):
        for column, size in enumerate(_varints(bytes(sizes))):
            if column == len(totals):
                totals.append(0)
            totals[column] += size
    record = b"".join(_varint(n) for n in (held, *totals))
    conn.execute(f"INSERT OR REPLACE INTO {table}_data(id, block) VALUES (1, ?)", (record,))
    return True


def _varints(data: bytes) -> list[int]:
    """The SQLite varints of ``data``, in order: 7 bits a byte, the high bit set while more
    follow; a 9th byte gives 8."""
    out: list[int] = []
    value, length = 0, 0
    for byte in data:
        length += 1
        if length == 9:
            out.append((value << 8) | byte)
            value, length = 0, 0
            continue
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value, length = 0, 0
    return out


def _varint(value: int) -> bytes:
    """``value`` (below 2**56: token counts) as a SQLite varint."""
    if value < 0 or value >= 1 << 56:
        raise ValueError(f"not a count FTS5 keeps: {value}")
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(reversed(out))
