"""Gate calibrated on synthesized questions vs on gold labels vs the shipped default, all
measured on the same gold TEST half (issue 9, item 3).

    .venv/bin/python benchmarks/synthetic.py --n 20 \\
        --squad ../shared/data/squad2-dev-subset/dev-v2.0-normans-rhine.json \\
        --set borg=/usr/share/doc/borgbackup/html [--model qwen2.5-coder-1.5b-instruct]

For each corpus: index it; ``citewise calibrate --synthesize N`` (the local model writes N
answerable questions and N near-miss unanswerable ones, kept when search confirms the missing
entity is absent, plus up to N from passages the asker may not read, kept when no readable
page holds their answer; :mod:`citewise.answer.synthesize`) picks a signal and threshold; ``citewise
calibrate`` on the gold questions picks them on the gold dev half; each choice, and the shipped
default, is then applied to the gold test half (hash split, :func:`is_dev`): abstention on
unanswerable and false declines on answerable questions, Wilson 95 % intervals. The borg set is
a check set: its gold calibration is reported only to compare, never shipped.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from evalset import EvalSet

from citewise.answer.calibrate import Record, calibrate, is_dev, point, wilson
from citewise.answer.calibration import collect_records, run_calibration
from citewise.answer.gate import SHIPPED, SIGNALS
from citewise.answer.synthesize import synthesize
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.eval.questions import as_questions
from citewise.eval.squad import convert_squad
from citewise.types import Principal

PUBLIC = Principal.of("public")


def rates(recs: list[Record], signal: str, threshold: float) -> str:
    labels = [r.answerable for r in recs]
    p = point([r.signals[signal] for r in recs], labels, threshold)
    n_un, n_an = labels.count(False), labels.count(True)
    k_un, k_an = round(p.abstention * n_un), round(p.false_decline * n_an)
    (alo, ahi), (flo, fhi) = wilson(k_un, n_un), wilson(k_an, n_an)
    return (f"abstention {p.abstention:.3f} [{alo:.3f}, {ahi:.3f}] (n={n_un})  false declines "
            f"{p.false_decline:.3f} [{flo:.3f}, {fhi:.3f}] (n={n_an})")


def _rates(p) -> str:
    return "n/a" if p is None else f"{p.abstention:.2f}/{p.false_decline:.2f}"


def compare(name: str, engine: Engine, questions, personas, n: int, seed: int) -> None:
    t = time.time()
    made = synthesize(engine, PUBLIC, n, engine.generator, seed=seed)
    answerable, unanswerable = made.counts()
    print(f"\n== {name}: synthesized {answerable} answerable + {unanswerable} "
          f"unanswerable in {time.time() - t:.0f} s ({len(made.rejected)} rejected)")
    for kind in ("synthetic", "synthetic-unanswerable", "synthetic-restricted"):
        for q in [q for q in made.questions if q.kind == kind][:3]:
            print(f"   {kind}: {q.question}" + (f" -> {q.answer}" if q.answer else ""))
    for why in made.rejected[:6]:
        print(f"   rejected: {why}")
    choices = [("shipped default", *SHIPPED)]
    recs = collect_records(engine, questions, personas, None if personas else PUBLIC)
    for label, make in (("synthetic calibration",
                         lambda: run_calibration(engine, made.questions, {}, PUBLIC)),
                        ("gold dev-half calibration",  # the gold records, collected once
                         lambda: calibrate(recs, SIGNALS, 0.1))):
        try:
            cal = make()
        except ConfigError as exc:
            print(f"  {label}: impossible ({str(exc).split('. Fix')[0]})")
            continue
        choices.append((label, cal.signal, cal.threshold))
        if label.startswith("synthetic"):  # what `citewise calibrate --synthesize` would do
            print(f"  {label}: {cal.signal} >= {cal.threshold:.4f}; on its own test half "
                  f"{_rates(cal.test)} vs the gate in force {_rates(cal.in_force.test)}; "
                  + ("stored" if cal.may_store() else f"NOT stored ({cal.refusal})"))
    test = [r for r in recs if not is_dev(r.qid)]
    print(f"gold test half: {len(test)} questions")
    for label, signal, threshold in choices:
        print(f"  {label:<26} {signal} >= {threshold:.4f}: {rates(test, signal, threshold)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", help="SQuAD 2.0 JSON file")
    ap.add_argument("--set", action="append", default=[], help="NAME=DOCS: an eval set")
    ap.add_argument("--n", type=int, default=20, help="passages to synthesize from")
    ap.add_argument("--model", default=None, help="local model (default: the shipped one)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    generate = {"generator": "local", "threads": args.threads,
                **({"local_model": args.model} if args.model else {})}
    # the reader off: this compares the retrieval gates (signal, threshold), and it is faster
    settings = Settings.model_validate({"generate": generate, "gate": {"reader": "off"}})
    with tempfile.TemporaryDirectory() as tmp:
        if args.squad:
            (Path(tmp) / "squad").mkdir()
            converted = convert_squad(args.squad, Path(tmp) / "squad")
            with Engine(Path(tmp) / "squad.db", settings) as engine:
                engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
                compare("SQuAD 2.0 subset", engine, as_questions(converted.questions_path), {},
                        args.n, args.seed)
        for spec in args.set:
            evalset = EvalSet.parse(spec)
            with Engine(Path(tmp) / f"{evalset.name}.db", settings) as engine:
                evalset.ingest(engine)
                compare(evalset.name, engine, evalset.questions(), evalset.personas(),
                        args.n, args.seed)


if __name__ == "__main__":
    main()
