"""What the instruction detector (``citewise.cite.instructions.is_instruction``) flags in real
manuals: each flagged sentence is hidden from the model and never evidence, so on ordinary
documentation every flag is a false positive that can cost an answer.

Loads every file citewise reads under each root (default: the documentation trees on a
Debian machine like this one and the httpx docs in ``../shared/data``), splits the text as the
detector reads it, and prints each flagged sentence, then the counts per root.

    .venv/bin/python benchmarks/instruction_sweep.py [ROOT ...]

Stop 46: 325,779 sentences of 13 roots; 30 flagged before its changes, none of them by the
answer-shaping patterns it added, then 15 after it narrowed four old patterns that hid
documentation ("Print only the word counts." of wc, "Ignore any previous ‘--force’" of rm,
readline's "a query to write to output, prepended to the prompt", GnuPG's "as a System
Library"). Left: changelog lines ("doc: do not mention TCP …", "applying ignore rules"),
"output only “string constants”", "forget everything it knows".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from citewise.cite.instructions import SENTENCE, is_instruction
from citewise.errors import CitewiseError
from citewise.ingest import is_supported, load_file

ROOTS = ("../shared/data/docs-httpx/docs", "/usr/share/doc/ninja-build",
         "/usr/share/doc/valgrind/html", "/usr/share/doc/borgbackup/html", "/usr/share/info",
         "/usr/share/doc/nodejs", "/usr/share/doc/python3-setuptools",
         "/usr/share/doc/python3-pip", "/usr/share/doc/libxslt1-dev",
         "/usr/share/doc/python3/python-policy.html", "/usr/share/doc/fontconfig",
         "/usr/share/doc/systemd", "/usr/share/doc/libffi8")
MAX_BYTES = 5_000_000


def sweep(root: Path) -> tuple[int, list[tuple[Path, str]]]:
    """(sentences read, flagged sentences with their file) under ``root``."""
    files = [root] if root.is_file() else sorted(f for f in root.rglob("*") if f.is_file())
    read, flagged = 0, []
    for path in files:
        if not is_supported(path) or path.stat().st_size > MAX_BYTES:
            continue
        try:
            text = load_file(path).text
        except (CitewiseError, OSError, ValueError):
            continue
        for sentence in SENTENCE.split(text):
            read += 1
            if is_instruction(sentence):
                flagged.append((path, sentence))
    return read, flagged


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="*", default=list(ROOTS))
    args = ap.parse_args()
    totals = []
    for root in map(Path, args.roots):
        if not root.exists():
            print(f"{root}: not on this machine, skipped")
            continue
        read, flagged = sweep(root)
        for path, sentence in flagged:
            print(f"flagged  {path}: {' '.join(sentence.split())[:200]}")
        totals.append((root, read, len(flagged)))
    for root, read, n in totals:
        print(f"{root}: {read} sentences, {n} flagged")
    print(f"all: {sum(t[1] for t in totals)} sentences, {sum(t[2] for t in totals)} flagged")


if __name__ == "__main__":
    main()
