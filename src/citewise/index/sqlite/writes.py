"""The write side of the SQLite index: batch upsert, delete and ACL changes.

Every function here runs INSIDE the caller's ``BEGIN IMMEDIATE`` transaction and raises on any
problem, so the caller's ROLLBACK leaves nothing of the batch visible. Each one ends with
:func:`bump_generation`, which tells other store objects (and processes) to reload their
in-memory dense matrix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from citewise.errors import NotFoundError
from citewise.index.checks import (
    batch_vectors,
    check_acl,
    check_batch,
    check_read_as,
    metadata_json,
    other_tenants,
    read_as_row,
)
from citewise.index.serialize import parsed_to_bytes, sections_to_json
from citewise.index.sqlite.acl import ensure_ids, lookup_ids
from citewise.index.sqlite.fts import delete_fts_rows, rebuild_fts_rows
from citewise.index.sqlite.tenancy import Layout, layout_of
from citewise.index.sqlite.vectors import to_blob
from citewise.protocols import DocumentWrite
from citewise.types import Chunk, Document

UPSERT_DOCUMENT_SQL = """INSERT INTO documents
    (doc_id, version, content_hash, title, source_url, owner, tenant, tenant_id, acl,
     updated_at, metadata)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (doc_id) DO UPDATE SET
    version = excluded.version, content_hash = excluded.content_hash, title = excluded.title,
    source_url = excluded.source_url, owner = excluded.owner, tenant = excluded.tenant,
    tenant_id = excluded.tenant_id, acl = excluded.acl, updated_at = excluded.updated_at,
    metadata = excluded.metadata
RETURNING id"""

INSERT_CHUNK_SQL = """INSERT INTO chunks
    (chunk_id, doc_rowid, ordinal, text, heading_path, anchor, start_char, end_char,
     section_id, token_count, kind, page, embed_hash, sections)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""

# A vector is an orphan when no chunk of its scope uses it (scope 0: any chunk; scope N: a
# chunk of a document of tenant N, see .tenancy).
DROP_ORPHAN_VECTORS_SQL = """DELETE FROM vectors
WHERE embed_hash IN (SELECT value FROM json_each(?))
  AND NOT EXISTS (SELECT 1 FROM chunks AS c JOIN documents AS d ON d.id = c.doc_rowid
                  WHERE c.embed_hash = vectors.embed_hash
                    AND (vectors.scope = 0 OR d.tenant_id = vectors.scope))"""

INSERT_VECTOR_SQL = "INSERT OR IGNORE INTO vectors(scope, embed_hash, vec) VALUES (?, ?, ?)"

# A document moved to another tenant takes its vectors into that tenant's cache.
COPY_VECTORS_SQL = """INSERT OR IGNORE INTO vectors(scope, embed_hash, vec)
SELECT ?, v.embed_hash, v.vec FROM vectors AS v
WHERE v.scope = ? AND v.embed_hash IN (SELECT embed_hash FROM chunks WHERE doc_rowid = ?)"""

_REWRITE_FIX = "re-create the index with `citewise ingest --db NEW.db`"


DENSE_LOG_KEEP = 1000  # generations of dense_changes kept (older readers reload in full)


def bump_generation(conn: Any, doc_rowids: Iterable[int]) -> None:
    """Next generation, logging the documents it touched (``dense_changes``: in-memory dense
    matrices re-read just those, :mod:`.dense_state`); keeps the last
    :data:`DENSE_LOG_KEEP` generations of the log."""
    generation = conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation' "
                              "RETURNING value").fetchone()[0]
    conn.executemany("INSERT INTO dense_changes(generation, doc_rowid) VALUES (?, ?)",
                     [(generation, rowid) for rowid in sorted(set(doc_rowids))])
    if generation % 100 == 0 and generation > DENSE_LOG_KEEP:
        horizon = generation - DENSE_LOG_KEEP
        conn.execute("DELETE FROM dense_changes WHERE generation <= ?", (horizon,))
        conn.execute("UPDATE meta SET value = max(value, ?) WHERE key = 'dense_log_from'",
                     (horizon,))


def cached_hashes(conn: Any, hashes: Iterable[str], tenant: str | None = None) -> set[str]:
    """Which of ``hashes`` have a vector in the embedding cache ``tenant`` may use (the
    shared one, or the tenant's own under ``index.tenancy: isolated``; there, ``tenant=None``
    finds nothing)."""
    layout = layout_of(conn)
    if layout.isolated:
        ids = lookup_ids(conn, "tenants", [tenant] if tenant else [])
        if not ids:
            return set()
        scope = layout.scope(ids[tenant])  # type: ignore[index]
    else:
        scope = 0
    return _cached(conn, hashes, scope)


def _cached(conn: Any, hashes: Iterable[str], scope: int) -> set[str]:
    rows = conn.execute(
        "SELECT embed_hash FROM vectors WHERE scope = ? "
        "AND embed_hash IN (SELECT value FROM json_each(?))",
        (scope, json.dumps(sorted(set(hashes)))))
    return {row[0] for row in rows}


def write_batch(conn: Any, batch: Sequence[DocumentWrite], dim: int | None) -> set[str]:
    """Upsert every document of ``batch`` with its chunks, FTS rows and new vectors; returns
    the FTS tables it deleted rows from (documents already there were replaced)."""
    check_batch(batch)
    check_read_as(batch, lambda doc_id: read_as_row(conn.execute(
        "SELECT version, tenant, acl FROM documents WHERE doc_id = ?",
        (doc_id,)).fetchone()))
    layout = layout_of(conn)

    def scope_of(doc: Document) -> int:
        return layout.scope(ensure_ids(conn, "tenants", [doc.tenant])[doc.tenant])

    rows = batch_vectors(batch, dim, lambda hs, scope: _cached(conn, hs, scope), to_blob,
                         scope_of)
    stale: set[str] = set()
    touched: list[int] = []
    replaced: set[str] = set()
    for item in batch:
        dropped, doc_rowid, old_table = _write_document(conn, item, layout)
        stale |= dropped
        touched.append(doc_rowid)
        replaced |= {old_table} if old_table else set()
    conn.executemany(INSERT_VECTOR_SQL, rows)
    drop_orphan_vectors(conn, stale)
    bump_generation(conn, touched)
    return replaced


def delete_documents(conn: Any, doc_ids: Sequence[str], tables: set[str]) -> int:
    """Remove documents, chunks, FTS rows and the vectors no chunk uses anymore; the FTS
    tables rows were deleted from are added to ``tables``."""
    layout = layout_of(conn)
    removed: list[int] = []
    stale: set[str] = set()
    for doc_id in dict.fromkeys(doc_ids):
        row = conn.execute("SELECT id, tenant_id FROM documents WHERE doc_id = ?",
                           (doc_id,)).fetchone()
        if row is None:
            continue
        tables.add(layout.fts_table(row[1]))
        stale |= _drop_chunks(conn, row[0], layout.fts_table(row[1]))
        conn.execute("DELETE FROM doc_groups WHERE doc_rowid = ?", (row[0],))
        conn.execute("DELETE FROM documents WHERE id = ?", (row[0],))
        removed.append(row[0])
    if removed:
        drop_orphan_vectors(conn, stale)
        bump_generation(conn, removed)
    return len(removed)


def set_document_acl(conn: Any, doc_id: str, groups: Sequence[str],
                     tenant: str | None) -> set[str]:
    """New groups (and optionally tenant) for one document; its vectors are not re-embedded
    (under isolated tenancy a tenant move copies them into the new tenant's cache). Returns
    the FTS tables its rows were deleted from and written to."""
    row = conn.execute("SELECT id, tenant, tenant_id FROM documents WHERE doc_id = ?",
                       (doc_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"document {doc_id!r} is not in the index. Fix: check the id with "
                            "`citewise status --documents`.")
    doc_rowid, old_tenant, old_tenant_id = row
    new_tenant = old_tenant if tenant is None else tenant
    check_acl(doc_id, groups, new_tenant)
    layout = layout_of(conn)
    delete_fts_rows(conn, doc_rowid, layout.fts_table(old_tenant_id))
    new_tenant_id = _put_acl(conn, doc_rowid, groups, new_tenant)
    if layout.scope(new_tenant_id) != layout.scope(old_tenant_id):
        conn.execute(COPY_VECTORS_SQL, (layout.scope(new_tenant_id),
                                        layout.scope(old_tenant_id), doc_rowid))
        drop_orphan_vectors(conn, {r[0] for r in conn.execute(
            "SELECT embed_hash FROM chunks WHERE doc_rowid = ?", (doc_rowid,))})
    rebuild_fts_rows(conn, doc_rowid, layout.fts_table(new_tenant_id))
    bump_generation(conn, [doc_rowid])
    return {layout.fts_table(old_tenant_id), layout.fts_table(new_tenant_id)}


def drop_orphan_vectors(conn: Any, hashes: Iterable[str]) -> None:
    """Delete the vectors of ``hashes`` that no chunk of their scope references anymore."""
    hashes = sorted(set(hashes))
    if hashes:
        conn.execute(DROP_ORPHAN_VECTORS_SQL, (json.dumps(hashes),))


def _write_document(conn: Any, item: DocumentWrite,
                    layout: Layout) -> tuple[set[str], int, str | None]:
    """Upsert one document and replace its chunks; returns the embed hashes it dropped, its
    rowid and, when it was there before, the FTS table its old rows were deleted from."""
    doc = item.document
    old = conn.execute("SELECT id, tenant_id, tenant FROM documents WHERE doc_id = ?",
                       (doc.doc_id,)).fetchone()
    if item.same_tenant and old is not None and old[2] != doc.tenant:
        raise other_tenants(doc.doc_id, doc.tenant)  # the write transaction is exclusive
    stale = set() if old is None else _drop_chunks(conn, old[0], layout.fts_table(old[1]))
    tenant_id = ensure_ids(conn, "tenants", [doc.tenant])[doc.tenant]
    doc_rowid = conn.execute(UPSERT_DOCUMENT_SQL, _document_params(doc, tenant_id)).fetchone()[0]
    _put_acl(conn, doc_rowid, tuple(doc.acl_groups), doc.tenant)
    conn.executemany(INSERT_CHUNK_SQL, [_chunk_params(c, doc_rowid) for c in item.chunks])
    rebuild_fts_rows(conn, doc_rowid, layout.fts_table(tenant_id))
    if item.parsed is not None:
        conn.execute("INSERT OR REPLACE INTO doc_sources(doc_rowid, body) VALUES (?, ?)",
                     (doc_rowid, parsed_to_bytes(item.parsed)))
    else:  # never leave a body that no longer matches the chunks
        conn.execute("DELETE FROM doc_sources WHERE doc_rowid = ?", (doc_rowid,))
    old_table = layout.fts_table(old[1]) if old is not None else None
    if old is not None and old[1] != tenant_id:  # moved tenant: its old scope may have lost
        return stale, doc_rowid, old_table        # every user of a hash
    return stale - {c.embed_hash for c in item.chunks}, doc_rowid, old_table


def _drop_chunks(conn: Any, doc_rowid: int, table: str) -> set[str]:
    """Delete a document's FTS rows (in its tenant's ``table``) and chunks; returns their
    embed hashes."""
    hashes = {row[0] for row in conn.execute(
        "SELECT DISTINCT embed_hash FROM chunks WHERE doc_rowid = ?", (doc_rowid,))}
    delete_fts_rows(conn, doc_rowid, table)
    conn.execute("DELETE FROM chunks WHERE doc_rowid = ?", (doc_rowid,))
    return hashes


def _put_acl(conn: Any, doc_rowid: int, groups: Sequence[str], tenant: str) -> int:
    """Set tenant, acl JSON and doc_groups rows of one document (FTS rows: see caller);
    returns the tenant id."""
    tenant_id = ensure_ids(conn, "tenants", [tenant])[tenant]
    group_ids = ensure_ids(conn, "groups", groups)
    conn.execute("UPDATE documents SET tenant = ?, tenant_id = ?, acl = ? WHERE id = ?",
                 (tenant, tenant_id, json.dumps(sorted(set(groups))), doc_rowid))
    conn.execute("DELETE FROM doc_groups WHERE doc_rowid = ?", (doc_rowid,))
    conn.executemany("INSERT INTO doc_groups(doc_rowid, group_id) VALUES (?, ?)",
                     [(doc_rowid, gid) for gid in sorted(group_ids.values())])
    return tenant_id


def _document_params(doc: Document, tenant_id: int) -> tuple[Any, ...]:
    return (doc.doc_id, int(doc.version), doc.content_hash, doc.title, doc.source_url,
            doc.owner, doc.tenant, tenant_id, json.dumps(sorted(doc.acl_groups)),
            doc.updated_at, metadata_json(doc.metadata))


def _chunk_params(chunk: Chunk, doc_rowid: int) -> tuple[Any, ...]:
    return (chunk.chunk_id, doc_rowid, int(chunk.ordinal), chunk.text,
            json.dumps(list(chunk.heading_path), ensure_ascii=False), chunk.anchor,
            int(chunk.start), int(chunk.end), chunk.section_id, int(chunk.token_count),
            chunk.kind, chunk.page, chunk.embed_hash, sections_to_json(chunk.sections))
