"""A manual's entry of the asked term leads the context (:func:`citewise.generate.entries.
entries_first`): on a 2-core machine the first read is one or two passages, and with the
neighbouring entry ranked first the 1.5B model answered "what does show-all-if-ambiguous
do?" with show-all-if-unmodified's description, which mentions it (new user, stop 40)."""

from __future__ import annotations

from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.types import Principal

UNMODIFIED = """# Variables

'show-all-if-unmodified'
This alters the default behavior of the completion functions in a fashion similar to
SHOW-ALL-IF-AMBIGUOUS. If set to 'on', words which have more than one possible completion
without any possible partial completion cause the matches to be listed immediately instead
of ringing the bell. The default value is 'off'. See SHOW-ALL-IF-AMBIGUOUS.
"""
AMBIGUOUS = """# More variables

'revert-all-at-newline'
If set to 'on', Readline will undo all changes to history lines before returning.

'show-all-if-ambiguous'
This alters the default behavior of the completion functions. If set to 'on', words which
have more than one possible completion cause the matches to be listed immediately.
"""


def test_the_entry_of_the_asked_term_is_the_first_passage(tmp_path: Path):
    (tmp_path / "a-unmodified.txt").write_text(UNMODIFIED, encoding="utf-8")
    (tmp_path / "b-ambiguous.txt").write_text(AMBIGUOUS, encoding="utf-8")
    settings = Settings.model_validate({"gate": {"threshold": 0.0}})
    gen = FakeGenerator("It lists the matches at once [S1].")
    with Engine(tmp_path / "x.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([tmp_path / "a-unmodified.txt", tmp_path / "b-ambiguous.txt"],
                            {"groups": ["staff"]})
        answer = engine.ask("what does show-all-if-ambiguous do?", Principal.of("staff"),
                            generator=gen)
    hits = answer.trace.retrieval.hits
    assert hits[0].doc_id == "a-unmodified.txt"  # retrieval alone ranks the neighbour first
    doc_of = {h.chunk_id: h.doc_id for h in hits}
    assert doc_of[answer.trace.context.passages[0].chunk_id] == "b-ambiguous.txt"
    assert "show-all-if-ambiguous" in gen.prompts[0].messages[-1]["content"].split("S2")[0]
