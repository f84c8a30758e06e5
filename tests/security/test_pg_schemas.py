"""PostgreSQL's shared schemas (a security review, CVE-2018-1058's pattern): a role that may
create objects in a schema on citewise's search path could define ``public.&&(text[],
text[])``, closer to the ACL predicate's argument types than pg_catalog's, and every search
would call it. citewise refuses such a search path, and its ACL predicate names
pg_catalog's operator. And a reader of the catalog (``pg_dump``) holds up no search."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import StoreError
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.pg import scratch_database
from citewise.types import Principal

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
pytestmark = pytest.mark.skipif(not PG_URL, reason="CITEWISE_TEST_PG_URL is not set: no "
                                "PostgreSQL server (run `export CITEWISE_TEST_PG_URL=$(.ci/pg "
                                "start)`; .ci/run does this)")


@pytest.fixture
def db_url() -> Iterator[str]:
    with scratch_database(PG_URL) as url:
        yield url


def _sql(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def _index(url: str, folder: Path) -> Engine:
    (folder / "salary.md").write_text("# Salaries\n\nzqplutonium: the CEO is paid 900000 "
                                      "a year.\n", encoding="utf-8")
    engine = Engine(url, Settings(), embedder=FakeEmbedder())
    engine.ingest_paths([folder], {"tenant": "acme", "groups": ["hr"]})
    return engine


def test_a_schema_others_may_write_on_the_search_path_is_refused(db_url: str,
                                                                tmp_path: Path) -> None:
    _sql(db_url, "GRANT CREATE ON SCHEMA public TO PUBLIC")  # PostgreSQL 14's default
    with pytest.raises(StoreError, match="REVOKE CREATE ON SCHEMA public FROM PUBLIC"):
        _index(db_url, tmp_path).close()
    _sql(db_url, "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    _index(db_url, tmp_path).close()


def test_the_acl_predicate_is_pg_catalog_s_operator(db_url: str, tmp_path: Path) -> None:
    """An ``&&`` for ``text[]`` in public that says every group overlaps (made here by the
    superuser, who may) is never the one a search calls."""
    with _index(db_url, tmp_path) as engine:
        _sql(db_url, "CREATE FUNCTION public.any_overlap(a text[], b text[]) RETURNS "
             "boolean LANGUAGE sql AS 'SELECT true'",
             "CREATE OPERATOR public.&& (LEFTARG = text[], RIGHTARG = text[], "
             "FUNCTION = public.any_overlap)")
        nobody = Principal.of("nobody", tenant="acme")
        for mode in ("bm25", "dense", "hybrid"):
            assert engine.search("zqplutonium CEO paid", nobody, mode=mode).hits == (), mode
        assert engine.search("zqplutonium CEO paid", Principal.of("hr", tenant="acme"),
                             mode="bm25").hits


def test_a_new_catalog_connection_does_not_queue_behind_a_reader(db_url: str,
                                                                 tmp_path: Path) -> None:
    """A security review: while ``pg_dump`` held its read lock on the catalog, each new
    connection's ``ALTER TABLE … ADD COLUMN IF NOT EXISTS`` queued behind it, and every
    search of every server queued behind that, until the dump ended."""
    import threading

    import psycopg

    from citewise.index.postgres import PostgresCatalog

    _index(db_url, tmp_path).close()
    done: list[int] = []
    with psycopg.connect(db_url) as dump:  # a transaction holding a read lock, as pg_dump
        dump.execute("SELECT * FROM citewise_catalog.versions").fetchall()
        dump.execute("SELECT * FROM citewise_catalog.changes").fetchall()
        opener = threading.Thread(target=lambda: done.append(
            PostgresCatalog(db_url).live().number), daemon=True)
        opener.start()
        opener.join(timeout=20)
        assert done == [1]


def test_the_text_search_functions_are_pg_catalog_s(db_url: str, tmp_path: Path) -> None:
    """The review of 354c67e: ``to_tsquery('english', …)`` with an untyped literal called a
    ``public.to_tsquery(text, text)`` planted before ``CREATE`` on public was revoked (the
    check passed), and it saw every query and chunk. Here the superuser plants them."""
    _sql(db_url, *(f"CREATE FUNCTION public.{name}(a text, b text) RETURNS {kind} "
                   "LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'hijacked'; END$$"
                   for name, kind in (("to_tsquery", "tsquery"), ("to_tsvector", "tsvector"))))
    with _index(db_url, tmp_path) as engine:
        hits = engine.search("zqplutonium", Principal.of("hr", tenant="acme"), mode="bm25").hits
        assert [h.document.doc_id for h in hits] == ["salary.md"]
