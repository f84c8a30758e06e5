"""Check that a file's bytes are what its name says, before any parser sees them.

Text formats (Markdown, HTML, plain text) must be UTF-8 without NUL bytes; a UTF-8 BOM is
stripped. PDFs must start with ``%PDF-``. Known binary signatures are named in the error,
so "notes.md is a PNG image" reads better than a decoding error.
"""

from __future__ import annotations

from citewise.errors import UnsupportedFormatError
from citewise.ingest.normalize import unify_newlines

PDF_MAGIC = b"%PDF-"
GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (PDF_MAGIC, "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (e.g. .docx/.xlsx/.pptx)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office document (.doc/.xls)"),
    (GZIP_MAGIC, "a gzip archive"),
    (b"\x7fELF", "an executable"),
)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def describe_binary(data: bytes) -> str | None:
    """Name a well-known binary format from its first bytes, or None."""
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    return None


def decode_text(data: bytes, fmt: str) -> str:
    """Decode a text-format file as strict UTF-8 (BOM stripped, newlines unified).

    Raises :class:`UnsupportedFormatError` for binary content and invalid UTF-8, with the
    byte offset of the first bad byte.
    """
    known = describe_binary(data)
    if known:
        raise UnsupportedFormatError(
            f"binary content: this is {known}, not {fmt} text; "
            "rename it with the right suffix or convert it to UTF-8 text")
    if data.startswith(_UTF16_BOMS):
        raise UnsupportedFormatError(
            "file is UTF-16 encoded, not UTF-8; re-save the file as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise UnsupportedFormatError(
            f"binary content (NUL byte at byte {nul}), not {fmt} text; "
            "convert it to UTF-8 text or leave it out of the input")
    skip = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        text = data[skip:].decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        offset = exc.start + skip
        raise UnsupportedFormatError(
            f"invalid UTF-8 at byte {offset}; re-save the file as UTF-8") from None
    return unify_newlines(text)


def check_pdf_header(data: bytes) -> None:
    """Raise :class:`UnsupportedFormatError` unless ``data`` starts with ``%PDF-``."""
    if not data.startswith(PDF_MAGIC):
        known = describe_binary(data)
        what = f"this is {known}" if known else "it does not start with %PDF-"
        raise UnsupportedFormatError(
            f"not a PDF: {what}; rename it with the right suffix or re-export it as PDF")


def looks_like_html(text: str) -> bool:
    """True when decoded text opens with a doctype or an ``<html>`` tag."""
    head = text.lstrip()[:64].lower()
    return head.startswith(("<!doctype html", "<html"))
