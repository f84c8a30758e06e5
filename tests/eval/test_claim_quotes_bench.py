"""benchmarks/claim_quotes.py replays the fallback on a run's records: it must rebuild the
passages the model read, by chunk id, and feed the removed sentences to the product's own
``replacement``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from citewise.answer.prompt import build_prompt
from citewise.config import Settings
from citewise.engine import Engine
from citewise.generate.claim_quotes import replacement
from citewise.testing import FakeEmbedder
from citewise.types import Principal

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "claim_quotes.py"
_SPEC = importlib.util.spec_from_file_location("bench_claim_quotes", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

DOC = ("# Logging\n\nValgrind prints its messages to stderr by default. The --log-file option "
       "specifies that Valgrind should send all of its messages to the specified file.\n")


def test_a_fallback_record_is_rebuilt_and_replayed(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "log.md").write_text(DOC)
    staff = Principal.of("staff")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"tenant": "default", "groups": ["staff"]})
        hit = engine.search("log file messages", staff).hits[0]
        removed = [{"sentence": "The `--log-file` option sends the messages to a file.",
                    "why": "no citation", "status": "uncited"}]
        answer = {"answer": "Valgrind prints its messages to stderr by default [1].",
                  "notes": ["the answer of m had no sentence supported by its sources (1 no "
                            "citation); answered extractively instead"],
                  "trace": {"generation": {"model": "m -> extractive-v1"},
                            "context": {"passages": [
                      {"id": "S1", "chunk_id": hit.chunk.chunk_id, "tokens": 30}]},
                      "enforce": {"removed": removed}}}
        question = {"id": "q", "question": "can valgrind log to a file?", "answer": "--log-file",
                    "relevant": [{"doc": "log.md"}]}
        other = {"question": {"id": "r", "question": "x"}, "answer": {"notes": []}}
        rows = bench.fallbacks({"records": [{"question": question, "answer": answer}, other]},
                               engine, staff)
    [(q, answerable, shown, said, passages)] = rows
    assert q is question and answerable and shown == answer["answer"]
    assert said == [(removed[0]["sentence"], "uncited")]
    assert [p.sid for p in passages] == ["S1"] and "--log-file option" in passages[0].text
    text, claimed = replacement(said, build_prompt(q["question"], passages))
    assert claimed and "--log-file option specifies" in text and "[S1]" in text
    assert bench.references(question) == ["--log-file"]


def test_the_quote_reader_asks_about_the_quotes_alone_and_counts_per_bar(tmp_path: Path,
                                                                          capsys) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "log.md").write_text(DOC)
    seen = []

    class Reader:  # a fake reader: records what it was shown
        model_id = "fake"

        def answerable(self, messages):
            seen.append(messages[-1]["content"])
            return 0.33

    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"tenant": "default", "groups": ["staff"]})
        hit = engine.search("log file messages", Principal.of("staff")).hits[0]
    from citewise.types import ContextPassage

    passages = [ContextPassage("S1", hit, hit.chunk.text, 30)]
    p = bench.quotes_p_yes(Reader(), "can valgrind log to a file?",
                           "The --log-file option sends them to a file [1].", passages)
    assert p == 0.33
    assert "The --log-file option sends them to a file." in seen[0]
    assert "stderr by default" not in seen[0]  # only the quotes, not the passage
    bench.reader_table([(True, 0.33, 1.0), (True, 0.5, 0.0), (False, 0.2, 0.0)])
    out = capsys.readouterr().out
    assert "< 0.30: A: 0 of 2 declined (0 held the answer); U: 1 of 1 declined" in out
    assert "< 0.35: A: 1 of 2 declined (1 held the answer); U: 1 of 1 declined" in out
