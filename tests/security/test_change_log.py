"""The change log's own guarantees, on both backends: a live version that missed a logged
change (its writer died between the log and the write) applies it on the next call; a write
that fails takes its log entry back; the write gate holds across processes."""

from __future__ import annotations

import multiprocessing
import os
import time
from dataclasses import replace

import pytest

from citewise.errors import StoreError
from citewise.index import open_store
from citewise.index.changelog import acl_change, delete_change
from citewise.index.versions import open_catalog
from citewise.testing.canaries import PERSONAS, CanaryIndex

STAFF = PERSONAS["acme-staff"]


def visible(db: str, bait: str) -> set[str]:
    with open_store(db) as store:
        hits = store.search_sparse(bait, 20, STAFF)
        return {doc.doc_id for _, doc in store.get_chunks([h.chunk_id for h in hits],
                                                          STAFF).values()}


def test_a_change_logged_by_a_writer_that_died_is_applied(canary: CanaryIndex) -> None:
    catalog = open_catalog(canary.db)
    try:
        with catalog.gate():  # what a writer does first; then it "dies" before writing
            catalog.record([delete_change("todelete.md"),
                            acl_change("totighten.md", "acme", ["hr"])])
        assert catalog.live_state().behind
        assert visible(canary.db, "zqbaittodelete zqbaittotighten") == set()  # healed on read
        assert not catalog.live_state().behind
        with catalog.gate():  # again; this time the next write heals it
            catalog.record([delete_change("handbook.md")])
        with open_store(canary.db) as store:
            store.set_acl("salary.md", ["hr", "exec"])
        assert visible(canary.db, "zqbaithandbook") == set()
        assert not catalog.live_state().behind
    finally:
        catalog.close()


def test_a_failed_write_takes_its_log_entry_back(canary: CanaryIndex) -> None:
    catalog = open_catalog(canary.db)
    try:
        before = catalog.changes_since(0)
        with open_store(canary.db) as store:
            doc = store.get_document("handbook.md")
            assert doc is not None
            bad = replace(doc, tenant="")  # refused by the store's checks
            from citewise.protocols import DocumentWrite

            with pytest.raises(StoreError):
                store.write([DocumentWrite(bad, [], {})])
        assert catalog.changes_since(0) == before
        assert not catalog.live_state().behind
    finally:
        catalog.close()


def _hold_gate(db: str, held: multiprocessing.Event, seconds: float) -> None:  # type: ignore[valid-type]
    catalog = open_catalog(db)
    with catalog.gate():
        held.set()  # type: ignore[attr-defined]
        time.sleep(seconds)
    catalog.close()


def _log_then_die(db: str, held: multiprocessing.Event, seconds: float) -> None:  # type: ignore[valid-type]
    catalog = open_catalog(db)
    with catalog.gate():
        catalog.record([delete_change("todelete.md")])
        held.set()  # type: ignore[attr-defined]
        time.sleep(seconds)
    os._exit(0)  # no write, no cleanup: as if killed


def test_reads_do_not_wait_for_a_writer_and_heal_after_it_died(canary: CanaryIndex) -> None:
    ctx = multiprocessing.get_context("fork")
    held = ctx.Event()
    child = ctx.Process(target=_log_then_die, args=(canary.db, held, 1.5))
    child.start()
    try:
        assert held.wait(30)
        started = time.perf_counter()
        assert visible(canary.db, "zqbaittodelete") == {"todelete.md"}  # writer at work
        assert time.perf_counter() - started < 1.0  # the read did not wait for the gate
    finally:
        child.join(30)
    assert visible(canary.db, "zqbaittodelete") == set()  # it died: the read applies the log


def test_the_write_gate_holds_across_processes(canary: CanaryIndex) -> None:
    ctx = multiprocessing.get_context("fork")
    held = ctx.Event()
    child = ctx.Process(target=_hold_gate, args=(canary.db, held, 1.0))
    child.start()
    try:
        assert held.wait(30)
        started = time.perf_counter()
        with open_store(canary.db) as store:
            assert store.delete(["todelete.md"]) == 1  # waits for the other process
        assert time.perf_counter() - started > 0.5
    finally:
        child.join(30)
    assert child.exitcode == 0
    assert visible(canary.db, "zqbaittodelete") == set()


def test_one_engine_shared_by_threads_across_promotions(canary: CanaryIndex) -> None:
    """A server's shape: one Engine, reader threads, promotions back and forth and a delete
    through the same Engine. No error, and once the delete returned no reader sees it, in
    either version."""
    import threading

    from citewise.config import Settings
    from citewise.engine import Engine
    from citewise.testing.canaries import cli
    from citewise.testing.fakes import FakeEmbedder

    assert cli("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)[0] == 0
    catalog = open_catalog(canary.db)
    engine = Engine(canary.db, Settings(), embedder=FakeEmbedder())
    stop, deleted = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    seen_after: list[int] = []
    searches = [0]

    def read() -> None:
        while not stop.is_set():
            try:
                after = deleted.is_set()
                for mode in ("bm25", "dense"):
                    hits = engine.search("zqbaittodelete", STAFF, mode=mode, top_k=20).hits
                    searches[0] += 1
                    if after and any(h.document.doc_id == "todelete.md" for h in hits):
                        seen_after.append(catalog.live_state().number)
            except BaseException as exc:  # reported below
                errors.append(exc)
                return

    readers = [threading.Thread(target=read) for _ in range(4)]
    for t in readers:
        t.start()
    try:
        for number in (1, 2, 1):
            catalog.promote(number)
            time.sleep(0.05)
        assert engine.delete(["todelete.md"]) == 1
        deleted.set()
        for number in (2, 1):
            catalog.promote(number)
            time.sleep(0.05)
    finally:
        stop.set()
        for t in readers:
            t.join(30)
        engine.close()
        catalog.close()
    assert not errors, errors
    assert seen_after == [] and searches[0] > 10
    assert visible(canary.db, "zqbaittodelete") == set()  # version 1, live again


@pytest.mark.postgres
def test_a_catalog_made_before_hand_deletes_were_recorded_gets_their_column(
        pg_db: str, tmp_path) -> None:
    """A PostgreSQL index made by the release before: its catalog had no ``by_hand`` column,
    and the store's kept connection (which sets up nothing once a catalog exists) failed the
    first delete ("column by_hand does not exist"). The first connection now sets it up."""
    import psycopg

    from citewise.testing.canaries import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nzqbaitalpha text.\n")
    (docs / "b.md").write_text("# B\n\nBeta text.\n")
    assert cli("ingest", str(docs), "--groups", "staff", "--db", pg_db, "--no-progress")[0] == 0
    with psycopg.connect(pg_db, autocommit=True) as conn:  # as the release before made it
        conn.execute("ALTER TABLE citewise_catalog.changes DROP COLUMN by_hand")
    code, out = cli("delete", "a.md", "--db", pg_db)
    assert code == 0, out
    code, out = cli("ingest", str(docs), "--groups", "staff", "--db", pg_db, "--no-progress")
    assert code == 0 and "left out 1 file(s) whose documents were deleted" in out, out
