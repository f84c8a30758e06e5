"""Exact term pruning for FTS5 BM25 (MaxScore, Turtle & Flood 1995).

FTS5 computes ``bm25()`` for every row that matches ANY query term; a common term makes that
most of the index (measured: ~40 % of 100k chunks for a typical 8-term query, ~22 ms of
scoring). MaxScore skips rows that cannot reach the top k, without changing the result:

FTS5's BM25 (``fts5_aux.c``) gives term t in a row at most its upper bound

    UB(t) = idf(t) · (k1 + 1),   idf(t) = max(ln((N − n_t + 0.5) / (n_t + 0.5)), 1e-6),  k1 = 1.2

(the saturation ``f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))`` tends to k1+1 as f grows),
where N is the number of rows and n_t the rows containing t.

In an index of at least ``MIN_ROWS`` rows (smaller ones score every match in a few ms), for a
principal allowed at least ``BROAD_SHARE`` of them (otherwise the ACL already keeps the scored
set small), split the terms into *essential* ones (n_t ≤ ``ESSENTIAL_SHARE``·N:
rare, high idf) and the rest. A row matching no essential term scores at most
``B = Σ_rest UB(t)``. So: score, with ALL terms, only the allowed rows that match an essential
term; if the k-th of them scores above ``B``, no other row can enter the top k and the result
equals the unpruned query's. Otherwise run the unpruned query. n_t is counted with FTS5
itself (same tokenizer, same column filter) and cached per index generation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from citewise.index.checks import check_search_args
from citewise.index.sqlite import fts
from citewise.index.sqlite.acl import AclTokens
from citewise.index.sqlite.tenancy import SHARED_FTS
from citewise.index.sqlite.vectors import GENERATION_SQL
from citewise.types import ScoredId

K1 = 1.2  # FTS5's bm25 k1 (fixed in fts5_aux.c)
ESSENTIAL_SHARE = 0.1  # terms in at most 10 % of rows are essential (a speed knob, not quality)
MIN_ROWS = 20_000  # below this, scoring every match is cheap and pruning's counts cost more
BROAD_SHARE = 0.2  # prune only for principals allowed at least 20 % of rows: for selective ones
# the ACL already keeps the scored set small and a failed pruning attempt would cost a 2nd query
COUNT_TEMPLATE = "SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
COUNT_SQL = COUNT_TEMPLATE.format(fts=SHARED_FTS)
ROWS_SQL = "SELECT count(*) FROM chunks"


def upper_bound(n_rows: int, n_hits: int) -> float:
    """The most one term can add to a row's FTS5 bm25 score (see the module docstring)."""
    idf = math.log((n_rows - n_hits + 0.5) / (n_hits + 0.5))
    return (K1 + 1.0) * max(idf, 1e-6)


class TermStats:
    """Rows per term (``n_t``) and total rows (N) of one FTS table, cached until the index
    generation changes. A tenant's own table (isolated tenancy) holds only its chunks, so N
    is counted with its tenant token."""

    def __init__(self, table: str = SHARED_FTS, tenant_token: str | None = None) -> None:
        self.table = table
        self._tenant_token = tenant_token
        self._count_sql = COUNT_TEMPLATE.format(fts=table)
        self._generation: int | None = None
        self._rows = 0
        self._hits: dict[str, int] = {}
        self._allowed: dict[AclTokens, int] = {}

    def refresh(self, conn: Any) -> int:
        generation = conn.execute(GENERATION_SQL).fetchone()[0]
        if generation != self._generation:
            self._generation, self._hits, self._allowed = generation, {}, {}
            if self.table == SHARED_FTS:
                self._rows = conn.execute(ROWS_SQL).fetchone()[0]
            else:
                match = f"tenant: {fts.quote_term(self._tenant_token or '')}"
                self._rows = conn.execute(self._count_sql, (match,)).fetchone()[0]
        return self._rows

    def allowed(self, conn: Any, tokens: AclTokens) -> int:
        """Rows the principal may read (all terms), counted by FTS5 once per generation."""
        if tokens not in self._allowed:
            match = fts.build_acl_match(tokens)
            self._allowed[tokens] = conn.execute(self._count_sql, (match,)).fetchone()[0]
        return self._allowed[tokens]

    def hits(self, conn: Any, term: str) -> int:
        if term not in self._hits:
            match = fts.build_terms_match([term])
            self._hits[term] = conn.execute(self._count_sql, (match,)).fetchone()[0]
        return self._hits[term]


def search_sparse_pruned(conn: Any, stats: TermStats, terms: Sequence[str],
                         tokens: AclTokens | None, top_k: int,
                         title_weight: float = 1.0, min_rows: int = MIN_ROWS) -> list[ScoredId]:
    """Exactly :func:`fts.search_sparse`'s result, faster when some terms are common.
    Counts and queries run in one read transaction, so they see one snapshot."""
    check_search_args(top_k, title_weight)
    if tokens is None or not terms or not tokens.groups:
        return []
    conn.execute("BEGIN")
    try:
        return _search(conn, stats, terms, tokens, top_k, title_weight, min_rows)
    finally:
        conn.execute("COMMIT")


def _search(conn: Any, stats: TermStats, terms: Sequence[str], tokens: AclTokens,
            top_k: int, title_weight: float, min_rows: int) -> list[ScoredId]:
    n_rows = stats.refresh(conn)
    table = stats.table
    if n_rows < min_rows or stats.allowed(conn, tokens) < BROAD_SHARE * n_rows:
        return fts.search_sparse(conn, terms, tokens, top_k, title_weight, table)
    hits = {t: stats.hits(conn, t) for t in terms}
    present = sorted((t for t in terms if hits[t] > 0), key=lambda t: hits[t])
    essential = [t for t in present if hits[t] <= ESSENTIAL_SHARE * n_rows]
    rest = [t for t in present if t not in essential]
    if not essential or not rest:
        return fts.search_sparse(conn, terms, tokens, top_k, title_weight, table)
    bound = sum(upper_bound(n_rows, hits[t]) for t in rest)
    sql, params = fts.build_sparse_sql(present, tokens, top_k, title_weight, table)
    params["allowed"] = fts.build_match(essential, tokens)
    rows = conn.execute(sql, params).fetchall()
    if len(rows) == top_k and float(rows[-1][1]) > bound:
        return [ScoredId(chunk_id=cid, score=float(score), rank=i)
                for i, (cid, score) in enumerate(rows, start=1)]
    return fts.search_sparse(conn, terms, tokens, top_k, title_weight, table)
