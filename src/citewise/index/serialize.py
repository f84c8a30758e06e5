"""A :class:`ParsedDocument` as compact bytes, so an index can re-chunk and re-embed its
documents without the source files (``citewise reindex``); a chunk's section marks as the
JSON text both backends store (``[[offset, anchor, heading_path], …]``, ``[]`` for none).

Format: zlib-compressed JSON ``{"v": 1, "title", "text", "format", "pages", "metadata",
"blocks": [[kind, start, end, heading_path, anchor, level, page, header_lines, text|null]]}``.
A block's text is stored only when it differs from ``text[start:end]`` (normally it does not).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from citewise.errors import DamagedRecordError
from citewise.types import Block, ParsedDocument, SectionMark

FORMAT_VERSION = 1


def parsed_to_bytes(parsed: ParsedDocument) -> bytes:
    """Serialise ``parsed``; metadata values JSON cannot hold (dates) become strings."""
    blocks = []
    for b in parsed.blocks:
        same = parsed.text[b.start:b.end] == b.text
        blocks.append([b.kind, b.start, b.end, list(b.heading_path), b.anchor, b.level, b.page,
                       b.header_lines, None if same else b.text])
    body = {"v": FORMAT_VERSION, "title": parsed.title, "text": parsed.text,
            "format": parsed.format, "pages": parsed.pages,
            "metadata": dict(parsed.metadata), "blocks": blocks}
    return zlib.compress(json.dumps(body, default=str, ensure_ascii=False).encode(), 6)


MAX_BODY_BYTES = 256 * 1024 * 1024
"""The most a stored body may inflate to: a parsed 20 MB file (``limits.max_file_bytes``)
is far less; a hostile index file's 400 KB body inflating to 400 MB took `migrate` to 1.3 GB
(security review)."""


def parsed_from_bytes(data: bytes) -> ParsedDocument:
    """Inverse of :func:`parsed_to_bytes`. Raises :class:`DamagedRecordError` on damaged data (one
    that inflates past :data:`MAX_BODY_BYTES`, or of the wrong shape, included)."""
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(data, MAX_BODY_BYTES)
        if inflate.unconsumed_tail:
            raise ValueError(f"it inflates past {MAX_BODY_BYTES >> 20} MiB")
        if not inflate.eof:
            raise ValueError("the compressed stream is truncated")
        body: dict[str, Any] = json.loads(raw)
        if body.get("v") != FORMAT_VERSION:
            raise DamagedRecordError(f"stored document body has format {body.get('v')!r}, this "
                             f"citewise reads {FORMAT_VERSION}. Fix: upgrade citewise or "
                             "re-ingest.")
        text = body["text"]
        blocks = tuple(
            Block(kind=k, text=t if t is not None else text[s:e], start=s, end=e,
                  heading_path=tuple(hp), anchor=a, level=lv, page=pg, header_lines=hl)
            for k, s, e, hp, a, lv, pg, hl, t in body["blocks"])
        return ParsedDocument(title=body["title"], text=text, blocks=blocks,
                              metadata=body["metadata"], pages=body["pages"],
                              format=body["format"])
    except (zlib.error, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DamagedRecordError(f"a stored document body is damaged ({str(exc)[:80]}). Fix: "
                         "re-ingest the document from its source file.") from exc


def sections_to_json(marks: tuple[SectionMark, ...]) -> str:
    return json.dumps([[m.offset, m.anchor, list(m.heading_path)] for m in marks],
                      ensure_ascii=False)


def sections_from_json(text: str | None) -> tuple[SectionMark, ...]:
    """Inverse of :func:`sections_to_json`; an index made before marks were stored has none."""
    return tuple(SectionMark(o, a, tuple(hp)) for o, a, hp in json.loads(text or "[]"))
