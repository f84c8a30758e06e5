"""Check that a file's bytes are what its name says, before any parser sees them.

Text formats (Markdown, HTML, plain text, Info) are decoded in the order a browser would
settle on, made deterministic: a byte-order mark (UTF-8, UTF-16, UTF-32) wins; then UTF-8;
then, for bytes that are not UTF-8, the charset an HTML page declares (its ``<meta>`` or an
XML declaration; one a browser knows: :data:`_WEB_CHARSETS`; other formats declare none);
then, when no byte sequence in the file is valid multi-byte UTF-8, the
legacy Western encoding (Windows-1252, which browsers use for "ISO-8859-1" too). A file that
mixes UTF-8 with stray bytes is refused with the offset of the first bad byte: guessing
would garble the half that was right. PDFs must start with ``%PDF-``. Known binary
signatures are named in the error, so "notes.md is a PNG image" reads better than a
decoding error.
"""

from __future__ import annotations

import codecs
import re

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
# UTF-32 first: its little-endian mark starts with UTF-16's.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (_UTF8_BOM, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
# A valid multi-byte UTF-8 sequence: its presence means the file meant to be UTF-8.
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
# <meta charset="x">, <meta http-equiv=... content="...; charset=x">, <?xml ... encoding="x"?>
_DECLARED = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})"""
    rb"""|<\?xml[^>]{0,100}?encoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
_WEB_CHARSETS = frozenset({
    "utf_8", "cp866", "koi8_r", "koi8_u", "mac_roman", "mac_cyrillic", "cp874", "gbk",
    "gb18030", "big5", "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis", "cp932", "euc_kr",
    "cp949", "ascii", "tis_620",
    *(f"iso8859_{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 14, 15, 16)),
    *(f"cp{n}" for n in range(1250, 1259))})
"""The charsets a browser decodes a page in (the WHATWG Encoding Standard's, as Python's codec
names), the only ones a declaration may pick. A security review's page declared
``unicode_escape``: its ``\\u002d\\u002d\\u003e`` became ``-->``, closing a comment early,
and the comment's "365 days" was indexed and cited, where a browser shows "14 days"; EBCDIC
``cp037`` and ``utf_7`` were accepted too. A declared UTF-16 is UTF-8 to a browser (bytes
that are UTF-16 carry a byte-order mark)."""
_AS_BROWSERS_READ = {"gb2312": "gbk", "iso8859_9": "cp1254", "iso8859_11": "cp874",
                     "tis_620": "cp874", "big5hkscs": "big5hkscs", "euc_kr": "cp949",
                     "iso8859_1": "cp1252", "ascii": "cp1252"}
"""Python's codec for a label as the Encoding Standard reads it: GB2312 is GBK, ISO-8859-9
Windows-1254, EUC-KR Windows-949… (the review of this stop: GB2312 pages were refused
and Turkish ISO-8859-9 ones read as Windows-1252)."""
_WESTERN = frozenset({"iso8859_1", "ascii", "cp1252"})  # codecs names; browsers read cp1252


def describe_binary(data: bytes) -> str | None:
    """Name a well-known binary format from its first bytes, or None."""
    for magic, name in _SIGNATURES:
        if data.startswith(magic):
            return name
    return None


def decode_text(data: bytes, fmt: str) -> str:
    """Decode a text-format file (order in the module docstring); newlines unified.

    Raises :class:`UnsupportedFormatError` for binary content and for bytes no rule decodes,
    with the byte offset of the first bad byte.
    """
    known = describe_binary(data)
    if known:
        raise UnsupportedFormatError(
            f"binary content: this is {known}, not {fmt} text; "
            "rename it with the right suffix or convert it to UTF-8 text")
    for bom, codec in _BOMS:
        if data.startswith(bom):
            if codec.startswith("utf-16") and _eight_bit_after(data[len(bom):]):
                raise UnsupportedFormatError(
                    "it starts with a UTF-16 byte-order mark, but the bytes after it are "
                    "8-bit text, not UTF-16; remove its first two bytes, or re-save the file "
                    "as UTF-8")
            return unify_newlines(_strict(data, codec, skip=len(bom)))
    nul = data.find(b"\x00")
    if nul >= 0:
        raise UnsupportedFormatError(
            f"binary content (NUL byte at byte {nul}), not {fmt} text; "
            "convert it to UTF-8 text or leave it out of the input")
    try:
        return unify_newlines(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    declared = _declared_codec(data[:2048]) if fmt == "HTML" else None
    if declared and declared not in _WESTERN and declared != "utf_8":
        return unify_newlines(_strict(data, declared))
    if declared in _WESTERN or not _UTF8_SEQUENCE.search(data):
        return unify_newlines(_windows_1252(data))
    raise UnsupportedFormatError(
        f"invalid UTF-8 at byte {first_bad}; re-save the file as UTF-8")


_SAMPLE = 1 << 16  # bytes after the mark looked at: the head tells
_TEXT_BYTE = frozenset(b"\t\n\r" + bytes(range(0x20, 0x7f)))


def _eight_bit_after(rest: bytes) -> bool:
    """True when the bytes after a UTF-16 mark are plainly 8-bit text: nine in ten byte
    pairs both printable ASCII. Read as UTF-16 they become a page of CJK-looking characters,
    indexed as text (a security review's "\\xff\\xfe" + an ASCII file); real UTF-16 has a
    NUL in most pairs in a Latin script, and in CJK about a fifth of its pairs are ASCII-like
    (one NUL somewhere does not make 8-bit text UTF-16: a review's bypass)."""
    rest = rest[:_SAMPLE]
    if len(rest) < 16:
        return False
    pairs = len(rest) // 2
    ascii_pairs = sum(1 for i in range(0, pairs * 2, 2)
                      if rest[i] in _TEXT_BYTE and rest[i + 1] in _TEXT_BYTE)
    return ascii_pairs >= 0.9 * pairs


def _strict(data: bytes, codec: str, skip: int = 0) -> str:
    """``data[skip:]`` in ``codec``; a bad byte's offset counts from the file's start."""
    try:
        return data[skip:].decode(codec)
    except UnicodeDecodeError as exc:
        name = codec.upper().removesuffix("-LE").removesuffix("-BE").replace("_", "-")
        raise UnsupportedFormatError(
            f"invalid {name} at byte {exc.start + skip}; re-save the file as UTF-8") from None


def _declared_codec(head: bytes) -> str | None:
    """Python's codec name for the charset an HTML/XML head declares, or None."""
    match = _DECLARED.search(head)
    if match is None:
        return None
    try:
        info = codecs.lookup((match.group(1) or match.group(2)).decode("ascii"))
    except LookupError:
        return None
    name = info.name.replace("-", "_")
    name = _AS_BROWSERS_READ.get(name, name)
    return name if name in _WEB_CHARSETS else None  # (not "base64", "rot13", "zlib": a
    # robustness review's page stopped the batch; nor "unicode_escape", module docstring)


def _windows_1252(data: bytes) -> str:
    """Windows-1252, with Latin-1 for the five bytes it leaves undefined (as browsers do)."""
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


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
