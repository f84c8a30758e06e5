"""A stratified SQuAD 2.0 sample for the whole answer path: half answerable, half not, from
one half of the hash split (:func:`citewise.answer.calibrate.is_dev`), in the seeded order of
``benchmarks/reader.py`` (interleaved, so a run cut short stays stratified).

    .venv/bin/python benchmarks/squad_sample.py --squad \
../shared/data/squad2-dev-subset/dev-v2.0-normans-rhine.json --half test --n 80 --seed 12 \
--out /tmp/squad-sample

It writes ``OUT/docs`` (one file per paragraph), ``OUT/sample.jsonl`` and ``OUT/personas.json``
and prints the two commands that index the documents and run the sample with answers; their
figures (abstention, false declines, containment, unsupported claims shown) are the README's.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reader import sample  # noqa: E402  (benchmarks/reader.py: the same sampling)

from citewise.eval.questions import as_questions  # noqa: E402
from citewise.eval.squad import convert_squad  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--squad", required=True, help="SQuAD 2.0 JSON")
    ap.add_argument("--half", choices=["dev", "test"], default="test")
    ap.add_argument("--n", type=int, default=80)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--out", required=True, help="folder to write into")
    args = ap.parse_args()
    out = Path(args.out)
    converted = convert_squad(args.squad, out)
    picked = sample(as_questions(converted.questions_path), args.n, args.half, args.seed)
    lines = [json.loads(line) for line in converted.questions_path.read_text().splitlines()]
    by_id = {q["id"]: q for q in lines}
    with open(out / "sample.jsonl", "w", encoding="utf-8") as f:
        for q in picked:
            f.write(json.dumps(by_id[q.id]) + "\n")
    (out / "personas.json").write_text(json.dumps({"public": {"groups": ["public"]}}))
    unanswerable = sum(not q.relevant for q in picked)
    print(f"{len(picked)} questions ({unanswerable} unanswerable) -> {out / 'sample.jsonl'}")
    db, q = shlex.quote(str(out / "index.db")), shlex.quote(str(out))
    print(f"citewise ingest {q}/docs --groups public --db {db}")
    print(f"citewise eval run --questions {q}/sample.jsonl --personas {q}/personas.json "
          f"--as public --answers --db {db} --out {q}/run")


if __name__ == "__main__":
    main()
