"""Follow-up questions become standalone queries before retrieval (``Engine.converse``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import citewise
from citewise.answer.rewrite import Turn, by_terms, read_history, rewrite_followup
from citewise.errors import ConfigError
from citewise.testing import FakeEmbedder, FakeGenerator

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
HISTORY = [Turn("How many weeks of parental leave do employees get?", "20 weeks [1].")]


def test_without_an_llm_the_followup_gains_the_conversations_terms() -> None:
    rw = rewrite_followup("Does it cover contractors?", HISTORY, None)
    assert rw.method == "terms" and rw.query.startswith("Does it cover contractors?")
    assert "parental" in rw.query and "leave" in rw.query
    assert rewrite_followup("anything", [], None).method == "none"
    assert by_terms("parental leave for contractors", HISTORY).count("parental") == 1


def test_a_followup_borrows_a_bounded_number_of_terms() -> None:
    """A security review's six 2,000-character turns made a 5,172-character query."""
    history = [Turn(" ".join(f"zq{t}word{i}" for i in range(300)), "ok") for t in range(6)]
    query = by_terms("Does it cover contractors?", history)
    assert len(query.split()) <= 4 + 24 and len(query) < 600, len(query)


def test_an_llm_rewrites_and_bad_output_falls_back() -> None:
    gen = FakeGenerator("Does parental leave cover contractors?\nextra line")
    rw = rewrite_followup("Does it cover contractors?", HISTORY, gen)
    assert rw.query == "Does parental leave cover contractors?" and rw.method.startswith("llm:")
    assert "Follow-up: Does it cover contractors?" in gen.prompts[0].messages[1]["content"]
    failed = rewrite_followup("Does it cover contractors?", HISTORY, FakeGenerator(fail="down"))
    assert failed.method == "terms" and "failed" in failed.note
    empty = rewrite_followup("Does it cover contractors?", HISTORY, FakeGenerator("   "))
    assert empty.method == "terms"


def test_the_model_reads_a_bounded_conversation() -> None:
    """Six 2,000-character turns took the local model 86 s to read (a security review)."""
    long = [Turn(f"question {i} " + "x" * 2000, f"answer {i} " + "y" * 8000) for i in range(20)]
    gen = FakeGenerator("Does parental leave cover contractors?")
    rewrite_followup("Does it cover contractors?", long, gen)
    read = gen.prompts[0].messages[1]["content"]
    assert len(read) < 3000 and "question 19" in read and "question 15" not in read


def test_converse_retrieves_with_the_rewritten_query(tmp_path: Path) -> None:
    settings = {"generate": {"generator": "extractive"}, "gate": {"threshold": 0.0}}
    with citewise.connect(tmp_path / "i.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([CORPUS], {"tenant": "northwind", "groups": ["staff"]})
        staff = citewise.Principal.of("staff", tenant="northwind")
        answer = engine.converse("And for adoption?", staff, [h.to_dict() for h in HISTORY])
        conv = answer.trace.conversation
        assert answer.question == "And for adoption?" and conv.method == "terms"
        assert "parental" in conv.query and conv.turns == 1
        assert any(c.doc_id == "hr-leave-policy" for c in answer.citations)
        timings = answer.trace.timings_ms  # a new user's 140 s follow-up showed 116 s
        assert timings.rewrite is not None and timings.rewrite >= 0
        assert timings.total >= timings.rewrite + (timings.retrieve or 0)
        with pytest.raises(ConfigError, match="question"):
            engine.converse("x", staff, [{"answer": "no question"}])


def test_cli_history_file(tmp_path: Path) -> None:
    from citewise.cli.main import cli

    db = str(tmp_path / "i.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(CORPUS), "--db", db, "--groups", "staff",
                               "--no-progress"]).exit_code == 0
    history = tmp_path / "h.json"
    history.write_text(json.dumps([t.to_dict() for t in HISTORY]))
    assert read_history(history) == HISTORY
    out = runner.invoke(cli, ["ask", "And for adoption?", "--groups", "staff", "--db", db,
                              "--generator", "extractive", "--history", str(history),
                              "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["trace"]["conversation"]["method"] == "terms"
