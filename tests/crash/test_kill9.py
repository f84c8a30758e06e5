"""``kill -9`` at random moments during ingest, delete, ACL changes and reindex leaves an index
that keeps every promise (issue 10): see :mod:`citewise.testing.crash` for the workload and
the checks. ``benchmarks/crash.py --kills 100`` runs more kills."""

from __future__ import annotations

from citewise.index.sqlite.migrations import connect
from citewise.testing.crash import Journal, _engine, check_index, run_kills, token

KILLS = 10


def test_kill_9_during_writes_leaves_a_consistent_index(tmp_path):
    report = run_kills(tmp_path / "index.db", tmp_path, kills=KILLS, seed=10, max_delay_s=1.0)
    assert report.kills == KILLS
    assert report.inconsistencies == []
    assert sum(report.ops.values()) > 0, "the workload made progress between kills"
    assert report.shadows_left == 0


def test_the_checks_find_broken_promises(tmp_path):
    """The checker is not vacuous: each kind of damage it looks for is reported."""
    home, docs = tmp_path / "index.db", tmp_path / "docs"
    docs.mkdir()
    for name in ("a1.md", "b2.md"):
        (docs / name).write_text(f"# {name}\n\n{token(name)} travel policy words.\n")
    with _engine(home) as engine:
        engine.ingest_paths([docs], {"groups": ["staff"]})
    journal = Journal(tmp_path / "journal.jsonl")
    journal.write(op="ingest", phase="done", docs=["a1.md", "b2.md", "c3.md"])
    journal.write(op="delete", phase="done", doc="a1.md")  # but it is still there
    journal.write(op="acl", phase="done", doc="b2.md")     # but staff still reads it
    conn = connect(home)
    conn.execute("DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks)")
    conn.close()
    problems = "\n".join(check_index(home, journal))
    assert "committed c3.md is missing" in problems
    assert "deleted a1.md retrievable" in problems
    assert "hr-only b2.md retrievable" in problems
    assert "FTS rows" in problems
