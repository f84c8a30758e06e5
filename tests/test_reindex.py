"""``reindex`` on real SQLite with deterministic embedders, on the bundled corpus: a worse
pipeline is refused and the live index keeps answering; a better one is promoted; rollback;
deletes/ACL/content changes made during the build are carried over; records are copied
exactly; documents without a stored body."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError, VersionError
from citewise.index import open_store
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.catalog import SQLiteCatalog
from citewise.index.versions import rollback_target
from citewise.indexing import Pending
from citewise.ingest import read_sidecar
from citewise.reindex import eval_gate, reindex
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.versions import NoiseEmbedder
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "corpus"
META = ROOT / "examples" / "corpus.meta.jsonl"
EVAL = ROOT / "tests" / "data" / "reindex_eval.jsonl"
PERSONAS = ROOT / "tests" / "data" / "reindex_personas.json"
STAFF = Principal.of("staff", tenant="northwind")
QUERIES = ("how long is parental leave", "reset my okta password", "robot error E42")


def settings(chunk_tokens: int = 192) -> Settings:
    return Settings.model_validate({"retrieve": {"mode": "dense"},
                                    "chunk": {"chunk_tokens": chunk_tokens}})


def weak() -> FakeEmbedder:
    return FakeEmbedder(dim=16, model_id="fake-bow-16")


def strong() -> FakeEmbedder:
    return FakeEmbedder(dim=256, model_id="fake-bow-256")


@dataclass
class Verdict:
    """A gate's outcome, for gates injected by the tests."""

    passed: bool = True
    reasons: list[str] = field(default_factory=list)


def passing_gate(live: Engine, shadow: Engine) -> Verdict:
    return Verdict()


def gate() -> object:
    return eval_gate(EVAL, PERSONAS, samples=200)


def build(home: Path, embedder: FakeEmbedder) -> Path:
    with Engine(home, settings(), embedder) as engine:
        report = engine.ingest_paths([CORPUS], {"tenant": "northwind", "groups": ["staff"]},
                                     read_sidecar(META))
    assert report.count("new") == 13
    return home


def answers(home: Path, embedder: FakeEmbedder) -> list[list[str]]:
    with Engine(home, settings(), embedder) as engine:
        return [[h.chunk.chunk_id for h in engine.search(q, STAFF).hits] for q in QUERIES]


def states(home: Path) -> dict[int, str]:
    with SQLiteCatalog(home) as catalog:
        return {v.number: v.state for v in catalog.versions()}


def documents(path: str | Path) -> list:
    with SQLiteStore(path) as store:
        return store.list_documents()


def test_worse_pipeline_is_refused_and_live_keeps_answering(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    before = answers(home, strong())
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), gate(), embedder=NoiseEmbedder(),
                         live_embedder=strong())
        refused = catalog.versions()[1]
    assert report.decision == "refused" and not report.promoted
    assert any(r.startswith("ndcg@10 dropped") for r in report.reasons), report.reasons
    ndcg = next(r for r in report.comparison.rows if r.metric == "ndcg@10")
    assert ndcg.new < ndcg.base - 0.2
    assert states(home) == {1: "live", 2: "refused"}
    assert refused.note.startswith("refused from version 1: embedder noise-64")
    assert "ndcg@10" in refused.note
    assert open_store(home).path == str(home)
    assert answers(home, strong()) == before
    assert len(documents(f"{home}.v2")) == 13  # kept for inspection, never served


def test_better_pipeline_is_promoted_then_rolled_back(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", weak())
    before = answers(home, weak())
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(chunk_tokens=128), gate(), embedder=strong(),
                         live_settings=settings(), live_embedder=weak())
    assert report.decision == "promoted", report.reasons
    assert all(r.new >= r.base for r in report.comparison.rows), report.comparison.rows
    assert (report.copied, report.failed, report.missing) == (13, {}, [])
    assert states(home) == {1: "retired", 2: "live"}
    with Engine(home, settings(128), strong()) as engine:
        manifest = engine.store.manifest()
        assert (manifest.embedder_id, manifest.chunker_params["chunk_tokens"]) == (
            "fake-bow-256", 128)
        hits = engine.search("how many weeks of parental leave", STAFF).hits
        assert hits[0].document.doc_id == "hr-leave-policy"
    assert documents(f"{home}.v2") == documents(home)
    with SQLiteCatalog(home) as catalog:
        catalog.promote(rollback_target(catalog.versions()).number, note="rollback")
    assert states(home) == {1: "live", 2: "retired"}
    assert answers(home, weak()) == before


def test_changes_during_the_build_are_carried_over(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    changed_text = "Parental leave is now twenty weeks, paid in full."

    def edit_live(_: int) -> None:  # runs after the first batch reached the shadow
        if getattr(edit_live, "done", False):
            return
        edit_live.done = True  # type: ignore[attr-defined]
        with Engine(home, settings(), strong()) as live:
            live.delete(["fin-travel-policy"])
            live.set_acl("fin-expense-policy", ["finance"], tenant="northwind")
            parsed = live.store.get_parsed("hr-leave-policy")
            new = type(parsed)(title=parsed.title, text=changed_text, blocks=(
                type(parsed.blocks[0])(kind="text", text=changed_text, start=0,
                                       end=len(changed_text)),), metadata=parsed.metadata)
            live.ingest([Pending("leave", "hr-leave-policy", lambda: new)])

    def gate_with_delete(live: Engine, shadow: Engine) -> Verdict:
        live.store.delete(["it-service-desk"])  # a delete while the evaluation runs
        return Verdict()

    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), gate_with_delete, embedder=strong(),
                         on_progress=edit_live)
    assert report.decision == "promoted", report.reasons
    # the deletes and the ACL change reach the shadow at once (the change log settles
    # shadows too), so the catch-up counts only what was left to it: the changed text
    assert report.deleted_during_build <= 2 and report.rewritten_during_build >= 1
    promoted = {d.doc_id: d for d in documents(f"{home}.v2")}
    assert "fin-travel-policy" not in promoted and "it-service-desk" not in promoted
    assert promoted["fin-expense-policy"].acl_groups == {"finance"}
    assert promoted["hr-leave-policy"].version == 2
    assert list(promoted.values()) == documents(home)
    with Engine(home, settings(), strong()) as engine:
        hits = engine.search("parental leave weeks", STAFF).hits
        assert hits[0].chunk.text == changed_text
        assert not {"fin-travel-policy", "it-service-desk", "fin-expense-policy"} & {
            h.document.doc_id for h in engine.search("travel expenses desk", STAFF,
                                                     top_k=50).hits}


def test_records_are_copied_exactly_and_force_is_noted(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    with Engine(home, settings(), strong()) as live:
        live.set_acl("hr-leave-policy", ["staff", "managers"])  # not in the stored metadata
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(chunk_tokens=96), None, embedder=strong(),
                         force=True)
        note = catalog.live().note
    assert report.decision == "forced" and report.promoted
    assert any("no eval set" in r for r in report.reasons)
    assert note.startswith("FORCED promotion from version 1") and "no eval set" in note
    assert documents(f"{home}.v2") == documents(home)
    assert {d.doc_id: d.acl_groups for d in documents(f"{home}.v2")}["hr-leave-policy"] == {
        "staff", "managers"}


def test_without_a_gate_the_shadow_is_refused(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), None, embedder=strong())
    assert report.decision == "refused" and "Fix:" in report.reasons[0]
    assert states(home) == {1: "live", 2: "refused"}


def _drop_body(home: Path, doc_id: str, source_url: str | None = None) -> None:
    with SQLiteStore(home) as store, store._writing() as conn:
        conn.execute("DELETE FROM doc_sources WHERE doc_rowid = "
                     "(SELECT id FROM documents WHERE doc_id = ?)", (doc_id,))
        if source_url is not None:
            conn.execute("UPDATE documents SET source_url = ? WHERE doc_id = ?",
                         (source_url, doc_id))


def test_documents_without_a_stored_body(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    _drop_body(home, "hr-leave-policy")  # its source file is still there
    _drop_body(home, "fin-travel-policy", source_url=str(tmp_path / "gone.md"))
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), passing_gate, embedder=strong())
    assert report.reread == ["hr-leave-policy"]
    assert report.missing == ["fin-travel-policy"]
    assert report.decision == "refused"
    assert any("could not be copied: fin-travel-policy" in r for r in report.reasons)
    assert "Fix: re-ingest fin-travel-policy" in report.failed["fin-travel-policy"]
    copied = {d.doc_id for d in documents(f"{home}.v2")}
    assert "hr-leave-policy" in copied and "fin-travel-policy" not in copied


def test_a_damaged_stored_body_fails_its_document_alone(tmp_path: Path) -> None:
    """A review: with the index's own errors stopping an ingest batch, one document's
    damaged stored body (a StoreError) refused the whole reindex, naming no document."""
    home = build(tmp_path / "index.db", strong())
    with SQLiteStore(home) as store, store._writing() as conn:
        conn.execute("UPDATE doc_sources SET body = x'00112233' WHERE doc_rowid = "
                     "(SELECT id FROM documents WHERE doc_id = 'hr-leave-policy')")
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), passing_gate, embedder=strong())
    assert "stored document body is damaged" in report.failed["hr-leave-policy"]
    copied = {d.doc_id for d in documents(f"{home}.v2")}
    assert "hr-leave-policy" not in copied and len(copied) == report.copied > 0


def test_a_failed_build_refuses_the_shadow(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())
    with SQLiteCatalog(home) as catalog:
        with pytest.raises(RuntimeError, match="simulated failure"):
            reindex(catalog, settings(), passing_gate,
                    embedder=FakeEmbedder(dim=256, model_id="fake-bow-256", fail_after=3))
        shadow = catalog.versions()[1]
    assert shadow.state == "refused" and shadow.note.startswith("reindex failed: RuntimeError")
    assert open_store(home).path == str(home)


def test_empty_index_and_bad_eval_set_fail_before_building(tmp_path: Path) -> None:
    with SQLiteCatalog(tmp_path / "empty.db") as catalog:
        with pytest.raises(VersionError, match="Fix:"):
            reindex(catalog, settings(), passing_gate, embedder=strong())
        assert [v.number for v in catalog.versions()] == [1]
    with pytest.raises(ConfigError):
        eval_gate(tmp_path / "missing.jsonl")


def test_strict_verdict_blocks_measured_drops_beyond_the_tolerance() -> None:
    from citewise.eval.compare import CompareRow, Comparison
    from citewise.reindex import strict_verdict

    def row(metric: str, delta: float, regressed: bool = False) -> CompareRow:
        return CompareRow(metric, 0.8, 0.8 + delta, delta, delta - 0.1, delta + 0.1,
                          0.1, regressed, 12)

    inside = Comparison(passed=True, rows=[row("ndcg@10", -0.02), row("recall@10", 0.0)],
                        reasons=[])
    verdict = strict_verdict(inside, tolerance=0.0)
    assert not verdict.passed and verdict.worse == ["ndcg@10"]
    assert "ndcg@10 measured worse 0.8000 -> 0.7800" in verdict.reasons[0]
    assert "Fix:" in verdict.reasons[0]
    assert strict_verdict(inside, tolerance=0.02).passed  # allowed exactly
    assert not strict_verdict(inside, tolerance=0.019).passed
    better = Comparison(passed=True, rows=[row("ndcg@10", 0.05), row("latency_ms", -3.0)],
                        reasons=[])
    assert strict_verdict(better, 0.0).passed
    slower = Comparison(passed=True, rows=[row("latency_ms", 3.0)], reasons=[])
    assert strict_verdict(slower, 0.0).worse == ["latency_ms"]  # lower is better
    flagged = Comparison(passed=False, rows=[row("ndcg@10", -0.3, regressed=True)],
                         reasons=["ndcg@10 dropped 0.8 -> 0.5"])
    verdict = strict_verdict(flagged, 0.0)
    assert verdict.reasons == ["ndcg@10 dropped 0.8 -> 0.5"] and not verdict.passed


def test_a_promotion_made_meanwhile_refuses_the_stale_shadow(tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", strong())

    def rival_promotes(live: Engine, shadow: Engine) -> Verdict:
        with SQLiteCatalog(home) as other:
            rival = other.create(note="another reindex")
            with other.open(rival.number) as store:
                store.ensure_manifest(live.store.manifest())  # type: ignore[arg-type]
            other.promote(rival.number)
        return Verdict()

    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), rival_promotes, embedder=strong())
    assert report.decision == "refused"
    assert any("version 3 was made live while this reindex ran" in r for r in report.reasons)
    assert states(home) == {1: "retired", 2: "refused", 3: "live"}


def test_an_index_chunked_by_another_release_is_searched_then_rebuilt_by_reindex(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.config import ChunkSettings
    from citewise.errors import IndexMismatchError

    current = ChunkSettings.params
    with monkeypatch.context() as patch:  # the index an earlier release built
        patch.setattr(ChunkSettings, "params",
                      lambda self: {**current(self), "chunker": "structure-v2"})
        home = build(tmp_path / "index.db", strong())
    assert answers(home, strong())[0]  # searches still work
    extra = tmp_path / "extra.md"
    extra.write_text("# Bikes\n\nStaff may borrow a bike for a week.\n")
    owner = {"tenant": "northwind", "groups": ["staff"]}
    with Engine(home, settings(), strong()) as engine:
        with pytest.raises(IndexMismatchError, match=r"structure-v2.*`citewise reindex --force`"):
            engine.ingest_paths([extra], owner)
        assert len(engine.store.list_documents()) == 13  # nothing written
    with SQLiteCatalog(home) as catalog:  # what `citewise reindex --force` runs
        report = reindex(catalog, settings(), None, embedder=strong(), force=True)
    assert report.decision == "forced" and report.copied == 13, report.reasons
    with Engine(home, settings(), strong()) as engine:
        chunker = engine.store.manifest().chunker_params["chunker"]
        assert chunker == settings().chunk.params()["chunker"]
        assert engine.ingest_paths([extra], owner).count("new") == 1
        assert engine.search("borrow a bike", STAFF).hits[0].document.title == "Bikes"


def test_a_write_racing_a_promotion_follows_the_new_version(tmp_path):
    """A review: an upload whose engine looked at the live version just before a reindex
    with other chunk settings was promoted got a 409 "built with a different pipeline"."""
    db = tmp_path / "index.db"
    writer = Engine(db, Settings(), embedder=FakeEmbedder())
    writer.ingest_files([CORPUS], {"groups": ["staff"]})
    with Engine(db, Settings(), embedder=FakeEmbedder()) as other:
        assert other.reindex(chunk_tokens=128, force=True).promoted
    real, calls = writer._observe, []

    def stale_once() -> None:  # the promotion lands between the look and the write
        calls.append(1)
        if len(calls) > 1:
            real()

    writer._observe = stale_once  # type: ignore[method-assign]
    page = tmp_path / "late.md"
    page.write_text("# Late\n\nWritten during a promotion.\n", encoding="utf-8")
    report = writer.ingest_files([page], {"groups": ["staff"]})
    assert report.summary["new"] == 1 and writer.settings.chunk.chunk_tokens == 128
    writer.close()


def test_a_document_deleted_during_the_build_is_never_written_into_the_shadow(
        tmp_path: Path) -> None:
    """A security review: a document deleted while the build ran was still copied into the
    shadow (re-read from its source file when stored without a body) and readable there,
    opening the shadow's file, until the catch-up removed it."""
    from citewise.reindex import ReindexReport, _Copier

    home = build(tmp_path / "index.db", strong())
    _drop_body(home, "hr-leave-policy")  # re-read from its source file when copied
    with Engine(home, settings(), strong()) as live, \
            Engine(tmp_path / "shadow.db", settings(), strong()) as shadow:
        listed = live.store.list_documents()  # the build's list, taken before the deletes
        live.delete(["hr-leave-policy", "fin-travel-policy"])
        live.set_acl("fin-expense-policy", ["finance"], tenant="northwind")
        shadow.store.ensure_manifest(shadow.expected_manifest())
        report = ReindexReport(live_version=1, version=2)
        copier = _Copier(live.store, shadow, report)
        copier.copy(listed)
        copied = {d.doc_id: d for d in shadow.store.list_documents()}
        assert "hr-leave-policy" not in copied and "fin-travel-policy" not in copied
        assert "fin-expense-policy" not in copied  # its listed record is no longer live
        assert (report.failed, report.missing, report.reread) == ({}, [], [])
        assert len(copied) == 10
        assert copier.catch_up()  # the changed record is the catch-up's, as before
        assert shadow.store.list_documents() == live.store.list_documents()


def _calibrate(home: Path, tenant: str | None, threshold: str) -> None:
    from citewise.index.meta_keys import gate_key

    with SQLiteStore(home) as store:
        store.set_meta(gate_key("threshold", tenant), threshold)
        store.set_meta(gate_key("signal", tenant), "combined")


def test_a_rebuild_with_the_same_embedder_keeps_each_tenants_gate_calibration(
        tmp_path: Path) -> None:
    """A security review's `reindex` answered every tenant from the shipped gate: each
    tenant's calibrated threshold stayed in the retired version until calibrated again."""
    from citewise.answer.gate_store import stored_gate

    home = build(tmp_path / "index.db", strong())
    _calibrate(home, "northwind", "0.731")
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), None, embedder=strong(), force=True)
    assert report.promoted and report.calibration == ["northwind"], report
    assert report.uncalibrated == []
    with SQLiteStore(f"{home}.v2") as store:
        gate = stored_gate(store, "northwind")
        assert (gate.signal, gate.threshold) == ("combined", "0.731")


def test_a_rebuild_with_another_embedder_names_the_tenants_to_calibrate_again(
        tmp_path: Path) -> None:
    home = build(tmp_path / "index.db", weak())
    _calibrate(home, "northwind", "0.731")
    _calibrate(home, None, "0.5")  # an index-wide calibration of an older release
    with SQLiteCatalog(home) as catalog:
        report = reindex(catalog, settings(), None, embedder=strong(), force=True)
    assert report.promoted and report.calibration == []
    assert report.uncalibrated == ["*", "northwind"]  # their scores differ: not carried
    with SQLiteStore(f"{home}.v2") as store:
        assert store.get_meta("gate.threshold@northwind") is None
