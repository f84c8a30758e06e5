"""Parallel ingest (worker processes, Ray actors) against the serial path, over real SQLite,
the real loaders and chunker, and the deterministic FakeEmbedder (pickled into each worker)."""

import functools
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import BackendUnavailable, ConfigError, WorkerError
from citewise.indexing import Pending
from citewise.ingest import read_sidecar
from citewise.parallel import index_parallel
from citewise.parallel.pipeline import shard
from citewise.sources import beir_sources, file_sources
from citewise.testing import FakeEmbedder
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "corpus"
META = ROOT / "examples" / "corpus.meta.jsonl"
STAFF = Principal.of("staff", tenant="northwind")
HR = Principal.of("hr", tenant="northwind")
QUERIES = ["how many vacation days", "salary band level 5", "firmware release rollback",
           "report a security incident", "expense receipts travel"]
DEFAULTS = {"tenant": "northwind", "groups": ["staff"]}


def ingest(db: Path, docs: Path, workers: int, **kw):
    """The example corpus's sidecar goes with the example corpus only: its lines set groups,
    and a line that names no file stops an ingest of another folder."""
    sidecar = read_sidecar(META) if (docs / "compensation-bands.md").is_file() else None
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        return engine.ingest_paths([docs], DEFAULTS, sidecar, workers=workers, **kw)


def snapshot(db: Path) -> dict:
    """Everything the index holds that ingest decides: documents, chunks, vectors."""
    conn = sqlite3.connect(db)
    try:
        return {
            "documents": conn.execute(
                "SELECT doc_id, version, content_hash, title, source_url, owner, tenant "
                "FROM documents ORDER BY doc_id").fetchall(),
            "chunks": conn.execute(
                "SELECT c.chunk_id, d.doc_id, c.ordinal, c.text, c.embed_hash FROM chunks c "
                "JOIN documents d ON d.id = c.doc_rowid ORDER BY c.chunk_id").fetchall(),
            "vectors": conn.execute(
                "SELECT embed_hash, vec FROM vectors ORDER BY embed_hash").fetchall(),
        }
    finally:
        conn.close()


def searches(db: Path) -> list:
    out = []
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        for mode in ("bm25", "dense", "hybrid"):
            for principal in (STAFF, HR):
                for q in QUERIES:
                    hits = engine.search(q, principal, mode=mode, top_k=5).hits
                    out.append([(h.chunk.chunk_id, round(h.score, 6)) for h in hits])
    return out


def outcomes(report) -> list:
    return [(o.label, o.doc_id, o.status, o.chunks, o.embedded, o.error)
            for o in report.outcomes]


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root)
    return root


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The reference: examples/corpus indexed in this process (workers=1)."""
    root = tmp_path_factory.mktemp("serial")
    docs = root / "corpus"
    shutil.copytree(CORPUS, docs)
    report = ingest(root / "serial.db", docs, workers=1)
    return root / "serial.db", docs, report


def test_two_workers_build_the_same_index_as_one(serial, tmp_path):
    serial_db, docs, serial_report = serial
    report = ingest(tmp_path / "w2.db", docs, workers=2)
    assert report.count("new") == 13 and report.count("failed") == 0
    assert outcomes(report) == outcomes(serial_report)
    assert report.unreadable == serial_report.unreadable
    assert report.embedded == serial_report.embedded == report.chunks > 0
    assert snapshot(tmp_path / "w2.db") == snapshot(serial_db)
    assert searches(tmp_path / "w2.db") == searches(serial_db)


@pytest.mark.slow  # several pool start-ups
def test_rerun_skips_unchanged_and_embeds_only_new_chunks(docs, tmp_path):
    db, ref = tmp_path / "index.db", tmp_path / "ref.db"  # ref: the same history, serially
    ingest(db, docs, workers=2), ingest(ref, docs, workers=1)
    again = ingest(db, docs, workers=2)
    assert again.count("unchanged") == 13 and again.embedded == 0
    leave = docs / "leave-policy.md"
    leave.write_text(leave.read_text() + "\n\n## Sabbatical\n\nAfter five years staff may take "
                     "a three-month unpaid sabbatical.\n")
    (docs / "travel-policy.md").touch()  # a touch is no edit
    edited, edited_ref = ingest(db, docs, workers=2), ingest(ref, docs, workers=1)
    assert edited.count("changed") == 1 and edited.count("unchanged") == 12
    changed = next(o for o in edited.outcomes if o.status == "changed")
    assert 0 < changed.embedded < changed.chunks  # unchanged sections reuse cached vectors
    assert outcomes(edited) == outcomes(edited_ref)
    assert snapshot(db) == snapshot(ref)


@pytest.mark.slow  # several pool start-ups
def test_metadata_change_rewrites_without_embedding(docs, tmp_path):
    db = tmp_path / "index.db"
    ingest(db, docs, workers=2)
    # the front matter says groups [staff]: the operator's [ops] is narrowed to nobody (and
    # said so); the owner changes as asked
    sidecar = {**read_sidecar(META), "leave-policy.md": {"groups": ["ops"], "owner": "ops"}}
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], DEFAULTS, sidecar, workers=2)
        doc = engine.store.get_document("hr-leave-policy")
        assert doc is not None and (doc.acl_groups, doc.owner) == (frozenset(), "ops")
        assert any("leave-policy.md: its groups staff" in w for w in report.warnings)
    assert report.count("updated") == 1 and report.count("unchanged") == 12
    assert report.embedded == 0


def test_bad_file_fails_alone_with_the_serial_message(tmp_path, bad_docs):
    docs = bad_docs
    (docs / "empty.md").write_text("---\ntitle: Nothing here\n---\n")
    reports = [ingest(tmp_path / f"w{w}.db", docs, workers=w) for w in (1, 2)]
    assert outcomes(reports[1]) == outcomes(reports[0])
    assert reports[1].count("new") == 1 and reports[1].count("failed") == 4
    errors = {Path(o.label).name: o.error for o in reports[1].outcomes if o.error}
    assert "UTF-8" in errors["bad.txt"] and "no extractable text" in errors["empty.md"]
    assert all("\n" not in e for e in errors.values())


def test_unpicklable_items_are_loaded_here_and_embedded_there(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    rows = [{"_id": f"d{i}", "title": f"Doc {i}", "text": f"alpha beta gamma {i} " * (i + 1)}
            for i in range(20)]
    corpus.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    for w in (1, 2):
        with Engine(tmp_path / f"b{w}.db", Settings(), embedder=FakeEmbedder()) as engine:
            report = engine.ingest(beir_sources(corpus, {"groups": ["all"]}), workers=w)
        assert report.count("new") == 20
    assert snapshot(tmp_path / "b2.db") == snapshot(tmp_path / "b1.db")


@pytest.mark.slow  # several pool start-ups
def test_worker_crash_is_a_clear_error_and_leaves_whole_batches(docs, tmp_path):
    settings = Settings()
    with Engine(tmp_path / "ref.db", settings, embedder=FakeEmbedder()) as engine:
        final_id = {o.label: o.doc_id for o in engine.ingest_paths([docs], DEFAULTS).outcomes}
    items = file_sources([docs], settings.limits, DEFAULTS)
    # The last document kills its worker process outright (as a segfault or OOM kill would).
    # With 3 documents a batch and 2 batches dispatched ahead, it is dispatched only after
    # batches 1 and 2 are written.
    items[12] = Pending(items[12].label, items[12].doc_id, functools.partial(os._exit, 3))
    embedder = FakeEmbedder()
    engine = Engine(tmp_path / "index.db", settings, embedder=embedder)
    store = engine.store
    store.ensure_manifest(engine.expected_manifest())
    try:
        with pytest.raises(WorkerError, match="died unexpectedly.*Fix: rerun"):
            index_parallel(store, embedder, items, settings, workers=2, batch_docs=3)
        committed = {d.doc_id for d in store.list_documents()}
        whole = [{final_id[i.label] for i in items[:k]} for k in (6, 9, 12)]  # whole batches
        assert committed in whole
        report = index_parallel(store, embedder, file_sources([docs], settings.limits, DEFAULTS),
                                settings, workers=2)
        assert report.count("new") == 13 - len(committed)
        assert report.count("unchanged") == len(committed)
    finally:
        store.close()
    assert snapshot(tmp_path / "index.db") == snapshot(tmp_path / "ref.db")


@pytest.mark.slow  # several pool start-ups
def test_embedder_error_in_a_worker_propagates_and_keeps_the_index(docs, tmp_path):
    db = tmp_path / "index.db"
    ingest(db, docs, workers=2)
    before = snapshot(db)
    (docs / "leave-policy.md").write_text("---\ndoc_id: hr-leave-policy\ngroups: [staff]\n---\n"
                                          "# Leave\n\nEveryone gets forty days of leave.\n")
    with Engine(db, Settings(), embedder=FakeEmbedder(fail_after=0)) as engine, \
            pytest.raises(RuntimeError, match="simulated failure"):
        engine.ingest_paths([docs], DEFAULTS, read_sidecar(META), workers=2)
    assert snapshot(db) == before


def test_shards_are_balanced_longest_first():
    todo = [(f"h{i}", "x" * n) for i, n in enumerate([5, 40, 10, 30, 20, 25, 15, 35, 1, 2,
                                                       3, 4, 6, 7, 8, 9, 11, 12])]
    shards = shard(todo, 2)
    # ranked by length: 40 35 30 25 20 15 12 11 10 9 8 7 6 5 4 3 2 1, dealt alternately
    assert [len(t) for _, t in shards[0]] == [40, 30, 20, 12, 10, 8, 6, 4, 2]
    assert [len(t) for _, t in shards[1]] == [35, 25, 15, 11, 9, 7, 5, 3, 1]
    assert len(shard(todo[:9], 4)) == 2  # no shard under MIN_SHARD=8 texts when avoidable
    assert shard([], 4) == [] and len(shard(todo[:3], 4)) == 1


def test_missing_ray_names_the_extra(monkeypatch, docs, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(BackendUnavailable, match=r"pip install 'citewise\[ray\]'"):
        ingest(tmp_path / "index.db", docs, workers=1, ray="local")


def test_bad_ray_address_is_refused(docs, tmp_path):
    with pytest.raises(ConfigError, match="auto, local or ray://host:port"):
        ingest(tmp_path / "index.db", docs, workers=1, ray="localhost:6379")


@pytest.mark.slow
def test_ray_actors_build_the_same_index_and_report_failures(serial, tmp_path):
    ray = pytest.importorskip("ray")
    serial_db, docs, serial_report = serial
    settings = Settings()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        report = ingest(tmp_path / "ray.db", docs, workers=2, ray="local")
        assert outcomes(report) == outcomes(serial_report)
        assert snapshot(tmp_path / "ray.db") == snapshot(serial_db)
        with Engine(tmp_path / "fail.db", settings, embedder=FakeEmbedder(fail_after=0)) as eng, \
                pytest.raises(RuntimeError, match="simulated failure") as raised:
            eng.ingest_paths([docs], DEFAULTS, ray="auto")
        assert "ray" not in type(raised.value).__module__  # the actor's own exception
        items = file_sources([docs], settings.limits, DEFAULTS)
        items[6] = Pending(items[6].label, items[6].doc_id, functools.partial(os._exit, 3))
        with Engine(tmp_path / "crash.db", settings, embedder=FakeEmbedder()) as eng, \
                pytest.raises(WorkerError, match="Ray ingest actor died.*Fix: rerun"):
            eng.ingest(items, ray="auto")
    finally:
        ray.shutdown()


def test_an_index_error_stops_the_parallel_batch_as_the_serial_one(docs, tmp_path,
                                                                    monkeypatch):
    """A review: with --workers 2 a database lost mid-batch was each later file's "failed"
    line and exit 0, as the serial path had been; a damaged stored record still fails
    alone (:func:`citewise.indexing.index_failed`)."""
    from citewise.errors import DamagedRecordError, StoreError
    from citewise.index.sqlite import SQLiteStore

    real, calls = SQLiteStore.get_document, []

    def flaky(self, doc_id):
        calls.append(doc_id)
        if len(calls) > 2:
            raise error
        return real(self, doc_id)

    monkeypatch.setattr(SQLiteStore, "get_document", flaky)
    for workers in (1, 2):
        error, calls[:] = StoreError("cannot read index: Connection refused"), []
        with pytest.raises(StoreError, match="Connection refused"):
            ingest(tmp_path / f"lost{workers}.db", docs, workers=workers)
        error, calls[:] = DamagedRecordError("a stored document body is damaged"), []
        report = ingest(tmp_path / f"damaged{workers}.db", docs, workers=workers)
        assert report.count("failed") >= 1 and report.count("new") >= 1
