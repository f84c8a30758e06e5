"""What purging removed text costs: one delete's FTS5 rewrite at several index sizes.

A delete (or a re-ingest that replaces documents) is followed by
:func:`citewise.index.sqlite.cleanup.purge_fts` ("optimize" on the FTS5 table, so the deleted
rows' words leave the file) and :func:`citewise.index.sqlite.database.checkpoint` (the WAL
into the file). This prints the seconds of each for a table of the index's own shape
(:data:`~citewise.index.sqlite.tenancy.FTS_COLUMNS`) filled with ``--chunks`` synthetic
chunks of 120 words drawn from a 30,000-word vocabulary, after deleting 20 rows::

    .venv/bin/python benchmarks/purge.py [--chunks 2000 20000 100000] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from citewise.index.sqlite.cleanup import purge_fts
from citewise.index.sqlite.database import checkpoint
from citewise.index.sqlite.migrations import connect
from citewise.index.sqlite.tenancy import FTS_COLUMNS


def measure(path: Path, chunks: int, seed: int = 0) -> tuple[float, float]:
    """(purge seconds, checkpoint seconds) after deleting 20 of ``chunks`` rows."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(30_000)]
    conn = connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE chunks_fts USING fts5({FTS_COLUMNS})")
    conn.execute("BEGIN")
    for i in range(1, chunks + 1):
        conn.execute("INSERT INTO chunks_fts(rowid, title, body, acl, tenant) "
                     "VALUES (?, ?, ?, 'g1 g2', 't1')",
                     (i, " ".join(rng.choices(words, k=5)), " ".join(rng.choices(words, k=120))))
        if i % 1024 == 0:  # ingest's batches
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    conn.execute("DELETE FROM chunks_fts WHERE rowid BETWEEN 500 AND 519")
    start = time.perf_counter()
    purge_fts(conn, {"chunks_fts"})
    purged = time.perf_counter() - start
    start = time.perf_counter()
    checkpoint(conn)
    settled = time.perf_counter() - start
    conn.close()
    return purged, settled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--dir", default=None, help="folder for the scratch files")
    args = parser.parse_args()
    for n in args.chunks:
        with tempfile.TemporaryDirectory(dir=args.dir) as folder:
            purged, settled = measure(Path(folder) / "purge.db", n)
        print(f"{n:>7} chunks: purge (optimize) {purged:6.3f} s, checkpoint {settled:6.3f} s")


if __name__ == "__main__":
    main()
