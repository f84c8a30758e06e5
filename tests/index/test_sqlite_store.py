"""The SQLite backend: the shared conformance suite plus SQLite-specific checks."""

from __future__ import annotations

import hashlib
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import ConfigError, StoreError
from citewise.index import make_manifest, open_store
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.acl import AclTokens
from citewise.index.sqlite.fts import build_sparse_sql
from citewise.index.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION
from citewise.protocols import DocumentWrite, Store
from citewise.testing.conformance import (
    DIM,
    HR,
    QUERY,
    STAFF,
    StoreConformanceTests,
    assert_all_visible,
    corpus_writes,
    make_write,
)
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Principal


class TestSQLiteStore(StoreConformanceTests):
    @pytest.fixture
    def store(self, tmp_path: Path):
        with SQLiteStore(tmp_path / "index.db") as s:
            yield s

    def reopen(self, store: Store) -> Store:
        assert isinstance(store, SQLiteStore)
        return SQLiteStore(store.path)

    def vector_fingerprint(self, store: Store) -> object:
        assert isinstance(store, SQLiteStore)
        with store._reading() as conn:
            rows = conn.execute("SELECT embed_hash, vec FROM vectors ORDER BY embed_hash")
            return hashlib.sha256(b"".join(h.encode() + v for h, v in rows)).hexdigest()


class TestSQLiteIsolated(TestSQLiteStore):
    """The whole suite again with ``index.tenancy: isolated`` (per-tenant FTS5 tables and
    embedding cache)."""

    TENANCY = "isolated"


class TestInMemory(StoreConformanceTests):
    # An in-memory database belongs to one connection: a second store cannot exist, so the
    # tests that compare with one run on the file-backed classes above (same code).
    test_second_store_sees_writes = None
    test_generation_moves_with_every_write = None
    test_dense_follows_interleaved_writes = None

    @pytest.fixture
    def store(self):
        with open_store(":memory:") as s:
            yield s


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=DIM)


@pytest.fixture
def store(tmp_path: Path, embedder: FakeEmbedder):
    with SQLiteStore(tmp_path / "index.db") as s:
        s.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "test-chunker"))
        yield s


def rows(store: SQLiteStore, sql: str) -> list[tuple]:
    with store._reading() as conn:
        return conn.execute(sql).fetchall()


def fts_rows_match_chunks(store: SQLiteStore) -> None:
    assert rows(store, "SELECT count(*) FROM chunks_fts") == rows(
        store, "SELECT count(*) FROM chunks")
    assert rows(store, "SELECT rowid FROM chunks_fts ORDER BY rowid") == rows(
        store, "SELECT id FROM chunks ORDER BY id")


def test_constructor_does_no_io(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "sub" / "index.db")
    assert not (tmp_path / "sub").exists()
    assert store.count().documents == 0
    assert (tmp_path / "sub" / "index.db").exists()
    store.close()


def test_migrations_recorded_and_idempotent(tmp_path: Path, embedder: FakeEmbedder) -> None:
    path = tmp_path / "index.db"
    with SQLiteStore(path) as first:
        first.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        first.write(corpus_writes(embedder))
        applied = rows(first, "SELECT name FROM migrations ORDER BY id")
        assert [name for (name,) in applied] == [fn.__name__ for fn in MIGRATIONS]
        assert rows(first, "PRAGMA journal_mode") == [("wal",)]
        assert rows(first, "PRAGMA foreign_keys") == [(1,)]
        assert rows(first, "PRAGMA busy_timeout") == [(5000,)]
    with SQLiteStore(path) as again:
        assert rows(again, "SELECT count(*) FROM migrations") == [(SCHEMA_VERSION,)]
        assert again.count().documents == 5
        assert again.manifest().schema_version == SCHEMA_VERSION  # type: ignore[union-attr]


def test_an_index_made_before_section_marks_reads_its_chunks(tmp_path: Path,
                                                             embedder: FakeEmbedder) -> None:
    """An index from before ``m007_chunk_sections`` (its column dropped, the migration
    unrecorded) gets the column when opened; its chunks read back with no marks."""
    path = tmp_path / "index.db"
    with SQLiteStore(path) as old:
        old.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        old.write(corpus_writes(embedder))
        with old._writing() as conn:
            conn.execute("ALTER TABLE chunks DROP COLUMN sections")
            conn.execute("DELETE FROM migrations WHERE name = 'm007_chunk_sections'")
    with SQLiteStore(path) as store:
        ids = [r[0] for r in rows(store, "SELECT chunk_id FROM chunks")]
        got = store.get_chunks(ids, HR)
        assert got and all(chunk.sections == () for chunk, _ in got.values())
        assert rows(store, "SELECT count(*) FROM migrations") == [(SCHEMA_VERSION,)]


def test_newer_index_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with SQLiteStore(path) as s, s._writing() as conn:
        conn.execute("INSERT INTO migrations(name, applied_at) VALUES ('m999_future', 'x')")
    with pytest.raises(StoreError, match="newer citewise"), SQLiteStore(path) as s:
        s.count()


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("this is not sqlite " * 100)
    with pytest.raises(StoreError, match="notes.txt"):
        SQLiteStore(path).count()


def test_fts_rows_follow_chunks(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    store.write(corpus_writes(embedder))
    fts_rows_match_chunks(store)
    store.write([make_write(embedder, "handbook", ["One.", "Two.", "Three."], groups=["x"])])
    fts_rows_match_chunks(store)
    store.set_acl("handbook", ["staff", "hr"], tenant="globex")
    fts_rows_match_chunks(store)
    store.delete(["salaries", "reviews"])
    fts_rows_match_chunks(store)
    assert store.count().chunks == 5


def test_generation_bumps_on_every_change(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    def generation() -> int:
        return rows(store, "SELECT value FROM meta WHERE key = 'generation'")[0][0]

    start = generation()
    store.write(corpus_writes(embedder))
    store.set_acl("handbook", ["hr"])
    store.delete(["handbook"])
    assert generation() == start + 3
    store.delete(["handbook"])  # nothing removed: no change
    assert generation() == start + 3


def test_chunk_needs_a_vector(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    item = make_write(embedder, "guide", ["No vector here."], groups=["staff"])
    with pytest.raises(StoreError, match="DocumentWrite.vectors"):
        store.write([DocumentWrite(item.document, item.chunks, {})])
    assert store.count().documents == 0


def test_write_needs_manifest(tmp_path: Path, embedder: FakeEmbedder) -> None:
    with SQLiteStore(tmp_path / "x.db") as s, pytest.raises(StoreError, match="ensure_manifest"):
        s.write(corpus_writes(embedder))


@pytest.mark.parametrize("bad", [np.full(DIM, np.inf), np.zeros((2, DIM)), ["a"] * DIM])
def test_bad_vectors_rejected(store: SQLiteStore, embedder: FakeEmbedder, bad) -> None:
    item = make_write(embedder, "guide", ["Text."], groups=["staff"])
    with pytest.raises(StoreError):
        store.write([DocumentWrite(item.document, item.chunks,
                                   {h: bad for h in item.vectors})])
    assert store.count().vectors == 0


def test_build_sparse_sql_literal() -> None:
    sql, params = build_sparse_sql(["vacation", 'say"what'], AclTokens("t2", ("g3", "g9")),
                                   top_k=10, title_weight=2.0)
    assert params == {
        "title_weight": 2.0,
        "terms": '{title body}: ("vacation" OR "say""what")',
        "allowed": '{title body}: ("vacation" OR "say""what") AND acl: ("g3" OR "g9") '
                   'AND tenant: "t2"',
        "top_k": 10}
    assert "bm25(chunks_fts, :title_weight, 1.0, 0.0, 0.0)" in sql and "LIMIT :top_k" in sql


def test_store_build_sparse_sql_names_no_index_ids(store: SQLiteStore,
                                                   embedder: FakeEmbedder) -> None:
    """--sql shows the principal's own names, never token ids (which would say which names
    exist); it is None only for what the caller gave (no terms, no groups)."""
    store.write(corpus_writes(embedder))
    _, params = store.build_sparse_sql("the Vacation policy?", 5, Principal.of("hr,staff",
                                                                              tenant="acme"))
    assert params["allowed"] == (
        '{title body}: ("vacation" OR "policy") AND acl: ("<token of group \'hr\'>" OR '
        '"<token of group \'staff\'>") AND tenant: "<token of tenant \'acme\'>"')
    assert store.build_sparse_sql("vacation", 5, Principal.of("")) is None
    assert store.build_sparse_sql("the", 5, Principal.of("staff")) is None
    assert store.build_sparse_sql("vacation", 5, Principal.of("nobody")) is not None
    assert store.describe_filter(Principal.of("staff,hr,ghost", tenant="acme")) == (
        "tenant = 'acme' AND groups ∩ {ghost, hr, staff} ≠ ∅ (inside the FTS5 MATCH as opaque "
        "group/tenant tokens, and in the dense search; BM25 statistics over all tenants' "
        "chunks (index.tenancy shared))")


def _bm25(tf: float, df: int, n: int, length: int, avgdl: float) -> float:
    idf = math.log((n - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avgdl))


def test_bm25_matches_hand_computation(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    # Each FTS row holds title "T" + heading path ("T", "Part 0") = 4 tokens, the body, one
    # acl token and one tenant token: |D| = 4 + body words + 2.
    texts = {"a": "apple apple pear", "b": "apple plum plum plum kiwi", "c": "plum",
             "d": "fig", "e": "grape"}
    for doc_id, text in texts.items():
        store.write([make_write(embedder, doc_id, [text], groups=["g"], title="T")])
    lengths = {k: 4 + len(v.split()) + 2 for k, v in texts.items()}
    avgdl = sum(lengths.values()) / len(lengths)
    got = store.search_sparse("apple", 10, Principal.of("g", tenant="acme"))
    expected = {k: _bm25(v.split().count("apple"), 2, 5, lengths[k], avgdl)
                for k, v in texts.items() if "apple" in v}
    assert [r.chunk_id.split("#")[0] for r in got] == ["a", "b"]
    for r in got:
        assert r.score == pytest.approx(expected[r.chunk_id.split("#")[0]], rel=1e-6)
    title_hit = store.search_sparse("part", 10, Principal.of("g", tenant="acme"), title_weight=0.0)
    assert all(r.score == pytest.approx(0.0, abs=1e-5) for r in title_hit)


def test_sparse_edge_cases(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    store.write(corpus_writes(embedder))
    assert store.search_sparse("the of and", 5, STAFF) == []
    assert store.search_sparse('"); DROP TABLE chunks; --', 5, STAFF) == []
    assert store.search_sparse("acl g1 OR tenant t1 NEAR", 5, Principal.of("ghost")) == []
    hits = store.search_sparse("g1 t1 acl", 5, HR)  # tokens are not searchable text
    assert hits == []
    assert_all_visible(store, store.search_sparse("salary_bands", 5, HR), HR)


def test_dense_uses_gather_and_full_paths(store: SQLiteStore, embedder: FakeEmbedder,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.index.sqlite import vectors

    store.write(corpus_writes(embedder))
    q = embedder.embed_query(QUERY)
    monkeypatch.setattr(vectors, "GATHER_MAX_SHARE", 1.0)
    gathered = store.search_dense(q, 10, HR)
    monkeypatch.setattr(vectors, "GATHER_MAX_SHARE", 0.0)
    full = store.search_dense(q, 10, HR)
    assert gathered == full and gathered


def test_dense_ties_broken_by_row_order(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    items = [make_write(embedder, f"d{i:03d}", ["Identical."], groups=["g"], title="T")
             for i in range(300)]
    store.write(items)
    principal = Principal.of("g", tenant="acme")
    q = embedder.embed_query("T Identical.")
    for top_k in (4, 50, 299):
        got = store.search_dense(q, top_k, principal)
        assert [r.chunk_id.split("#")[0] for r in got] == [f"d{i:03d}" for i in range(top_k)]


def test_open_store_urls(tmp_path: Path) -> None:
    from citewise.index.follow import LiveStore

    def path_of(target: str | Path) -> str:
        store = open_store(target)  # cheap: nothing is opened yet
        if isinstance(store, LiveStore):  # a file follows its live version (issue 10)
            return store.name
        assert isinstance(store, SQLiteStore)
        return store.path

    assert path_of(tmp_path / "a.db") == str(tmp_path / "a.db")
    assert path_of("rel/index.db") == "rel/index.db"
    assert path_of("sqlite:///rel/index.db") == "rel/index.db"
    assert path_of(f"sqlite:///{tmp_path}/b.db") == f"{tmp_path}/b.db"  # sqlite:////abs
    assert path_of("sqlite://") == path_of(":memory:") == ":memory:"
    from citewise.index.postgres import PostgresStore

    for url in ("postgresql://localhost/citewise", "postgres://localhost/citewise"):
        assert isinstance(open_store(url), LiveStore)  # cheap: connects on first use
        assert isinstance(open_store(url + "?schema=citewise_v2"), PostgresStore)
    with pytest.raises(ConfigError, match="sqlite:///"):
        open_store("mysql://x")


def test_failure_after_partial_write_rolls_back(store: SQLiteStore,
                                                embedder: FakeEmbedder) -> None:
    store.write(corpus_writes(embedder))
    before = (store.count(), store.get_document("handbook"))
    fresh = make_write(embedder, "fresh", ["Fresh text."], groups=["staff"])
    thief = make_write(embedder, "thief", ["Stolen id."], groups=["staff"])
    stolen = replace(thief.chunks[0], chunk_id=corpus_writes(embedder)[0].chunks[0].chunk_id)
    with pytest.raises(StoreError, match="UNIQUE"):
        store.write([fresh, DocumentWrite(thief.document, [stolen], thief.vectors)])
    assert (store.count(), store.get_document("handbook")) == before
    assert store.get_document("fresh") is None
    assert store.search_sparse("fresh text", 5, STAFF) == []
    fts_rows_match_chunks(store)


def test_threads_share_one_store(store: SQLiteStore, embedder: FakeEmbedder) -> None:
    store.write(corpus_writes(embedder))
    q = embedder.embed_query(QUERY)

    def work(i: int) -> int:
        if i % 4 == 0:
            store.set_acl("handbook", ["staff"] if i % 8 else ["staff", "hr"])
        return len(store.search_dense(q, 5, HR)) + len(store.search_sparse(QUERY, 5, HR))

    with ThreadPoolExecutor(4) as pool:
        assert all(n >= 2 for n in pool.map(work, range(40)))


def test_a_write_to_a_read_only_index_names_the_right_fix(tmp_path: Path) -> None:
    """A security review's `chattr +i` index was told to "retry when other writers finish"
    (file modes cannot show it here: the suite may run as root, whom they do not stop)."""
    from citewise.index.sqlite.catalog import SQLiteCatalog
    from citewise.index.sqlite.migrations import sqlite3

    exc = sqlite3.OperationalError("attempt to write a readonly database")
    path = tmp_path / "i.db"
    with SQLiteStore(path) as store, SQLiteCatalog(path) as catalog:
        for error in (store._error(exc, "write"), catalog._error(exc, "promote")):
            text = str(error)
            assert "cannot be written" in text and "chmod u+w" in text and "--db COPY" in text
            assert "other writers" not in text and "busy" not in text


def test_a_damaged_acl_record_reads_as_no_group_not_a_traceback(tmp_path: Path,
                                                                 embedder: FakeEmbedder) -> None:
    """A security review's hand-edited index: an ACL of "not json" ended every search, status
    and delete in a JSONDecodeError traceback (so no fix could be run). It now reads as no
    group (nobody reads it) until `citewise acl` writes it again."""
    import sqlite3

    with SQLiteStore(tmp_path / "x.db") as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        store.write([make_write(embedder, "memo", ["Office memo."], groups=["staff"]),
                     make_write(embedder, "pay", ["Salary bands."], groups=["hr"])])
    with sqlite3.connect(tmp_path / "x.db") as con:
        con.execute("UPDATE documents SET acl = 'not json', metadata = '[1' "
                    "WHERE doc_id = 'memo'")
    with SQLiteStore(tmp_path / "x.db") as store:
        docs = {d.doc_id: d for d in store.list_documents()}
        assert docs["memo"].acl_groups == frozenset() and docs["memo"].metadata == {}
        assert docs["pay"].acl_groups == {"hr"}
        store.set_acl("memo", ["staff"])
        assert store.get_document("memo").acl_groups == {"staff"}
