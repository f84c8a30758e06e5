"""How the chunker treats code examples in real documentation: lead-ins cut from their code,
and windows that open inside a statement.

For every file citewise reads under each folder (Node.js's 8 MB ``all.html`` is skipped: it
repeats the other pages), it parses the file, chunks it with the default settings and the
shipped embedder's token counts, and prints per folder:

* ``code``: code blocks, and how many are cut into several chunks (``split``);
* ``lead-ins``: code blocks right after a text block ending in ``:``, ``...`` or ``…``, or of
  at most 40 words, and how many of those lead-ins end in a different chunk from the first
  line of their code (``cut``);
* ``opens midway``: chunks that start inside a split code block in the middle of a statement
  (:func:`citewise.generate.examples.starts_midway`: a bracket closes first, or the first line
  is indented deeper than a later one), which the extractive answer never quotes;
* ``ends open``: code chunks that end with brackets open, and how many of them the context
  builder completes from the document (``completed``: the rest of the statement is at most
  :data:`citewise.answer.context.COMPLETION_TOKENS`); left out with a chunker from before
  that step.

    .venv/bin/python benchmarks/chunk_examples.py ../shared/data/docs-httpx/docs \\
        /usr/share/doc/borgbackup/html /usr/share/doc/valgrind/html [--show]

``--show`` prints each chunk that opens midway after the text before it.

The lead-in test is written out here rather than taken from
:func:`citewise.chunk.pack.introduces` (the same test), so the script also runs against an
older chunker (``PYTHONPATH=OLD/src``) for a before/after comparison.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citewise.chunk import chunk_document
from citewise.config import ChunkSettings
from citewise.embed import load_embedder
from citewise.errors import CitewiseError
from citewise.generate.examples import starts_midway
from citewise.ingest.registry import is_supported, load_file
from citewise.types import Chunk, ParsedDocument

try:  # a release before the context completed code passages has neither
    from citewise.answer.context import COMPLETION_TOKENS, rest_of_statement
    from citewise.chunk.spans import bracket_depth
except ImportError:
    rest_of_statement = None


@dataclass
class Counts:
    files: int = 0
    code: int = 0
    split: int = 0
    lead_ins: int = 0
    cut: int = 0
    midway: int = 0
    ends_open: int = 0
    completed: int = 0

    def line(self, name: str) -> str:
        ends = f"; ends open {self.ends_open} (completed {self.completed})" \
            if rest_of_statement is not None else ""
        return (f"{name}: {self.files} files; code {self.code} (split {self.split}); "
                f"lead-ins {self.lead_ins} (cut {self.cut}); opens midway {self.midway}{ends}")


def files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return [p for p in sorted(root.rglob("*"))
            if p.is_file() and is_supported(p) and p.name != "all.html"]


def holding(chunks: list[Chunk], pos: int) -> int | None:
    return next((i for i, c in enumerate(chunks) if c.start <= pos < c.end), None)


def tally(doc: ParsedDocument, chunks: list[Chunk], counts: Counts, show: bool) -> None:
    blocks = [b for b in doc.blocks if b.text.strip()]
    for k, block in enumerate(blocks):
        if block.kind != "code":
            continue
        counts.code += 1
        first, last = holding(chunks, block.start), holding(chunks, block.end - 1)
        counts.split += first != last
        before = blocks[k - 1] if k else None
        if before is not None and before.kind == "text" and (
                before.text.rstrip().endswith((":", "...", "…")) or
                len(before.text.split()) <= 40):
            counts.lead_ins += 1
            counts.cut += holding(chunks, before.end - 1) != first
        for chunk in chunks:
            if block.start < chunk.start < block.end and \
                    starts_midway(doc.text[chunk.start:min(chunk.end, block.end)]):
                counts.midway += 1
                if show:
                    head = doc.text[max(block.start, chunk.start - 300):chunk.start]
                    print(f"----- {doc.title}\n{head}\n<<< chunk opens here >>>\n"
                          f"{doc.text[chunk.start:chunk.start + 200]}")


def tally_open_ends(doc: ParsedDocument, chunks: list[Chunk], counts: Counts,
                    count: Callable[[str], int]) -> None:
    for chunk in chunks:
        depth = bracket_depth(chunk.text) if chunk.kind == "code" else 0
        if depth > 0:
            counts.ends_open += 1
            rest = rest_of_statement(doc, chunk, depth)
            counts.completed += rest is not None and count(rest) <= COMPLETION_TOKENS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    count, settings = load_embedder().count_tokens, ChunkSettings()
    for root in args.folders:
        counts = Counts()
        for path in files(root):
            try:
                doc = load_file(path)
            except CitewiseError:
                continue
            counts.files += 1
            chunks = chunk_document(doc, "d", settings, count)
            tally(doc, chunks, counts, args.show)
            if rest_of_statement is not None:
                tally_open_ends(doc, chunks, counts, count)
        print(counts.line(str(root)))


if __name__ == "__main__":
    main()
