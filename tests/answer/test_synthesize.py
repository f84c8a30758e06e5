"""calibrate --synthesize: questions written by a (here scripted, deterministic) generator
from passages the asker may read; near misses kept only when search confirms the corpus lacks
what they ask about; then the usual calibration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.answer.calibration import collect_records, run_calibration
from citewise.answer.synthesize import synthesize
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.generate.extractive import ExtractiveGenerator
from citewise.testing import FakeEmbedder
from citewise.types import Generation, Principal

STAFF = Principal.of("staff", tenant="northwind")


class ScriptedWriter:
    """Writes a question from the passage's first words; every third near miss names
    something the corpus does contain ("leave"), which must be rejected."""

    model_id = "scripted-writer"

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, prompt, *, max_tokens=512, on_token=None, timeout_s=None):
        self.calls += 1
        passage = re.search(r"<<<\n(.*?)\n>>>", prompt.messages[1]["content"], re.S).group(1)
        topic = " ".join(passage.split()[:8])
        missing = "leave" if self.calls % 3 == 0 else f"Zorblax{self.calls} turbo"
        reply = {"question": f"What does the policy say about {topic}?",
                 "answer": " ".join(passage.split()[2:7]),
                 "unanswerable": f"How do I enable {missing} for this?", "missing": missing}
        return Generation(text="Sure! " + json.dumps(reply), model_id=self.model_id)


def test_synthesized_questions_are_verified_and_calibrate(db: Path) -> None:
    no_reader = Settings.model_validate({"gate": {"reader": "off"}})  # same on every machine
    with Engine(db, no_reader, embedder=FakeEmbedder()) as engine:
        made = synthesize(engine, STAFF, 9, ScriptedWriter())
        answerable = [q for q in made.questions if q.kind == "synthetic"]
        unanswerable = [q for q in made.questions if not q.answerable]
        restricted = [q for q in made.questions if q.kind == "synthetic-restricted"]
        assert len(answerable) == 9 and len(unanswerable) == 6 and len(restricted) == 1
        assert made.counts() == (9, 7)
        assert len(made.rejected) == 3 and all("leave" in r for r in made.rejected)
        docs = {p.doc for q in answerable for piece in q.relevant for p in piece.places}
        assert "hr-compensation-bands-2026" not in docs  # only what the asker may read
        assert restricted[0].relevant[0].places[0].doc == "hr-compensation-bands-2026"
        result = run_calibration(engine, made.questions, {}, STAFF)
        records = collect_records(engine, made.questions, {}, STAFF)
    assert result.n_dev + result.n_test == 16 and result.warning  # a small set says so
    assert [r.answerable for r in records].count(False) == 7  # restricted: not for staff


def test_a_restricted_passages_question_is_kept_only_when_no_readable_page_answers(
        db: Path) -> None:
    from citewise.answer.synthesize import answer_elsewhere

    hr_passage = "Level L4 has a midpoint of 78,000 and a maximum of 88,000."
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert answer_elsewhere(engine, STAFF, "What is the L4 midpoint?", "midpoint of 78,000",
                                hr_passage) is None
        in_readable = answer_elsewhere(engine, STAFF, "How long is parental leave?",
                                       "parental leave", "Paid parental leave is 20 weeks.")
        assert in_readable is not None and "is in the readable" in in_readable
        assert "not the passage's words" in answer_elsewhere(
            engine, STAFF, "What is the L4 midpoint?", "midpoint of 99,000", hr_passage)
        assert "too short" in answer_elsewhere(engine, STAFF, "Is it paid?", "yes", "yes, it is")


def test_extractive_cannot_synthesize(db: Path) -> None:
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine, \
            pytest.raises(ConfigError, match="Fix"):
        synthesize(engine, STAFF, 4, ExtractiveGenerator())


def test_calibrate_cli_synthesize(db: Path, tmp_path: Path, monkeypatch) -> None:
    from citewise.cli import calibrate as calibrate_module
    from citewise.cli.main import cli

    def engine_from(*a, **k):
        engine = Engine(db, Settings(), embedder=FakeEmbedder())
        engine._generator = ScriptedWriter()
        return engine

    monkeypatch.setattr(calibrate_module, "engine_from", engine_from)
    saved = tmp_path / "syn.jsonl"
    result = CliRunner().invoke(cli, ["calibrate", "--synthesize", "9", "--save", str(saved),
                                      "--db", str(db), "--groups", "staff", "--tenant",
                                      "northwind", "--no-store", "--json"])
    assert result.exit_code == 0, result.output
    assert "synthesized 9 answerable and 7 unanswerable" in result.output
    assert len(saved.read_text().splitlines()) == 16
    neither = CliRunner().invoke(cli, ["calibrate", "--db", str(db)])
    assert neither.exit_code == 2 and "--synthesize" in neither.output


def test_a_near_miss_is_absent_when_one_of_its_words_is_in_no_document(db: Path) -> None:
    from citewise.answer.synthesize import absent

    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert absent(engine, STAFF, "Zorblax leave", "Parents get 20 weeks of leave.")
        assert not absent(engine, STAFF, "parental leave", "Some other passage.")
        assert not absent(engine, STAFF, "Zorblax", "The Zorblax policy applies.")
        assert not absent(engine, STAFF, "the", "stopwords only")


class EchoingWriter(ScriptedWriter):
    """A writer whose near misses name what the corpus already says (as the 1.5B did), and
    who copies no answer from a restricted passage."""

    def generate(self, prompt, *, max_tokens=512, on_token=None, timeout_s=None):
        out = super().generate(prompt, max_tokens=max_tokens)
        data = json.loads(out.text.removeprefix("Sure! "))
        data["missing"], data["answer"] = "leave", ""
        return Generation(text=json.dumps(data), model_id=out.model_id)


def test_calibrate_cli_says_when_no_near_miss_was_verified(db: Path, monkeypatch) -> None:
    from citewise.cli import calibrate as calibrate_module
    from citewise.cli.main import cli

    def engine_from(*a, **k):
        engine = Engine(db, Settings(), embedder=FakeEmbedder())
        engine._generator = EchoingWriter()
        return engine

    monkeypatch.setattr(calibrate_module, "engine_from", engine_from)
    result = CliRunner().invoke(cli, ["calibrate", "--synthesize", "6", "--db", str(db),
                                      "--groups", "staff", "--tenant", "northwind",
                                      "--no-store"])
    assert result.exit_code != 0
    assert "none of its near misses was verified unanswerable" in result.output
    assert "'leave' is not verifiably absent" in result.output
    assert "--questions" in result.output
