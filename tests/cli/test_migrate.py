"""``citewise migrate``: a SQLite index copied into PostgreSQL, nothing re-embedded.

Needs ``CITEWISE_TEST_PG_URL`` (``.ci/run`` starts a server); skipped without it.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.errors import ConfigError, StoreError
from citewise.index import make_manifest
from citewise.index.migrate import migrate_index, read_vectors
from citewise.index.postgres import PostgresStore
from citewise.index.sqlite import SQLiteStore
from citewise.testing.conformance import DIM, HR, QUERY, STAFF, corpus_writes, make_write
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Block, ParsedDocument

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="CITEWISE_TEST_PG_URL is not set: no PostgreSQL "
                       "server (run `export CITEWISE_TEST_PG_URL=$(.ci/pg start)`)"),
]


@pytest.fixture
def schema_url():
    import psycopg

    schema = f"citewise_m{uuid.uuid4().hex[:12]}"
    yield schema, f"{PG_URL}?schema={schema}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def sqlite_index(tmp_path: Path) -> Path:
    embedder = FakeEmbedder(dim=DIM)
    path = tmp_path / "a.db"
    text = "Policy\n\nStaff may work remotely two days a week."
    parsed = ParsedDocument(title="Policy", text=text, format="markdown", metadata={},
                            blocks=(Block("text", text[8:], 8, len(text), ("Policy",), "p"),))
    with SQLiteStore(path) as store:
        store.ensure_manifest(make_manifest(embedder.model_id, DIM, {"k": 1}, "chunker-x"))
        store.write(corpus_writes(embedder))
        extra = [make_write(embedder, f"memo-{i:02d}", [f"Memo {i} on travel.", "Shared."],
                            groups=["staff"], title="Memo") for i in range(30)]
        store.write([replace(extra[0], parsed=parsed), *extra[1:]])
        store.set_meta("gate.threshold", "0.42")
    return path


def test_migrate_sqlite_to_postgres(sqlite_index: Path, schema_url) -> None:
    schema, url = schema_url
    result = CliRunner().invoke(cli, ["migrate", "--from", f"sqlite:///{sqlite_index}",
                                      "--to", url, "--batch-docs", "7", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["documents"], report["chunks"], report["vectors"]) == (35, 66, 37)
    assert report["batches"] == 5 and report["meta_keys"] == 1
    assert report["checked_searches"] > 0 and report["mean_overlap"] >= 0.9
    embedder = FakeEmbedder(dim=DIM)
    with SQLiteStore(sqlite_index) as src, PostgresStore(PG_URL, schema=schema) as dst:
        assert dst.manifest() == src.manifest()
        assert dst.list_documents() == src.list_documents()
        assert dst.get_parsed("memo-00") == src.get_parsed("memo-00") is not None
        assert dst.get_meta("gate.threshold") == "0.42"
        with src._reading() as conn:
            hashes = [h for (h,) in conn.execute("SELECT embed_hash FROM vectors")]
            want = read_vectors(conn, hashes)
        with dst._reading() as conn:
            got = {h: np.array(json.loads(v), np.float32) for h, v in conn.execute(
                "SELECT embed_hash, embedding::text FROM vectors")}
        assert got.keys() == want.keys()
        assert all(np.allclose(got[h], want[h], atol=1e-6) for h in want)  # not re-embedded
        for principal in (STAFF, HR):
            vector = embedder.embed_query(QUERY)
            assert ([r.chunk_id for r in dst.search_dense(vector, 3, principal)][:1]
                    == [r.chunk_id for r in src.search_dense(vector, 3, principal)][:1])
            chunks = dst.get_chunks([r.chunk_id for r in src.search_sparse(QUERY, 5, principal)],
                                    principal)
            assert {c.doc_id for c, _ in chunks.values()} <= {
                d.doc_id for d in src.list_documents() if d.acl_groups & principal.groups}


def test_migrate_refuses_a_non_empty_target(sqlite_index: Path, schema_url) -> None:
    schema, _ = schema_url
    embedder = FakeEmbedder(dim=DIM)
    with SQLiteStore(sqlite_index) as src, PostgresStore(PG_URL, schema=schema) as dst:
        dst.ensure_manifest(src.manifest())  # type: ignore[arg-type]
        dst.write([make_write(embedder, "stray", ["Not in the source."], groups=["staff"])])
        with pytest.raises(StoreError, match="nothing was written.*empty"):
            migrate_index(src, dst)
        assert [d.doc_id for d in dst.list_documents()] == ["stray"]  # refused before writing
        with pytest.raises(ConfigError, match="sqlite"):
            migrate_index(dst, src)


def test_migrate_cli_missing_source(tmp_path: Path, schema_url) -> None:
    _, url = schema_url
    result = CliRunner().invoke(cli, ["migrate", "--from", str(tmp_path / "none.db"), "--to",
                                      url])
    assert result.exit_code == 1 and "no index at" in result.output
    assert not (tmp_path / "none.db").exists()


def test_migrate_keeps_isolated_tenancy(tmp_path: Path, schema_url) -> None:
    """An isolated index stays isolated: per-tenant caches are copied scope for scope."""
    schema, _ = schema_url
    embedder = FakeEmbedder(dim=DIM)
    same = ["The same boilerplate text in two tenants."]
    with SQLiteStore(tmp_path / "iso.db") as src, PostgresStore(PG_URL, schema=schema) as dst:
        src.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c", "isolated"))
        src.write(corpus_writes(embedder)
                  + [make_write(embedder, "a-same", same, groups=["staff"], title="T"),
                     make_write(embedder, "g-same", same, groups=["staff"], title="T",
                                tenant="globex")])
        report = migrate_index(src, dst)
        assert dst.manifest() == src.manifest() and dst.manifest().tenancy == "isolated"
        assert report.vectors == src.count().vectors == 8  # the shared text, once per tenant
        h = make_write(embedder, "x", same, groups=["staff"], title="T").chunks[0].embed_hash
        assert dst.cached_vectors([h], "globex") == {h}
        assert dst.cached_vectors([h], "initech") == set()


def test_migrate_in_a_terminal_shows_progress(sqlite_index, schema_url):
    import sys

    from citewise.testing.terminal import run_in_pty

    _, url = schema_url
    citewise = str(Path(sys.executable).with_name("citewise"))
    run = run_in_pty([citewise, "migrate", "--from", str(sqlite_index), "--to", url,
                      "--batch-docs", "10", "--sample", "3"], timeout=120)
    assert run.returncode == 0, run.text
    assert "migrate: 100%" in run.output and "/" in run.output
    assert "migrated " in run.text
    again = f"{url}x"  # another (new) schema
    try:
        quiet = run_in_pty([citewise, "migrate", "--from", str(sqlite_index), "--to", again,
                            "--quiet"], timeout=120)
        assert quiet.returncode == 0, quiet.text
        assert "migrated " in quiet.text and "migrate:" not in quiet.text
    finally:
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema_url[0]}x CASCADE")
