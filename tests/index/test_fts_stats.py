"""BM25's statistics follow what the index holds: re-ingests, ACL changes and deletes leave
the scores a fresh index of the same documents gives (:mod:`citewise.index.sqlite.fts_stats`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pysqlite3 import dbapi2 as sqlite3

from citewise.config import Settings
from citewise.engine import Engine
from citewise.index.sqlite.fts_stats import counted_rows
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Principal

STAFF = Principal.of("staff", tenant="acme")
NOTES = {f"note{i}.md": f"# Release {i}\n\nVersion 1.{i} stabilized feature{i}"
         + (" and let else" if i % 4 == 0 else "") + (" with loops" if i % 3 == 0 else "")
         + ".\n" for i in range(12)}


def _engine(path: Path, tenancy: str = "shared") -> Engine:
    return Engine(path, Settings(index={"tenancy": tenancy}), FakeEmbedder())


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def _scores(engine: Engine) -> list[tuple[str, float]]:
    hits = engine.search("let else feature3 loops", STAFF, mode="bm25", top_k=20).hits
    return sorted((h.chunk.doc_id, round(h.score, 9)) for h in hits)  # ties: by rowid


@pytest.mark.parametrize("tenancy", ["shared", "isolated"])
def test_re_ingests_acl_changes_and_deletes_leave_a_fresh_index_s_scores(tmp_path, tenancy):
    """A new user re-ingested Rust's release notes twice, the last time byte for byte the
    original: N read 4,036 for 1,818 chunks and an answer changed. Here ten re-ingests of a
    changed note, ACL changes and a delete; the scores equal a fresh index's."""
    final = _write(tmp_path / "final", {n: t for n, t in NOTES.items() if n != "note11.md"})
    with _engine(tmp_path / "fresh.db", tenancy) as engine:
        engine.ingest_paths([final], {"groups": ["staff"], "tenant": "acme"})
        fresh = _scores(engine)
    docs = _write(tmp_path / "docs", NOTES)
    with _engine(tmp_path / "churned.db", tenancy) as engine:
        engine.ingest_paths([docs], {"groups": ["staff"], "tenant": "acme"})
        for round_ in range(10):
            _write(docs, {"note0.md": NOTES["note0.md"] + f"\nEdit {round_}.\n"})
            engine.ingest_paths([docs], {"groups": ["staff"], "tenant": "acme"})
        _write(docs, {"note0.md": NOTES["note0.md"]})
        engine.ingest_paths([docs], {"groups": ["staff"], "tenant": "acme"})
        for _ in range(3):
            engine.set_acl("note5.md", ["hr"])
            engine.set_acl("note5.md", ["staff"])
        engine.delete(["note11.md"])
        assert _scores(engine) == fresh
    conn = sqlite3.connect(tmp_path / "churned.db")
    table = "chunks_fts" if tenancy == "shared" else "chunks_fts_t1"
    assert counted_rows(conn, table) == conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    conn.close()


def test_acl_changes_alone_keep_the_statistics(tmp_path):
    """An ACL change writes a document's rows again, and purges nothing."""
    docs = _write(tmp_path / "docs", NOTES)
    with _engine(tmp_path / "acl.db") as engine:
        engine.ingest_paths([docs], {"groups": ["staff"], "tenant": "acme"})
        for _ in range(5):
            engine.set_acl("note5.md", ["hr"])
            engine.set_acl("note5.md", ["staff"])
    conn = sqlite3.connect(tmp_path / "acl.db")
    assert counted_rows(conn, "chunks_fts") == \
        conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    conn.close()


def test_an_index_that_drifted_before_is_set_right_by_versions_gc(tmp_path):
    """An index written before this release keeps its inflated counts until its next
    delete or ``citewise versions --gc`` (:func:`purge_deleted`, outside a transaction:
    one statement, so a search never meets an empty or half-written table)."""
    from citewise.index.sqlite.cleanup import purge_deleted
    from citewise.index.sqlite.fts import FTS_ROWS_SQL
    from citewise.index.sqlite.migrations import connect

    docs = _write(tmp_path / "docs", NOTES)
    with _engine(tmp_path / "old.db") as engine:
        engine.ingest_paths([docs], {"groups": ["staff"], "tenant": "acme"})
        fresh = _scores(engine)
    conn = connect(tmp_path / "old.db")
    for doc_rowid in (1, 2, 3):  # what re-ingests did before: rows replaced, still counted
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN "
                     "(SELECT id FROM chunks WHERE doc_rowid = ?)", (doc_rowid,))
        conn.execute(FTS_ROWS_SQL, (doc_rowid,))
    assert counted_rows(conn, "chunks_fts") == 15
    purge_deleted(conn)
    assert counted_rows(conn, "chunks_fts") == 12
    conn.close()
    with _engine(tmp_path / "old.db") as engine:
        assert _scores(engine) == fresh


def test_an_unreadable_or_empty_table_record_is_left_alone():
    """The second review: a damaged averages record raised IndexError in the repair, and a
    record of no rows made every bm25() call read the file as damaged."""
    from citewise.index.sqlite.fts_stats import restore_statistics
    from citewise.index.sqlite.migrations import connect

    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, content='', contentless_delete=1)")
    conn.execute("INSERT INTO t(rowid, a) VALUES (1, 'x y'), (2, 'y z')")
    conn.execute("DELETE FROM t WHERE rowid IN (1, 2)")
    assert restore_statistics(conn, "t") is False  # nothing held: left as FTS5 wrote it
    conn.execute("INSERT INTO t(rowid, a) VALUES (3, 'x y')")
    conn.execute("UPDATE t_data SET block = x'' WHERE id = 1")
    assert counted_rows(conn, "t") == 0
    conn.execute("UPDATE t_data SET block = x'ff' WHERE id = 1")  # a varint never ended
    assert counted_rows(conn, "t") == -1 and restore_statistics(conn, "t") is True
    assert counted_rows(conn, "t") == 1
    assert conn.execute("SELECT rowid FROM t WHERE t MATCH 'x'").fetchall() == [(3,)]

