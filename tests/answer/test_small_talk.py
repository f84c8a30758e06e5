"""A thanks or a greeting is declined as no question (:mod:`citewise.answer.small_talk`): a
new user's "thanks!" was answered with a changelog's acknowledgement, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.answer.rewrite import Turn, rewrite_followup
from citewise.answer.small_talk import is_small_talk
from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.types import Principal


@pytest.mark.parametrize("text", ["thanks!", "Thank you.", "  OK, thanks ", "hi", "Thx!!"])
def test_small_talk(text: str):
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["thanks, and how do I reuse a stylesheet?",
                                  "who do we thank in the changelog?", "ok, what now?",
                                  "hello world"])
def test_questions_are_not_small_talk(text: str):
    assert not is_small_talk(text)


def test_thanks_is_declined_before_any_search_and_never_rewritten(tmp_path: Path):
    doc = tmp_path / "news.md"
    doc.write_text("# News\n\nThanks to Michael for various fixes and clarifications on this "
                   "document!\n", encoding="utf-8")
    gen = FakeGenerator("Thanks to Michael [S1].")
    settings = Settings.model_validate({"gate": {"threshold": 0.0}})
    with Engine(tmp_path / "x.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([doc], {"groups": ["staff"]})
        answer = engine.converse("thanks!", Principal.of("staff"),
                                 [{"question": "who fixed it?", "answer": "Michael [1]."}],
                                 generator=gen)
    assert answer.declined and answer.reason == "not_a_question"
    assert gen.prompts == [] and answer.trace.retrieval is None
    turns = [Turn("who fixed it?", "Michael.")]
    assert rewrite_followup("Thanks!", turns, gen).query == "Thanks!"


def test_thanks_is_no_drift_and_no_eval_candidate() -> None:
    """A review: a "thanks!" decline ran no search and counted as an empty retrieval and an
    abstention in `citewise monitor`'s rates, and would become an eval-set candidate."""
    from citewise.reqlog.feedback import candidates
    from citewise.reqlog.monitor import rates
    from citewise.reqlog.record import LogRecord

    asked = LogRecord("r1", 1.0, "sam", "default", "ask", "how long is leave?", "h",
                      (("c1", "leave.md", 0.9),), validation="ok")
    thanks = LogRecord("r2", 2.0, "sam", "default", "ask", "thanks!", "h2", declined=True,
                       reason="not_a_question")
    drift = rates([asked, thanks])
    assert drift.asks == 1 and drift.rates["empty_retrieval"] == 0.0
    assert drift.rates["abstention"] == 0.0
    assert list(candidates([thanks])) == []


def test_a_dry_run_of_thanks_says_it_would_decline(tmp_path: Path) -> None:
    """A review: `ask "thanks!" --dry-run` read the gate no search had run: a traceback."""
    from click.testing import CliRunner

    from citewise.cli.main import cli

    doc = tmp_path / "leave.md"
    doc.write_text("# Leave\n\nParents get 20 weeks.\n", encoding="utf-8")
    db = str(tmp_path / "x.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(doc), "--db", db, "--no-progress"]).exit_code == 0
    result = runner.invoke(cli, ["ask", "thanks!", "--db", db, "--dry-run"])
    assert result.exit_code == 3, result.output
    assert "would decline (that reads as a thanks" in result.output
