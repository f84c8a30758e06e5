"""calibrate --synthesize: questions written by a (here scripted, deterministic) generator
from passages the asker may read; near misses kept only when search confirms the corpus lacks
what they ask about; then the usual calibration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.answer.calibration import run_calibration
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
                 "unanswerable": f"How do I enable {missing} for this?", "missing": missing}
        return Generation(text="Sure! " + json.dumps(reply), model_id=self.model_id)


def test_synthesized_questions_are_verified_and_calibrate(db: Path) -> None:
    no_reader = Settings.model_validate({"gate": {"reader": "off"}})  # same on every machine
    with Engine(db, no_reader, embedder=FakeEmbedder()) as engine:
        made = synthesize(engine, STAFF, 9, ScriptedWriter())
        answerable = [q for q in made.questions if q.answerable]
        unanswerable = [q for q in made.questions if not q.answerable]
        assert len(answerable) == 9 and len(unanswerable) == 6
        assert len(made.rejected) == 3 and all("leave" in r for r in made.rejected)
        docs = {p.doc for q in answerable for piece in q.relevant for p in piece.places}
        assert "hr-compensation-bands-2026" not in docs  # only what the asker may read
        result = run_calibration(engine, made.questions, {}, STAFF)
    assert result.n_dev + result.n_test == 15 and result.warning  # a small set says so


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
    assert "synthesized 9 answerable and 6 unanswerable" in result.output
    assert len(saved.read_text().splitlines()) == 15
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
    """A writer whose near misses name what the corpus already says (as the 1.5B did)."""

    def generate(self, prompt, *, max_tokens=512, on_token=None, timeout_s=None):
        out = super().generate(prompt, max_tokens=max_tokens)
        data = json.loads(out.text.removeprefix("Sure! "))
        data["missing"] = "leave"
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
    assert "none of its near misses names something no readable document contains" in \
        result.output and "'leave' is not verifiably absent" in result.output
    assert "--questions" in result.output
