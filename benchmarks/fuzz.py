"""Fuzz totals: runs the property tests in ``tests/fuzz`` with more examples and prints how
many cases ran per property and how many let an exception escape (or ran past the bound).

    .venv/bin/python benchmarks/fuzz.py [--examples 1000]

Escapes are the failing properties: hypothesis stops a property at its first escape and
prints the shrunk input, so 0 failing properties means 0 escapes in all cases run.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000,
                        help="Examples per property (hypothesis max_examples).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "cases.jsonl"
        env = {**os.environ, "CITEWISE_FUZZ_EXAMPLES": str(args.examples),
               "CITEWISE_FUZZ_REPORT": str(report)}
        done = subprocess.run([sys.executable, "-m", "pytest", "tests/fuzz", "-q",
                               "-p", "no:cacheprovider", "-rf"], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        counts = collections.Counter(json.loads(line)["property"]
                                     for line in report.read_text().splitlines())
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    for name, n in sorted(counts.items()):
        print(f"{name:<14}{n:>8} cases")
    print(f"total: {sum(counts.values())} cases, {len(failed)} properties with an escape")
    for line in failed:
        print(line)
    if done.returncode not in (0, 1):
        print(done.stdout[-2000:], done.stderr[-2000:])
    return 1 if failed or done.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
