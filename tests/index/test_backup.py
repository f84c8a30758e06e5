"""``citewise backup``: a consistent copy of a live SQLite index, every version but shadows,
that is an index of its own and never writes over a file."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.index import gate, open_store
from citewise.index.sqlite.backup import backup
from citewise.index.sqlite.catalog import SQLiteCatalog
from citewise.indexing import Pending
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.versions import (
    A_DOCS,
    B_DOCS,
    answering_docs,
    fill_two_versions,
    fill_version,
)
from citewise.types import Block, ParsedDocument

SETTINGS = Settings.model_validate({"chunk": {"chunk_tokens": 64, "min_tokens": 0}})


def _pending(doc_id: str, text: str) -> Pending:
    parsed = ParsedDocument(title=doc_id.title(), text=text,
                            blocks=(Block(kind="text", text=text, start=0, end=len(text)),),
                            metadata={"groups": ["staff"], "tenant": "acme"})
    return Pending(doc_id, doc_id, lambda: parsed)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Version 1 (A_DOCS) retired, version 2 (B_DOCS) live, version 3 a shadow."""
    path = tmp_path / "index.db"
    with SQLiteCatalog(path) as catalog:
        fill_two_versions(catalog).promote(2)
        fill_version(catalog, catalog.create().number,
                     FakeEmbedder(dim=48, model_id="fake-b-48"), B_DOCS[:1])
    return path


def assert_refused_beside(home: Path, tmp_path: Path, taken: str) -> None:
    """A backup to ``copy.db`` in a folder holding the file ``taken`` is refused, and the
    file is as it was."""
    folder = tmp_path / taken.replace(".", "_")
    folder.mkdir()
    (folder / taken).write_text("keep me")
    with pytest.raises(ConfigError, match="never writes over a file"):
        backup(str(home), str(folder / "copy.db"))
    assert (folder / taken).read_text() == "keep me"


def test_copies_every_version_but_shadows(home: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy.db"
    copied = backup(str(home), str(dest))
    assert [(c.number, c.state) for c in copied] == [(1, "retired"), (2, "live")]
    assert not os.path.exists(f"{dest}.v3")
    with SQLiteCatalog(dest) as catalog:
        assert {v.number: v.state for v in catalog.versions()} == {1: "retired", 2: "live"}
    with open_store(dest) as live:
        assert answering_docs(live) == set(B_DOCS)
    with open_store(f"{dest}.v2") as v2, SQLiteCatalog(dest) as catalog, \
            catalog.open(1) as v1:
        assert answering_docs(v1) == set(A_DOCS) and answering_docs(v2) == set(B_DOCS)
    for path in (dest, Path(f"{dest}.v2")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with SQLiteCatalog(home) as catalog:  # the source is as it was
        assert {v.number: v.state for v in catalog.versions()} == \
            {1: "retired", 2: "live", 3: "shadow"}


def test_never_writes_over_a_file(home: Path, tmp_path: Path) -> None:
    for taken in ("copy.db", "copy.db.v2", "copy.db-wal"):
        assert_refused_beside(home, tmp_path, taken)
    with pytest.raises(ConfigError, match="does not exist"):
        backup(str(home), str(tmp_path / "missing" / "copy.db"))
    with pytest.raises(ConfigError, match="no index"):
        backup(str(tmp_path / "none.db"), str(tmp_path / "copy.db"))


def test_holds_what_is_still_in_the_wal_and_no_deleted_document(tmp_path: Path) -> None:
    """A ``cp`` of the ``.db`` lost a commit still in the WAL (an operator's trial); a
    document deleted before the backup is in no version of the copy."""
    path, embedder = tmp_path / "index.db", FakeEmbedder(dim=32)
    with Engine(path, SETTINGS, embedder) as engine:
        engine.ingest([_pending(d, f"travel expenses of {d}.") for d in ("a1", "a2")])
    with SQLiteCatalog(path) as catalog:
        shadow = catalog.create()
        with Engine(shadow.location, SETTINGS, embedder,
                    store=catalog.open(shadow.number)) as engine:
            engine.ingest([_pending(d, f"travel expenses of {d}.") for d in ("a1", "a2")])
        catalog.promote(shadow.number)
    with Engine(path, SETTINGS, embedder) as engine:  # open: its last commit is in the WAL
        engine.delete(["a2"])  # (a delete moves the WAL into the file; an ingest does not)
        engine.ingest([_pending("late", "travel to the office.")])
        assert os.path.getsize(f"{path}.v2-wal") > 0
        backup(str(path), str(tmp_path / "copy.db"))
    with SQLiteCatalog(tmp_path / "copy.db") as catalog:
        for number in (1, 2):
            with catalog.open(number) as store:
                ids = {d.doc_id for d in store.list_documents()}
                assert "a2" not in ids and ("late" in ids) == (number == 2)


def test_waits_for_the_write_gate(home: Path, tmp_path: Path) -> None:
    """No write or promotion lands between two of the copied files."""
    done = threading.Event()
    with gate.file_gate(str(home)):
        worker = threading.Thread(target=lambda: (backup(str(home), str(tmp_path / "c.db")),
                                                  done.set()))
        # another thread of this process waits as another process would
        worker.start()
        time.sleep(0.3)
        assert not done.is_set()
    worker.join(10)
    assert done.is_set()


def test_cli_backup_and_restore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.md").write_text("# Leave\n\nStaff get 30 days of annual leave.\n")
    runner = CliRunner()
    ingest = runner.invoke(cli, ["ingest", "a.md", "--db", "i.db", "--groups", "staff",
                                 "--tenant", "acme", "--no-progress"])
    assert ingest.exit_code == 0, ingest.output
    made = runner.invoke(cli, ["backup", "b.db", "--db", "i.db"])
    assert made.exit_code == 0, made.output
    assert "(v1 live): 1 file(s)" in made.output and "citewise status --db" in made.output
    again = runner.invoke(cli, ["backup", "b.db", "--db", "i.db"])
    assert again.exit_code != 0 and "never writes over a file" in again.output
    for name in os.listdir("."):
        if name.startswith("i.db"):
            os.remove(name)
    restored = runner.invoke(cli, ["backup", "i.db", "--db", "b.db", "--json"])
    assert restored.exit_code == 0, restored.output
    found = runner.invoke(cli, ["search", "annual leave", "--db", "i.db", "--groups",
                                "staff", "--tenant", "acme"])
    assert found.exit_code == 0 and "a.md" in found.output
    status = runner.invoke(cli, ["status", "--db", "i.db"])
    assert "index: i.db (version 1 live)" in status.output
    pg = runner.invoke(cli, ["backup", "x.db", "--db", "postgresql://u@localhost/db"])
    assert pg.exit_code != 0 and "pg_dump" in pg.output


def test_a_shadows_name_at_the_destination_is_refused_not_removed(home: Path,
                                                                   tmp_path: Path) -> None:
    """A review: the copy drops the shadow rows it lists, which removed files named
    ``DEST.v3`` (and a ``DEST-journal`` SQLite found) that were no backup's."""
    for taken in ("copy.db.v3", "copy.db.v3-wal", "copy.db-journal"):
        assert_refused_beside(home, tmp_path, taken)
    with pytest.raises(ConfigError, match="version 2 of the index"):
        backup(f"{home}.v2", str(tmp_path / "v2copy.db"))


def test_a_name_planted_during_the_copy_receives_nothing(home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A review: a local user watching a shared folder made ``DEST.v2`` a symlink once
    ``DEST`` appeared and received a world-readable copy of the index (or had the backup
    written over another index). The files are built in a private folder and linked into
    place, a link never replacing a name: the backup fails, nothing goes through the link."""
    from citewise.index.sqlite import backup as module

    folder = tmp_path / "shared"
    folder.mkdir()
    loot, dest = tmp_path / "loot.db", folder / "nightly.db"
    real_copy = module._copy

    def copy_then_plant(path: str, to: str, number: int, state: str):
        made = real_copy(path, to, number, state)
        assert Path(to).parent != folder  # built out of the shared folder's sight
        if number == 1:
            os.symlink(loot, f"{dest}.v2")
        return made

    monkeypatch.setattr(module, "_copy", copy_then_plant)
    with pytest.raises(ConfigError, match="appeared while the backup was made"):
        backup(str(home), str(dest))
    assert not loot.exists()
    assert sorted(os.listdir(folder)) == ["nightly.db.v2"]  # the planted link alone


def test_the_copy_is_its_files_and_a_planted_lock_is_refused_at_once(home: Path,
                                                                     tmp_path: Path) -> None:
    """Nothing of the private build folder is left; a ``DEST.lock`` someone planted (it held
    a review's backup 124 s, blamed on "another writer") is refused before any copy."""
    backup(str(home), str(tmp_path / "copy.db"))
    assert sorted(n for n in os.listdir(tmp_path) if not n.startswith("index.db")) == \
        ["copy.db", "copy.db.lock", "copy.db.v2"]
    for taken in ("copy.db.lock",):
        assert_refused_beside(home, tmp_path, taken)


def test_a_folder_other_users_may_write_or_own_is_refused(home: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A security review planted ``copy.db-wal`` in a sticky 1777 folder after the backup
    (a new name: the sticky bit does not stop it), and the ``citewise status`` the backup
    suggests replayed the planted index into the copy; a folder the attacker owned (0755)
    passed too, and they swapped the copy. Only folders no other user may write or own
    (and none above it they could rename) take a backup."""
    from citewise.index.sqlite import backup as module

    folder = tmp_path / "open"
    folder.mkdir()
    for mode in (0o777, 0o1777):
        folder.chmod(mode)
        with pytest.raises(ConfigError, match="may be written by any user"):
            backup(str(home), str(folder / "copy.db"))
        assert os.listdir(folder) == []
    folder.chmod(0o770)
    monkeypatch.setattr(module, "_shared_group", lambda gid: True)
    with pytest.raises(ConfigError, match="other users of its group"):
        backup(str(home), str(folder / "copy.db"))
    monkeypatch.setattr(module, "_shared_group", lambda gid: False)  # a private group
    assert [c.number for c in backup(str(home), str(folder / "copy.db"))] == [1, 2]
    inner = tmp_path / "above" / "inner"
    inner.mkdir(parents=True)
    inner.parent.chmod(0o777)  # a folder above it anyone may rename things in
    with pytest.raises(ConfigError, match="above|may be written by any user"):
        backup(str(home), str(inner / "copy.db"))
    inner.parent.chmod(0o1777)  # /tmp's way: others cannot rename what is ours
    assert [c.number for c in backup(str(home), str(inner / "copy.db"))] == [1, 2]
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o755)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(ConfigError, match="belongs to another user"):
            backup(str(home), str(theirs / "copy.db"))


def _acl(*entries: tuple[int, int, int]) -> bytes:
    import struct

    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, who)
                                           for tag, perm, who in entries)


def test_a_folder_another_user_may_write_through_its_acl_is_refused(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A security review: ``mkdir -m 700 bk; setfacl -m u:4242:rwx bk`` showed as
    ``drwxrwx---+`` of group root (no other member, so its write bit counted for no one),
    the backup was taken, and user 4242 swapped the copy and planted ``copy.db-wal``."""
    from citewise.index.sqlite import backup as module

    me, other = os.geteuid(), os.geteuid() + 4242
    base = [(0x01, 7, 0xFFFFFFFF), (0x04, 0, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
    named = _acl(*base, (0x02, 7, other), (0x10, 7, 0xFFFFFFFF))
    assert module.acl_writers(named, me, lambda gid: False)
    assert not module.acl_writers(_acl(*base, (0x02, 7, other), (0x10, 5, 0xFFFFFFFF)),
                                  me, lambda gid: False)  # the mask takes write away
    assert not module.acl_writers(_acl(*base, (0x02, 7, me), (0x10, 7, 0xFFFFFFFF)),
                                  me, lambda gid: False)  # only this user
    group = _acl(*base, (0x08, 7, 1234), (0x10, 7, 0xFFFFFFFF))
    assert module.acl_writers(group, me, lambda gid: True)
    assert not module.acl_writers(group, me, lambda gid: False)  # a private group
    folder = tmp_path / "bk"
    folder.mkdir(mode=0o700)
    real = os.getxattr

    def getxattr(path, name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if Path(path) == folder and name == "system.posix_acl_access":
            return named
        return real(path, name, *args, **kwargs)

    monkeypatch.setattr(os, "getxattr", getxattr)
    with pytest.raises(ConfigError, match="another user named in its access list"):
        backup(str(home), str(folder / "copy.db"))
    assert os.listdir(folder) == []
    monkeypatch.undo()
    assert [c.number for c in backup(str(home), str(folder / "copy.db"))] == [1, 2]


def test_a_filesystem_without_hard_links_still_gets_its_backup(home: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """The review of this stop: a USB drive's FAT (``link`` fails EPERM) was refused, a FUSE
    filesystem's ENOSYS printed a traceback. Files are moved in by name there."""
    import errno

    def no_links(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "link", no_links)
    copied = backup(str(home), str(tmp_path / "usb.db"))
    assert [c.number for c in copied] == [1, 2]
    with open_store(tmp_path / "usb.db") as live:
        assert answering_docs(live) == set(B_DOCS)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".citewise-backup-")]


def test_a_link_in_the_path_is_resolved_once_and_written_through(home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """The review of this stop: the folder was judged through its resolved path but written
    through the link, which another user re-pointed after the check, so the copy landed in
    their open folder."""
    from citewise.index.sqlite import backup as module

    safe, other = tmp_path / "safe", tmp_path / "other"
    safe.mkdir(mode=0o700)
    other.mkdir()
    link = tmp_path / "link"
    link.symlink_to(safe)
    judged = module._refuse_open_folder

    def repoint(folder: str) -> None:
        judged(folder)
        link.unlink()
        link.symlink_to(other)  # the race, won every time

    monkeypatch.setattr(module, "_refuse_open_folder", repoint)
    copied = backup(str(home), str(link / "copy.db"))
    assert os.listdir(other) == []
    assert "copy.db" in os.listdir(safe) and copied[0].path.startswith(str(safe))


def test_a_tampered_backup_is_not_restored(home: Path, tmp_path: Path) -> None:
    """A security review restored a backup whose triggers re-added a group after every ACL
    change and ignored every delete (both reported done), and one whose ``.v2`` was a
    symlink to another index (its text searchable in the restored index)."""
    import sqlite3

    bk = tmp_path / "bk" / "bk.db"
    bk.parent.mkdir(mode=0o700)
    backup(str(home), str(bk))
    conn = sqlite3.connect(bk)
    conn.execute("CREATE TRIGGER keep_docs BEFORE DELETE ON documents BEGIN "
                 "SELECT RAISE(IGNORE); END")
    conn.commit()
    conn.close()
    restored = tmp_path / "r1"
    restored.mkdir(mode=0o700)
    with pytest.raises(ConfigError, match="trigger keep_docs"):
        backup(str(bk), str(restored / "idx.db"))
    assert not any(restored.iterdir())  # nothing left behind
    conn = sqlite3.connect(bk)
    conn.execute("DROP TRIGGER keep_docs")
    conn.commit()
    conn.close()
    other = tmp_path / "other.db"
    os.replace(f"{bk}.v2", other)
    os.symlink(other, f"{bk}.v2")
    with pytest.raises(ConfigError, match="is a symlink"):
        backup(str(bk), str(restored / "idx.db"))
    assert not any(restored.iterdir())


def test_a_backup_whose_lock_cannot_be_written_is_one_line(home: Path, tmp_path: Path,
                                                           monkeypatch) -> None:
    """A security review restored from a read-only snapshot: taking the backup's write lock
    was an ``OSError`` traceback."""
    import errno

    def read_only(self, timeout=None):  # noqa: ANN001, ANN202
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(SQLiteCatalog, "gate", read_only)
    with pytest.raises(ConfigError, match="copy the backup's files"):
        backup(str(home), str(tmp_path / "copy.db"))
    assert not (tmp_path / "copy.db").exists()
