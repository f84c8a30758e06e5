"""Turn a draft into a :class:`~citewise.types.Chunk`: ids, hashes and the embedding text.

Formulas (``H`` = sha256 hex digest of the UTF-8 bytes, ``\\0`` = the NUL character):

* ``chunk_id   = H(f"{doc_id}\\0{start}\\0{end}\\0{H(text)}")[:32]``
* ``section_id = H(f"{doc_id}\\0section\\0{section_start}")[:16]``
* ``text_for_embedding = title + "\\n" + " > ".join(heading_path) + "\\n\\n" + text``, where an
  empty title or path is left out with its newline, and the path is left out when it is
  just ``(title,)``; with neither, it is ``text`` alone.
* ``embed_hash = H(text_for_embedding)`` (full 64 hex digits).

``kind`` is the one kind of the chunk's non-heading blocks, leaving out lead-ins with another
block after them (:func:`~citewise.chunk.pack.introduces`: "Run it like this:" before its
code), ``"text"`` when they mix kinds, and ``"heading"`` for a chunk of headings only.
``anchor`` and ``page`` are those of the first block under the chunk's heading path, else
of its first block (:func:`_opening`). ``sections`` marks each place the text passes
into another heading or anchor (:func:`section_marks`).
"""

from __future__ import annotations

import hashlib

from citewise.chunk.draft import Draft
from citewise.chunk.pack import introduces
from citewise.types import Block, BlockKind, Chunk, SectionMark


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id(doc_id: str, start: int, end: int, text: str) -> str:
    return sha256_hex(f"{doc_id}\x00{start}\x00{end}\x00{sha256_hex(text)}")[:32]


def section_id(doc_id: str, section_start: int) -> str:
    return sha256_hex(f"{doc_id}\x00section\x00{section_start}")[:16]


def text_for_embedding(title: str, heading_path: tuple[str, ...], text: str) -> str:
    path = " > ".join(heading_path)
    head = "\n".join(p for p in (title, "" if path == title else path) if p)
    return f"{head}\n\n{text}" if head else text


def chunk_kind(draft: Draft) -> BlockKind:
    blocks = [b for b in draft.blocks if b.kind != "heading"]
    kinds = {b.kind for i, b in enumerate(blocks)
             if not (i + 1 < len(blocks) and introduces(b, blocks[i + 1]))}
    if not blocks:
        return "heading"
    return kinds.pop() if len(kinds) == 1 else "text"


def section_marks(draft: Draft) -> tuple[SectionMark, ...]:
    """One mark per run of blocks under the same heading path and anchor, at the offset of
    its first block in ``draft.text``; none when there is one run. A block without an anchor
    keeps the one before it (the nearest place a link can open)."""
    marks: list[SectionMark] = []
    for block in draft.blocks:
        offset = block.start - draft.start
        mark = SectionMark(offset, block.anchor or (marks[-1].anchor if marks else None),
                           block.heading_path)
        same = marks and (mark.anchor, mark.heading_path) == (marks[-1].anchor,
                                                              marks[-1].heading_path)
        if 0 <= offset < len(draft.text) and not same:
            marks.append(mark)
    return tuple(marks) if len(marks) > 1 else ()


def _opening(draft: Draft, path: tuple[str, ...]) -> Block:
    """The block a link to the chunk opens at: the first under the chunk's own heading path
    (headings with nothing under them merge into the next section and take its path: a
    search hit listed under "--max-old-space-size" of Node's CLI page linked to the first of
    the 13 empty option headings above it), else the first block."""
    return next((b for b in draft.blocks if b.anchor and b.heading_path == path),
                draft.blocks[0])


def make_chunk(draft: Draft, doc_id: str, ordinal: int, title: str, token_count: int) -> Chunk:
    """The chunk for ``draft`` (formulas in the module docstring); ``token_count`` is the
    count of ``draft.text``."""
    path = draft.section.heading_path
    embed_text = text_for_embedding(title, path, draft.text)
    first = _opening(draft, path)
    return Chunk(
        chunk_id=chunk_id(doc_id, draft.start, draft.end, draft.text),
        doc_id=doc_id,
        ordinal=ordinal,
        text=draft.text,
        text_for_embedding=embed_text,
        embed_hash=sha256_hex(embed_text),
        start=draft.start,
        end=draft.end,
        heading_path=path,
        anchor=first.anchor,
        section_id=section_id(doc_id, draft.section.start),
        token_count=token_count,
        kind=chunk_kind(draft),
        page=first.page,
        sections=section_marks(draft),
    )
