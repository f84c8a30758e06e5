"""The typed answer trace serialises to the JSON shape run.json, the HTTP API, the request log
and the web page read: parts that were not reached are left out, optional fields only when set,
keys in pipeline order."""

from __future__ import annotations

import json
from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.trace import (
    AnswerTrace,
    GateTrace,
    IndexInfo,
    ModelsTrace,
    ReaderVerdict,
    RerankTrace,
    Timings,
    TraceDraft,
)
from citewise.types import Answer, Principal

STAFF = Principal.of("staff", tenant="northwind")
LEAVE_Q = "How many weeks of parental leave do employees get?"
GATE = ("passed", "reason", "signal", "score", "threshold", "source", "signals", "missing")


def engine_for(db: Path) -> Engine:
    return Engine(db, Settings.model_validate({"gate": {"threshold": 0.2}}),
                  embedder=FakeEmbedder())


def test_a_declined_answer_has_the_gate_reason_and_no_generation(db: Path) -> None:
    with engine_for(db) as engine:
        answer = engine.ask("What is the airspeed of an unladen swallow?", STAFF,
                            generator=FakeGenerator("x [S1]."))
    trace = answer.to_dict()["trace"]
    assert answer.declined and answer.trace.gate.reason == answer.reason == "weak_evidence"
    assert list(trace) == ["timings_ms", "index", "retrieval", "rerank", "gate", "models"]
    assert list(trace["gate"]) == list(GATE) and trace["gate"]["reason"] == "weak_evidence"
    assert trace["rerank"] == {"status": "off", "scored": 0}
    assert trace["models"] == {"embedder": answer.trace.models.embedder, "reranker": None}
    assert list(trace["timings_ms"]) == ["retrieve", "rerank", "gate", "total"]
    assert list(trace["index"]) == ["version", "embedder", "chunker", "created_at"]
    assert list(trace["retrieval"]) == ["mode", "candidates", "hits"]
    assert list(trace["retrieval"]["hits"][0]) == ["rank", "chunk_id", "doc_id", "score",
                                                   "signals"]


def test_an_answered_trace_has_the_generation_model_and_timings(db: Path) -> None:
    gen = FakeGenerator("Every employee who becomes a parent receives 20 weeks of fully paid "
                        "parental leave [{sid:20 weeks}].")
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    trace = json.loads(json.dumps(answer.to_dict()))["trace"]
    assert trace == answer.trace.to_dict()
    assert list(trace) == ["timings_ms", "index", "retrieval", "rerank", "gate", "models",
                           "context", "generation", "enforce"]
    assert list(trace["timings_ms"]) == ["retrieve", "rerank", "gate", "context", "generate",
                                         "validate", "total"]
    assert trace["generation"]["model"] == answer.trace.generation.model == gen.model_id
    assert list(trace["generation"]) == ["model", "tokens_in", "tokens_out", "finish_reason",
                                         "seconds", "timeout_s", "notes"]  # no "chosen"
    assert trace["models"]["generator"] == gen.model_id
    assert trace["enforce"] == {"policy": "strict", "removed": [], "outcome": "answered"}
    assert list(trace["context"]) == ["tokens", "passages", "dropped"]
    assert list(trace["context"]["passages"][0]) == ["id", "chunk_id", "tokens"]
    assert "dry_run" not in trace and "budget" not in trace and "reader" not in trace["gate"]


def test_parts_leave_out_what_was_not_set() -> None:
    assert AnswerTrace().to_dict() == {} and Answer("q", "a", False, None).to_dict()["trace"] == {}
    assert AnswerTrace(dry_run=True).to_dict() == {"dry_run": True}
    assert IndexInfo(3).to_dict() == {"version": 3}  # an index without a manifest
    assert Timings(retrieve=1.0, total=2.0).to_dict() == {"retrieve": 1.0, "total": 2.0}
    assert ModelsTrace("e", None).to_dict() == {"embedder": "e", "reranker": None}
    assert RerankTrace("error", 0, 8, "m", 1.5, "boom").to_dict() == {
        "status": "error", "scored": 0, "of": 8, "model": "m", "ms": 1.5, "error": "boom"}
    verdict = ReaderVerdict(False, 0.2, 0.2, 0.5, "settings", "r", 0.1)
    gate = GateTrace(False, "reader_no", "s", 0.3, 0.2, "index", {"s": 0.3}, ("x",), verdict)
    assert list(gate.to_dict()) == [*GATE, "reader"]
    assert gate.to_dict()["reader"] == {"passed": False, "p_yes": 0.2, "score": 0.2,
                                        "threshold": 0.5, "source": "settings", "model": "r",
                                        "seconds": 0.1, "error": None}


def test_the_draft_replaces_parts_and_keeps_timings_in_pipeline_order() -> None:
    draft = TraceDraft()
    draft.time(gate=3.0)
    draft.time(retrieve=1.0)
    draft.set(rerank=RerankTrace("off", 0))
    draft.time(gate=4.0)  # a stage run again adds its time and keeps its place
    assert draft.trace.to_dict() == {"timings_ms": {"retrieve": 1.0, "gate": 7.0},
                                     "rerank": {"status": "off", "scored": 0}}
