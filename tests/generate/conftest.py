"""Fixtures and builders for the generator tests."""

from __future__ import annotations

from citewise.types import Chunk, ContextPassage, Document, Hit


def passage(sid: str, text: str, *, title: str = "Handbook", heading: tuple[str, ...] = (),
            doc_id: str = "doc-1", chunk_id: str | None = None, tenant: str = "default",
            groups: frozenset[str] = frozenset({"staff"}),
            source_url: str | None = None) -> ContextPassage:
    document = Document(doc_id=doc_id, title=title, content_hash="h", tenant=tenant,
                        acl_groups=groups, source_url=source_url)
    chunk = Chunk(chunk_id=chunk_id or f"chunk-{sid}", doc_id=doc_id, ordinal=0, text=text,
                  text_for_embedding=text, embed_hash="e", start=0, end=len(text),
                  heading_path=heading)
    return ContextPassage(sid=sid, hit=Hit(rank=1, score=1.0, chunk=chunk, document=document),
                          text=text, tokens=len(text.split()))
