"""Index versions on SQLite: the shared catalog conformance suite plus the file layout, the
live lookup of ``open_store`` and indexes made before the catalog existed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError, StoreError, VersionError
from citewise.index import open_store
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.catalog import SQLiteCatalog, live_path, version_path
from citewise.index.versions import describe_version, open_catalog, rollback_target
from citewise.indexing import Pending
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.versions import (
    A_DOCS,
    B_DOCS,
    READER,
    VersionCatalogConformanceTests,
    answering_docs,
    fill,
    fill_two_versions,
)
from citewise.types import Block, IndexVersion, ParsedDocument


class TestSQLiteCatalog(VersionCatalogConformanceTests):
    @pytest.fixture
    def catalog(self, tmp_path: Path):
        with SQLiteCatalog(tmp_path / "index.db") as c:
            yield c

    def open_live(self, catalog):
        return open_store(catalog.path)

    def reopen(self, catalog):
        return SQLiteCatalog(catalog.path)

    def open_location(self, catalog, number):
        return open_store(version_path(catalog.path, number))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An index at ``home`` (version 1: A_DOCS) with a built shadow version 2 (B_DOCS)."""
    path = tmp_path / "index.db"
    with SQLiteCatalog(path) as catalog:
        fill_two_versions(catalog)
    return path


def test_version_files_are_siblings_of_the_home(home: Path) -> None:
    with SQLiteCatalog(home) as catalog:
        assert [v.location for v in catalog.versions()] == [str(home), f"{home}.v2"]
    assert version_path(home, 1) == str(home) and version_path("x.db", 7) == "x.db.v7"
    assert Path(f"{home}.v2").is_file()


def test_open_store_opens_the_live_version(home: Path) -> None:
    assert live_path(home) == str(home)
    with SQLiteCatalog(home) as catalog:
        catalog.promote(2)
    assert live_path(home) == f"{home}.v2"
    for target in (str(home), home, f"sqlite:///{home}"):
        with open_store(target) as store:
            assert store.path == f"{home}.v2"  # type: ignore[attr-defined]
            assert store.version_number == 2  # type: ignore[attr-defined]
            assert answering_docs(store) == set(B_DOCS)
    with Engine(home, embedder=FakeEmbedder(dim=48, model_id="fake-b-48")) as engine:
        assert engine.index_info().version == 2
        assert engine.status().version == 2  # an operator's trial: status never said which
        assert engine.index_info().embedder == "fake-b-48"


def test_index_without_catalog_is_its_own_live_version(tmp_path: Path) -> None:
    """An index made before m003 (simulated by removing the migration) behaves as before,
    and gets its catalog with version 1 live when opened."""
    path = tmp_path / "old.db"
    with SQLiteStore(path) as store:
        fill(store, FakeEmbedder(dim=32, model_id="fake-a-32"), A_DOCS)
        with store._writing() as conn:
            conn.execute("DROP TABLE index_versions")
            conn.execute("DROP TABLE index_version_log")
            conn.execute("DROP TABLE index_changes")
            conn.execute("DELETE FROM migrations WHERE name IN ('m003_index_versions', "
                         "'m005_change_log')")
    assert live_path(path) == str(path)
    with open_store(path) as store:
        assert store.path == str(path) and answering_docs(store) == set(A_DOCS)
    with SQLiteCatalog(path) as catalog:
        live = catalog.live()
        assert [v.number for v in catalog.versions()] == [1] and live.state == "live"
        with catalog.open(1) as store:
            assert live.created_at == store.manifest().created_at  # type: ignore[union-attr]


def test_live_lookup_leaves_other_files_alone(tmp_path: Path) -> None:
    missing = tmp_path / "new.db"
    assert live_path(missing) == str(missing) and not missing.exists()
    assert live_path(":memory:") == ":memory:"
    text = tmp_path / "notes.txt"
    text.write_text("not a database " * 100)
    assert live_path(text) == str(text)
    with pytest.raises(StoreError, match="notes.txt"):
        open_store(text).count()


def test_live_lookup_is_one_read_only_query(home: Path, monkeypatch) -> None:
    """Following the live version costs one read-only query per store call (its time:
    ``benchmarks/live_check.py``, not a timed test: a loaded CI machine took 6 ms)."""
    from citewise.index.sqlite import catalog

    statements: list[str] = []
    opened: list[str] = []
    connect = catalog.sqlite3.connect

    def traced(target, *args, **kwargs):
        opened.append(str(target))
        conn = connect(target, *args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(catalog.sqlite3, "connect", traced)
    live_path(home)
    assert len(opened) == 1 and opened[0].endswith("?mode=ro")
    assert statements == ["SELECT number FROM index_versions WHERE state = 'live'"]


def _pending(doc_id: str, text: str) -> Pending:
    parsed = ParsedDocument(title=doc_id.title(), text=text,
                            blocks=(Block(kind="text", text=text, start=0, end=len(text)),),
                            metadata={"groups": ["staff"], "tenant": "acme"})
    return Pending(doc_id, doc_id, lambda: parsed)


def test_engine_writes_go_to_the_live_version(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    settings = Settings.model_validate({"chunk": {"chunk_tokens": 64, "min_tokens": 0}})
    embedder = FakeEmbedder(dim=32)
    with Engine(path, settings, embedder) as engine:
        engine.ingest([_pending(d, f"travel expenses of {d}.") for d in ("a1", "a2")])
    with SQLiteCatalog(path) as catalog:
        shadow = catalog.create()
        with Engine(shadow.location, settings, embedder,
                    store=catalog.open(shadow.number)) as engine:
            engine.ingest([_pending(d, f"travel expenses of {d}.") for d in ("b1", "b2")])
        catalog.promote(shadow.number)
    with Engine(path, settings, embedder) as engine:
        assert engine.ingest([_pending("office", "travel to the office.")]).count("new") == 1
        engine.set_acl("b1", ["finance"])
        assert engine.delete(["b2"]) == 1
    with SQLiteStore(f"{path}.v2") as v2, SQLiteStore(path) as v1:
        assert {d.doc_id for d in v2.list_documents()} == {"b1", "office"}
        assert v2.get_document("b1").acl_groups == {"finance"}  # type: ignore[union-attr]
        assert {d.doc_id for d in v1.list_documents()} == {"a1", "a2"}


def test_a_full_disk_that_cannot_record_a_change_applied_blocks_no_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An operator's full disk: a delete was committed but recording that the live version
    applied it failed, so the DELETE answered 503, and every later read, retrying the
    record before reading, answered 503 too. The change is in place; reads go on, and the
    next write that can records it."""
    import sqlite3

    path = tmp_path / "index.db"
    settings = Settings.model_validate({"chunk": {"chunk_tokens": 64, "min_tokens": 0}})
    with Engine(path, settings, FakeEmbedder(dim=32)) as engine:
        engine.ingest([_pending(d, f"travel expenses of {d}.") for d in ("a1", "a2")])
        full = sqlite3.OperationalError("database or disk is full")
        recorded = SQLiteCatalog.mark_applied

        def disk_full(self, number, seq):  # noqa: ANN001, ANN202
            raise full

        monkeypatch.setattr(SQLiteCatalog, "mark_applied", disk_full)
        assert engine.delete(["a2"]) == 1
        for _ in range(2):
            hits = engine.search("travel expenses", READER).hits
            assert {h.document.doc_id for h in hits} == {"a1"}
        monkeypatch.setattr(SQLiteCatalog, "mark_applied", recorded)
        engine.set_acl("a1", ["staff"])
    with SQLiteCatalog(path) as catalog:
        assert not catalog.live_state().behind


def test_create_skips_leftover_sibling_files(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    Path(f"{path}.v2").write_bytes(b"left over from an index that was deleted")
    Path(f"{path}.v3-wal").write_bytes(b"")
    with SQLiteCatalog(path) as catalog:
        assert catalog.create().number == 4
    assert Path(f"{path}.v2").read_bytes().startswith(b"left over")


def test_missing_version_file_is_reported(home: Path) -> None:
    with SQLiteCatalog(home) as catalog:
        catalog.promote(2)
        catalog.promote(1)
        os.remove(f"{home}.v2")
        with pytest.raises(VersionError, match="missing"):
            catalog.promote(2)
        with pytest.raises(VersionError, match="missing"):
            catalog.open(2)
        described = describe_version(catalog, catalog.versions()[1])
        assert "missing" in described["error"]
    assert not Path(f"{home}.v2").exists()  # nothing re-created an empty file


def test_describe_version(home: Path) -> None:
    with SQLiteCatalog(home) as catalog:
        out = describe_version(catalog, catalog.versions()[1])
    assert (out["number"], out["state"], out["embedder"], out["dim"]) == (2, "shadow",
                                                                           "fake-b-48", 48)
    assert (out["documents"], out["chunks"]) == (3, 6)
    assert out["chunker"] == {"chunker": "test"}


def test_history_records_every_change(home: Path) -> None:
    with SQLiteCatalog(home) as catalog:
        catalog.promote(2, note="better")
        catalog.promote(1, note="rollback")
        history = [(h["number"], h["state"], h["note"]) for h in catalog.history()]
    assert history == [(2, "shadow", ""), (1, "retired", "replaced by version 2"),
                       (2, "live", "better"), (2, "retired", "replaced by version 1"),
                       (1, "live", "rollback")]


def test_open_catalog_targets(tmp_path: Path) -> None:
    assert isinstance(open_catalog(tmp_path / "a.db"), SQLiteCatalog)
    assert open_catalog(f"sqlite:///{tmp_path}/a.db").path == f"{tmp_path}/a.db"  # type: ignore[attr-defined]
    for bad, error in ((":memory:", VersionError), ("sqlite:///:memory:", VersionError),
                       ("ftp://x/y", ConfigError)):
        with pytest.raises(error, match="Fix:"):
            open_catalog(bad)
    with pytest.raises(VersionError, match="Fix:"):
        SQLiteCatalog(":memory:").versions()


def _v(number: int, state: str) -> IndexVersion:
    return IndexVersion(number=number, location=f"x.v{number}", state=state,  # type: ignore[arg-type]
                        created_at="2026-01-01T00:00:00+00:00")


def test_rollback_target_picks_the_version_the_live_one_replaced() -> None:
    assert rollback_target([_v(1, "retired"), _v(2, "retired"), _v(3, "live")]).number == 2
    assert rollback_target([_v(1, "live"), _v(2, "retired"), _v(3, "retired"),
                            _v(4, "refused")]).number == 3
    assert rollback_target([_v(1, "retired"), _v(2, "live"), _v(3, "retired")]).number == 1
    with pytest.raises(VersionError, match="Fix:"):
        rollback_target([_v(1, "live"), _v(2, "refused"), _v(3, "shadow")])


def test_search_through_engine_follows_promotion(home: Path) -> None:
    with Engine(home, embedder=FakeEmbedder(dim=32, model_id="fake-a-32")) as engine:
        result = engine.search("travel expenses", READER, mode="bm25")
        assert {h.document.doc_id for h in result.hits} == set(A_DOCS)
    with SQLiteCatalog(home) as catalog:
        catalog.promote(2)
    with Engine(home, embedder=FakeEmbedder(dim=48, model_id="fake-b-48")) as engine:
        result = engine.search("travel expenses", READER, mode="dense")
        assert {h.document.doc_id for h in result.hits} == set(B_DOCS)
        assert engine.store.manifest().embedder_id == "fake-b-48"  # type: ignore[union-attr]



def test_rollback_only_to_retired_versions(home: Path) -> None:
    from citewise.index.versions import rollback

    with SQLiteCatalog(home) as catalog:
        for number, match in ((2, "version 2 is shadow"), (1, "version 1 is live"),
                              (9, "no version 9")):
            with pytest.raises(VersionError, match=match):
                rollback(catalog, number)
        with pytest.raises(VersionError, match="no retired version"):
            rollback(catalog)
        catalog.promote(2)
        assert rollback(catalog) == (2, 1)
        assert catalog.live().note == "rolled back to, from version 2"
        catalog.set_state(2, "refused", note="nDCG@10 dropped")
        with pytest.raises(VersionError, match=r"refused \(nDCG@10 dropped\).*Fix:"):
            rollback(catalog, 2)


def test_a_change_that_cannot_reach_a_version_says_so(home: Path) -> None:
    """A security review moved a retired version's file away and deleted a document: the
    command said nothing of the version it could not reach."""
    with SQLiteCatalog(home) as catalog:
        catalog.promote(2)
        shadow = catalog.create()
        with catalog.open(shadow.number) as store:
            fill(store, FakeEmbedder(dim=48, model_id="fake-b-48"), B_DOCS)
        catalog.promote(shadow.number)  # version 2 retired, in its own file
    os.rename(f"{home}.v2", f"{home}.v2.away")
    with Engine(home, embedder=FakeEmbedder(dim=48, model_id="fake-b-48")) as engine:
        engine.delete(["travel-b"])
        assert engine.unreached_versions == (2,)
        engine.set_acl("expenses-b", ["hr"])
        assert engine.unreached_versions == (2,)
    os.rename(f"{home}.v2.away", f"{home}.v2")
    with Engine(home, embedder=FakeEmbedder(dim=48, model_id="fake-b-48")) as engine:
        engine.delete(["mileage-b"])  # every version reached: nothing to say
        assert engine.unreached_versions == ()


def test_a_failed_write_keeps_its_error_when_the_gates_release_fails_too() -> None:
    """A PostgreSQL restart inside an ingest's write: the unlock on the dead connection
    raised, and its 99-line traceback replaced the write's one-line error."""
    from citewise.index import gate

    def release(handle: object) -> None:
        raise RuntimeError("unlock on a closed connection")

    with pytest.raises(StoreError, match="server closed the connection"), \
            gate.hold("test-release-fails", lambda deadline: 1, release):
        raise StoreError("cannot write to index: server closed the connection")
    with pytest.raises(RuntimeError, match="unlock"), \
            gate.hold("test-release-fails-2", lambda deadline: 1, release):
        pass  # a release failing alone still says so
