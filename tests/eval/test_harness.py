"""run_eval over real SQLite + fake embedder: personas, ACL-hidden pieces, records, JSON."""

import pytest

from citewise.errors import ConfigError
from citewise.eval.compare import compare_runs
from citewise.eval.harness import run_eval
from citewise.eval.questions import parse_question
from citewise.eval.record import EvalRun
from citewise.eval.scoring import score_run


def test_records_hits_and_personas(engine, questions, personas):
    run = run_eval(engine, questions, personas, k=5, principal=personas["staff"])
    by = run.by_id()
    assert [r.id for r in run.records] == ["meal", "train", "salary", "salary-staff", "parking"]
    assert by["meal"].hits[0]["doc_id"] == "travel.md"
    assert by["meal"].hits[0]["anchor"] == "per-diem"
    assert by["train"].hits[0]["heading_path"] == ["Travel policy", "Booking", "Trains"]
    assert by["salary"].persona == "hr" and by["salary"].hits[0]["doc_id"] == "salary.md"
    # staff cannot read salary.md: the piece is hidden, the question becomes unanswerable
    assert by["salary-staff"].hidden == 1 and not by["salary-staff"].answerable
    assert all(h["doc_id"] != "salary.md" for h in by["salary-staff"].hits)
    assert all(r.leaks == 0 for r in run.records)
    assert by["meal"].latency_ms > 0


def test_scores_section_inside_heading_path(engine, questions, personas):
    run = run_eval(engine, questions, personas, k=5, principal=personas["staff"])
    scores = score_run(run)
    # the Trains chunk lies in section "booking" (its heading path), so section hit@1 = 1
    assert scores["train"]["section_hit@1"] == 1.0
    assert "ndcg@10" not in scores["parking"]  # unanswerable: no retrieval figures
    assert "ndcg@10" not in scores["salary-staff"]
    assert scores["meal"]["tokens_per_request"] > 0


def test_as_persona_overrides_everyone(engine, questions, personas):
    run = run_eval(engine, questions, personas, as_persona="hr", k=3)
    assert {r.persona for r in run.records} == {"hr"}
    assert run.by_id()["salary-staff"].answerable


def test_json_round_trip_and_self_comparison_passes(engine, questions, personas, tmp_path):
    run = run_eval(engine, questions, personas, k=5, principal=personas["staff"])
    run.save(tmp_path / "run.json")
    again = EvalRun.load(tmp_path / "run.json")
    assert score_run(again) == score_run(run)
    comparison = compare_runs(run, again)
    assert comparison.passed and all(r.delta == 0 for r in comparison.rows)


def test_missing_persona_and_default_are_refused(engine, questions, personas):
    with pytest.raises(ConfigError, match="no persona and there is no default"):
        run_eval(engine, questions, personas)
    with pytest.raises(ConfigError, match="--as nobody: no such persona"):
        run_eval(engine, questions, personas, as_persona="nobody")
    with pytest.raises(ConfigError, match="persona 'hr' is not in the personas file"):
        run_eval(engine, questions, {"default": personas["staff"]})


class _NoAsk:
    """An engine from before ``ask`` existed: search only."""

    def __init__(self, engine):
        self.settings, self.store, self.search = engine.settings, engine.store, engine.search


def test_answers_without_engine_ask_is_a_clear_error(engine, questions, personas):
    with pytest.raises(ConfigError, match="--answers needs Engine.ask"):
        run_eval(_NoAsk(engine), questions, personas, principal=personas["staff"],
                 answers=True)


def test_answers_are_recorded_and_scored(engine, questions, personas):
    pytest.importorskip("citewise.cite.validate")  # the answer pipeline lands with Engine.ask
    engine.settings = engine.settings.model_copy(update={"generate": engine.settings.generate
                                                         .model_copy(update={"generator":
                                                                             "extractive"})})
    run = run_eval(engine, questions, personas, principal=personas["staff"], answers=True)
    scores = score_run(run)
    for r in run.records:
        assert set(r.answer) >= {"answer", "declined", "fabricated", "unsupported"}
        assert r.answer_latency_ms > 0
    assert "abstention_accuracy" in scores["parking"]
    assert "false_decline_rate" in scores["meal"] and "token_f1" in scores["meal"]
    assert run.with_answers and EvalRun.from_json(run.to_json()).with_answers


def test_unknown_relevant_doc_is_warned(engine, questions, personas):
    questions = [parse_question({"id": "x", "question": "meal allowance",
                                 "relevant": [{"doc": "nope.md", "section": None}]}, "t")]
    run = run_eval(engine, questions, personas, as_persona="staff")
    assert run.warnings and "nope.md" in run.warnings[0]
    assert score_run(run)["x"]["hit@10"] == 0.0


def test_run_json_never_holds_the_api_key(engine, questions, personas):
    engine.settings = engine.settings.model_validate(
        {"retrieve": {"mode": "bm25"}, "generate": {"openai": {"api_key": "sk-secret"}}})
    run = run_eval(engine, questions, personas, as_persona="staff")
    assert "sk-secret" not in run.to_json()
    assert run.settings["generate"]["openai"]["model"] == "gpt-4o-mini"


def test_run_json_never_holds_a_password_in_the_endpoints_url(engine, questions, personas):
    """A security review's ``base_url`` ``http://svc:Pw-HUNTER2@host/v1`` was written whole."""
    engine.settings = engine.settings.model_validate(
        {"retrieve": {"mode": "bm25"},
         "generate": {"openai": {"base_url": "http://svc:Pw-HUNTER2@127.0.0.1:9/v1"}}})
    run = run_eval(engine, questions, personas, as_persona="staff")
    assert "HUNTER2" not in run.to_json()
    assert run.settings["generate"]["openai"]["base_url"] == "http://***@127.0.0.1:9/v1"
    engine.settings = engine.settings.model_validate(  # a token as the user alone
        {"retrieve": {"mode": "bm25"},
         "generate": {"openai": {"base_url": "https://sk-TOKEN1234@a:b@host.example/v1"}}})
    run = run_eval(engine, questions, personas, as_persona="staff")
    assert "TOKEN1234" not in run.to_json() and "a:b" not in run.to_json()
    assert run.settings["generate"]["openai"]["base_url"] == "https://***@host.example/v1"
    engine.settings = engine.settings.model_validate(  # the review: a key in the query
        {"retrieve": {"mode": "bm25"}, "generate": {"openai": {
            "base_url": "https://svc:pa#ss@h.example/v1?api-key=SECRETKEY123&password=PW9"}}})
    run = run_eval(engine, questions, personas, as_persona="staff")
    for secret in ("SECRETKEY123", "PW9", "pa#ss"):
        assert secret not in run.to_json(), secret
