"""What replacing a rejected model answer by the source sentences that say what it claimed
(:func:`citewise.generate.claim_quotes.replacement`) does, replayed on an answers run.

Reads a run of ``citewise eval run --answers --out DIR`` (``DIR/run.json``, made before the
change) and the index it ran on. For every answer that fell back to quoting the sources because
no sentence of the model's answer was supported, it takes the removed sentences with why each
was removed and the passages the model read, and prints what the run showed (the extractive
answer to the question) beside the replacement at each ``--support`` threshold (the shipped
one is the citation check's calibrated threshold, 0.45): declined or quoted, and whether the
quote holds the reference answer. Then, per threshold, split by whether the question is
answerable for its persona (A/U): how many are declined and how many contain a reference
answer. Replayed on the passages of the step that fell back: in a live run a decline there
reads on with more passages.

``--reader`` also asks the shipped local model the reader's question (do the sources answer
it? P(Yes)) about the shipped replacement's quotes *alone*, and prints how many answerable
and unanswerable fallbacks each bar of :data:`READER_BARS` would decline (measured in stop
19, not kept: see the README).

    .venv/bin/python benchmarks/claim_quotes.py --run OUT/run.json --db INDEX.db \
        --personas PERSONAS.json [--support 0.35 0.45 0.55] [--reader] [-v]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import citewise
from citewise.answer.prompt import INSUFFICIENT_EVIDENCE, build_prompt
from citewise.eval.answer_metrics import contains_reference, strip_citations
from citewise.eval.questions import parse_question
from citewise.generate.claim_quotes import replacement
from citewise.types import ContextPassage, Hit, Principal

READER_BARS = (0.30, 0.35, 0.40, 0.45)
_MARKER = re.compile(r"\s*\[\d+(?:,\s*\d+)*\]")  # an extractive answer's " [1]", " [1, 2]"


def fallbacks(run: dict, engine: citewise.Engine,
              everyone: Principal) -> list[tuple[dict, bool, str, list, list]]:
    """(question, answerable, answer shown, removed sentences as (text, status), passages)
    per extractive fallback."""
    out = []
    for rec in run["records"]:
        answer, question = rec.get("answer") or {}, rec["question"]
        trace = answer.get("trace") or {}
        if " -> " not in (trace.get("generation") or {}).get("model", ""):
            continue  # not a model answer replaced for want of a supported sentence
        ids = [p["chunk_id"] for p in trace["context"]["passages"]]
        found = engine.store.get_chunks(ids, everyone)
        passages = [ContextPassage(p["id"].upper(), Hit(i, 0.0, *found[p["chunk_id"]]),
                                   found[p["chunk_id"]][0].text, p["tokens"])
                    for i, p in enumerate(trace["context"]["passages"])]
        claims = [(r["sentence"], r["status"]) for r in trace["enforce"]["removed"]]
        out.append((question, bool(question.get("relevant")), answer["answer"], claims,
                    passages))
    return out


def references(question: dict) -> list[str]:
    """The question's reference answers, read as ``eval run`` reads them."""
    return list(parse_question(question, "run.json").answers)


def contains(text: str, refs: list[str]) -> float:
    """Containment as ``eval run`` scores it (citations stripped first); 0 without refs."""
    return contains_reference(strip_citations(text), refs) if refs else 0.0


def quotes_p_yes(generator, question: str, text: str, passages: list) -> float:
    """The reader's P(Yes) that ``text`` (the quotes, citations removed) answers
    ``question``, as one source with the first passage's title and section."""
    from citewise.answer.reader import p_yes

    only = ContextPassage("S1", passages[0].hit, _MARKER.sub("", text), 0)
    return p_yes(generator, build_prompt(question, [only]))


def read_quotes(generator, question: str, text: str, passages: list, answerable: bool,
                refs: list[str], read: list[tuple[bool, float, float]]) -> None:
    """Ask the reader about the shipped replacement ``text`` (unless it is a decline) and
    record (answerable, P(Yes), contains the answer) in ``read``."""
    if text == INSUFFICIENT_EVIDENCE:
        return
    p = quotes_p_yes(generator, question, text, passages)
    read.append((answerable, p, contains(text, refs)))
    print(f"    quotes' P(Yes) {p:.2f}")


def reader_table(rows: list[tuple[bool, float, float]]) -> None:
    """Per bar: fallbacks declined (A/U) and answerable ones with the answer lost."""
    for bar in READER_BARS:
        parts = []
        for answerable, kind in ((True, "A"), (False, "U")):
            mine = [(p, hit) for a, p, hit in rows if a == answerable]
            below = [hit for p, hit in mine if p < bar]
            parts.append(f"{kind}: {len(below)} of {len(mine)} declined"
                         + (f" ({sum(below):.0f} held the answer)" if answerable else ""))
        print(f"quotes' P(Yes) < {bar:.2f}: " + "; ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="run.json of `citewise eval run --answers`")
    ap.add_argument("--db", required=True, help="the SQLite index the run answered from")
    ap.add_argument("--personas", required=True, help="the run's personas file: the "
                    "passages are read with every group it names")
    ap.add_argument("--support", type=float, nargs="+", default=[0.35, 0.45, 0.55, 0.65],
                    help="support thresholds (the shipped one: cite.support's, 0.45)")
    ap.add_argument("--reader", action="store_true", help="also ask the local model whether "
                    "the quotes alone answer the question (slow: one model call each)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    args = ap.parse_args()
    run = json.loads(Path(args.run).read_text(encoding="utf-8"))
    personas = json.loads(Path(args.personas).read_text(encoding="utf-8"))
    groups = sorted({g for p in personas.values() for g in p.get("groups", ())})
    with citewise.connect(args.db) as engine:
        rows = fallbacks(run, engine, Principal.of(groups))
    table: dict = {}
    read: list[tuple[bool, float, float]] = []
    generator = None
    if args.reader:
        from citewise.generate.local import LocalGenerator

        generator = LocalGenerator("qwen2.5-coder-1.5b-instruct")
    for question, answerable, shown, claims, passages in rows:
        prompt = build_prompt(question["question"], passages)
        refs = references(question)
        had = contains(shown, refs)
        before = table.setdefault(("shown", answerable), [0, 0, 0])
        before[0] += 1
        before[2] += had
        print(f"{'A' if answerable else 'U'} {question['id']:<28} shown: contains={had:.0f} "
              f"{' '.join(shown.split())[:110]}")
        for floor in args.support:
            text, _ = replacement(claims, prompt, threshold=floor)
            declined = text == INSUFFICIENT_EVIDENCE
            hit = 0.0 if declined else contains(text, refs)
            cell = table.setdefault((floor, answerable), [0, 0, 0])
            cell[0] += 1
            cell[1] += declined
            cell[2] += hit
            if args.verbose:
                print(f"    {floor:.2f} {'DECLINE' if declined else f'contains={hit:.0f}'} "
                      f"{' '.join(text.split())[:140]}")
        if generator is not None:
            read_quotes(generator, question["question"], replacement(claims, prompt)[0],
                        passages, answerable, refs, read)
    for answerable, kind in ((True, "A"), (False, "U")):
        n, _, hit = table.get(("shown", answerable), [0, 0, 0])
        print(f"shown (question-driven quotes) {kind}: {n}, {hit:.0f} contain the answer")
    for floor in args.support:
        parts = []
        for answerable, kind in ((True, "A"), (False, "U")):
            n, declined, hit = table.get((floor, answerable), [0, 0, 0])
            parts.append(f"{kind}: {declined} of {n} declined, {hit:.0f} contain the answer")
        print(f"support >= {floor:.2f}: " + "; ".join(parts))
    if read:
        reader_table(read)


if __name__ == "__main__":
    main()
