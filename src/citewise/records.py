"""A document's record from what its load read: governance fields from its merged metadata,
the version from its content hash, the readers an ingest may give it
(:mod:`citewise.ingest.hand_readers`, :mod:`citewise.ingest.ownership`). Pure functions of
the parsed document and the record stored before (:mod:`citewise.indexing` writes them)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from citewise.errors import IngestError
from citewise.ingest.hand_readers import (
    READERS_FROM,
    readers_from,
    widening_problem,
    with_hand_readers,
)
from citewise.ingest.ownership import HOME, UPLOADED, moved_out_problem, replace_problem
from citewise.types import Document, ParsedDocument

_GOVERNANCE_KEYS = ("title", "owner", "groups", "tenant", "source_url", "updated_at", "doc_id")


def content_hash(parsed: ParsedDocument) -> str:
    """sha256 of title and normalized text: the document's identity for incremental ingest."""
    return hashlib.sha256(f"{parsed.title}\x00{parsed.text}".encode()).hexdigest()


TITLE_CHARS = 300
"""The longest title a record keeps (cut at a word, with "…"): a security review's upload
title of 980 KB was fenced into the prompt with every passage of its page, each ask that
retrieved it scanning it for instructions again (6.5 s an ask)."""


def record_title(title: str) -> str:
    """``title`` on one line (its runs of white space one space: a front matter ``title: |``
    block kept 3,000 newlines), at most :data:`TITLE_CHARS` long."""
    one = " ".join(title.split())
    if len(one) <= TITLE_CHARS:
        return one
    head = one[:TITLE_CHARS]
    return (head.rsplit(" ", 1)[0] if " " in head else head).rstrip() + "…"


def _groups(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    items = value.split(",") if isinstance(value, str) else value
    return frozenset(str(g).strip() for g in items if str(g).strip())


def make_document(parsed: ParsedDocument, doc_id: str, previous: Document | None,
                  logged: tuple[str, frozenset[str]] | None = None) -> Document:
    """The record for ``parsed``: its metadata (batch defaults < file < sidecar, merged by the
    source) supplies governance fields; the version grows when the content hash changes.
    ``logged``: readers set by hand for a document ``previous`` lacks
    (:func:`~citewise.ingest.hand_readers.with_hand_readers`)."""
    meta = parsed.metadata
    tenant = str(meta.get("tenant") or "default")
    groups = _groups(meta.get("groups"))
    problem = replace_problem(doc_id, previous, meta, tenant, groups) or \
        moved_out_problem(doc_id, previous, logged, tenant)
    if problem is not None:
        raise IngestError(problem)
    digest = content_hash(parsed)
    if previous is None:
        version = 1
    elif previous.content_hash == digest:
        version = previous.version
    else:
        version = previous.version + 1
    extra = {k: v for k, v in meta.items()
             if k not in _GOVERNANCE_KEYS and not k.startswith("_")}
    if meta.get("_file_path"):
        extra[HOME] = str(meta["_file_path"])  # the file it is read from (ownership.py)
        extra[READERS_FROM] = readers_from(meta, groups, previous)  # (hand_readers.py)
    elif meta.get("_uploaded"):
        extra[UPLOADED] = True
    updated_at = meta.get("updated_at")
    if updated_at is None and previous is not None and previous.content_hash == digest:
        updated_at = previous.updated_at  # unchanged content keeps its date (a touch is no edit)
    if updated_at is None:
        updated_at = meta.get("_file_mtime")
    document = with_hand_readers(Document(
        doc_id=doc_id, title=record_title(str(meta.get("title") or parsed.title)),
        content_hash=digest,
        tenant=tenant, acl_groups=groups,
        version=version, source_url=meta.get("source_url"), owner=meta.get("owner"),
        updated_at=None if updated_at is None else str(updated_at),
        metadata=extra), previous, logged)
    if (wider := widening_problem(previous, document, meta)) is not None:
        raise IngestError(wider)
    return document


def same_record(a: Document, b: Document) -> bool:
    """True when re-writing ``b`` over ``a`` would change nothing (content and metadata)."""
    return replace(a, metadata=dict(a.metadata)) == replace(b, metadata=dict(b.metadata))


def write_status(previous: Document | None, document: Document) -> str:
    """``new``, ``changed`` (content hash differs) or ``updated`` (metadata only)."""
    if previous is None:
        return "new"
    return "changed" if previous.content_hash != document.content_hash else "updated"
