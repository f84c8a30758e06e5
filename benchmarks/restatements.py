"""Which sentences of final answers only restate the question (``citewise.cite.enforce.
restates``): what the restatement check removes from an answers run.

Reads runs of ``citewise eval run --answers --out DIR`` (``DIR/run.json``) and prints, per
model answer (outcome answered or pruned), each sentence the check removes, whether the
question is answerable for its persona (A/U), and how many sentences the answer keeps
(``left=0``: it falls back to quoting the sources).

    .venv/bin/python benchmarks/restatements.py NAME=OUT/run.json [NAME=OUT/run.json ...]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

from citewise.cite.claim_words import restates
from citewise.cite.parse import split_sentences


def load_run(spec: str) -> tuple[str, dict]:
    """``NAME=OUT/run.json`` (or just the path) as (name, the run's JSON)."""
    name, _, path = spec.partition("=")
    return name, json.loads(Path(path or name).read_text(encoding="utf-8"))


def model_answers(run: dict) -> Iterator[tuple[dict, dict]]:
    """(record, answer) of each answer the model wrote (outcome answered or pruned)."""
    for rec in run["records"]:
        answer = rec["answer"]
        if answer and answer["outcome"] in ("answered", "pruned"):
            yield rec, answer


def report(name: str, run: dict) -> tuple[int, int, int]:
    """(sentences, restatements, answers left with none) of one run, printing each."""
    sentences = flagged = emptied = 0
    for rec, answer in model_answers(run):
        question = rec["question"]
        parts = [s for s in split_sentences(answer["answer"]) if re.search(r"[A-Za-z]{2}", s)]
        found = [s for s in parts if restates(s, question["question"])]
        sentences, flagged = sentences + len(parts), flagged + len(found)
        emptied += bool(found) and len(found) == len(parts)
        kind = "A" if question["relevant"] else "U"
        for s in found:
            print(f"[{name}] {kind} {question['id']} left={len(parts) - len(found)}: {s[:120]}")
    return sentences, flagged, emptied


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="NAME=RUN_JSON")
    for spec in ap.parse_args().runs:
        name, run = load_run(spec)
        n, f, e = report(name, run)
        print(f"== {name}: {f} of {n} model sentences restate the question; {e} answers "
              "would quote the sources instead")


if __name__ == "__main__":
    main()
