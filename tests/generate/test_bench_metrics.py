"""The SQuAD metrics of benchmarks/generators.py, against hand-computed values."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "generators.py"
_SPEC = importlib.util.spec_from_file_location("bench_generators", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # dataclasses look their module up there
_SPEC.loader.exec_module(bench)


def test_normalize_answer_drops_case_punctuation_and_articles():
    assert bench.normalize_answer("The  Upper-Rhine, an area!") == "upperrhine area"


def test_token_f1():
    # pred {upper, rhine, region}, ref {upper, rhine}: P = 2/3, R = 1, F1 = 2PR/(P+R) = 0.8
    assert bench.token_f1("the Upper Rhine region", "Upper Rhine") == pytest.approx(0.8)
    assert bench.token_f1("Lake Constance", "lake constance") == 1.0
    assert bench.token_f1("Germany", "France") == 0.0


def test_citations_and_declines():
    assert bench.strip_citations("It is blue [S1]. And wet [S2, S3].") == "It is blue . And wet ."
    assert bench.is_decline("Insufficient evidence: the available sources do not answer this.")
    assert not bench.is_decline("The evidence is sufficient [S1].")


def test_sample_is_seeded_and_keeps_the_gold_paragraph():
    if not bench.DEFAULT_DATA.is_file():
        pytest.skip(f"{bench.DEFAULT_DATA} not present (shared evaluation data)")
    first = bench.sample_items(bench.DEFAULT_DATA, 6, seed=3)
    assert first == bench.sample_items(bench.DEFAULT_DATA, 6, seed=3)
    assert [i.answerable for i in first] == [True] * 4 + [False] * 2
    for item in first:
        gold = item.paragraphs[int(item.gold_sid[1:]) - 1]
        assert len(item.paragraphs) == 3
        assert all(a in gold for a in item.answers)
