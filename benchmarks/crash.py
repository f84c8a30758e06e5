"""Kill -9 during writes: runs the crash workload (ingest, delete, ACL change, reindex) and
SIGKILLs it ``--kills`` times at random moments, checking the index after each kill (see
:mod:`citewise.testing.crash`), and prints kills / inconsistencies.

    .venv/bin/python benchmarks/crash.py --kills 100 [--seed 0] [--max-delay 1.5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from citewise.testing.crash import run_kills


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-delay", type=float, default=1.5,
                        help="Longest wait (s) after the child is ready before the kill.")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = run_kills(Path(tmp) / "index.db", Path(tmp), args.kills, args.seed,
                           args.max_delay)
    print(f"kills: {report.kills}, inconsistencies: {len(report.inconsistencies)} "
          f"({time.perf_counter() - started:.0f} s)")
    print(f"killed during: {dict(sorted(report.killed_in.items()))} (the rest between calls)")
    print(f"calls completed between kills: {dict(sorted(report.ops.items()))}")
    print(f"abandoned shadows removed by later reindexes: "
          f"{len(report.abandoned_removed)}; shadows left: {report.shadows_left}")
    for problem in report.inconsistencies:
        print(f"  {problem}")
    return 1 if report.inconsistencies else 0


if __name__ == "__main__":
    sys.exit(main())
