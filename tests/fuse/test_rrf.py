import pytest

from citewise.fuse import rrf
from citewise.types import ScoredId


def run(*ids: str) -> list[ScoredId]:
    return [ScoredId(cid, 0.0, rank) for rank, cid in enumerate(ids, start=1)]


def test_rrf_hand_computed_1_based_ranks():
    fused = dict(rrf({"bm25": run("d1", "d2", "d3"), "dense": run("d3", "d4", "d1")}))
    assert fused["d1"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 3))
    assert fused["d3"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert fused["d2"] == pytest.approx(1 / (60 + 2))
    assert fused["d4"] == pytest.approx(1 / (60 + 2))


def test_rrf_order_and_tie_break_is_deterministic():
    fused = rrf({"bm25": run("a", "b"), "dense": run("b", "c")})
    assert [cid for cid, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_rrf_custom_k_and_empty_runs():
    assert rrf({"bm25": [], "dense": []}) == []
    fused = dict(rrf({"x": run("a")}, rrf_k=1))
    assert fused["a"] == pytest.approx(1 / 2)


def test_rrf_rejects_zero_based_ranks_and_bad_k():
    with pytest.raises(ValueError, match="1-based"):
        rrf({"x": [ScoredId("a", 1.0, 0)]})
    with pytest.raises(ValueError, match="rrf_k"):
        rrf({"x": run("a")}, rrf_k=0)
