"""The grounding gate on SQuAD 2.0 (the subset in ../shared/data): how often it declines the
unanswerable questions and the answerable ones, per candidate signal, on dev and test halves.

Reproduces :data:`citewise.answer.gate.SHIPPED`:

    .venv/bin/python benchmarks/gate.py [--squad PATH] [--max-false-decline 0.1]

Steps (each is a CLI command too): ``citewise eval squad`` converts the JSON to documents and an
eval set; ``citewise ingest`` indexes the paragraphs (one group, ``public``); ``citewise
calibrate --no-store`` runs retrieval + the gate (``ask --dry-run``) for every question and
prints the curve and the chosen signal/threshold.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from citewise.answer.calibration import run_calibration
from citewise.cli.calibrate import print_calibration
from citewise.engine import Engine
from citewise.eval.squad import convert_squad
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
SQUAD = ROOT.parent / "shared" / "data" / "squad2-dev-subset" / "dev-v2.0-normans-rhine.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", default=str(SQUAD), help="SQuAD 2.0 JSON file")
    ap.add_argument("--max-false-decline", type=float, default=0.1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        converted = convert_squad(args.squad, tmp)
        with Engine(Path(tmp) / "index.db") as engine:
            engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
            result = run_calibration(engine, converted.questions_path,
                                     principal=Principal.of("public"),
                                     max_false_decline=args.max_false_decline)
    print(f"{converted.questions} questions ({converted.unanswerable} unanswerable), "
          f"{converted.documents} paragraphs")
    print_calibration(result)


if __name__ == "__main__":
    main()
