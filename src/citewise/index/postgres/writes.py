"""The write side of the PostgreSQL index: batch upsert, delete and ACL changes.

Every function runs INSIDE the caller's transaction (which holds the schema's advisory write
lock, :func:`~citewise.index.postgres.migrations.lock_key`) and raises on any problem, so the
rollback leaves nothing of the batch visible. Validation is shared with the SQLite backend
(:mod:`citewise.index.sqlite.writes`), so both refuse the same inputs with the same messages.

The chunks' ``tenant``/``acl`` columns copy the document's, so both searches filter on the
chunk row itself (GIN ``acl && groups``); :func:`set_document_acl` rewrites the copies and
nothing else (vectors and ``tsv`` are untouched). ``tsv`` is built by PostgreSQL:
``setweight(to_tsvector(cfg, title || headings), 'A') || setweight(to_tsvector(cfg, text), 'B')``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

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
from citewise.protocols import DocumentWrite
from citewise.types import Chunk, Document

TS_CONFIG = "english"

UPSERT_DOCUMENT_SQL = """INSERT INTO documents
    (doc_id, version, content_hash, title, source_url, owner, tenant, acl, updated_at, metadata)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (doc_id) DO UPDATE SET
    version = excluded.version, content_hash = excluded.content_hash, title = excluded.title,
    source_url = excluded.source_url, owner = excluded.owner, tenant = excluded.tenant,
    acl = excluded.acl, updated_at = excluded.updated_at, metadata = excluded.metadata
RETURNING id"""
SAME_TENANT_SQL = UPSERT_DOCUMENT_SQL.replace(
    "\nRETURNING id", "\nWHERE documents.tenant = excluded.tenant\nRETURNING id")
"""The upsert of an ingest: no row back when the id is another tenant's (PostgreSQL waits
for a concurrent insert of the id to commit, then checks its tenant)."""

INSERT_CHUNK_SQL = f"""INSERT INTO chunks
    (chunk_id, doc_id, ordinal, text, heading_path, anchor, start_char, end_char, section_id,
     token_count, kind, page, embed_hash, tenant, acl, vec_scope, sections, tsv)
VALUES (%(chunk_id)s, %(doc)s, %(ordinal)s, %(text)s, %(heading_path)s, %(anchor)s, %(start)s,
        %(end)s, %(section_id)s, %(token_count)s, %(kind)s, %(page)s, %(embed_hash)s,
        %(tenant)s, %(acl)s, %(vec_scope)s, %(sections)s,
        pg_catalog.setweight(pg_catalog.to_tsvector('{TS_CONFIG}'::pg_catalog.regconfig,
                                                    %(title_text)s::pg_catalog.text), 'A')
        OPERATOR(pg_catalog.||) pg_catalog.setweight(pg_catalog.to_tsvector(
            '{TS_CONFIG}'::pg_catalog.regconfig, %(tsv_text)s::pg_catalog.text), 'B'))"""
"""Every function and operator named with its schema: one of the same name in a schema on
the search path, with parameter types closer to an untyped literal's, would be called
instead (a review's ``public.to_tsquery(text, text)``, planted before ``CREATE`` on
``public`` was revoked, saw every query and chunk)."""

INSERT_VECTOR_SQL = ("INSERT INTO vectors(scope, embed_hash, embedding) VALUES (%s, %s, %s) "
                     "ON CONFLICT (embed_hash, scope) DO NOTHING")

DROP_ORPHAN_VECTORS_SQL = """DELETE FROM vectors AS v
WHERE v.embed_hash = ANY(%s)
  AND NOT EXISTS (SELECT 1 FROM chunks AS c
                  WHERE c.embed_hash = v.embed_hash AND c.vec_scope = v.scope)"""

# A document moved to another tenant takes its vectors into that tenant's cache.
COPY_VECTORS_SQL = """INSERT INTO vectors(scope, embed_hash, embedding)
SELECT %(new)s, v.embed_hash, v.embedding FROM vectors AS v
WHERE v.scope = %(old)s AND v.embed_hash IN (SELECT embed_hash FROM chunks WHERE doc_id = %(doc)s)
ON CONFLICT (embed_hash, scope) DO NOTHING"""


def isolated(conn: Any) -> bool:
    """Whether the index's manifest says ``index.tenancy: isolated``."""
    row = conn.execute("SELECT value FROM manifest WHERE key = 'tenancy'").fetchone()
    return row is not None and row[0] == '"isolated"'


def vector_scope(tenant: str, isolated_tenancy: bool) -> str:
    """The embedding-cache scope of a tenant's documents: its name, or ``''`` (shared)."""
    return tenant if isolated_tenancy else ""


def cached_hashes(conn: Any, hashes: Iterable[str], tenant: str | None = None) -> set[str]:
    """Which of ``hashes`` have a vector in the cache ``tenant``'s documents use (shared, or
    the tenant's own under isolated tenancy, where ``tenant=None`` finds nothing)."""
    wanted = sorted(set(hashes))
    own = isolated(conn)
    if not wanted or (own and not tenant):
        return set()
    return _cached(conn, wanted, vector_scope(tenant or "", own))


def _cached(conn: Any, hashes: Iterable[str], scope: str) -> set[str]:
    rows = conn.execute("SELECT embed_hash FROM vectors WHERE embed_hash = ANY(%s) "
                        "AND scope = %s", (sorted(set(hashes)), scope))
    return {row[0] for row in rows}


def write_batch(conn: Any, batch: Sequence[DocumentWrite], dim: int | None) -> None:
    """Upsert every document of ``batch`` with its chunks and new vectors."""
    check_batch(batch)
    check_read_as(batch, lambda doc_id: read_as_row(conn.execute(
        "SELECT version, tenant, acl FROM documents WHERE doc_id = %s FOR UPDATE",
        (doc_id,)).fetchone()))
    own = isolated(conn)
    rows = batch_vectors(batch, dim, lambda hs, scope: _cached(conn, hs, scope), normalised,
                         lambda doc: vector_scope(doc.tenant, own))
    stale: set[str] = set()
    for item in batch:
        stale |= _write_document(conn, item, vector_scope(item.document.tenant, own))
    with conn.cursor() as cur:
        cur.executemany(INSERT_VECTOR_SQL, rows)
    drop_orphan_vectors(conn, stale)


def delete_documents(conn: Any, doc_ids: Sequence[str]) -> int:
    """Remove documents (chunks and bodies cascade) and the vectors no chunk uses anymore."""
    ids = list(dict.fromkeys(doc_ids))
    if not ids:
        return 0
    hashes = [r[0] for r in conn.execute(
        "SELECT DISTINCT c.embed_hash FROM chunks AS c JOIN documents AS d ON d.id = c.doc_id "
        "WHERE d.doc_id = ANY(%s)", (ids,))]
    removed = conn.execute("DELETE FROM documents WHERE doc_id = ANY(%s)", (ids,)).rowcount
    drop_orphan_vectors(conn, hashes)
    return int(removed)


def set_document_acl(conn: Any, doc_id: str, groups: Sequence[str], tenant: str | None) -> None:
    """New groups (and optionally tenant) for one document and its chunks' filter columns."""
    row = conn.execute("SELECT id, tenant FROM documents WHERE doc_id = %s FOR UPDATE",
                       (doc_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"document {doc_id!r} is not in the index. Fix: check the id with "
                            "`citewise status --documents`.")
    rowid, old_tenant = row
    new_tenant = old_tenant if tenant is None else tenant
    check_acl(doc_id, groups, new_tenant)
    acl = sorted(set(groups))
    conn.execute("UPDATE documents SET tenant = %s, acl = %s WHERE id = %s",
                 (new_tenant, acl, rowid))
    conn.execute("UPDATE chunks SET tenant = %s, acl = %s WHERE doc_id = %s",
                 (new_tenant, acl, rowid))
    own = isolated(conn)
    old_scope, new_scope = vector_scope(old_tenant, own), vector_scope(new_tenant, own)
    if old_scope != new_scope:
        conn.execute(COPY_VECTORS_SQL, {"new": new_scope, "old": old_scope, "doc": rowid})
        hashes = [r[0] for r in conn.execute(
            "UPDATE chunks SET vec_scope = %s WHERE doc_id = %s RETURNING embed_hash",
            (new_scope, rowid))]
        drop_orphan_vectors(conn, hashes)


def drop_orphan_vectors(conn: Any, hashes: Iterable[str]) -> None:
    """Delete the vectors of ``hashes`` that no chunk references anymore."""
    hashes = sorted(set(hashes))
    if hashes:
        conn.execute(DROP_ORPHAN_VECTORS_SQL, (hashes,))


def normalised(vec: np.ndarray) -> np.ndarray:
    """``vec / ||vec||`` (the HNSW index ranks by inner product; stored vectors are unit)."""
    norm = float(np.linalg.norm(vec))
    return vec if norm == 0.0 else (vec / norm).astype(np.float32)


def _write_document(conn: Any, item: DocumentWrite, scope: str) -> set[str]:
    """Upsert one document and replace its chunks (their vectors in cache ``scope``);
    returns the embed hashes it dropped."""
    doc = item.document
    row = conn.execute(SAME_TENANT_SQL if item.same_tenant else UPSERT_DOCUMENT_SQL,
                       _document_params(doc)).fetchone()
    if row is None:
        raise other_tenants(doc.doc_id, doc.tenant)
    rowid = row[0]
    dropped = conn.execute("DELETE FROM chunks WHERE doc_id = %s RETURNING embed_hash, "
                           "vec_scope", (rowid,)).fetchall()
    acl = sorted(set(doc.acl_groups))
    with conn.cursor() as cur:
        cur.executemany(INSERT_CHUNK_SQL, [_chunk_params(c, rowid, doc, acl, scope)
                                           for c in item.chunks])
    if item.parsed is not None:
        conn.execute("INSERT INTO doc_sources(doc_id, body) VALUES (%s, %s) ON CONFLICT (doc_id) "
                     "DO UPDATE SET body = excluded.body", (rowid, parsed_to_bytes(item.parsed)))
    else:  # never leave a body that no longer matches the chunks
        conn.execute("DELETE FROM doc_sources WHERE doc_id = %s", (rowid,))
    kept = {c.embed_hash for c in item.chunks}
    return {h for h, old_scope in dropped if h not in kept or old_scope != scope}


def _document_params(doc: Document) -> tuple[Any, ...]:
    return (doc.doc_id, int(doc.version), doc.content_hash, doc.title, doc.source_url,
            doc.owner, doc.tenant, sorted(set(doc.acl_groups)), doc.updated_at,
            metadata_json(doc.metadata))


def _chunk_params(chunk: Chunk, rowid: int, doc: Document, acl: list[str],
                  scope: str) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id, "doc": rowid, "ordinal": int(chunk.ordinal),
        "text": chunk.text, "heading_path": list(chunk.heading_path), "anchor": chunk.anchor,
        "start": int(chunk.start), "end": int(chunk.end), "section_id": chunk.section_id,
        "token_count": int(chunk.token_count), "kind": chunk.kind, "page": chunk.page,
        "embed_hash": chunk.embed_hash, "tenant": doc.tenant, "acl": acl, "vec_scope": scope,
        "sections": sections_to_json(chunk.sections),
        "title_text": " ".join([doc.title, *chunk.heading_path])[:TSV_CHARS],
        "tsv_text": chunk.text[:TSV_CHARS],
    }


TSV_CHARS = 100_000
"""The most of a chunk's title and headings, and of its text, its ``tsv`` reads: a security
review's heading of 45,000 distinct words (kept whole in its chunk) made a ``tsvector`` over
PostgreSQL's 1 MB limit, and the error stopped the whole batch (SQLite indexed the same
folder). A chunk's text is a few thousand characters; the stored text is whole."""
