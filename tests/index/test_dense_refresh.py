"""The SQLite dense matrix catches up with writes by re-reading only the documents they
touched (``dense_changes``), on its own connection, without holding the store's lock; it
reloads in full when the change log no longer reaches back far enough. Results equal a fresh
store's (the conformance suite's ``test_dense_follows_interleaved_writes`` covers the mix)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from citewise.index.manifest import make_manifest
from citewise.index.sqlite import SQLiteStore, dense_state
from citewise.testing.conformance import DIM, HR, QUERY, STAFF, corpus_writes, make_write
from citewise.testing.fakes import FakeEmbedder


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=DIM)


@pytest.fixture(params=["shared", "isolated"])
def store(request, tmp_path: Path, embedder: FakeEmbedder):
    with SQLiteStore(tmp_path / "index.db") as s:
        s.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "test-chunker",
                                        request.param))
        s.write(corpus_writes(embedder))
        yield s


@pytest.fixture
def full_loads(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = dense_state._load_matrix

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(dense_state, "_load_matrix", counting)
    return calls


def same_as_fresh(store: SQLiteStore, embedder: FakeEmbedder, query: str) -> list[str]:
    got = store.search_dense(embedder.embed_query(query), 10, STAFF)
    with SQLiteStore(store.path) as fresh:
        want = fresh.search_dense(embedder.embed_query(query), 10, STAFF)
    assert got == want
    return [r.chunk_id for r in got]


def test_writes_are_applied_incrementally(store, embedder, full_loads) -> None:
    assert store.search_dense(embedder.embed_query(QUERY), 5, HR)
    assert len(full_loads) == 1
    store.write([make_write(embedder, "memo", ["Holiday memo for staff."], groups=["staff"])])
    assert same_as_fresh(store, embedder, "holiday memo")[0].startswith("memo#")
    store.set_acl("memo", ["hr"])
    assert not any(c.startswith("memo#") for c in same_as_fresh(store, embedder, "holiday"))
    store.delete(["handbook"])
    assert not any(c.startswith("handbook#") for c in same_as_fresh(store, embedder, "leave"))
    assert store.search_dense(embedder.embed_query(QUERY), 5, HR)
    # one load by the long-lived store, one by each of the 3 fresh stores: no reload
    assert len(full_loads) == 1 + 3


def test_log_no_longer_reaching_back_reloads_in_full(store, embedder, full_loads) -> None:
    store.search_dense(embedder.embed_query(QUERY), 5, STAFF)
    store.write([make_write(embedder, "memo", ["Holiday memo for staff."], groups=["staff"])])
    with store._writing() as conn:  # as if the log had been pruned past this reader
        conn.execute("UPDATE meta SET value = (SELECT value FROM meta WHERE key = "
                     "'generation') WHERE key = 'dense_log_from'")
        conn.execute("DELETE FROM dense_changes")
    assert same_as_fresh(store, embedder, "holiday memo")[0].startswith("memo#")
    assert len(full_loads) == 1 + 1 + 1  # first load, the reload, the fresh store


def test_refresh_does_not_hold_the_store_lock(store, embedder, monkeypatch) -> None:
    store.search_dense(embedder.embed_query(QUERY), 5, STAFF)
    store.write([make_write(embedder, "memo", ["Holiday memo for staff."], groups=["staff"])])
    entered, release = threading.Event(), threading.Event()
    real = dense_state.refresh_state

    def slow(*args, **kwargs):
        entered.set()
        assert release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr("citewise.index.sqlite.vectors.refresh_state", slow)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(
        store.search_dense(embedder.embed_query("holiday memo"), 5, STAFF)))
    worker.start()
    try:
        assert entered.wait(10)
        done = threading.Event()  # another thread's read goes on while the matrix refreshes
        reader = threading.Thread(target=lambda: (store.get_document("memo"),
                                                  store.search_sparse("holiday", 5, STAFF),
                                                  done.set()))
        reader.start()
        assert done.wait(5), "a reader waited for the dense refresh"
        reader.join()
    finally:
        release.set()
        worker.join(10)
    assert result and result[0][0].chunk_id.startswith("memo#")  # type: ignore[index]


def test_a_write_waiting_for_another_process_does_not_block_readers(store, embedder) -> None:
    """A shared store's write (a server's DELETE) waiting for another process's write lock
    holds no lock its readers need: they go on, and see the delete once it returns."""
    from citewise.index.sqlite.migrations import connect

    other = connect(store.path)  # another process's ingest, mid-transaction
    other.execute("BEGIN IMMEDIATE")
    deleted: list[int] = []
    writer = threading.Thread(target=lambda: deleted.append(store.delete(["handbook"])))
    try:
        writer.start()
        time.sleep(0.2)  # the delete is now waiting for the write lock
        started = time.perf_counter()
        assert store.get_document("handbook") is not None
        assert store.search_sparse("leave", 5, STAFF)
        assert store.search_dense(embedder.embed_query("leave"), 5, STAFF)
        assert time.perf_counter() - started < 2.0, "readers waited for the writer"
        assert not deleted
    finally:
        other.execute("COMMIT")
        other.close()
        writer.join(10)
    assert deleted == [1] and store.get_document("handbook") is None
    assert not any(r.chunk_id.startswith("handbook#")
                   for r in store.search_dense(embedder.embed_query("leave"), 10, STAFF))
