"""Shared fixtures for the ingest tests: a PDF factory and the offset-invariant checker."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from citewise.types import ParsedDocument


def _pdf_bytes(pages: list[list[str]], title: str | None = None,
               encrypt: object | None = None,
               outline: list[tuple[str, int, int]] = ()) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1, encrypt=encrypt)
    if title:
        pdf.setTitle(title)
    for number, lines in enumerate(pages, start=1):
        for i, (entry, page, level) in enumerate(outline):  # (title, 1-based page, 0 = top)
            if page == number:
                pdf.bookmarkPage(f"b{i}")
                pdf.addOutlineEntry(entry, f"b{i}", level=level)
        y = 800
        for line in lines:
            if line:
                pdf.drawString(72, y, line)
            y -= 16 if line else 40  # an empty string leaves a paragraph gap
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    """``make_pdf([["page 1 line", ...], [...]], title=..., encrypt=..., outline=[(title,
    page, level), ...])`` → PDF bytes (outline: bookmarks, page 1-based, level 0 = top)."""
    pytest.importorskip("reportlab")
    return _pdf_bytes


def _check_offsets(parsed: ParsedDocument) -> None:
    assert parsed.blocks, "a parsed document has at least one block"
    previous_end = -2
    for block in parsed.blocks:
        assert parsed.text[block.start:block.end] == block.text
        assert block.text.strip(), "no empty blocks"
        assert block.start == previous_end + 2, "blocks are joined by one blank line"
        previous_end = block.end
    assert previous_end == len(parsed.text)
    assert "\n\n".join(b.text for b in parsed.blocks) == parsed.text


@pytest.fixture
def check_offsets() -> Callable[[ParsedDocument], None]:
    """Assert ``text[start:end] == block.text`` for every block, and the join rule."""
    return _check_offsets
