"""Ranking metrics as plain functions over one query: ``ranking`` is a list of document ids
best first, ``qrels`` maps a document id to its relevance grade (0 = not relevant).

Conventions follow trec_eval / pytrec_eval (what BEIR reports): ranks are 1-based, a
document is relevant when its grade is > 0, and a query without relevant documents is
excluded from averages by the caller (:func:`mean_over_queries`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence


def _relevant(qrels: Mapping[str, int]) -> set[str]:
    return {d for d, g in qrels.items() if g > 0}


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Recall@k = |relevant ∩ top-k| / |relevant| (Manning et al., IIR §8.3)."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    return len(rel.intersection(ranking[:k])) / len(rel)


def hit_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Hit-rate@k: 1 if any relevant document is in the top k, else 0."""
    rel = _relevant(qrels)
    return 1.0 if rel.intersection(ranking[:k]) else 0.0


def mrr_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document within the top k (0 if none):
    RR = 1 / rank_first_relevant, rank 1-based (Voorhees, TREC-8 QA track, 1999)."""
    rel = _relevant(qrels)
    for rank, doc in enumerate(ranking[:k], start=1):
        if doc in rel:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gains, as trec_eval's ``ndcg_cut`` (Järvelin & Kekäläinen 2002):

        DCG@k  = Σ_{i=1..k} grade(d_i) / log2(i + 1)
        nDCG@k = DCG@k / IDCG@k,  IDCG@k = DCG of the grades sorted descending.
    """
    gains = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))
    if idcg == 0.0:
        return 0.0
    dcg = sum(qrels.get(doc, 0) / math.log2(i + 1)
              for i, doc in enumerate(ranking[:k], start=1) if qrels.get(doc, 0) > 0)
    return dcg / idcg


def mean_over_queries(metric: Callable[[Sequence[str], Mapping[str, int], int], float],
                      runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
                      k: int) -> float:
    """Average ``metric@k`` over queries that have at least one relevant document; a query
    missing from ``runs`` counts as an empty ranking (scores 0), as in trec_eval ``-c``."""
    judged = [q for q, rel in qrels.items() if _relevant(rel)]
    if not judged:
        return 0.0
    return sum(metric(runs.get(q, []), qrels[q], k) for q in judged) / len(judged)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank-free linear interpolation percentile (numpy's default 'linear')."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def context_precision(relevant: Sequence[bool]) -> float:
    """Share of the retrieved passages that lie in a relevant place:
    |{i ≤ n : passage i relevant}| / n over the n passages retrieved (n, not k: a short list
    is not penalised for its missing tail); 0 for an empty retrieval. Set precision
    (Manning et al., IIR §8.3) at the retrieved depth, i.e. RAGAS' context precision without
    its rank weighting. Passages are not collapsed: two relevant chunks both count."""
    if not relevant:
        return 0.0
    return sum(1 for r in relevant if r) / len(relevant)


def duplicate_rate(passages: Sequence[tuple[str, int, int, str]]) -> float:
    """Share of retrieved passages that repeat one ranked above them: same document with an
    overlapping character span (overlapping windows), or the same text hash (a copy in another
    document). ``passages`` are ``(doc_id, start, end, text_hash)`` best first; 0 when empty.
    Spans ``[s, e)`` overlap when ``s1 < e2 and s2 < e1``."""
    if not passages:
        return 0.0
    dup = 0
    for i, (doc, start, end, digest) in enumerate(passages):
        for doc2, start2, end2, digest2 in passages[:i]:
            if digest == digest2 or (doc == doc2 and start < end2 and start2 < end):
                dup += 1
                break
    return dup / len(passages)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values (a figure with nothing to average is not 0)."""
    return sum(values) / len(values) if values else float("nan")
