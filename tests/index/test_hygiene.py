"""Data hygiene (issue 10, item 8): index, WAL, version files and eval outputs are owner-only;
deleted text does not stay in free pages, FTS segments, or versions nobody can use
(``citewise versions --gc``; abandoned shadows also go at the next reindex)."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.record import EvalRun
from citewise.eval.runs import write_qrels, write_trec_run
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.catalog import SQLiteCatalog
from citewise.indexing import index_documents
from citewise.private import open_private, write_private_text
from citewise.reindex import reindex
from citewise.reqlog import open_log
from citewise.reqlog.record import LogRecord
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.versions import B_DOCS, fill

CANARY = "zebracanary4711"


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: str | Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def engine(path: Path) -> Engine:
    return Engine(path, Settings(), FakeEmbedder())


def ingest(path: Path, tmp_path: Path, names: tuple[str, ...] = ("a", "b", "secret")) -> None:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name in names:
        words = f"{CANARY} the vault code" if name == "secret" else f"travel policy {name}"
        (docs / f"{name}.md").write_text(f"# {name}\n\nSome text about {words}.\n")
    with engine(path) as e:
        e.ingest_paths([docs], {"groups": ["staff"]})


def holds(path: str | Path, text: str) -> bool:
    return any(os.path.exists(f"{path}{s}") and text.encode() in Path(f"{path}{s}").read_bytes()
               for s in ("", "-wal"))


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_index_wal_and_version_files_are_owner_only(tmp_path, mask):
    home = tmp_path / "index.db"
    with umask(mask):
        store = SQLiteStore(home)
        fill(store, FakeEmbedder(dim=32, model_id="fake-a-32"), ["travel-a"])
        try:  # the WAL files exist while the connection is open
            for suffix in ("", "-wal", "-shm"):
                assert mode(f"{home}{suffix}") == 0o600, suffix
        finally:
            store.close()
        with SQLiteCatalog(home) as catalog:
            shadow = catalog.create()
            with catalog.open(shadow.number) as version:
                fill(version, FakeEmbedder(dim=32, model_id="fake-a-32"), ["travel-b"])
            assert mode(shadow.location) == 0o600


def test_umask_stricter_than_0600_is_respected(tmp_path):
    with umask(0o277):
        write_private_text(tmp_path / "out.json", "{}")
    assert mode(tmp_path / "out.json") == 0o400


def test_eval_outputs_are_owner_only(tmp_path):
    with umask(0o022):
        EvalRun(records=[]).save(tmp_path / "run.json")
        write_trec_run(tmp_path / "run.trec", {"q1": [("d1", 1.0)]})
        write_qrels(tmp_path / "qrels.trec", {"q1": {"d1": 1}})
        wide = tmp_path / "report.html"
        wide.write_text("old")
        wide.chmod(0o644)
        with open_private(wide) as fh:  # an existing, wider file is narrowed
            fh.write("new")
    for name in ("run.json", "run.trec", "qrels.trec", "report.html"):
        assert mode(tmp_path / name) == 0o600, name


def test_an_output_is_not_written_through_a_symlink_nor_into_another_users_file(
        tmp_path, monkeypatch):
    """A security review: an empty file planted in a shared folder kept its planter as owner
    when `citewise log export --out` wrote every tenant's questions into it (narrowed to
    0600, still theirs to read); a planted symlink made the export overwrite any file."""
    from citewise.errors import ConfigError

    target = tmp_path / "victim.txt"
    target.write_text("precious")
    (tmp_path / "link.jsonl").symlink_to(target)
    with pytest.raises(ConfigError, match="symbolic link; not written through"):
        open_private(tmp_path / "link.jsonl")
    assert target.read_text() == "precious"
    planted = tmp_path / "requests.jsonl"
    planted.write_text("planted")
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)  # as if another user's
    with pytest.raises(ConfigError, match="belongs to another user"):
        open_private(planted)
    assert planted.read_text() == "planted"  # not truncated either
    monkeypatch.undo()
    with open_private(planted) as fh:  # the user's own file is written as before
        fh.write("mine")
    assert planted.read_text() == "mine"
    narrowed: list[int] = []  # a device is written as it is: a review's root run of the
    monkeypatch.setattr(os, "fchmod", lambda fd, mode: narrowed.append(mode))  # first
    (tmp_path / "stdout").symlink_to(os.devnull)  # version set /dev/null to 0600 for all
    for path in (os.devnull, tmp_path / "stdout"):  # (and refused /dev/stdout, a link)
        with open_private(path) as fh:
            fh.write("x")
    assert narrowed == []
    lock = tmp_path / "keys.json.lock"  # a lock file holds nothing: another user's is used
    lock.write_text("")
    lock.chmod(0o600)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)
    with open_private(lock, own=False):
        pass


def test_an_output_is_not_written_into_another_users_pipe_nor_a_pipe_no_one_reads(
        tmp_path, monkeypatch):
    """A security review: another user's ``mkfifo`` at a shared ``--out`` path, read by them,
    received a whole request-log export (only regular files had their owner checked); a
    planted ``keys.json.lock`` pipe hung ``keys add``. The user's own pipe (``--out
    >(gzip > x)``) is written as before. (The reader end is opened here without waiting,
    not by a thread: a thread's timing failed the test on a loaded machine.)"""
    from citewise.errors import ConfigError

    pipe = tmp_path / "requests.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(ConfigError, match="a pipe no one reads"):
        open_private(pipe, own=False)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with open_private(pipe) as fh:
            fh.write("mine\n")
        assert os.read(reader, 100) == b"mine\n"
        monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)  # as if another user's
        with pytest.raises(ConfigError, match="another user made"):
            open_private(pipe)
    finally:
        os.close(reader)


def test_secure_delete_is_on_and_purge_leaves_no_deleted_text(tmp_path):
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    with SQLiteStore(home) as store, store._reading() as conn:
        assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    with engine(home) as e:
        assert e.delete(["secret.md"]) == 1
    result = CliRunner().invoke(cli, ["versions", "--gc", "--db", str(home)])
    assert result.exit_code == 0, result.output
    assert not holds(home, CANARY)
    with engine(home) as e:  # the rest is intact
        assert e.store.count().documents == 2


def only_file_holds(path: Path, text: str) -> bool:
    """Whether the ``.db`` file alone holds ``text``: what a copy of it (a backup taken while
    a server held the index open) would give."""
    return text.encode() in Path(path).read_bytes()


def test_a_delete_leaves_no_text_in_the_file_or_wal_without_gc(tmp_path):
    """A security review read a deleted document back from a copy of the file: its words,
    positions and groups stayed in FTS5's segments (the table only marks deleted rows), and
    while a server held the index open the delete lived in the WAL alone, so the ``.db`` file
    still had the document whole."""
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    with engine(home) as server:  # another connection, open and reading, as a server's is
        assert server.store.count().documents == 3
        with engine(home) as e:
            assert e.delete(["secret.md"]) == 1
        assert not holds(home, CANARY)
        assert not only_file_holds(home, CANARY)
        assert server.store.count().documents == 2


def test_a_redacted_document_and_purged_questions_leave_no_text_behind(tmp_path):
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    (tmp_path / "docs" / "secret.md").write_text("# secret\n\nSome text, [redacted].\n")
    with engine(home) as e:
        report = e.ingest_paths([tmp_path / "docs"], {"groups": ["staff"]})
        assert report.count("changed") == 1
    assert not holds(home, CANARY)
    log = open_log(home)
    log.write(LogRecord("r1", time.time() - 3 * 86400, "ada", "acme", "ask",
                        "where is the quokkaquestion vault", "h"))
    assert log.purge(1.0) == 1
    assert not holds(home, "quokkaquestion")


def test_a_failed_purge_never_undoes_the_delete(tmp_path, monkeypatch, caplog):
    """A review's nearly full disk: the purge ran inside the delete's transaction, failed
    with "database or disk is full", and took the delete (and ACL narrowings) back with it."""
    from citewise.index.sqlite import cleanup

    home = tmp_path / "index.db"
    ingest(home, tmp_path)

    def full(conn, tables=None):
        raise RuntimeError("database or disk is full")
    monkeypatch.setattr(cleanup, "purge_fts", full)
    with engine(home) as e:
        assert e.delete(["secret.md"]) == 1
        assert e.store.get_document("secret.md") is None
    assert "could not purge removed text" in caplog.text


def test_an_ingest_purges_once_however_many_batches_replace_documents(tmp_path, monkeypatch):
    """Each batch that replaced documents rewrote the whole full-text index (a review: 640
    changed documents of an 18,000-chunk index took 18.4 s instead of 12.0)."""
    from citewise.index.sqlite import cleanup

    home = tmp_path / "index.db"
    names = tuple(f"n{i}" for i in range(6))
    ingest(home, tmp_path, names)
    for name in names:
        (tmp_path / "docs" / f"{name}.md").write_text(f"# {name}\n\nRewritten {name}.\n")
    calls: list[object] = []
    real = cleanup.purge_fts
    monkeypatch.setattr(cleanup, "purge_fts", lambda conn, tables=None: (
        calls.append(tables), real(conn, tables)))
    monkeypatch.setitem(index_documents.__kwdefaults__, "batch_docs", 2)  # three batches
    with engine(home) as e:
        report = e.ingest_paths([tmp_path / "docs"], {"groups": ["staff"]})
    assert report.count("changed") == 6
    assert calls == [{"chunks_fts"}], calls
    assert not holds(home, "travel policy n3")  # the old text went all the same


def test_versions_gc_removes_refused_and_on_request_retired(tmp_path):
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, Settings(), None, embedder=FakeEmbedder(), force=True)
        assert report.promoted and report.version == 2                 # 1 retired, 2 live
        refused = catalog.create(note="trial")
        with catalog.open(refused.number) as store:
            fill(store, FakeEmbedder(dim=48, model_id="fake-b-48"), B_DOCS)
        catalog.set_state(refused.number, "refused", note="worse")
    with engine(home) as e:
        e.delete(["secret.md"])                                # reaches live v2 and retired v1
    with SQLiteCatalog(home) as catalog, catalog.open(1) as retired:
        assert retired.get_document("secret.md") is None       # v1 opened directly: gone

    out = CliRunner().invoke(cli, ["versions", "--gc", "--db", str(home)])
    assert out.exit_code == 0 and "removed version 3 (refused)" in out.output, out.output
    assert not os.path.exists(f"{home}.v3")
    assert not holds(home, CANARY)                             # v1 kept, its leftovers purged
    with SQLiteCatalog(home) as catalog:
        assert [v.number for v in catalog.versions()] == [1, 2]  # retired kept by default

    out = CliRunner().invoke(cli, ["versions", "--gc", "--retired", "--db", str(home)])
    assert out.exit_code == 0 and "removed version 1 (retired)" in out.output, out.output
    assert not holds(home, CANARY) and not holds(f"{home}.v2", CANARY)
    with SQLiteCatalog(home) as catalog:
        assert [(v.number, v.state) for v in catalog.versions()] == [(2, "live")]
    with engine(home) as e:
        assert e.store.count().documents == 2
        assert e.search("travel policy", _staff()).hits


def test_retired_without_gc_is_a_usage_error(tmp_path):
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    out = CliRunner().invoke(cli, ["versions", "--retired", "--db", str(home)])
    assert out.exit_code == 2 and "--gc" in out.output


def test_next_reindex_removes_an_abandoned_shadow(tmp_path):
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    with SQLiteCatalog(home) as catalog:
        dead = catalog.create(note="building from version 1")           # its builder died
        with catalog.open(dead.number) as store:
            fill(store, FakeEmbedder(dim=48, model_id="fake-b-48"), B_DOCS)
        with catalog._writing() as conn:  # made long ago (past the grace period)
            conn.execute("UPDATE index_versions SET created_at = '2020-01-01T00:00:00+00:00' "
                         "WHERE number = ?", (dead.number,))
        report = reindex(catalog, Settings(), None, embedder=FakeEmbedder(), force=True)
        assert report.removed == [dead.number]
        assert not os.path.exists(dead.location)
        assert dead.number not in {v.number for v in catalog.versions()}
        assert report.version == dead.number + 1


def test_versions_says_a_shadow_whose_builder_died_is_abandoned(tmp_path):
    """An operator's trial: after a reindex was killed mid-build, `versions` listed its
    shadow as "building from version 1" until `versions --gc` removed it."""
    home = tmp_path / "index.db"
    ingest(home, tmp_path)
    with SQLiteCatalog(home) as catalog:
        dead = catalog.create(note="building from version 1")
        with catalog._writing() as conn:  # made long ago (past the grace period)
            conn.execute("UPDATE index_versions SET created_at = '2020-01-01T00:00:00+00:00' "
                         "WHERE number = ?", (dead.number,))
    out = CliRunner().invoke(cli, ["versions", "--db", str(home)])
    assert out.exit_code == 0, out.output
    assert "abandoned (building from version 1: no process builds it now); remove it " \
           "with `citewise versions --gc`" in out.output


def _staff():
    from citewise.types import Principal

    return Principal.of("staff")



def test_log_and_feedback_exports_are_owner_only(tmp_path):
    """A security review: ``log export --out`` and ``feedback export --out`` wrote users'
    questions (an hr member's salary question) world-readable under umask 022."""
    db = str(tmp_path / "index.db")
    open_log(db).write(LogRecord("r1", time.time(), "ada", "acme", "ask",
                                 "salary band of an L4 engineer", "h", (("c1", "pay", 0.5),),
                                 1, declined=True, feedback=-1))
    with umask(0o022):
        for verb in ("log", "feedback"):
            out = tmp_path / f"{verb}.jsonl"
            done = CliRunner().invoke(cli, [verb, "export", "--out", str(out), "--db", db])
            assert done.exit_code == 0, done.output
            assert mode(out) == 0o600, verb
            assert "salary band" in out.read_text(), verb
