"""Lexical search: BM25 over the FTS5 table ``chunks_fts`` with the ACL inside the MATCH.

(With ``index.tenancy: isolated`` each tenant has its own table ``chunks_fts_t<id>`` of the
same shape, so BM25's statistics are the tenant's own: :mod:`.tenancy`.)

Each chunk has one FTS row (rowid = ``chunks.id``) with four columns:

* ``title``  - document title + the chunk's heading path (weight ``title_weight``)
* ``body``   - the chunk text (weight 1.0)
* ``acl``    - the document's group tokens ``g<id> ...`` (weight 0: filter only)
* ``tenant`` - the tenant token ``t<id>`` (weight 0: filter only)

The principal's filter is part of a MATCH expression, so a chunk it may not read is never a
candidate (joining an ACL table after MATCH measured ~50x slower, see backends.md)::

    {title body}: ("vacation" OR "policy") AND acl: ("g3" OR "g9") AND tenant: "t2"

That expression selects the candidates (``+rowid IN (subquery)``, materialised once; the unary
``+`` keeps SQLite from turning the IN list into one FTS lookup per rowid); the ranking cursor
MATCHes the query terms alone. Same rows, same scores, but ``bm25()`` then ignores the filter
phrases: with them in the ranked MATCH it scans every filter token's doclist for IDF statistics
on each query (the tenant token alone lists most rows). Measured at 100k chunks, top-50, p50:
rare terms 7.8 -> 1.8 ms (2 % allowed) and 39 -> 19 ms (64 % allowed); common terms 11 -> 7 ms
and 56 -> 36 ms.

FTS5's ``bm25()`` (Robertson/Sparck Jones Okapi BM25, k1 = 1.2, b = 0.75) scores

    sum_q idf(q) * f(q) * (k1 + 1) / (f(q) + k1 * (1 - b + b * |D| / avgdl))
    idf(q) = ln((N - n(q) + 0.5) / (n(q) + 0.5))   (floored at 1e-6)

where ``f(q)`` is the column-weighted count of q in the row and ``|D|`` counts the tokens of all
columns. It returns the NEGATED score (lower is better); we return ``-bm25`` (higher is better).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citewise.index.checks import check_search_args
from citewise.index.sqlite.acl import AclTokens
from citewise.index.sqlite.tenancy import SHARED_FTS, ensure_fts_table
from citewise.types import ScoredId

SPARSE_TEMPLATE = """SELECT c.chunk_id, -hits.score AS score
FROM (SELECT rowid, bm25({fts}, :title_weight, 1.0, 0.0, 0.0) AS score
      FROM {fts}
      WHERE {fts} MATCH :terms
        AND +rowid IN (SELECT rowid FROM {fts} WHERE {fts} MATCH :allowed)
      ORDER BY score, rowid LIMIT :top_k) AS hits
JOIN chunks AS c ON c.id = hits.rowid
ORDER BY hits.score, hits.rowid"""
SPARSE_SQL = SPARSE_TEMPLATE.format(fts=SHARED_FTS)

# One FTS row per chunk of a document, built from the stored rows (used by write and set_acl).
FTS_ROWS_TEMPLATE = """INSERT INTO {fts}(rowid, title, body, acl, tenant)
SELECT c.id,
       d.title || ' ' || COALESCE((SELECT group_concat(value, ' ') FROM json_each(c.heading_path)),
                                  ''),
       c.text,
       COALESCE((SELECT group_concat('g' || dg.group_id, ' ') FROM doc_groups AS dg
                 WHERE dg.doc_rowid = d.id), ''),
       't' || d.tenant_id
FROM chunks AS c JOIN documents AS d ON d.id = c.doc_rowid
WHERE c.doc_rowid = ?"""
FTS_ROWS_SQL = FTS_ROWS_TEMPLATE.format(fts=SHARED_FTS)

DELETE_FTS_ROWS_TEMPLATE = """DELETE FROM {fts}
WHERE rowid IN (SELECT id FROM chunks WHERE doc_rowid = ?)"""
DELETE_FTS_ROWS_SQL = DELETE_FTS_ROWS_TEMPLATE.format(fts=SHARED_FTS)


def quote_term(term: str) -> str:
    """An FTS5 string literal: the term in double quotes, inner quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def build_terms_match(terms: Sequence[str]) -> str:
    """Any of the terms in title or body: ``{title body}: ("t1" OR "t2")``."""
    if not terms:
        raise ValueError("a MATCH expression needs at least one term")
    return "{title body}: (" + " OR ".join(quote_term(t) for t in terms) + ")"


def build_acl_match(tokens: AclTokens) -> str:
    """Any of the principal's group tokens AND its tenant token."""
    if not tokens.groups:
        raise ValueError("a principal's MATCH expression needs at least one group token")
    groups = " OR ".join(quote_term(g) for g in tokens.groups)
    return f"acl: ({groups}) AND tenant: {quote_term(tokens.tenant)}"


def build_match(terms: Sequence[str], tokens: AclTokens) -> str:
    """Any term in title/body AND any of the principal's group tokens AND its tenant token."""
    return f"{build_terms_match(terms)} AND {build_acl_match(tokens)}"


def build_sparse_sql(terms: Sequence[str], tokens: AclTokens, top_k: int,
                     title_weight: float = 1.0,
                     table: str = SHARED_FTS) -> tuple[str, dict[str, Any]]:
    """The SQL and named parameters of :func:`search_sparse` on FTS table ``table``.

    Rows come back as ``(chunk_id, score)``, best first, ties by chunk rowid.
    """
    check_search_args(top_k, title_weight)
    return SPARSE_TEMPLATE.format(fts=table), {
        "title_weight": float(title_weight), "terms": build_terms_match(terms),
        "allowed": build_match(terms, tokens), "top_k": int(top_k)}


def search_sparse(conn: Any, terms: Sequence[str], tokens: AclTokens | None, top_k: int,
                  title_weight: float = 1.0, table: str = SHARED_FTS) -> list[ScoredId]:
    """Top ``top_k`` chunks by BM25 among those the principal may read.

    ``tokens=None`` (unknown tenant or groups) and empty ``terms`` return ``[]`` unqueried.
    """
    check_search_args(top_k, title_weight)
    if tokens is None or not terms or not tokens.groups:
        return []
    sql, params = build_sparse_sql(terms, tokens, top_k, title_weight, table)
    rows = conn.execute(sql, params).fetchall()
    return [ScoredId(chunk_id=cid, score=float(score), rank=i)
            for i, (cid, score) in enumerate(rows, start=1)]


def rebuild_fts_rows(conn: Any, doc_rowid: int, table: str = SHARED_FTS) -> None:
    """Replace the FTS rows of one document (in ``table``, its tenant's FTS table) from its
    stored chunks, title, groups and tenant."""
    ensure_fts_table(conn, table)
    conn.execute(DELETE_FTS_ROWS_TEMPLATE.format(fts=table), (doc_rowid,))
    conn.execute(FTS_ROWS_TEMPLATE.format(fts=table), (doc_rowid,))


def delete_fts_rows(conn: Any, doc_rowid: int, table: str = SHARED_FTS) -> None:
    """Delete the FTS rows of one document's chunks from ``table`` (if it exists)."""
    if table == SHARED_FTS or conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        conn.execute(DELETE_FTS_ROWS_TEMPLATE.format(fts=table), (doc_rowid,))
