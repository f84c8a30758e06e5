"""What the premise check (``citewise.cite.enforce.premise_gap``) would remove from the model
answers of an answers run, at each gap size.

Reads a run of ``citewise eval run --answers --out DIR`` (``DIR/run.json``) and the index it
ran on. For every model answer (outcome answered or pruned) it takes the sentences the answer
kept, the passages each is judged against (its citations, else the citation closing its
paragraph), and prints the words the sentence takes from the question that those passages
lack, with whether the question is answerable for its persona (A/U). Then, per gap size
``--min`` .. 6: how many answers lose a sentence and how many lose all of them (and fall back
to quoting the sources), split A/U. The gap size is chosen on a dev set's run; a check set's
run only shows what the choice does there.

    .venv/bin/python benchmarks/premise.py --run OUT/run.json --db INDEX.db [--min 1]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sentence_checks import chunk_text  # noqa: E402  (benchmarks/sentence_checks.py)

from citewise.cite.claim_words import premise_gap  # noqa: E402
from citewise.cite.instructions import without_instructions  # noqa: E402
from citewise.cite.parse import citation_ids, paragraph_citations, segments  # noqa: E402
from citewise.cite.validate import is_claim  # noqa: E402

_NUMBERED = re.compile(r"\[(\d+)\]")


def gaps(run: dict, db: sqlite3.Connection) -> Iterator[tuple[dict, bool, list[set[str]]]]:
    """(question, answerable, the gap of each kept claim) for every model answer."""
    for rec in run["records"]:
        answer, question = rec.get("answer") or {}, rec["question"]
        if answer.get("outcome") not in ("answered", "pruned"):
            continue
        context = answer["trace"]["context"]["passages"]
        sid_of = {p["chunk_id"]: p["id"].upper() for p in context}
        texts = {p["id"].upper(): without_instructions(chunk_text(db, p["chunk_id"]))
                 for p in context}
        shown = {c["id"]: sid_of.get(c["chunk_id"], "?") for c in answer["citations"]}
        text = _NUMBERED.sub(lambda m, ids=shown: f"[{ids.get(m.group(1), '?')}]",
                             answer["answer"])
        items = segments(text)
        closing = paragraph_citations(items)
        out = []
        for seg in items:
            if seg.kind != "sentence" or not is_claim(seg.text):
                continue
            ids = citation_ids(seg.text) or closing.get(seg.paragraph, ())
            evidence = "\n".join(texts[i] for i in ids if i in texts)
            out.append(premise_gap(seg.text, question["question"], evidence))
            if out[-1]:
                print(f"  {len(out[-1])} {question['id']:<24} {sorted(out[-1])}  "
                      f"{seg.text[:100]}")
        yield question, bool(question.get("answer") or question.get("answers")), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="run.json of `citewise eval run --answers`")
    ap.add_argument("--db", required=True, help="the SQLite index the run answered from")
    ap.add_argument("--min", type=int, default=1, help="smallest gap size to tabulate")
    args = ap.parse_args()
    run = json.loads(Path(args.run).read_text(encoding="utf-8"))
    rows = list(gaps(run, sqlite3.connect(args.db)))
    for size in range(args.min, 7):
        line = []
        for kind, answerable in (("A", True), ("U", False)):
            mine = [g for _, a, g in rows if a is answerable]
            some = sum(any(len(x) >= size for x in g) for g in mine)
            every = sum(bool(g) and all(len(x) >= size for x in g) for g in mine)
            line.append(f"{kind}: {some} of {len(mine)} lose a sentence, {every} all")
        print(f"gap >= {size}: " + "; ".join(line))


if __name__ == "__main__":
    main()
