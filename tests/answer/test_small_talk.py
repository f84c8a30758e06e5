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
