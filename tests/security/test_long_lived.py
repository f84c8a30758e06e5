"""A long-lived Engine (a server holds one for days) across a reindex that changes the
pipeline: its ingests land in the new live version, built with the new chunking, and when
it loads its own model it switches to the model the new version was built with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import IndexMismatchError
from citewise.index.versions import open_catalog
from citewise.reindex import reindex
from citewise.testing.canaries import PERSONAS, CanaryIndex, cli
from citewise.testing.fakes import FakeEmbedder

STAFF = PERSONAS["acme-staff"]
OPERATOR = {"tenant": "acme", "groups": ["staff"]}


def test_ingest_through_a_long_lived_engine_after_reindex(canary: CanaryIndex,
                                                          tmp_path: Path) -> None:
    late = tmp_path / "late"
    late.mkdir()
    (late / "late.md").write_text("# Late\n\nThe zqbaitlate memo arrived after the reindex.\n")
    with Engine(canary.db, Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.search("zqbaithandbook", STAFF, mode="bm25").hits
        code, out = cli("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
        assert code == 0, out
        report = engine.ingest_paths([late], OPERATOR)
        assert report.count("new") == 1
        assert engine.settings.chunk.chunk_tokens == 128  # the live version's chunking
        assert [h.document.doc_id for h in
                engine.search("zqbaitlate", STAFF, mode="hybrid").hits][0] == "late.md"
    code, out = cli("search", "zqbaitlate", "--tenant", "acme", "--groups", "staff",
                    "--mode", "bm25", "--json", "--db", canary.db)
    assert [h["doc_id"] for h in json.loads(out)] == ["late.md"]  # a new process sees it
    catalog = open_catalog(canary.db)
    try:
        with catalog.open(2) as v2:
            assert v2.get_document("late.md") is not None
    finally:
        catalog.close()


def test_a_fresh_engine_adopts_the_index_chunking_unless_it_was_given_one(
        canary: CanaryIndex, tmp_path: Path) -> None:
    """After the README's `citewise reindex --chunk-tokens 128`, a plain `citewise ingest`
    (no chunk settings configured) chunks as the live version was built; chunk settings
    configured otherwise are still an error naming the fix."""
    code, out = cli("reindex", "--chunk-tokens", "128", "--force", "--db", canary.db)
    assert code == 0, out
    late = tmp_path / "late"
    late.mkdir()
    (late / "late.md").write_text("# Late\n\nText.\n")
    given = Settings.model_validate({"chunk": {"chunk_tokens": 256}})
    with Engine(canary.db, given, embedder=FakeEmbedder()) as engine, \
            pytest.raises(IndexMismatchError, match="chunk settings it was built with"):
        engine.ingest_paths([late], OPERATOR)
    code, out = cli("ingest", str(late), "--tenant", "acme", "--groups", "staff",
                    "--no-progress", "--db", canary.db)
    assert code == 0 and "1 new" in out, out


def test_an_engine_follows_the_model_of_the_promoted_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import citewise.embed as embed
    from citewise.embed.models import SHIPPED_MODELS

    def fake_loader(settings=None):  # each shipped name: a fake with that model's id
        return FakeEmbedder(dim=64, model_id=SHIPPED_MODELS[settings.model].model_id)

    monkeypatch.setattr(embed, "load_embedder", fake_loader)
    int8 = Settings.model_validate({"embed": {"model": "all-minilm-l6-v2-int8"}})
    fp32 = Settings.model_validate({"embed": {"model": "all-minilm-l6-v2-fp32"},
                                    "chunk": {"chunk_tokens": 128}})
    db = str(tmp_path / "m.db")
    index = CanaryIndex(db)
    index.ingest(tmp_path / "docs")  # the CLI's default model: int8
    with Engine(db, int8) as engine:  # loads its own model
        assert engine.search("zqbaithandbook", STAFF, mode="dense").hits
        catalog = open_catalog(db)
        try:
            made = reindex(catalog, fp32, None, force=True, live_settings=int8)
        finally:
            catalog.close()
        assert made.promoted
        hits = engine.search("zqbaithandbook", STAFF, mode="dense").hits
        assert hits and engine.index_info().embedder == SHIPPED_MODELS[
            "all-minilm-l6-v2-fp32"].model_id
        assert engine.embedder.model_id == engine.index_info().embedder
