"""Which final answers of an answers run lean on a sentence validation removed
(``citewise.cite.enforce.refers_back``): the runs before the rule, read after the fact.

Reads runs of ``citewise eval run --answers --out DIR`` (``DIR/run.json``). For each model
answer (outcome answered or pruned) whose trace shows removed sentences, it prints the
answer's sentences that open by naming or drawing on a sentence before them ("This
option…", "This is because…"), with what was removed. The trace keeps removed sentences in
order but not where they stood among the kept ones, so each case is printed for reading;
``--opening`` counts only answers whose first sentence is such a sentence (nothing kept
before it, so a removed sentence did stand there or the answer opened on a reference).

    .venv/bin/python benchmarks/dangling.py NAME=OUT/run.json [NAME=OUT/run.json ...]
"""

from __future__ import annotations

import argparse

from restatements import load_run, model_answers  # run as `python benchmarks/dangling.py`

from citewise.cite.enforce import refers_back
from citewise.cite.parse import split_sentences


def report(name: str, run: dict, opening: bool) -> tuple[int, int]:
    """(model answers with removals, answers with a leaning sentence), printing each."""
    pruned = leaning = 0
    for rec, answer in model_answers(run):
        removed = ((answer.get("trace") or {}).get("enforce") or {}).get("removed") or []
        if not removed:
            continue
        pruned += 1
        parts = split_sentences(answer["answer"])
        # what stood before is unknown: a removed claim if any was removed, else a restatement
        claims = [r["status"] for r in removed if r["status"] != "restates"]
        before = claims[0] if claims else "restates"
        lean = [s for s in parts[:1 if opening else None] if refers_back(s, before)]
        if not lean:
            continue
        leaning += 1
        kind = "A" if rec["question"]["relevant"] else "U"
        print(f"[{name}] {kind} {rec['question']['id']}: {rec['question']['question']}")
        for r in removed:
            print(f"    removed ({r['status']}): {r['sentence'][:110]}")
        for s in lean:
            print(f"    leans:  {s[:110]}")
    return pruned, leaning


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="NAME=RUN_JSON")
    ap.add_argument("--opening", action="store_true",
                    help="only answers whose first sentence leans on one before it")
    args = ap.parse_args()
    for spec in args.runs:
        name, run = load_run(spec)
        n, k = report(name, run, args.opening)
        print(f"== {name}: {k} of {n} model answers with removed sentences keep a sentence "
              "that leans on one before it")


if __name__ == "__main__":
    main()
