"""The PostgreSQL backend: the shared Store conformance suite (on both dense paths), the
pgvector version check, the version catalog and concurrent writers.

Needs a server: ``CITEWISE_TEST_PG_URL=$(.ci/pg start)`` (``.ci/run`` does this). Without the
variable every test here is SKIPPED with that reason (``pytest -rA`` shows it).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import uuid
from collections.abc import Iterator

import pytest

from citewise.errors import StoreError, VersionError
from citewise.index import make_manifest, open_store
from citewise.index.postgres import PostgresCatalog, PostgresStore, connection
from citewise.protocols import Store, VersionCatalog
from citewise.testing.conformance import (
    DIM,
    QUERY,
    STAFF,
    StoreConformanceTests,
    assert_all_visible,
    corpus_writes,
    make_write,
)
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.pg import scratch_database
from citewise.testing.versions import VersionCatalogConformanceTests
from citewise.types import Principal

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="CITEWISE_TEST_PG_URL is not set: no PostgreSQL "
                       "server to test against (run `export CITEWISE_TEST_PG_URL=$(.ci/pg "
                       "start)`; .ci/run does this)"),
]


def _admin(url: str = PG_URL):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def drop_schema(schema: str) -> None:
    with _admin() as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def schema() -> Iterator[str]:
    name = f"citewise_t{uuid.uuid4().hex[:12]}"
    yield name
    drop_schema(name)


@pytest.fixture
def fresh_db_url() -> Iterator[str]:
    """A new database (with pgvector) on the test server; dropped afterwards."""
    with scratch_database(PG_URL) as url:
        yield url


class TestPostgresStore(StoreConformanceTests):
    """Default settings: the test corpora are small, so dense search takes the exact path."""

    exact_max = 10_000
    LEXICAL_STATS_SHARED = False  # ts_rank: no IDF, no average length

    @pytest.fixture
    def store(self, schema: str) -> Iterator[PostgresStore]:
        with PostgresStore(PG_URL, schema=schema, exact_max=self.exact_max) as s:
            yield s

    def reopen(self, store: Store) -> Store:
        assert isinstance(store, PostgresStore)
        return PostgresStore(store.url, schema=store.schema, exact_max=self.exact_max)

    def vector_fingerprint(self, store: Store) -> object:
        assert isinstance(store, PostgresStore)
        with store._reading() as conn:
            rows = conn.execute("SELECT embed_hash, embedding::text FROM vectors "
                                "ORDER BY embed_hash").fetchall()
        return hashlib.sha256("".join(h + v for h, v in rows).encode()).hexdigest()

    def test_dense_path(self, corpus: Store, embedder: FakeEmbedder) -> None:
        assert isinstance(corpus, PostgresStore)
        corpus.search_dense(embedder.embed_query(QUERY), 5, STAFF)
        assert corpus.last_dense_path == ("exact" if self.exact_max > 0 else "hnsw")


class TestPostgresStoreHnsw(TestPostgresStore):
    """The same guarantees on the HNSW path alone (iterative scan): ``exact_max=-1`` turns the
    exact path and the exact fallback off."""

    exact_max = -1


class TestPostgresIsolated(TestPostgresStore):
    """The whole suite again with ``index.tenancy: isolated`` (per-tenant embedding cache)."""

    TENANCY = "isolated"


class TestPostgresIsolatedHnsw(TestPostgresStoreHnsw):
    TENANCY = "isolated"


def test_postgres_vectors_plain_and_bulk_load(schema: str) -> None:
    embedder = FakeEmbedder(dim=DIM)

    def state(store: PostgresStore) -> tuple[str, str, bool]:
        with store._reading() as conn:
            storage, typ = conn.execute(
                "SELECT a.attstorage, format_type(a.atttypid, a.atttypmod) FROM pg_attribute AS a"
                " WHERE a.attrelid = 'vectors'::regclass AND a.attname = 'embedding'").fetchone()
            index = conn.execute("SELECT to_regclass('vectors_hnsw') IS NOT NULL").fetchone()[0]
        return storage, typ, index

    with PostgresStore(PG_URL, schema=schema, exact_max=-1) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        assert state(store) == ("p", f"vector({DIM})", True)  # PLAIN: never TOASTed
        with store.bulk_load():
            assert state(store)[2] is False
            store.write(corpus_writes(embedder))
            assert store.search_dense(embedder.embed_query(QUERY), 3, STAFF)  # seq scan
        assert state(store) == ("p", f"vector({DIM})", True)
        results = store.search_dense(embedder.embed_query(QUERY), 3, STAFF)
        assert store.last_dense_path == "hnsw" and results
        assert_all_visible(store, results, STAFF)


def test_postgres_hnsw_falls_back_to_exact(schema: str) -> None:
    """HNSW is chosen (estimate > exact_max = 0), returns fewer than k, so exact runs."""
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(PG_URL, schema=schema, exact_max=0) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        store.write(corpus_writes(embedder))
        results = store.search_dense(embedder.embed_query(QUERY), 50, STAFF)
        assert store.last_dense_path == "hnsw+exact"
        assert len(results) == 2  # every chunk STAFF may read in acme: the handbook's two
        assert_all_visible(store, results, STAFF)
        assert len(store.search_dense(embedder.embed_query(QUERY), 1, STAFF)) == 1
        assert store.last_dense_path == "hnsw"


def test_postgres_never_prepares_statements(schema: str) -> None:
    """psycopg prepares after 5 runs by default and a generic plan ignores the ACL values;
    the store's connections must keep custom plans (prepare_threshold=None)."""
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(PG_URL, schema=schema, pool_size=1) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        store.write(corpus_writes(embedder))
        for _ in range(8):
            store.search_sparse(QUERY, 5, STAFF)
            store.search_dense(embedder.embed_query(QUERY), 5, STAFF)
        with store._reading() as conn:
            assert conn.prepare_threshold is None
            assert conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0] == 0


def test_postgres_refuses_old_pgvector(schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "pgvector_version", lambda conn: "0.6.2")
    with PostgresStore(PG_URL, schema=schema) as store, pytest.raises(StoreError) as err:
        store.count()
    assert "0.6.2" in str(err.value) and "Fix:" in str(err.value)
    with pytest.raises(StoreError, match="no pgvector"):
        connection.check_pgvector_version(None, "db")
    connection.check_pgvector_version("0.8.0", "db")
    connection.check_pgvector_version("0.10.1", "db")


def test_postgres_pool_replaces_connections_the_server_closed(fresh_db_url: str) -> None:
    """A review restarted PostgreSQL under a running server: the first request on each pooled
    connection failed with a 503 whose fix read "if the schema is damaged, ingest into a new
    one". A closed connection is now replaced when it is taken from the pool."""
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(fresh_db_url, schema="citewise_v1", pool_size=2) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        store.write(corpus_writes(embedder))
        before = store.search_dense(embedder.embed_query(QUERY), 3, STAFF)
        with _admin(fresh_db_url) as admin:  # a database of its own: no other test's
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "datname = current_database() AND pid <> pg_backend_pid()")
        assert store.search_dense(embedder.embed_query(QUERY), 3, STAFF) == before
    from psycopg import errors

    err = PostgresStore(fresh_db_url, schema="citewise_v1")._error(
        errors.AdminShutdown("terminating connection"), "read")
    assert "server is running" in str(err) and "ingest into a new one" not in str(err)
    full = PostgresStore(fresh_db_url, schema="citewise_v1")._error(
        errors.DiskFull("could not extend file"), "write to")
    assert "check the server log" in str(full)  # an OperationalError, not a lost server


def test_postgres_catalog_reads_on_after_its_kept_connection_is_closed(
        fresh_db_url: str) -> None:
    """Run as a user would: PostgreSQL restarted under a running server, whose pool and
    request log recovered, and the first request still failed with a 503: the catalog's kept
    connection (live_state, open) was closed. Its reads now run once more on a new one."""
    catalog = _three_versions(fresh_db_url)
    before = catalog.live_state()
    with _admin(fresh_db_url) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                      "datname = current_database() AND pid <> pg_backend_pid()")
    assert catalog.live_state() == before
    with _admin(fresh_db_url) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                      "datname = current_database() AND pid <> pg_backend_pid()")
    with catalog.open(2) as store:
        assert store.manifest() is not None
    catalog.close()


def test_postgres_unreachable_server_says_fix() -> None:
    with PostgresStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2",
                       schema="citewise_v1") as store, pytest.raises(StoreError, match="Fix:"):
        store.count()


def test_postgres_url_schema_and_open_store(fresh_db_url: str) -> None:
    assert connection.split_url(PG_URL + "?schema=citewise_v7")[1] == "citewise_v7"
    store = open_store(fresh_db_url)  # an empty database: version 1 is created, live
    try:
        assert store.count().documents == 0
        assert store.schema == "citewise_v1"  # type: ignore[attr-defined]
        assert store.version_number == 1  # type: ignore[attr-defined]
    finally:
        store.close()
    catalog = PostgresCatalog(fresh_db_url)
    assert [(v.number, v.state) for v in catalog.versions()] == [(1, "live")]


def test_postgres_catalog_promote_and_rollback(fresh_db_url: str) -> None:
    embedder = FakeEmbedder(dim=DIM)
    catalog = PostgresCatalog(fresh_db_url)
    v1 = catalog.live()
    with catalog.open(v1.number) as old:
        old.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        old.write([make_write(embedder, "old", ["Old text."], groups=["staff"])])
    v2 = catalog.create(note="rebuild")
    assert (v2.number, v2.state, v2.location) == (2, "shadow", "citewise_v2")
    with catalog.open(v2.number) as new:
        new.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        new.write([make_write(embedder, "new", ["New text."], groups=["staff"])])
    with open_store(fresh_db_url) as live:
        assert [d.doc_id for d in live.list_documents()] == ["old"]
    catalog.promote(2, note="ndcg +0.01")
    assert [(v.number, v.state) for v in catalog.versions()] == [(1, "retired"), (2, "live")]
    assert catalog.live().note == "ndcg +0.01"
    with open_store(fresh_db_url) as live:
        assert [d.doc_id for d in live.list_documents()] == ["new"]
        assert live.version_number == 2  # what `ask` reports as the index version
    catalog.promote(1)  # rollback
    with open_store(fresh_db_url) as live:
        assert [d.doc_id for d in live.list_documents()] == ["old"]
        assert live.version_number == 1
    catalog.set_state(2, "refused", "worse on SciFact")
    with pytest.raises(VersionError, match="Fix:"):
        catalog.promote(2)
    with pytest.raises(VersionError, match="live"):
        catalog.set_state(1, "retired")
    with pytest.raises(VersionError, match="does not exist"):
        catalog.open(9)
    catalog.drop(2)
    assert [v.number for v in catalog.versions()] == [1]


def _three_versions(url: str) -> PostgresCatalog:
    """Version 1 retired, 2 retired, 3 live; each holds "old" and "keep"."""
    embedder = FakeEmbedder(dim=DIM)
    catalog = PostgresCatalog(url)
    for number in (catalog.live().number, catalog.create().number, catalog.create().number):
        with catalog.open(number) as store:
            store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
            store.write([make_write(embedder, d, [f"{d} text."], groups=["staff"])
                         for d in ("old", "keep")])
        if number > 1:
            catalog.promote(number)
    return catalog


def test_postgres_a_locked_or_missing_retired_version_holds_no_delete(fresh_db_url: str) -> None:
    """A review: another session's LOCK TABLE on a retired version held every delete and ACL
    change, in every process, for as long as it lasted (25 s); a retired version's schema
    renamed away was made again, empty, with no warning."""
    import time

    from citewise.engine import Engine

    catalog = _three_versions(fresh_db_url)
    embedder = FakeEmbedder(dim=DIM)
    with _admin(fresh_db_url) as holder, holder.transaction():
        holder.execute("LOCK TABLE citewise_v2.documents IN ACCESS EXCLUSIVE MODE")
        with Engine(fresh_db_url, embedder=embedder) as engine:
            started = time.monotonic()
            engine.delete(["old"])
            assert engine.unreached_versions == (2,)
            assert time.monotonic() - started < 20
    with _admin(fresh_db_url) as admin:
        admin.execute("ALTER SCHEMA citewise_v1 RENAME TO citewise_v1_away")
    with Engine(fresh_db_url, embedder=embedder) as engine:
        engine.set_acl("keep", ["hr"])
        assert engine.unreached_versions == (1,)  # version 2, unlocked, got both changes
    with _admin(fresh_db_url) as admin:
        assert admin.execute("SELECT to_regnamespace('citewise_v1')").fetchone()[0] is None
        admin.execute("ALTER SCHEMA citewise_v1_away RENAME TO citewise_v1")
    for number in (1, 2):
        catalog.promote(number)  # a rollback applies what it missed first
        with open_store(fresh_db_url) as live:
            assert [(d.doc_id, sorted(d.acl_groups)) for d in live.list_documents()] == \
                [("keep", ["hr"])]
    shadow = catalog.create()  # a reindex's shadow catches up by itself before going live
    with catalog.open(shadow.number) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
    with _admin(fresh_db_url) as holder, holder.transaction():
        holder.execute(f"LOCK TABLE citewise_v{shadow.number}.documents IN ACCESS EXCLUSIVE "
                       "MODE")
        with Engine(fresh_db_url, embedder=embedder) as engine:
            started = time.monotonic()
            engine.delete(["keep"])  # a locked shadow held it 25 s too (the review)
            assert engine.unreached_versions == () and time.monotonic() - started < 20


# -- concurrency: two writer processes and a searcher ---------------------------------------------

def _ingest(url: str, schema: str, prefix: str, n: int) -> None:
    embedder = FakeEmbedder(dim=DIM)
    groups = ["staff"] if prefix == "a" else ["hr"]
    with PostgresStore(url, schema=schema) as store:
        for i in range(n):
            store.write([make_write(embedder, f"{prefix}-{i:03d}",
                                    [f"Report {prefix} number {i} about quarterly salary."],
                                    groups=groups)])


def _search(url: str, schema: str, rounds: int, queue: multiprocessing.Queue) -> None:
    embedder = FakeEmbedder(dim=DIM)
    problems: list[str] = []
    with PostgresStore(url, schema=schema) as store:
        for _ in range(rounds):
            for principal in (STAFF, Principal.of("hr", tenant="acme")):
                sparse = store.search_sparse("quarterly salary report", 20, principal)
                dense = store.search_dense(embedder.embed_query(QUERY), 20, principal)
                try:
                    assert_all_visible(store, sparse + dense, principal)
                except AssertionError as exc:
                    problems.append(str(exc))
    queue.put(problems)


@pytest.mark.slow
def test_postgres_concurrent_writers_and_reader(schema: str) -> None:
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(PG_URL, schema=schema) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        store.write(corpus_writes(embedder))
    # fork (spawn cannot import this module under --import-mode=importlib); no pool is open
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_ingest, args=(PG_URL, schema, p, 40)) for p in "ab"]
    procs.append(ctx.Process(target=_search, args=(PG_URL, schema, 30, queue)))
    for p in procs:
        p.start()
    problems = queue.get(timeout=120)
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert problems == []
    with PostgresStore(PG_URL, schema=schema) as store:
        ids = {d.doc_id for d in store.list_documents()}
        assert {f"{p}-{i:03d}" for p in "ab" for i in range(40)} <= ids
        assert store.count().documents == 5 + 80


class TestPostgresCatalog(VersionCatalogConformanceTests):
    """The shared catalog guarantees, each test on a fresh database."""

    @pytest.fixture
    def catalog(self, fresh_db_url: str) -> PostgresCatalog:
        return PostgresCatalog(fresh_db_url)

    def open_live(self, catalog: VersionCatalog) -> Store:
        assert isinstance(catalog, PostgresCatalog)
        return open_store(catalog.url)

    def reopen(self, catalog: VersionCatalog) -> VersionCatalog:
        assert isinstance(catalog, PostgresCatalog)
        return PostgresCatalog(catalog.url)

    def open_location(self, catalog: VersionCatalog, number: int) -> Store:
        assert isinstance(catalog, PostgresCatalog)
        location = next(v.location for v in catalog.versions() if v.number == number)
        return open_store(f"{catalog.url}?schema={location}")


@pytest.mark.slow
@pytest.mark.model
def test_postgres_cli_end_to_end(schema: str) -> None:
    """The CLI with ``--db postgresql://...``: ingest the example corpus with the shipped
    model, search it under each ACL, change an ACL, delete."""
    from pathlib import Path

    from click.testing import CliRunner

    from citewise.cli.main import cli

    root = Path(__file__).resolve().parents[2]
    db = f"{PG_URL}?schema={schema}"

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    out = run("ingest", str(root / "examples" / "corpus"), "--db", db, "--tenant", "northwind",
              "--groups", "staff", "--meta", str(root / "examples" / "corpus.meta.jsonl"),
              "--no-progress")
    assert "13 new" in out and "0 failed" in out
    query = "What is the salary band for level L4?"
    for mode in ("bm25", "dense", "hybrid"):
        args = ("search", query, "--db", db, "--tenant", "northwind", "--mode", mode, "--json")
        staff = run(*args, "--groups", "staff", "--top-k", "50")
        assert "hr-compensation-bands-2026" not in staff and "68,000" not in staff
        hr = [h["doc_id"] for h in json.loads(run(*args, "--groups", "hr"))]
        assert hr and set(hr) == {"hr-compensation-bands-2026"}
    leave = ("search", "parental leave", "--db", db, "--tenant", "northwind", "--json")
    assert "hr-leave-policy" in run(*leave, "--groups", "staff")
    run("acl", "hr-leave-policy", "--groups", "hr", "--db", db)
    assert "hr-leave-policy" not in run(*leave, "--groups", "staff")
    assert "hr-leave-policy" in run(*leave, "--groups", "hr")
    assert "deleted 1" in run("delete", "hr-leave-policy", "--db", db)
    assert "hr-leave-policy" not in {h["doc_id"] for h in json.loads(run(*leave, "--groups", "hr"))}


def test_postgres_index_made_before_tenancy_is_shared(schema: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """m002 on an index written before tenancy: its vectors become the shared cache and its
    chunks join them, its manifest (no tenancy row) reads as shared; m003 gives its chunks
    no section marks."""
    from citewise.index.postgres import migrations

    embedder = FakeEmbedder(dim=DIM)
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
    item = make_write(embedder, "old", ["An old chunk about falcons."], groups=["staff"])
    chunk, vector = item.chunks[0], item.vectors[item.chunks[0].embed_hash]
    with PostgresStore(PG_URL, schema=schema) as old:
        old.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c1"))
        with old._writing() as conn:  # rows as the previous release wrote them
            conn.execute("DELETE FROM manifest WHERE key = 'tenancy'")
            rowid = conn.execute(
                "INSERT INTO documents(doc_id, version, content_hash, title, tenant, acl, "
                "metadata) VALUES ('old', 1, 'h', 'Old', 'acme', '{staff}', '{}') "
                "RETURNING id").fetchone()[0]
            conn.execute(
                "INSERT INTO chunks(chunk_id, doc_id, ordinal, text, heading_path, start_char, "
                "end_char, token_count, kind, embed_hash, tenant, acl, tsv) VALUES (%s, %s, 0, "
                "%s, '{}', 0, 10, 5, 'text', %s, 'acme', '{staff}', to_tsvector(%s))",
                (chunk.chunk_id, rowid, chunk.text, chunk.embed_hash, chunk.text))
            conn.execute("INSERT INTO vectors(embed_hash, embedding) VALUES (%s, %s)",
                         (chunk.embed_hash, vector))
    monkeypatch.undo()
    with PostgresStore(PG_URL, schema=schema) as store:
        assert store.manifest().tenancy == "shared"  # type: ignore[union-attr]
        assert store.cached_vectors([chunk.embed_hash], "globex") == {chunk.embed_hash}
        found = store.search_dense(vector, 5, Principal.of("staff", tenant="acme"))
        assert [r.chunk_id for r in found] == [chunk.chunk_id]
        staff = Principal.of("staff", tenant="acme")
        assert store.get_chunks([chunk.chunk_id], staff)[chunk.chunk_id][0].sections == ()
        store.delete(["old"])
        assert store.count().vectors == 0


def test_postgres_status_shows_the_url_without_its_secrets(schema: str) -> None:
    """A security review: ``status`` printed ``index: postgresql://u:S3cret@…`` (so did the
    server's banner and calibrate's "stored in"); a ``?password=`` was never masked."""
    from click.testing import CliRunner

    from citewise.cli.main import cli

    with_password = PG_URL.replace("://postgres@", "://postgres:S3cretA@", 1)
    db = f"{with_password}?schema={schema}&passfile=/nonexistent/S3cretB"
    result = CliRunner().invoke(cli, ["status", "--db", db])
    assert result.exit_code == 0, result.output
    assert "S3cret" not in result.output and "index: postgresql://" in result.output
    as_json = CliRunner().invoke(cli, ["status", "--json", "--db", db])  # the review after
    assert as_json.exit_code == 0 and "S3cret" not in as_json.output  # the fix: its "db"
