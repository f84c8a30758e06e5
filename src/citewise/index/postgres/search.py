"""Search on PostgreSQL: lexical (tsvector + GIN) and dense (pgvector HNSW or exact), with the
principal's tenant/ACL predicate INSIDE each query.

Predicate (on the chunk row, GIN-indexed ``acl``)::

    c.tenant = %(tenant)s AND c.acl OPERATOR(pg_catalog.&&) %(groups)s::text[]

Group names are compared as whole array elements, so ``hr-managers`` never matches ``hr``.

**Lexical** ranks with ``ts_rank(weights, tsv, query, 1)``: PostgreSQL's term-frequency rank,
weighted by label (A = title + headings, B = text), normalisation 1 = divide by
``1 + ln(document length)``. It is NOT BM25: there is no IDF (a rare term counts as much as a
common one) and no saturation parameter, so expect lower quality than SQLite's FTS5 ``bm25()``
(measure with ``benchmarks/backends.py``). The query is the OR of :func:`query_terms`, stemmed
by the ``english`` configuration. ts_rank requires weights in [0, 1]: A and B are scaled by
``1 / max(1, title_weight)``, which keeps their ratio (``title_weight`` : 1) and the ranking.
(Source: PostgreSQL 15 documentation, section 12.3.3 "Ranking Search Results".) ts_rank is
computed for EVERY matching row (~15 us each): long OR queries under a broad filter are the
slow case (measured 123 ms p50 at 100k chunks, see benchmarks/backends.py).

**Tenancy**: ``ts_rank`` reads only the row's own ``tsv`` (no IDF, no average length), so a
tenant's lexical scores never depend on other tenants' chunks, whatever ``index.tenancy``
says (checked by ``StoreConformanceTests.test_tenancy_lexical_scores``). What
``index.tenancy: isolated`` changes here is the embedding cache: vectors are keyed by
``(embed_hash, scope)`` and each chunk joins its own ``vec_scope`` (``''`` shared, else its
tenant). The HNSW graph is one for all tenants: it is approximate, so WHICH of a tenant's
chunks an HNSW scan finds can vary with other tenants' vectors (scores cannot); the exact path
(selective filters, and the fallback) does not.

**Dense** scores are inner products of unit vectors (= cosine). Two paths, chosen by the
planner's ESTIMATE of how many chunks the principal may read (``EXPLAIN`` of the predicate,
~0.3 ms; counting them measured 11 ms for a 50-group principal, as ``&&`` compares every row's
array with all its groups):

* *exact*, when the estimate is at most ``exact_max``: the allowed rows are materialised and
  scored one by one, so the full k comes back by construction;
* *HNSW*, otherwise: ``hnsw.ef_search`` = max(``ef_search``, k) and
  ``hnsw.iterative_scan = relaxed_order`` (pgvector 0.8), so the scan goes on until k
  allowed rows are found (up to ``hnsw.max_scan_tuples``); relaxed order means the rows are
  re-sorted by score outside the scan. Left alone, the planner often prefers "filter chunks
  first, then sort" for the join (measured 120 ms at 12k allowed rows, vs 3.6 ms through the
  index), so the transaction turns seq/bitmap scans and sorts off (``SET LOCAL``) and the
  only cheap plan left is the HNSW scan. JIT is off on our connections: those inflated costs
  would otherwise trigger ~150 ms of compilation per query.
* If the estimate was wrong and HNSW returns fewer than k rows, the exact path runs (it
  returns all allowed rows when there are fewer than k): a selective filter always gets the
  full k. ``exact_max < 0`` disables the exact path entirely (tests of the HNSW path).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from citewise.index.postgres.writes import TS_CONFIG
from citewise.types import ScoredId

EF_SEARCH_MAX = 1000  # pgvector's upper bound for hnsw.ef_search; iterative scan goes beyond

PREDICATE = "c.tenant = %(tenant)s AND c.acl OPERATOR(pg_catalog.&&) %(groups)s::text[]"

SPARSE_SQL = f"""SELECT c.chunk_id,
       pg_catalog.ts_rank(%(weights)s::pg_catalog.float4[], c.tsv, q.query, 1) AS score
FROM chunks AS c,
     pg_catalog.to_tsquery('{TS_CONFIG}'::pg_catalog.regconfig, %(terms)s) AS q(query)
WHERE c.tsv @@ q.query AND {PREDICATE}
ORDER BY score DESC, c.id
LIMIT %(top_k)s"""

ESTIMATE_ALLOWED_SQL = f"EXPLAIN (FORMAT JSON) SELECT 1 FROM chunks AS c WHERE {PREDICATE}"

HNSW_SETTINGS_SQL = """SELECT set_config('hnsw.ef_search', %s, true),
    set_config('hnsw.iterative_scan', 'relaxed_order', true),
    set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
    set_config('enable_sort', 'off', true)"""

EXACT_DENSE_SQL = f"""WITH allowed AS MATERIALIZED (
    SELECT c.id, c.chunk_id, c.embed_hash, c.vec_scope FROM chunks AS c WHERE {PREDICATE})
SELECT a.chunk_id, -(v.embedding <#> %(vector)s) AS score
FROM allowed AS a JOIN vectors AS v ON v.embed_hash = a.embed_hash AND v.scope = a.vec_scope
ORDER BY score DESC, a.id
LIMIT %(top_k)s"""

HNSW_DENSE_SQL = f"""WITH nearest AS MATERIALIZED (
    SELECT c.id, c.chunk_id, v.embedding <#> %(vector)s AS distance
    FROM vectors AS v JOIN chunks AS c ON c.embed_hash = v.embed_hash AND c.vec_scope = v.scope
    WHERE {PREDICATE}
    ORDER BY v.embedding <#> %(vector)s
    LIMIT %(top_k)s)
SELECT chunk_id, -distance AS score FROM nearest ORDER BY distance, id"""

VISIBLE_CHUNKS_SQL = """SELECT c.chunk_id, c.ordinal, c.text, c.embed_hash, c.start_char,
       c.end_char, c.heading_path, c.anchor, c.section_id, c.token_count, c.kind, c.page,
       c.sections, d.doc_id, d.title, d.content_hash, d.tenant, d.acl, d.version,
       d.source_url, d.owner, d.updated_at, d.metadata
FROM chunks AS c JOIN documents AS d ON d.id = c.doc_id
WHERE c.chunk_id = ANY(%(chunk_ids)s)
  AND d.tenant = %(tenant)s AND d.acl OPERATOR(pg_catalog.&&) %(groups)s::text[]"""


def filter_params(tenant: str, groups: frozenset[str]) -> dict[str, Any]:
    return {"tenant": tenant, "groups": sorted(groups)}


def ts_weights(title_weight: float) -> list[float]:
    """ts_rank's ``{D, C, B, A}`` weights for A = headings (``title_weight``) and B = text (1),
    scaled into [0, 1].

    >>> ts_weights(2.0)
    [0.0, 0.0, 0.5, 1.0]
    """
    scale = max(1.0, float(title_weight))
    return [0.0, 0.0, 1.0 / scale, float(title_weight) / scale]


def tsquery_text(terms: Sequence[str]) -> str:
    """``to_tsquery`` input OR-ing ``terms`` (word characters only, from ``query_terms``)."""
    return " | ".join(terms)


def search_sparse(conn: Any, terms: Sequence[str], params: dict[str, Any], top_k: int,
                  title_weight: float) -> list[ScoredId]:
    rows = conn.execute(SPARSE_SQL, {**params, "terms": tsquery_text(terms), "top_k": top_k,
                                     "weights": ts_weights(title_weight)}).fetchall()
    return ranked(rows)


def estimate_allowed(conn: Any, params: dict[str, Any]) -> int:
    """The planner's estimate of how many chunks the principal may read."""
    plan = conn.execute(ESTIMATE_ALLOWED_SQL, params).fetchone()[0]
    return int(plan[0]["Plan"]["Plan Rows"])


def search_dense(conn: Any, vector: np.ndarray, params: dict[str, Any], top_k: int,
                 ef_search: int, exact_max: int) -> tuple[str, list[ScoredId]]:
    """``(path, results)``, path ``"exact"``, ``"hnsw"`` or ``"hnsw+exact"`` (fallback)."""
    args = {**params, "vector": vector, "top_k": top_k}
    if exact_max >= 0 and estimate_allowed(conn, params) <= exact_max:
        return "exact", ranked(conn.execute(EXACT_DENSE_SQL, args).fetchall())
    with conn.transaction():
        conn.execute(HNSW_SETTINGS_SQL, (str(min(EF_SEARCH_MAX, max(ef_search, top_k))),))
        results = ranked(conn.execute(HNSW_DENSE_SQL, args).fetchall())
    if len(results) < top_k and exact_max >= 0:
        return "hnsw+exact", ranked(conn.execute(EXACT_DENSE_SQL, args).fetchall())
    return "hnsw", results


def ranked(rows: Sequence[Sequence[Any]]) -> list[ScoredId]:
    return [ScoredId(chunk_id=row[0], score=float(row[1]), rank=i)
            for i, row in enumerate(rows, start=1)]
