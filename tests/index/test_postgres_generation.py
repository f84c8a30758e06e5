"""The PostgreSQL write generation (``citewise_catalog.generations``): every committed write
or catalog change moves it, in another process too; a rolled-back write and a write to another
version's schema do not. Needs ``CITEWISE_TEST_PG_URL`` (skipped without it, like the other
PostgreSQL tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace

import pytest

from citewise.errors import StoreError
from citewise.index import make_manifest
from citewise.index.postgres import PostgresCatalog, PostgresStore
from citewise.testing.conformance import DIM, make_write
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.pg import scratch_database

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="CITEWISE_TEST_PG_URL is not set: no PostgreSQL "
                       "server to test against (run `export CITEWISE_TEST_PG_URL=$(.ci/pg "
                       "start)`; .ci/run does this)"),
]


@pytest.fixture
def db_url() -> Iterator[str]:
    with scratch_database(PG_URL, "citewise_gen") as url:
        yield url


def _built(store: PostgresStore, embedder: FakeEmbedder, doc_id: str) -> None:
    store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
    store.write([make_write(embedder, doc_id, [f"{doc_id} text."], groups=["staff"])])


_OTHER_PROCESS = """
import sys
from citewise.index.postgres import PostgresStore
with PostgresStore(sys.argv[1], schema=sys.argv[2]) as store:
    store.set_acl(sys.argv[3], ["hr"])
"""


def test_write_in_another_process_moves_the_generation(db_url: str) -> None:
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(db_url) as store:
        _built(store, embedder, "memo")
        before = store.generation()
        subprocess.run([sys.executable, "-c", _OTHER_PROCESS, db_url, str(store.schema), "memo"],
                       check=True, timeout=120)
        assert store.generation() != before
        assert store.get_document("memo").acl_groups == {"hr"}


def test_rolled_back_write_leaves_the_generation(db_url: str) -> None:
    embedder = FakeEmbedder(dim=DIM)
    with PostgresStore(db_url) as store:
        _built(store, embedder, "memo")
        before = store.generation()
        bad = make_write(embedder, "bad", ["Bad."], groups=["staff"])
        clash = replace(bad, chunks=[replace(bad.chunks[0], chunk_id=_chunk_id(store))])
        with pytest.raises(StoreError, match="unique"):  # memo's chunk id, in another document
            store.write([clash])
        assert store.generation() == before
        assert [d.doc_id for d in store.list_documents()] == ["memo"]


def _chunk_id(store: PostgresStore) -> str:
    with store._reading() as conn:
        return conn.execute("SELECT chunk_id FROM chunks LIMIT 1").fetchone()[0]


def test_catalog_changes_move_the_generation_and_shadow_writes_do_not(db_url: str) -> None:
    embedder = FakeEmbedder(dim=DIM)
    catalog = PostgresCatalog(db_url)
    with PostgresStore(db_url) as live:
        _built(live, embedder, "old")
        start = live.generation()
        v2 = catalog.create(note="rebuild")
        after_create = live.generation()
        assert after_create != start
        with catalog.open(v2.number) as shadow:
            _built(shadow, embedder, "new")  # another version's writes: not this index's
        assert live.generation() == after_create
        catalog.promote(v2.number)
        after_promote = live.generation()
        assert after_promote != after_create
        catalog.promote(1)  # rollback
        assert live.generation() not in (start, after_create, after_promote)
