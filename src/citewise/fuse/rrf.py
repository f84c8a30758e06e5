"""Reciprocal Rank Fusion.

Cormack, Clarke & Büttcher (2009), "Reciprocal Rank Fusion outperforms Condorcet and individual
Rank Learning Methods", SIGIR '09, eq. 1:

    RRFscore(d) = Σ_{r ∈ R} 1 / (rrf_k + r(d))

where r(d) is the **1-based** rank of d in run r (the top hit has rank 1) and rrf_k = 60.
A document absent from a run contributes nothing for that run. ``rrf_k`` is the smoothing
constant, not the number of results (that is ``top_k``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from citewise.types import ScoredId


def rrf(runs: Mapping[str, Sequence[ScoredId]], rrf_k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked lists by RRF; returns ``(chunk_id, score)`` sorted by score descending.

    Ranks are read from each entry's ``rank`` field (1-based). Ties in fused score are broken
    by the best single rank, then by the order of ``runs`` and position (deterministic).

    >>> a = [ScoredId("x", 9.0, 1), ScoredId("y", 5.0, 2)]
    >>> b = [ScoredId("y", 0.9, 1)]
    >>> [(c, round(s, 6)) for c, s in rrf({"bm25": a, "dense": b})]
    [('y', 0.032522), ('x', 0.016393)]
    """
    if rrf_k < 1:
        raise ValueError(f"rrf_k must be >= 1 (Cormack et al. use 60), got {rrf_k}")
    scores: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for run in runs.values():
        for entry in run:
            if entry.rank < 1:
                raise ValueError(f"ranks are 1-based; got rank {entry.rank} for {entry.chunk_id}")
            cid = entry.chunk_id
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (rrf_k + entry.rank)
            best_rank[cid] = min(best_rank.get(cid, entry.rank), entry.rank)
            first_seen.setdefault(cid, len(first_seen))
    return sorted(scores.items(), key=lambda kv: (-kv[1], best_rank[kv[0]], first_seen[kv[0]]))
