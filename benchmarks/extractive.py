"""Choosing the extractive generator's ``MIN_COVERAGE`` on SQuAD 2.0 (dev half), reported on the
test half: how often gate + extractive decline unanswerable and answerable questions, and how
often an answer contains a reference answer.

    .venv/bin/python benchmarks/extractive.py [--squad PATH] [--max-false-decline 0.15]

The threshold kept is the one that declines the most unanswerable dev questions while at most
``--max-false-decline`` of the answerable ones are declined in all (gate included); ``--fixed
T`` reports T instead (the shipped value, see ``citewise.generate.extractive.MIN_COVERAGE``).
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from citewise.answer.calibrate import is_dev
from citewise.engine import Engine
from citewise.eval.questions import load_questions
from citewise.eval.squad import convert_squad
from citewise.generate.extractive import (
    ExtractiveGenerator,
    coverage,
    score_sentences,
    select_sentences,
)
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
SQUAD = ROOT.parent / "shared" / "data" / "squad2-dev-subset" / "dev-v2.0-normans-rhine.json"


class Probe:
    """The extractive generator with no coverage floor, recording each prompt's coverage."""

    model_id = "extractive-probe"

    def __init__(self) -> None:
        self.last = 0.0

    def generate(self, prompt, **kwargs):
        chosen = select_sentences(score_sentences(prompt.question, prompt.passages))
        best = max(chosen, key=lambda s: s.score, default=None)
        self.last = coverage(prompt.question, prompt.passages, best)
        return ExtractiveGenerator(min_coverage=0.0).generate(prompt, **kwargs)


def norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def rates(rows, t):
    """(declined unanswerable, declined answerable, answered containing a reference)."""
    unans = [r for r in rows if not r["answerable"]]
    ans = [r for r in rows if r["answerable"]]
    declined = [r for r in rows if r["gate_declined"] or r["coverage"] < t]
    d_un = sum(1 for r in declined if not r["answerable"]) / max(len(unans), 1)
    d_an = sum(1 for r in declined if r["answerable"]) / max(len(ans), 1)
    hits = sum(1 for r in ans if not (r["gate_declined"] or r["coverage"] < t) and r["contains"])
    return d_un, d_an, hits / max(len(ans), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", default=str(SQUAD))
    ap.add_argument("--max-false-decline", type=float, default=0.15)
    ap.add_argument("--fixed", type=float, default=None,
                    help="report this min_coverage instead of the one chosen on dev")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        converted = convert_squad(args.squad, tmp)
        probe, who = Probe(), Principal.of("public")
        with Engine(Path(tmp) / "index.db") as engine:
            engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
            for q in load_questions(converted.questions_path):
                probe.last = 0.0
                answer = engine.ask(q.question, who, generator=probe)
                refs = [norm(a) for a in (q.answers or ([q.answer] if q.answer else []))]
                rows.append({"dev": is_dev(q.id), "answerable": bool(q.relevant),
                             "gate_declined": answer.reason in ("no_evidence", "weak_evidence"),
                             "coverage": probe.last,
                             "contains": any(r and r in norm(answer.answer) for r in refs)})
    dev = [r for r in rows if r["dev"]]
    test = [r for r in rows if not r["dev"]]
    print(f"{len(rows)} questions: dev {len(dev)}, test {len(test)}")
    print(f"{'min_coverage':>12} {'dev: declined unans':>20} {'declined ans':>13} {'contains':>9}")
    best = (0.0, -1.0)
    for i in range(0, 21):
        t = i / 20
        d_un, d_an, hit = rates(dev, t)
        print(f"{t:12.2f} {d_un:20.1%} {d_an:13.1%} {hit:9.1%}")
        if d_an <= args.max_false_decline and d_un > best[1]:
            best = (t, d_un)
    t = best[0] if args.fixed is None else args.fixed
    for name, part in (("dev", dev), ("test", test)):
        d_un, d_an, hit = rates(part, t)
        print(f"chosen {t:.2f} on {name}: declines {d_un:.1%} of unanswerable, {d_an:.1%} of "
              f"answerable; {hit:.1%} of answerable answered with a reference in the answer")


if __name__ == "__main__":
    main()
