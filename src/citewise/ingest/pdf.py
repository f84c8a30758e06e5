"""PDF loader (pypdf): blocks per page, anchored ``page=N`` for ``file.pdf#page=N``.

Each page's extracted text loses its running headers, footers, page numbers,
table-of-contents lines and line-end hyphenation, and gains the headings its outline
(bookmarks) names, or else its printed table of contents
(:mod:`citewise.ingest.pdf_layout`); the rest is split on blank lines into ``text`` blocks
(often one per page). Every block has ``page`` set (1-based) and anchor ``page=N``, the
standard PDF open parameter (RFC 8118), so ``file.pdf#page=3`` opens the cited page.
Truncated, corrupt and encrypted files, files over ``limits.max_pages``, and files whose
pages hold over ``limits.max_pdf_content_bytes`` of content or a stream past pypdf's own
decompression limit (:mod:`citewise.ingest.pdf_work`) raise one-line errors before any text
is used. A paragraph or example a page break cuts is one block again
(:mod:`citewise.ingest.pdf_flow`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypdf import PasswordType, PdfReader
from pypdf.errors import LimitReachedError

from citewise.errors import IngestError, LimitExceededError
from citewise.ingest.builder import DEFAULT_MAX_BLOCKS, DocumentBuilder, pick_title
from citewise.ingest.content import check_pdf_header
from citewise.ingest.doc_names import name_title
from citewise.ingest.normalize import clean_lines, one_line, paragraphs, unify_newlines, verbatim
from citewise.ingest.pdf_code import PageReader, split_code
from citewise.ingest.pdf_flow import Part, run_on
from citewise.ingest.pdf_headings import page_blocks
from citewise.ingest.pdf_layout import (
    LIGATURES,
    OutlineEntry,
    body_lines,
    by_page,
    dehyphenate,
    furniture_shapes,
    outline,
    toc_outline,
    vocabulary,
)
from citewise.ingest.pdf_work import content_bytes
from citewise.types import ParsedDocument

DEFAULT_MAX_PAGES = 2000
DEFAULT_MAX_CONTENT_BYTES = 128 * 1024 * 1024
EOF_WINDOW = 1024  # Acrobat requires %%EOF within the last 1024 bytes
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_CORRUPT_HINT = "the file is damaged; re-export or re-download it"
# Placeholders some producers write (reportlab: "untitled"/"anonymous"): not real metadata.
_PLACEHOLDERS = frozenset({"untitled", "anonymous", "unknown", "(unspecified)", "none"})


class PdfLoader:
    """Loads ``.pdf`` files; see the module docstring."""

    format = "pdf"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS,
                 max_pages: int = DEFAULT_MAX_PAGES,
                 max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> None:
        self.max_blocks = max_blocks
        self.max_pages = max_pages
        self.max_content_bytes = max_content_bytes

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """Extract page text; raises IngestError for truncated/corrupt/encrypted PDFs."""
        check_pdf_header(data)
        if b"%%EOF" not in data[-EOF_WINDOW:]:
            raise IngestError(
                "PDF is truncated (no %%EOF end marker); re-download or re-export the file")
        reader = _open(data)
        count = _page_count(reader)
        if count > self.max_pages:
            raise LimitExceededError(
                f"PDF has {count} pages, over limits.max_pages ({self.max_pages}); "
                "split the PDF or raise limits.max_pages")
        self._check_work(reader)
        page_reader = PageReader()
        pages = [_page_text(reader, number, page_reader).split("\n")
                 for number in range(1, count + 1)]
        furniture = furniture_shapes(pages)
        marks = by_page(outline(reader))
        bodies = [body_lines(lines, furniture, marks.get(number, ()))
                  for number, lines in enumerate(pages, start=1)]
        sections = marks or by_page(toc_outline(pages, bodies))
        builder = DocumentBuilder(self.max_blocks)
        words = vocabulary("\n".join(lines) for lines in bodies)
        pages_parts = (_parts(lines, sections.get(number, ()), number, words)
                       for number, lines in enumerate(bodies, start=1))
        for part in run_on(pages_parts, words):
            anchor = f"page={part.page}"
            if part.kind == "heading":
                builder.heading(part.text, part.level, anchor=anchor, page=part.page)
            else:
                builder.add(part.kind, clean_lines(part.text) if part.kind == "text"
                            else verbatim(part.text), page=part.page, anchor=anchor)
        metadata = _info(reader)
        title = pick_title(metadata.get("title"), fallback=name_title(path))
        return builder.build(
            title=title, fmt=self.format, metadata=metadata, pages=count,
            empty_hint="the PDF may be scanned images; run OCR on it and ingest the result")

    def sample_text(self, data: bytes, count: int) -> list[str]:
        """The text of ``count`` pages spread over the PDF, first and last included, checked
        as :meth:`load` checks the whole file, for a cheap look at what the PDF holds
        (:mod:`citewise.ingest.editions`)."""
        check_pdf_header(data)
        reader = _open(data)
        total = _page_count(reader)
        if total > self.max_pages:
            return []
        picks = sorted({round(i * (total - 1) / max(1, count - 1)) for i in range(count)})
        pages = _Pages([reader.pages[i] for i in picks])
        if content_bytes(pages, self.max_content_bytes) > self.max_content_bytes:
            return []
        page_reader = PageReader()
        return [page_reader.read(page, _clean) for page in pages.pages]

    def _check_work(self, reader: PdfReader) -> None:
        """Refuse a PDF whose pages hold more content than a reader should tokenize
        (:mod:`citewise.ingest.pdf_work`)."""
        try:
            total = content_bytes(reader, self.max_content_bytes)
        except LimitReachedError as exc:  # a stream past its decompression limit, mostly
            raise LimitExceededError(
                f"a content stream of this PDF is past one of pypdf's limits ({one_line(exc)}), "
                "so its text cannot be read (a small file that inflates so far is likely built "
                "to exhaust readers); re-export the PDF from its source and ingest that"
            ) from None
        if total > self.max_content_bytes:
            limit = self.max_content_bytes // (1024 * 1024)
            raise LimitExceededError(
                f"PDF pages hold over {limit} MiB of content to read (a small file whose pages "
                "all draw one huge stream takes hours); raise limits.max_pdf_content_bytes "
                "for a PDF you trust")


@dataclass(frozen=True)
class _Pages:
    """Some of a PDF's pages, as :func:`~citewise.ingest.pdf_work.content_bytes` reads a
    reader's."""

    pages: list[Any]


def _parts(lines: list[str], entries: Sequence[OutlineEntry], number: int,
           words: frozenset[str]) -> list[Part]:
    """Page ``number``'s headings, text paragraphs and code blocks, in order."""
    out: list[Part] = []
    for kind, text, level in page_blocks(lines, entries):
        if kind == "heading":
            out.append(Part("heading", text, number, level))
            continue
        out.extend(Part(part_kind, part, number)
                   for para in paragraphs(dehyphenate(text, words))
                   for part_kind, part in split_code(para))
    return out


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
    except Exception as exc:  # pypdf raises many types on damaged input
        raise IngestError(f"cannot parse PDF ({one_line(exc)}); {_CORRUPT_HINT}") from None
    if encrypted:
        try:
            opened = reader.decrypt("") != PasswordType.NOT_DECRYPTED
        except Exception:  # e.g. AES without the optional crypto dependency
            opened = False
        if not opened:
            raise IngestError(
                "PDF is encrypted (password-protected); save an unencrypted copy "
                "and ingest that")
    return reader


def _page_count(reader: PdfReader) -> int:
    try:
        count = len(reader.pages)
    except Exception as exc:
        raise IngestError(
            f"cannot read the PDF page tree ({one_line(exc)}); {_CORRUPT_HINT}") from None
    if count == 0:
        raise IngestError(f"PDF has no pages; {_CORRUPT_HINT}")
    return count


def _page_text(reader: PdfReader, number: int, page_reader: PageReader) -> str:
    """The page's text, its code lines marked (:mod:`citewise.ingest.pdf_code`)."""
    try:
        return page_reader.read(reader.pages[number - 1], _clean)
    except Exception as exc:
        raise IngestError(
            f"cannot extract text from page {number} ({one_line(exc)}); {_CORRUPT_HINT}"
        ) from None


def _clean(text: str) -> str:
    return _CONTROL.sub("", unify_newlines(text)).translate(LIGATURES)


def _info(reader: PdfReader) -> dict[str, Any]:
    """``/Title`` → title, ``/Author`` → owner, ``/ModDate`` → updated_at (when present)."""
    out: dict[str, Any] = {}
    try:
        info = reader.metadata
        if info is None:
            return out
        for key, value in (("title", info.title), ("owner", info.author)):
            text = " ".join(str(value or "").split())
            if text and text.lower() not in _PLACEHOLDERS:
                out[key] = text
        modified = info.modification_date
        if modified is not None:
            out["updated_at"] = modified.isoformat()
    except Exception:  # a damaged info dictionary must not sink an otherwise good file
        return out
    return out
