"""Reading documents and chunks back: SQL and row -> value conversion.

:func:`build_visible_chunks_sql` is the hydration query of ``get_chunks``. It repeats the
principal's tenant/ACL predicate (defence in depth): a chunk the principal may not read is
absent from the result even if a search returned its id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from citewise.index.serialize import sections_from_json
from citewise.index.sqlite.acl import ResolvedPrincipal
from citewise.types import Chunk, Document

DOC_COLUMNS = ("d.doc_id, d.title, d.content_hash, d.tenant, d.acl, d.version, d.source_url, "
               "d.owner, d.updated_at, d.metadata")
CHUNK_COLUMNS = ("c.chunk_id, c.ordinal, c.text, c.embed_hash, c.start_char, c.end_char, "
                 "c.heading_path, c.anchor, c.section_id, c.token_count, c.kind, c.page, "
                 "c.sections")
_N_DOC = DOC_COLUMNS.count(",") + 1

VISIBLE_CHUNKS_SQL = f"""SELECT {CHUNK_COLUMNS}, {DOC_COLUMNS}
FROM chunks AS c JOIN documents AS d ON d.id = c.doc_rowid
WHERE c.chunk_id IN (SELECT value FROM json_each(:chunk_ids))
  AND d.tenant_id = :tenant_id
  AND EXISTS (SELECT 1 FROM doc_groups AS dg
              WHERE dg.doc_rowid = d.id
                AND dg.group_id IN (SELECT value FROM json_each(:group_ids)))"""


def build_visible_chunks_sql(chunk_ids: Sequence[str],
                             principal: ResolvedPrincipal) -> tuple[str, dict[str, Any]]:
    """SQL and named parameters hydrating ``chunk_ids`` for ``principal`` (ACL applied)."""
    return VISIBLE_CHUNKS_SQL, {
        "chunk_ids": json.dumps(list(chunk_ids)),
        "tenant_id": principal.tenant_id,
        "group_ids": principal.group_ids_json,
    }


def document_from_row(row: Sequence[Any]) -> Document:
    """A :class:`Document` from the :data:`DOC_COLUMNS` values."""
    doc_id, title, content_hash, tenant, acl, version, source_url, owner, updated_at, meta = row
    return Document(
        doc_id=doc_id, title=title, content_hash=content_hash, tenant=tenant,
        acl_groups=_groups(acl), version=version, source_url=source_url,
        owner=owner, updated_at=updated_at, metadata=_mapping(meta))


def _groups(acl: Any) -> frozenset[str]:
    """A record's ACL JSON; a damaged one (a hand-edited file: "not json" was a traceback in
    every search) reads as no group, so nobody reads the document until `citewise acl` or a
    re-ingest writes it again. Searches filter by the group rows, never by this."""
    try:
        groups = json.loads(acl)
    except (TypeError, ValueError):
        return frozenset()
    ok = isinstance(groups, list) and all(isinstance(g, str) for g in groups)
    return frozenset(groups) if ok else frozenset()


def _mapping(meta: Any) -> dict[str, Any]:
    """A record's metadata JSON; a damaged one reads as none."""
    try:
        value = json.loads(meta)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def chunk_from_row(row: Sequence[Any], doc_id: str) -> Chunk:
    """A :class:`Chunk` from the :data:`CHUNK_COLUMNS` values.

    ``text_for_embedding`` is not stored (only its hash, ``embed_hash``): it comes back empty.
    """
    (chunk_id, ordinal, text, embed_hash, start, end, heading_path, anchor, section_id,
     token_count, kind, page, sections) = row
    return Chunk(
        chunk_id=chunk_id, doc_id=doc_id, ordinal=ordinal, text=text, text_for_embedding="",
        embed_hash=embed_hash, start=start, end=end, heading_path=tuple(json.loads(heading_path)),
        anchor=anchor, section_id=section_id, token_count=token_count, kind=kind, page=page,
        sections=sections_from_json(sections))


def visible_chunks(conn: Any, chunk_ids: Sequence[str],
                   principal: ResolvedPrincipal | None) -> dict[str, tuple[Chunk, Document]]:
    """``chunk_id -> (Chunk, Document)`` for the ids the principal may read."""
    if principal is None or not chunk_ids:
        return {}
    sql, params = build_visible_chunks_sql(chunk_ids, principal)
    out: dict[str, tuple[Chunk, Document]] = {}
    docs: dict[str, Document] = {}
    n_chunk = len(CHUNK_COLUMNS.split(","))
    for row in conn.execute(sql, params):
        doc_row = row[n_chunk:n_chunk + _N_DOC]
        doc = docs.get(doc_row[0]) or docs.setdefault(doc_row[0], document_from_row(doc_row))
        out[row[0]] = (chunk_from_row(row[:n_chunk], doc.doc_id), doc)
    return out


def get_document(conn: Any, doc_id: str) -> Document | None:
    row = conn.execute(f"SELECT {DOC_COLUMNS} FROM documents AS d WHERE d.doc_id = ?",
                       (doc_id,)).fetchone()
    return None if row is None else document_from_row(row)


def list_documents(conn: Any) -> list[Document]:
    rows = conn.execute(f"SELECT {DOC_COLUMNS} FROM documents AS d ORDER BY d.doc_id")
    return [document_from_row(row) for row in rows]
