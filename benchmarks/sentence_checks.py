"""What two stronger sentence checks would say about the sentences strict citing removed.

Reads an answers run (``citewise eval run --answers --out DIR``: ``DIR/run.json``) and the
index it ran on, takes every claim the model wrote without a citation (``trace.enforce``,
status ``uncited``), and prints per sentence, for the passages of its context:

* ``best``: the highest lexical support score (:func:`citewise.cite.support.support_score`),
  i.e. what citing the sentence for its best-supporting passage would keep (>= the shipped
  threshold);
* ``llm``: with ``--verify``, the highest P(Yes) of the local model asked "does the source
  state what the sentence says?" per passage (:func:`citewise.generate.local.yes_probability`).

The figures are for a person to label: the README records what the ninja dev set showed
(both checks pass wrong sentences as readily as right ones).

    .venv/bin/python benchmarks/sentence_checks.py --run OUT/run.json --db INDEX.db --verify
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from citewise.cite.support import SUPPORT_THRESHOLD, support_score
from citewise.cite.validate import is_claim

VERIFIER_SYSTEM = ("You check answers against sources. A sentence is supported only if the "
                   "source states it; a sentence that adds facts, names or steps the source "
                   "does not state is not supported.")


def uncited(run: dict, db: sqlite3.Connection) -> Iterator[tuple[dict, str, dict[str, str]]]:
    """(question, sentence, {sid: passage text}) for every uncited claim of the run."""
    for rec in run["records"]:
        trace = (rec.get("answer") or {}).get("trace", {})
        removed = (trace.get("enforce") or {}).get("removed", [])
        context = {p["id"]: chunk_text(db, p["chunk_id"])
                   for p in trace.get("context", {}).get("passages", [])}
        for r in removed:
            if r["status"] == "uncited" and is_claim(r["sentence"]):
                yield rec["question"], r["sentence"], context


def chunk_text(db: sqlite3.Connection, chunk_id: str) -> str:
    row = db.execute("SELECT text FROM chunks WHERE chunk_id = ?", (chunk_id,)).fetchone()
    return row[0] if row else ""


def verifier(model: str, threads: int):  # noqa: ANN201
    from citewise.generate.local import LocalGenerator, yes_probability

    server = LocalGenerator(model, threads=threads).server()

    def p_yes(question: str, sentence: str, passage: str) -> float:
        ask = (f"<source>\n{passage}\n</source>\n\nQuestion: {question}\nSentence: {sentence}"
               "\n\nDoes the source state what the sentence says? Reply with one word: Yes "
               "or No.")
        return yes_probability(server, [{"role": "system", "content": VERIFIER_SYSTEM},
                                        {"role": "user", "content": ask}])
    return p_yes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="run.json of `citewise eval run --answers`")
    ap.add_argument("--db", required=True, help="the SQLite index the run answered from")
    ap.add_argument("--verify", action="store_true", help="also ask the local model")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    run = json.loads(Path(args.run).read_text(encoding="utf-8"))
    db = sqlite3.connect(args.db)
    p_yes = verifier(args.model, args.threads) if args.verify else None
    kept = total = 0
    for question, sentence, context in uncited(run, db):
        lexical = {sid: support_score(sentence, text) for sid, text in context.items()}
        best = max(lexical.values(), default=0.0)
        total, kept = total + 1, kept + (best >= SUPPORT_THRESHOLD)
        llm = max((p_yes(question["question"], sentence, text) for text in context.values()),
                  default=0.0) if p_yes else None
        shown = f" llm {llm:.2f}" if llm is not None else ""
        print(f"{question['id']:<20} best {best:.2f}{shown}  {sentence[:110]}", flush=True)
    print(f"{total} uncited claims; {kept} would be kept by citing their best-supporting "
          f"passage (lexical support >= {SUPPORT_THRESHOLD})")


if __name__ == "__main__":
    main()
