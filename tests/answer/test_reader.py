"""The answerability reader in ``Engine.ask``: real SQLite, FakeEmbedder, and a fake generator
that returns chosen first-token logprobs (``citewise.testing.FakeReaderGenerator``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.answer.reader import (
    QUESTION,
    SHIPPED,
    SHIPPED_THRESHOLD,
    ReaderModel,
    choose_model,
    reader_messages,
    shipped_threshold,
    yes_share,
)
from citewise.cli.ask import print_answer, print_trace
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.testing import FakeEmbedder, FakeGenerator, FakeReaderGenerator
from citewise.types import Principal

STAFF = Principal.of("staff", tenant="northwind")
LEAVE_Q = "How many weeks of parental leave do employees get?"
ANSWER = ("Every employee who becomes a parent receives 20 weeks of fully paid parental leave "
          "[{sid:20 weeks}].")
YES = {"Yes": math.log(0.9), "No": math.log(0.1)}
NO = {"Yes": math.log(0.2), "No": math.log(0.8)}


def engine_for(db: Path, **gate) -> Engine:
    return Engine(db, Settings.model_validate({"gate": {"threshold": 0.2, **gate}}),
                  embedder=FakeEmbedder())


def test_yes_share_reads_the_two_answers_only() -> None:
    cands = [{"token": " yes", "logprob": math.log(0.6)}, {"token": "No", "logprob":
             math.log(0.2)}, {"token": "Maybe", "logprob": math.log(0.2)}]
    assert yes_share(cands) == pytest.approx(0.75)
    assert yes_share([{"token": "Maybe", "logprob": 0.0}]) == 0.5


def test_reader_prompt_shares_the_answer_prompt_prefix(db: Path) -> None:
    gen = FakeGenerator(ANSWER)
    with engine_for(db, reader="off") as engine:
        engine.ask(LEAVE_Q, STAFF, generator=gen)
    prompt = gen.prompts[0]
    messages = reader_messages(prompt)
    assert messages[0] == dict(prompt.messages[0])  # the same system message
    answer_user, reader_user = prompt.messages[1]["content"], messages[1]["content"]
    head = reader_user.removesuffix(QUESTION)
    assert answer_user.startswith(head) and f"Question: {LEAVE_Q}" in head
    assert len(head) > 0.9 * len(answer_user)  # only the last line differs
    assert '<source id="S1"' in head


def test_reader_no_declines_before_the_answer_is_written(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[NO])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert answer.declined and answer.reason == "reader_no" and answer.outcome == "declined"
    assert gen.prompts == [] and len(gen.read) == 1  # read once, never generated
    reader = answer.trace.gate.reader
    assert reader.p_yes == pytest.approx(0.2) and reader.score == pytest.approx(0.2)
    assert (reader.threshold, reader.source, reader.passed) == (0.5, "settings", False)
    assert answer.trace.gate.passed is False and answer.trace.gate.reason == "reader_no"
    assert answer.trace.timings_ms.reader is not None


def test_uncalibrated_reader_records_and_declines_nothing(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[NO])
    with engine_for(db) as engine:  # auto, uncalibrated: the reader is not asked at all
        assert engine.ask(LEAVE_Q, STAFF, generator=gen).trace.gate.reader is None
    assert gen.read == []
    with engine_for(db, reader="on") as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    reader = answer.trace.gate.reader
    assert not answer.declined and reader.p_yes == pytest.approx(0.2)
    assert (reader.threshold, reader.source) == (SHIPPED_THRESHOLD, "uncalibrated")


def test_the_shipped_model_reads_by_default_at_its_own_threshold(db: Path) -> None:
    (model_id, threshold), = SHIPPED.items()
    assert 0 < threshold < 1 and shipped_threshold("another-model@x") == SHIPPED_THRESHOLD
    below = {"Yes": math.log(threshold / 2), "No": math.log(1 - threshold / 2)}
    gen = FakeReaderGenerator(ANSWER, logprobs=[below], model_id=model_id)
    with engine_for(db) as engine:  # auto, uncalibrated index: the shipped threshold applies
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    reader = answer.trace.gate.reader
    assert answer.declined and answer.reason == "reader_no" and gen.prompts == []
    assert (reader.threshold, reader.source) == (threshold, "shipped")
    gen = FakeReaderGenerator(ANSWER, logprobs=[YES], model_id=model_id)
    with engine_for(db) as engine:
        assert not engine.ask(LEAVE_Q, STAFF, generator=gen).declined
    gen = FakeReaderGenerator(ANSWER, logprobs=[below], model_id=model_id)
    with engine_for(db) as engine:  # a dry run (calibrate) does not pay for the shipped reader
        dry = engine.ask(LEAVE_Q, STAFF, generator=gen, dry_run=True)
    assert not dry.declined and gen.read == [] and dry.trace.gate.reader is None


def test_reader_yes_lets_the_answer_through(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[YES])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert not answer.declined and "20 weeks" in answer.answer
    assert answer.trace.gate.reader.passed and answer.trace.gate.passed
    assert gen.read[0][1]["content"].endswith(QUESTION)


def test_reader_runs_in_a_dry_run(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[NO])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen, dry_run=True)
    assert answer.declined and answer.reason == "reader_no" and gen.prompts == []


def test_reader_setting_off_and_auto(db: Path) -> None:
    reading = FakeReaderGenerator(ANSWER, logprobs=[NO])
    with engine_for(db, reader="off", reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=reading)
    assert not answer.declined and reading.read == [] and answer.trace.gate.reader is None
    plain = FakeGenerator(ANSWER)  # auto: a generator that cannot read is not asked
    with engine_for(db) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=plain)
    assert not answer.declined and answer.trace.gate.reader is None
    with engine_for(db, reader="on") as engine, pytest.raises(ConfigError, match="gate.reader"):
        engine.ask(LEAVE_Q, STAFF, generator=plain)


def test_reader_not_asked_when_retrieval_declines(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[YES])
    with engine_for(db, threshold=0.99) as engine:
        answer = engine.ask("quantum chromodynamics of gluon plasma", STAFF, generator=gen)
    assert answer.declined and answer.reason == "weak_evidence" and gen.read == []


def test_a_failed_reader_keeps_the_retrieval_decision_and_says_so(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, fail_read="model timed out")
    with engine_for(db, reader="on") as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert not answer.declined
    assert answer.trace.gate.reader.error == "model timed out"
    assert any("answerability reader failed (model timed out)" in n for n in answer.notes)


def test_settings_and_index_calibration_choose_the_reader_model(db: Path, tmp_path) -> None:
    assert choose_model(None, None) == ReaderModel(source="uncalibrated")
    stored = ReaderModel(-1.0, 2.0, 0.5, 0.4, signal="coverage").to_json()
    assert choose_model(None, stored) == ReaderModel(-1.0, 2.0, 0.5, 0.4, "index", "coverage")
    assert choose_model(0.7, stored).threshold == 0.7 and choose_model(0.7, stored).source == \
        "settings"
    with pytest.raises(ConfigError, match="citewise calibrate"):
        choose_model(None, "{broken")
    gen = FakeReaderGenerator(ANSWER, logprobs=[NO])  # P(yes) 0.2 passes a 0.1 threshold
    with engine_for(db, reader_threshold=0.1) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert not answer.declined and answer.trace.gate.reader.source == "settings"
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    with engine_for(copy) as engine:  # a stored model where the retrieval signal dominates
        engine.store.set_meta("gate.reader", ReaderModel(-5.0, 20.0, 0.1, 0.5).to_json())
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    reader = answer.trace.gate.reader
    assert reader.source == "index" and reader.p_yes == pytest.approx(0.2)
    dense = answer.trace.gate.signals["dense_top"]
    z = -5.0 + 20.0 * dense + 0.1 * math.log(0.2 / 0.8)
    assert reader.score == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-5)
    assert reader.passed == (reader.score >= 0.5)


def test_cli_says_why_and_explains_the_reader(db: Path) -> None:
    gen = FakeReaderGenerator(ANSWER, logprobs=[NO])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)

    def show() -> None:
        print_answer(answer)
        print_trace(answer)

    import click

    out = CliRunner().invoke(click.command()(show)).output
    assert "(declined: the model, reading the passages you may read, judged" in out
    assert "-- reader: fake-reader P(yes) 0.2, score 0.2 vs 0.5 (settings" in out
    assert "-> reader_no" in out
    assert json.loads(json.dumps(answer.to_dict()))["trace"]["gate"]["reader"]["p_yes"] == 0.2


def test_a_doubtful_reading_lets_no_quote_stand_in_for_a_failed_answer(db: Path) -> None:
    """When none of the model's sentences holds, quoting the sources in its place answered
    unanswerable questions (httpx's gzip upload, ninja's build server); the reader's score
    just over its threshold now declines instead, and a clear one looks for the quote."""
    wrong = ("Every employee who becomes a parent receives 30 weeks of parental leave "
             "[{sid:20 weeks}].")
    just = {"Yes": math.log(0.55), "No": math.log(0.45)}
    gen = FakeReaderGenerator(wrong, logprobs=[just])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert answer.declined and answer.reason == "unsupported", answer.answer
    assert any("answerability 0.550 is under 0.600" in n for n in answer.notes), answer.notes
    gen = FakeReaderGenerator(wrong, logprobs=[YES])
    with engine_for(db, reader_threshold=0.5) as engine:
        answer = engine.ask(LEAVE_Q, STAFF, generator=gen)
    assert not any("answerability" in n for n in answer.notes)  # a quote was looked for
    assert any("no source sentence says what the answer claimed" in n for n in answer.notes)
