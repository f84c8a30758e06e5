"""``benchmarks/load.py`` runs (briefly): readers as threads on one Engine and as processes
while an ingest process and a delete stream write, with 0 errors and every delete
unretrievable when it returns. The figures come from the full run (README, Measured)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_load_benchmark_runs_clean():
    done = subprocess.run([sys.executable, "benchmarks/load.py", "--duration", "3",
                           "--readers", "3", "--docs", "40"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rounds = [line for line in done.stdout.splitlines() if "readers," in line]
    assert len(rounds) == 2
    for line in rounds:
        assert " 0 errors" in line and " 0 still retrievable" in line, line
