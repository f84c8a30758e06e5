"""An index's files another user planted are refused, not used (a security review).

In a folder others may write (a team folder, ``/tmp``), a user planted an empty
``citewise.db``: the operator's ingest wrote every tenant's text into the planter's file. A
planted ``-wal`` built from the planter's own index replaced every document of the
operator's index at its next open; a planted ``.lock``, held, stopped every write."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli import ingest as ingest_module
from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import StoreError
from citewise.index.gate import flock_acquire
from citewise.testing.fakes import FakeEmbedder

SECRET = "zebracanary4711 salary bands"


def _theirs(path: Path, monkeypatch) -> None:
    """Make ``path`` another user's: chown'd to nobody when running as root, else as if this
    process ran as another user."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)


def _ingest(tmp_path: Path, db: Path, monkeypatch):
    monkeypatch.setattr(ingest_module, "engine_from", lambda *a, **k: Engine(
        db, Settings(), embedder=FakeEmbedder()))
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "pay.md").write_text(f"# Pay\n\nThe {SECRET} are reviewed in March.\n")
    return CliRunner().invoke(cli, ["ingest", str(docs), "--db", str(db), "--groups", "hr",
                                    "--no-progress"])


def test_a_planted_index_file_is_refused_and_gets_no_text(tmp_path, monkeypatch) -> None:
    db = tmp_path / "citewise.db"
    db.write_bytes(b"")
    db.chmod(0o666)
    _theirs(db, monkeypatch)
    out = _ingest(tmp_path, db, monkeypatch)
    assert out.exit_code != 0
    assert f"index file {db} belongs to another user" in out.output, out.output
    assert "Fix: run citewise as its owner, or remove it" in out.output
    assert db.read_bytes() == b""  # not one page written into the planter's file


@pytest.mark.parametrize("suffix", ["-wal", "-journal"])
def test_a_planted_wal_or_journal_beside_an_index_is_refused_before_it_is_replayed(
        tmp_path, monkeypatch, suffix: str) -> None:
    """SQLite replays either into the index at its next read: a review's planted ``-wal``,
    then ``-journal``, built from the planter's index replaced every document."""
    db = tmp_path / "team.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.store.list_documents() == []
    before = db.read_bytes()
    planted = tmp_path / f"team.db{suffix}"
    planted.write_bytes(b"planted")
    _theirs(planted, monkeypatch)
    with pytest.raises(StoreError, match=f"team.db{suffix} belongs to another user"), \
            Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        engine.store.list_documents()
    assert db.read_bytes() == before and planted.read_bytes() == b"planted"


def test_a_planted_lock_file_is_refused_at_once(tmp_path, monkeypatch) -> None:
    lock = tmp_path / "team.db.lock"
    lock.write_bytes(b"")
    _theirs(lock, monkeypatch)
    with pytest.raises(StoreError, match="lock file .* belongs to another user"):
        flock_acquire(str(lock))(float("inf"))


def test_a_planted_link_as_the_index_creates_nothing_where_it_leads(tmp_path,
                                                                     monkeypatch) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    db = tmp_path / "citewise.db"
    db.symlink_to(theirs / "real.db")  # dangling: SQLite would create the index there
    _theirs(db, monkeypatch)
    out = _ingest(tmp_path, db, monkeypatch)
    assert out.exit_code != 0 and "is a symbolic link of another user" in out.output, \
        out.output
    assert not (theirs / "real.db").exists()


def test_a_planted_link_as_the_lock_is_not_followed(tmp_path) -> None:
    target = tmp_path / "elsewhere"
    lock = tmp_path / "team.db.lock"
    lock.symlink_to(target)
    with pytest.raises(StoreError, match="is a symbolic link"):
        flock_acquire(str(lock))(float("inf"))
    assert not target.exists()


def _as_root_with(home: Path, monkeypatch, safe_above: bool) -> None:
    """Run as root over ``home`` and its files made another user's (nobody's when this test
    runs as root; else this process pretends to be root over its own files); the folders
    above ``home`` look written by root alone when ``safe_above`` (pytest's live in /tmp)."""
    if os.geteuid() == 0:
        for path in (home, *home.iterdir()):
            os.chown(path, 65534, 65534)
    else:
        monkeypatch.setattr(os, "geteuid", lambda: 0)
    real = os.stat

    def stat(path, *args, **kwargs):
        info = real(path, *args, **kwargs)
        if safe_above and str(home).startswith(f"{os.path.abspath(path).rstrip('/')}/"):
            fields = list(info)
            fields[0], fields[4] = info.st_mode & ~0o022, 0  # root's, written by it alone
            return os.stat_result(fields)
        return info
    monkeypatch.setattr(os, "stat", stat)


def test_root_uses_a_service_users_index_in_a_folder_only_they_write(tmp_path,
                                                                     monkeypatch) -> None:
    """Root serving or backing up a service user's index (``/srv/citewise``, the user's
    own folder under folders only root writes)."""
    home = tmp_path / "service"
    home.mkdir(mode=0o700)
    db = home / "index.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.store.list_documents() == []
    _as_root_with(home, monkeypatch, safe_above=True)
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.store.list_documents() == []


def test_root_refuses_an_index_in_a_folder_its_planter_made_in_a_shared_one(
        tmp_path, monkeypatch) -> None:
    """A review: ``nobody`` made a folder of their own in /tmp and an index in it, 0666;
    root's ingest wrote a tenant's text into it."""
    home = tmp_path / "team"
    home.mkdir(mode=0o755)
    db = home / "index.db"
    db.write_bytes(b"")
    db.chmod(0o666)
    _as_root_with(home, monkeypatch, safe_above=False)  # /tmp above: anyone writes it
    with pytest.raises(StoreError, match="belongs to another user"), \
            Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        engine.store.list_documents()
    assert db.read_bytes() == b""


def test_the_owners_own_files_and_roots_are_used(tmp_path, monkeypatch) -> None:
    db = tmp_path / "mine.db"
    assert _ingest(tmp_path, db, monkeypatch).exit_code == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
    conn.close()
