"""The in-memory state of a dense index (:mod:`.vectors`), loaded once and then kept current
by re-reading only the documents each write generation touched.

A :class:`DenseState` is immutable once built: a refresh builds the next one (sharing what did
not change) and the owner swaps it in, so searches on the previous one never see a half
update. Every write logs the rowids of the documents it touched under its generation
(``dense_changes``, :func:`~citewise.index.sqlite.writes.bump_generation`); a refresh from
generation ``g`` re-reads those documents' rows, groups, chunks and any vector not in the
matrix yet, all in one read transaction. It loads everything again instead when the log no
longer reaches back to ``g`` (``meta.dense_log_from``), when the change touches more than
:data:`FULL_RELOAD_SHARE` of the documents, or when over half the matrix rows are vectors no
chunk uses anymore.

The matrix lives in a buffer with spare rows: new vectors are written past the rows earlier
states use, so a refresh copies no existing row (a full buffer is reallocated at 1.5x).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from citewise.errors import StoreError

FULL_RELOAD_SHARE = 0.25
LOAD_BLOCK = 4096

GENERATION_SQL = "SELECT value FROM meta WHERE key = 'generation'"
LOG_FROM_SQL = "SELECT value FROM meta WHERE key = 'dense_log_from'"
CHANGED_SQL = "SELECT DISTINCT doc_rowid FROM dense_changes WHERE generation > ?"
COUNT_VECTORS_SQL = "SELECT count(*) FROM vectors WHERE scope = ?"
LOAD_VECTORS_SQL = "SELECT embed_hash, vec FROM vectors WHERE scope = ?"
SOME_VECTORS_SQL = """SELECT embed_hash, vec FROM vectors
WHERE scope = ? AND embed_hash IN (SELECT value FROM json_each(?))"""
# All documents (tenant ``None``: the shared matrix) or one tenant's (isolated tenancy), and
# with ``_IN`` only the given document rowids (a JSON array).
_IN = " AND d.id IN (SELECT value FROM json_each(?))"
_TENANT = " AND d.tenant_id = ?"
CHUNKS_SQL = """SELECT c.id, c.chunk_id, c.doc_rowid, c.embed_hash
FROM chunks AS c JOIN documents AS d ON d.id = c.doc_rowid WHERE 1 {} ORDER BY c.id"""
DOCUMENTS_SQL = "SELECT d.id, d.tenant_id FROM documents AS d WHERE 1 {} ORDER BY d.id"
POSTINGS_SQL = """SELECT g.group_id, g.doc_rowid
FROM doc_groups AS g JOIN documents AS d ON d.id = g.doc_rowid WHERE 1 {}
ORDER BY g.group_id, g.doc_rowid"""


@dataclass(frozen=True)
class DenseState:
    generation: int
    buffer: np.ndarray  # (capacity, dim) float32; rows [0, rows) are L2-normalised vectors
    rows: int
    row_of: dict[str, int]  # embed hash -> matrix row (rows of later states added in place)
    chunk_rowids: np.ndarray  # (n,) int64, ascending: chunks.id
    chunk_ids: np.ndarray  # (n,) object: chunk id
    chunk_doc_rowids: np.ndarray  # (n,) int64: documents.id
    vec_rows: np.ndarray  # (n,) int64: matrix row
    doc_rowids: np.ndarray  # (d,) int64, ascending
    doc_tenants: np.ndarray  # (d,) int64
    pairs: np.ndarray  # (p, 2) int64 (group id, doc rowid), sorted
    chunk_doc: np.ndarray  # (n,) chunk position -> document position
    postings: dict[int, np.ndarray]  # group id -> sorted document positions

    @property
    def matrix(self) -> np.ndarray:
        return self.buffer[:self.rows]


def load_state(conn: Any, dim: int, tenant_id: int | None) -> DenseState:
    """Everything of the shared matrix (``tenant_id=None``) or of one tenant's, in one read
    transaction."""
    conn.execute("BEGIN")
    try:
        generation = conn.execute(GENERATION_SQL).fetchone()[0]
        buffer, row_of = _load_matrix(conn, dim, 0 if tenant_id is None else tenant_id)
        chunks, docs, pairs = _rows(conn, tenant_id, None)
    finally:
        conn.execute("COMMIT")
    return _derive(generation, buffer, len(row_of), row_of, chunks, docs, pairs)


def refresh_state(conn: Any, old: DenseState, dim: int, tenant_id: int | None) -> DenseState:
    """``old`` brought to the current generation, re-reading only the documents changed
    since (or everything: see the module notes)."""
    conn.execute("BEGIN")
    try:
        generation = conn.execute(GENERATION_SQL).fetchone()[0]
        if generation == old.generation:
            return old
        log_from = conn.execute(LOG_FROM_SQL).fetchone()
        changed = [] if log_from is None or old.generation < log_from[0] else [
            r[0] for r in conn.execute(CHANGED_SQL, (old.generation,))]
        if (log_from is None or old.generation < log_from[0]
                or len(changed) > FULL_RELOAD_SHARE * max(old.doc_rowids.size, 64)):
            return _reload(conn, dim, tenant_id, generation)
        chunks, docs, pairs = _rows(conn, tenant_id, changed)
        scope = 0 if tenant_id is None else tenant_id
        missing = sorted({h for h in chunks[3] if h not in old.row_of})
        added = dict(conn.execute(SOME_VECTORS_SQL, (scope, json.dumps(missing)))) \
            if missing else {}
    finally:
        conn.execute("COMMIT")
    buffer, rows, new_rows = _append(old, added, dim)
    gone = np.asarray(changed, dtype=np.int64)
    state = _merge(old, generation, buffer, rows, new_rows, gone, chunks, docs, pairs)
    used = np.count_nonzero(np.bincount(state.vec_rows, minlength=state.rows))
    if state.rows > 2 * max(used, 1024):  # mostly rows no chunk uses anymore
        return load_state(conn, dim, tenant_id)
    old.row_of.update(new_rows)
    return state


def _reload(conn: Any, dim: int, tenant_id: int | None, generation: int) -> DenseState:
    """Everything again, inside the caller's read transaction."""
    buffer, row_of = _load_matrix(conn, dim, 0 if tenant_id is None else tenant_id)
    chunks, docs, pairs = _rows(conn, tenant_id, None)
    return _derive(generation, buffer, len(row_of), row_of, chunks, docs, pairs)


Columns = tuple[list[Any], ...]


def _rows(conn: Any, tenant_id: int | None,
          doc_rowids: list[int] | None) -> tuple[Columns, Columns, list[tuple[int, int]]]:
    """Chunk, document and posting rows of the scope (of ``doc_rowids`` alone if given), as
    columns (chunk rowid, chunk id, doc rowid, hash) and (doc rowid, tenant id)."""
    where, params = "", []
    if tenant_id is not None:
        where, params = where + _TENANT, params + [tenant_id]
    if doc_rowids is not None:
        where, params = where + _IN, params + [json.dumps(sorted(doc_rowids))]
    chunk_rows = conn.execute(CHUNKS_SQL.format(where), params).fetchall()
    doc_rows = conn.execute(DOCUMENTS_SQL.format(where), params).fetchall()
    pairs = conn.execute(POSTINGS_SQL.format(where), params).fetchall()
    chunks = tuple(map(list, zip(*chunk_rows, strict=True))) if chunk_rows else ([],) * 4
    docs = tuple(map(list, zip(*doc_rows, strict=True))) if doc_rows else ([],) * 2
    return chunks, docs, pairs


def _derive(generation: int, buffer: np.ndarray, rows: int, row_of: dict[str, int],
            chunks: Columns, docs: Columns, pairs: list[tuple[int, int]]) -> DenseState:
    keep = [i for i, h in enumerate(chunks[3]) if h in row_of]  # write() forbids misses
    return _finish(
        generation, buffer, rows, row_of,
        np.asarray([chunks[0][i] for i in keep], dtype=np.int64),
        _objects([chunks[1][i] for i in keep]),
        np.asarray([chunks[2][i] for i in keep], dtype=np.int64),
        np.fromiter((row_of[chunks[3][i]] for i in keep), dtype=np.int64, count=len(keep)),
        np.asarray(docs[0], dtype=np.int64), np.asarray(docs[1], dtype=np.int64),
        np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


def _merge(old: DenseState, generation: int, buffer: np.ndarray, rows: int,
           new_rows: dict[str, int], gone: np.ndarray, chunks: Columns, docs: Columns,
           pairs: list[tuple[int, int]]) -> DenseState:
    """``old`` without the rows of documents ``gone``, plus their current rows."""
    row_of = {**new_rows}
    keep = [i for i, h in enumerate(chunks[3]) if h in old.row_of or h in row_of]
    vec = np.fromiter((row_of.get(chunks[3][i], old.row_of.get(chunks[3][i], -1))
                       for i in keep), dtype=np.int64, count=len(keep))
    c_keep = ~np.isin(old.chunk_doc_rowids, gone)
    c_rowids = np.concatenate([old.chunk_rowids[c_keep],
                               np.asarray([chunks[0][i] for i in keep], dtype=np.int64)])
    order = np.argsort(c_rowids, kind="stable")
    d_keep = ~np.isin(old.doc_rowids, gone)
    d_rowids = np.concatenate([old.doc_rowids[d_keep], np.asarray(docs[0], dtype=np.int64)])
    d_order = np.argsort(d_rowids, kind="stable")
    p_keep = ~np.isin(old.pairs[:, 1], gone)
    all_pairs = np.concatenate([old.pairs[p_keep],
                                np.asarray(pairs, dtype=np.int64).reshape(-1, 2)])
    all_pairs = all_pairs[np.lexsort((all_pairs[:, 1], all_pairs[:, 0]))]
    return _finish(
        generation, buffer, rows, old.row_of, c_rowids[order],
        np.concatenate([old.chunk_ids[c_keep], _objects([chunks[1][i] for i in keep])])[order],
        np.concatenate([old.chunk_doc_rowids[c_keep],
                        np.asarray([chunks[2][i] for i in keep], dtype=np.int64)])[order],
        np.concatenate([old.vec_rows[c_keep], vec])[order],
        d_rowids[d_order],
        np.concatenate([old.doc_tenants[d_keep],
                        np.asarray(docs[1], dtype=np.int64)])[d_order],
        all_pairs)


def _finish(generation: int, buffer: np.ndarray, rows: int, row_of: dict[str, int],
            chunk_rowids: np.ndarray, chunk_ids: np.ndarray, chunk_doc_rowids: np.ndarray,
            vec_rows: np.ndarray, doc_rowids: np.ndarray, doc_tenants: np.ndarray,
            pairs: np.ndarray) -> DenseState:
    return DenseState(
        generation=generation, buffer=buffer, rows=rows, row_of=row_of,
        chunk_rowids=chunk_rowids, chunk_ids=chunk_ids, chunk_doc_rowids=chunk_doc_rowids,
        vec_rows=vec_rows, doc_rowids=doc_rowids, doc_tenants=doc_tenants, pairs=pairs,
        chunk_doc=np.searchsorted(doc_rowids, chunk_doc_rowids),
        postings=_postings(pairs, doc_rowids))


def _objects(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _append(old: DenseState, added: dict[str, bytes],
            dim: int) -> tuple[np.ndarray, int, dict[str, int]]:
    """The buffer with ``added`` vectors written after ``old``'s rows (reallocated when
    full), the new row count and ``hash -> row`` of the added vectors."""
    if not added:
        return old.buffer, old.rows, {}
    buffer, start = old.buffer, old.rows
    if start + len(added) > buffer.shape[0]:
        buffer = np.empty((max(int(1.5 * buffer.shape[0]), start + len(added), 64), dim),
                          dtype=np.float32)
        buffer[:start] = old.buffer[:start]
    hashes = list(added)
    _normalise_into(buffer[start:start + len(hashes)], [added[h] for h in hashes], dim)
    return buffer, start + len(hashes), dict(zip(hashes, range(start, start + len(hashes)),
                                                 strict=True))


def _load_matrix(conn: Any, dim: int, scope: int = 0) -> tuple[np.ndarray, dict[str, int]]:
    """The stored vectors of cache ``scope``, L2-normalised, streamed block by block into one
    preallocated matrix (no second full-size copy), and ``embed_hash -> row``."""
    count = conn.execute(COUNT_VECTORS_SQL, (scope,)).fetchone()[0]
    matrix = np.empty((count + max(count // 8, 64), dim), dtype=np.float32)  # room to grow
    row_of: dict[str, int] = {}
    cursor = conn.execute(LOAD_VECTORS_SQL, (scope,))
    while block := cursor.fetchmany(LOAD_BLOCK):
        hashes, blobs = zip(*block, strict=True)
        start = len(row_of)
        _normalise_into(matrix[start:start + len(blobs)], blobs, dim)
        row_of.update(zip(hashes, range(start, start + len(blobs)), strict=True))
    return matrix, row_of


def _normalise_into(out: np.ndarray, blobs: Any, dim: int) -> None:
    flat = np.frombuffer(b"".join(blobs), dtype="<f4")
    if flat.size != len(blobs) * dim:
        raise StoreError(f"stored vectors are not all {dim}-d. Fix: re-create the index "
                         "with `citewise ingest --db NEW.db`.")
    vecs = flat.reshape(len(blobs), dim)
    norms = np.sqrt(np.einsum("ij,ij->i", vecs, vecs))[:, None]
    np.divide(vecs, norms, out=out, where=norms > 0)
    out[(norms == 0)[:, 0]] = 0.0


def _postings(pairs: np.ndarray, doc_rowids: np.ndarray) -> dict[int, np.ndarray]:
    """group id -> sorted document positions, from (group_id, doc rowid) pairs sorted by group."""
    if not pairs.size or not doc_rowids.size:
        return {}
    positions = np.searchsorted(doc_rowids, pairs[:, 1])
    bounds = np.flatnonzero(np.diff(pairs[:, 0])) + 1
    return {int(g[0]): p for g, p in zip(np.split(pairs[:, 0], bounds),
                                         np.split(positions, bounds), strict=True)}
