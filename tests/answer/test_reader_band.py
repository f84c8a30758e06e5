"""benchmarks/reader_band.py: the band rule and its choice on dev rows, by hand."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "reader_band.py"
_SPEC = importlib.util.spec_from_file_location("bench_reader_band", _PATH)
band = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = band
_SPEC.loader.exec_module(band)


def row(answerable: bool, score: float, p: float | None) -> dict:
    return {"answerable": answerable, "score": score, "p_yes": p}


def test_the_band_reads_near_misses_and_passes_only_sure_ones() -> None:
    t, r0 = band.T0, band.R0
    rule = (t, t - 0.05, 0.8)
    assert band.passes(row(True, t + 0.1, r0), *rule)  # over the threshold: the reader's bar
    assert not band.passes(row(True, t + 0.1, r0 - 0.01), *rule)
    assert band.passes(row(True, t - 0.01, 0.8), *rule)  # in the band: the sure bar
    assert not band.passes(row(True, t - 0.01, 0.79), *rule)
    assert not band.passes(row(True, t - 0.06, 0.99), *rule)  # under the band: never


def test_the_choice_keeps_false_declines_and_takes_a_band_that_helps() -> None:
    t = band.T0
    # one unanswerable near miss read at 0.65, one answerable at 0.75: only a bar in between
    # answers the second without passing the first
    rows = [row(False, t - 0.01, 0.65), row(True, t - 0.01, 0.75)] + \
        [row(True, t + 0.2, 0.9)] * 8 + [row(False, t - 0.3, None)] * 2
    low, high = band.choose({"dev": rows}, 0.25)[1:]
    assert low <= t - 0.01 and 0.65 < high <= 0.75
    abst, fd, _ = band.rates(rows, band.choose({"dev": rows}, 0.25))
    assert abst == 1.0 and fd == 0.0
