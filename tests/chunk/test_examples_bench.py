"""benchmarks/chunk_examples.py counts, on parsed documents, lead-ins cut from their code and
chunks opening inside a statement: checked on a document whose answers are known by hand."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from citewise.chunk import chunk_document
from citewise.config import ChunkSettings
from citewise.ingest.registry import load_bytes

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "chunk_examples.py"
_SPEC = importlib.util.spec_from_file_location("bench_chunk_examples", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)


def words(text: str) -> int:
    return len(text.split())


def test_the_counts_of_a_known_document() -> None:
    body = "\n".join(f"    step({i}, {i + 1});" for i in range(12))
    page = ("# Guide\n\n" + "Some words here. " * 5 + "\n\nRun it like this:\n\n"
            "```\nrun()\n```\n\nAnd the loop:\n\n```\nloop {\n" + body + "\n}\n```\n")
    doc = load_bytes(page.encode(), Path("guide.md"))
    counts = bench.Counts()
    chunks = chunk_document(doc, "d", ChunkSettings(chunk_tokens=20, min_tokens=0), words)
    bench.tally(doc, chunks, counts, show=False)
    assert (counts.code, counts.lead_ins, counts.cut) == (2, 2, 0)
    assert counts.split == 1  # the 38-word loop, cut between the lines of its one statement
    assert counts.midway == 1  # the window after the first opens inside the loop's body


def test_windows_ending_inside_a_statement_are_counted_with_their_completion() -> None:
    body = "\n".join(f"    step({i}, {i + 1});" for i in range(12))
    page = "# Guide\n\nAnd the loop:\n\n```\nloop {\n" + body + "\n}\n```\n"
    doc = load_bytes(page.encode(), Path("guide.md"))
    chunks = chunk_document(doc, "d", ChunkSettings(chunk_tokens=20, min_tokens=0), words)
    counts = bench.Counts()
    bench.tally_open_ends(doc, chunks, counts, words)
    assert (counts.ends_open, counts.completed) == (1, 1)  # the first window, inside `loop {`
    bench.tally_open_ends(doc, chunks, counts := bench.Counts(), lambda text: 10_000)
    assert (counts.ends_open, counts.completed) == (1, 0)  # its rest over one chunk
