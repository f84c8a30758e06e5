"""The write side of the SQLite index: batch upsert, delete and ACL changes.

Every function here runs INSIDE the caller's ``BEGIN IMMEDIATE`` transaction and raises on any
problem, so the caller's ROLLBACK leaves nothing of the batch visible. Each one ends with
:func:`bump_generation`, which tells other store objects (and processes) to reload their
in-memory dense matrix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from citewise.errors import NotFoundError, StoreError
from citewise.index.sqlite.acl import ensure_ids
from citewise.index.sqlite.fts import DELETE_FTS_ROWS_SQL, rebuild_fts_rows
from citewise.index.sqlite.vectors import check_vector, to_blob
from citewise.ingest.serialize import parsed_to_bytes
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
     section_id, token_count, kind, page, embed_hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""

DROP_ORPHAN_VECTORS_SQL = """DELETE FROM vectors
WHERE embed_hash IN (SELECT value FROM json_each(?))
  AND NOT EXISTS (SELECT 1 FROM chunks AS c WHERE c.embed_hash = vectors.embed_hash)"""

_REWRITE_FIX = "re-create the index with `citewise ingest --db NEW.db`"


def bump_generation(conn: Any) -> None:
    conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")


def cached_hashes(conn: Any, hashes: Iterable[str]) -> set[str]:
    """Which of ``hashes`` have a row in ``vectors``."""
    rows = conn.execute(
        "SELECT embed_hash FROM vectors WHERE embed_hash IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(hashes))),))
    return {row[0] for row in rows}


def write_batch(conn: Any, batch: Sequence[DocumentWrite], dim: int | None) -> None:
    """Upsert every document of ``batch`` with its chunks, FTS rows and new vectors."""
    _check_batch(batch)
    blobs = _new_vectors(conn, batch, dim)
    stale: set[str] = set()
    for item in batch:
        stale |= _write_document(conn, item)
    conn.executemany("INSERT OR IGNORE INTO vectors(embed_hash, vec) VALUES (?, ?)",
                     sorted(blobs.items()))
    drop_orphan_vectors(conn, stale)
    bump_generation(conn)


def delete_documents(conn: Any, doc_ids: Sequence[str]) -> int:
    """Remove documents, chunks, FTS rows and the vectors no chunk uses anymore."""
    removed = 0
    stale: set[str] = set()
    for doc_id in dict.fromkeys(doc_ids):
        row = conn.execute("SELECT id FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        if row is None:
            continue
        stale |= _drop_chunks(conn, row[0])
        conn.execute("DELETE FROM doc_groups WHERE doc_rowid = ?", (row[0],))
        conn.execute("DELETE FROM documents WHERE id = ?", (row[0],))
        removed += 1
    if removed:
        drop_orphan_vectors(conn, stale)
        bump_generation(conn)
    return removed


def set_document_acl(conn: Any, doc_id: str, groups: Sequence[str], tenant: str | None) -> None:
    """New groups (and optionally tenant) for one document; its vectors are untouched."""
    row = conn.execute("SELECT id, tenant FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"document {doc_id!r} is not in the index. Fix: check the id with "
                            "`citewise docs` (ids are listed by list_documents()).")
    doc_rowid, old_tenant = row
    new_tenant = old_tenant if tenant is None else tenant
    _check_acl(doc_id, groups, new_tenant)
    _put_acl(conn, doc_rowid, groups, new_tenant)
    rebuild_fts_rows(conn, doc_rowid)
    bump_generation(conn)


def drop_orphan_vectors(conn: Any, hashes: Iterable[str]) -> None:
    """Delete the vectors of ``hashes`` that no chunk references anymore."""
    hashes = sorted(set(hashes))
    if hashes:
        conn.execute(DROP_ORPHAN_VECTORS_SQL, (json.dumps(hashes),))


def _check_batch(batch: Sequence[DocumentWrite]) -> None:
    seen_docs: set[str] = set()
    seen_chunks: set[str] = set()
    for item in batch:
        doc = item.document
        if doc.doc_id in seen_docs:
            raise StoreError(f"document {doc.doc_id!r} appears twice in one write batch. "
                             "Fix: send each document once per batch.")
        seen_docs.add(doc.doc_id)
        _check_acl(doc.doc_id, tuple(doc.acl_groups), doc.tenant)
        for chunk in item.chunks:
            if chunk.doc_id != doc.doc_id:
                raise StoreError(f"chunk {chunk.chunk_id!r} has doc_id {chunk.doc_id!r} but is "
                                 f"written with document {doc.doc_id!r}. Fix: chunk each "
                                 "document separately.")
            if chunk.chunk_id in seen_chunks:
                raise StoreError(f"chunk id {chunk.chunk_id!r} appears twice in one batch. Fix: "
                                 "derive chunk ids from doc_id, offsets and text hash.")
            seen_chunks.add(chunk.chunk_id)


def _check_acl(doc_id: str, groups: Sequence[str], tenant: str) -> None:
    if not isinstance(tenant, str) or not tenant:
        raise StoreError(f"document {doc_id!r} has no tenant. Fix: set a tenant name "
                         "(citewise uses 'default' when there is one tenant).")
    bad = [g for g in groups if not isinstance(g, str) or not g]
    if bad:
        raise StoreError(f"document {doc_id!r} has invalid group names {bad!r}. Fix: use "
                         "non-empty strings.")


def _new_vectors(conn: Any, batch: Sequence[DocumentWrite], dim: int | None) -> dict[str, bytes]:
    """Validated blobs for the batch's vectors; raises if a chunk would be left without one."""
    needed = {c.embed_hash for item in batch for c in item.chunks}
    given = {h: v for item in batch for h, v in item.vectors.items()}
    if dim is None:
        if needed or given:
            raise StoreError("the index has no manifest, so it cannot check vector dimensions."
                             " Fix: call ensure_manifest(make_manifest(...)) before write "
                             "(`citewise ingest` does this).")
        return {}
    blobs = {h: to_blob(check_vector(v, dim, f"the vector for embed_hash {h[:12]}…"))
             for h, v in given.items()}
    missing = needed - blobs.keys()
    missing -= cached_hashes(conn, missing) if missing else set()
    if missing:
        example = sorted(missing)[0]
        raise StoreError(f"{len(missing)} chunk embed_hash(es) have no vector (e.g. "
                         f"{example[:12]}…). Fix: embed the hashes cached_vectors() does not "
                         "report and pass them in DocumentWrite.vectors.")
    return {h: b for h, b in blobs.items() if h in needed}


def _write_document(conn: Any, item: DocumentWrite) -> set[str]:
    """Upsert one document and replace its chunks; returns the embed hashes it dropped."""
    doc = item.document
    tenant_id = ensure_ids(conn, "tenants", [doc.tenant])[doc.tenant]
    doc_rowid = conn.execute(UPSERT_DOCUMENT_SQL, _document_params(doc, tenant_id)).fetchone()[0]
    stale = _drop_chunks(conn, doc_rowid)
    _put_acl(conn, doc_rowid, tuple(doc.acl_groups), doc.tenant)
    conn.executemany(INSERT_CHUNK_SQL, [_chunk_params(c, doc_rowid) for c in item.chunks])
    rebuild_fts_rows(conn, doc_rowid)
    if item.parsed is not None:
        conn.execute("INSERT OR REPLACE INTO doc_sources(doc_rowid, body) VALUES (?, ?)",
                     (doc_rowid, parsed_to_bytes(item.parsed)))
    else:  # never leave a body that no longer matches the chunks
        conn.execute("DELETE FROM doc_sources WHERE doc_rowid = ?", (doc_rowid,))
    return stale - {c.embed_hash for c in item.chunks}


def _drop_chunks(conn: Any, doc_rowid: int) -> set[str]:
    """Delete a document's FTS rows and chunks; returns their embed hashes."""
    hashes = {row[0] for row in conn.execute(
        "SELECT DISTINCT embed_hash FROM chunks WHERE doc_rowid = ?", (doc_rowid,))}
    conn.execute(DELETE_FTS_ROWS_SQL, (doc_rowid,))
    conn.execute("DELETE FROM chunks WHERE doc_rowid = ?", (doc_rowid,))
    return hashes


def _put_acl(conn: Any, doc_rowid: int, groups: Sequence[str], tenant: str) -> None:
    """Set tenant, acl JSON and doc_groups rows of one document (FTS rows: see caller)."""
    tenant_id = ensure_ids(conn, "tenants", [tenant])[tenant]
    group_ids = ensure_ids(conn, "groups", groups)
    conn.execute("UPDATE documents SET tenant = ?, tenant_id = ?, acl = ? WHERE id = ?",
                 (tenant, tenant_id, json.dumps(sorted(set(groups))), doc_rowid))
    conn.execute("DELETE FROM doc_groups WHERE doc_rowid = ?", (doc_rowid,))
    conn.executemany("INSERT INTO doc_groups(doc_rowid, group_id) VALUES (?, ?)",
                     [(doc_rowid, gid) for gid in sorted(group_ids.values())])


def _document_params(doc: Document, tenant_id: int) -> tuple[Any, ...]:
    return (doc.doc_id, int(doc.version), doc.content_hash, doc.title, doc.source_url,
            doc.owner, doc.tenant, tenant_id, json.dumps(sorted(doc.acl_groups)),
            doc.updated_at, _json(doc.metadata))


def _chunk_params(chunk: Chunk, doc_rowid: int) -> tuple[Any, ...]:
    return (chunk.chunk_id, doc_rowid, int(chunk.ordinal), chunk.text,
            json.dumps(list(chunk.heading_path), ensure_ascii=False), chunk.anchor,
            int(chunk.start), int(chunk.end), chunk.section_id, int(chunk.token_count),
            chunk.kind, chunk.page, chunk.embed_hash)


def _json(value: Mapping[str, Any]) -> str:
    """Metadata as JSON; values JSON cannot hold (dates from YAML front matter) become str."""
    return json.dumps(dict(value), sort_keys=True, ensure_ascii=False, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str) if isinstance(value, set | frozenset) else list(value)
    return str(value)
