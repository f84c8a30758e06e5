"""What keeping BM25's counts true costs: the averages record of the FTS5 table written again
from its ``_docsize`` rows (:func:`citewise.index.sqlite.fts_stats.restore_statistics`), at
several index sizes.

An FTS5 ``contentless_delete`` table keeps counting the rows it deleted; after a write that
replaced or deleted rows the record is set to the rows held. This builds an index of
``--chunks`` synthetic chunks of 120 words (a 30,000-word vocabulary; 10 chunks a document),
writes the FTS rows of 11 % of them again as re-ingests do, and prints the seconds of the
restore and the row count before and after::

    .venv/bin/python benchmarks/fts_stats.py [--chunks 2000 20000 100000] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from citewise.index.sqlite.fts import FTS_ROWS_TEMPLATE
from citewise.index.sqlite.fts_stats import counted_rows, restore_statistics
from citewise.index.sqlite.migrations import connect, migrate


def build(path: Path, chunks: int, seed: int = 0):
    """An index file of ``chunks`` chunks, ten a document, with their FTS rows."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(30_000)]
    conn = connect(path)
    migrate(conn)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO tenants(id, name) VALUES (1, 'default')")
    conn.execute("INSERT INTO groups(id, name) VALUES (1, 'staff')")
    for doc in range(1, chunks // 10 + 1):
        conn.execute("INSERT INTO documents(id, doc_id, version, content_hash, title, tenant, "
                     "tenant_id, acl, metadata) VALUES (?, ?, 1, '', ?, 'default', 1, "
                     "'[\"staff\"]', '{}')", (doc, f"d{doc}", " ".join(rng.choices(words, k=5))))
        conn.execute("INSERT INTO doc_groups(doc_rowid, group_id) VALUES (?, 1)", (doc,))
        conn.executemany(
            "INSERT INTO chunks(chunk_id, doc_rowid, ordinal, text, heading_path, start_char, "
            "end_char, token_count, kind, embed_hash) VALUES (?, ?, ?, ?, '[]', 0, 0, 120, "
            "'text', '')", [(f"c{doc}-{i}", doc, i, " ".join(rng.choices(words, k=120)))
                            for i in range(10)])
        conn.execute(FTS_ROWS_TEMPLATE.format(fts="chunks_fts"), (doc,))
    conn.execute("COMMIT")
    return conn


def measure(path: Path, chunks: int) -> tuple[float, int, int]:
    """(restore seconds, N before, N after) once 11 % of the documents were written again."""
    conn = build(path, chunks)
    conn.execute("BEGIN")
    for doc in range(1, chunks // 10 // 9 + 2):  # a re-ingest: delete the rows, insert them
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN "
                     "(SELECT id FROM chunks WHERE doc_rowid = ?)", (doc,))
        conn.execute(FTS_ROWS_TEMPLATE.format(fts="chunks_fts"), (doc,))
    conn.execute("COMMIT")
    before = counted_rows(conn, "chunks_fts")
    start = time.perf_counter()
    conn.execute("BEGIN")
    assert restore_statistics(conn, "chunks_fts")
    conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    after = counted_rows(conn, "chunks_fts")
    conn.close()
    return seconds, before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--dir", default=None, help="folder for the scratch files")
    args = parser.parse_args()
    for n in args.chunks:
        with tempfile.TemporaryDirectory(dir=args.dir) as folder:
            seconds, before, after = measure(Path(folder) / "stats.db", n)
        print(f"{n:>7} chunks: restore {seconds:6.3f} s (row count {before} -> {after})")


if __name__ == "__main__":
    main()
