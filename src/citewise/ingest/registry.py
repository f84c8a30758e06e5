"""Pick a loader for a file and guard it: size before reading, content against its suffix.

``load_file`` is the one entry point the ingest pipeline needs. It stats the file first
(nothing is read when it is over ``limits.max_file_bytes``), chooses the loader from the
suffix, and lets the loader validate the bytes (decodable text, ``%PDF-`` header, a Word zip
package). A file without a known suffix is sniffed: PDF by its magic bytes, HTML by its
doctype, and a file with no suffix at all (or a dot that is no file type's: ``v2.38.1-notes``)
as plain text.

A gzip-compressed file (``user_guide.rst.gz``: Debian compresses most files in
``/usr/share/doc``) is read as the file inside it: decompressed up to
``limits.max_file_bytes`` (a file that inflates past it is refused before it is all
inflated), then loaded by the inner suffix, titled by the inner name.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from pathlib import Path

from citewise.config import LimitSettings
from citewise.errors import IngestError, LimitExceededError, UnsupportedFormatError
from citewise.ingest.content import GZIP_MAGIC, PDF_MAGIC, describe_binary, looks_like_html
from citewise.ingest.doc_names import FILE_TYPE, FORMAT_BY_SUFFIX, is_doc_name
from citewise.ingest.html import HtmlLoader
from citewise.ingest.info import InfoLoader
from citewise.ingest.info_parts import PART_SUFFIX, indirect_parts, is_part_name, join_parts
from citewise.ingest.markdown import MarkdownLoader
from citewise.ingest.normalize import one_line
from citewise.ingest.pdf import PdfLoader
from citewise.ingest.rst import RstLoader
from citewise.ingest.text import TextLoader
from citewise.ingest.word import DocxLoader
from citewise.protocols import Loader
from citewise.types import ParsedDocument

SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(sorted(FORMAT_BY_SUFFIX))
GZIP_SUFFIX = ".gz"



def format_of(path: Path) -> str | None:
    """The format a suffix names (``.info-2``: a part of a split Info manual), plain text for
    a conventional documentation name (``NEWS``, ``README.Debian``: :mod:`doc_names`), or
    None."""
    suffix = path.suffix.lower()
    if format_ := FORMAT_BY_SUFFIX.get(suffix):
        return format_
    if PART_SUFFIX.fullmatch(suffix):
        return "info"
    return "text" if is_doc_name(path.name) else None


def inner_path(path: Path) -> Path:
    """``path`` without a ``.gz`` suffix: the name of the file a compressed one holds."""
    return path.with_suffix("") if path.suffix.lower() == GZIP_SUFFIX else path


def is_supported(path: Path) -> bool:
    """Whether a folder walk takes ``path``: a supported suffix, also under gzip
    (``guide.md.gz``)."""
    return format_of(inner_path(path)) is not None


def make_loader(fmt: str, limits: LimitSettings | None = None) -> Loader:
    """The loader for a format name (``markdown``, ``html``, ``text``, ``pdf``, ``info``,
    ``docx``)."""
    limits = limits or LimitSettings()
    if fmt == "markdown":
        return MarkdownLoader(max_blocks=limits.max_blocks, max_nesting=limits.max_nesting)
    if fmt == "html":
        return HtmlLoader(max_blocks=limits.max_blocks, max_nesting=limits.max_nesting)
    if fmt == "text":
        return TextLoader(max_blocks=limits.max_blocks)
    if fmt == "rst":
        return RstLoader(max_blocks=limits.max_blocks)
    if fmt == "pdf":
        return PdfLoader(max_blocks=limits.max_blocks, max_pages=limits.max_pages,
                         max_content_bytes=limits.max_pdf_content_bytes)
    if fmt == "info":
        return InfoLoader(max_blocks=limits.max_blocks)
    if fmt == "docx":
        return DocxLoader(max_blocks=limits.max_blocks, max_file_bytes=limits.max_file_bytes)
    raise UnsupportedFormatError(
        f"unknown format {fmt!r}; use one of: docx, html, info, markdown, pdf, text")


def load_file(path: Path, limits: LimitSettings | None = None,
              within: Path | None = None, *, follow_symlinks: bool = False) -> ParsedDocument:
    """Load one file into a :class:`ParsedDocument`; with ``within`` (a real folder path),
    only if the file opened is inside it. A split Info manual's parts are read from its
    folder (``within``, else the manual's own), no symlink followed unless
    ``follow_symlinks``: a security review's manual named on the command line had a part
    that was a symlink to a secret file elsewhere, indexed as the manual's text.

    Raises :class:`LimitExceededError` when the file is over ``limits.max_file_bytes``
    (checked with ``os.stat`` before reading), :class:`UnsupportedFormatError` when its
    content is not what its suffix says, and :class:`IngestError` for anything else that
    makes it unreadable. Every error carries ``path`` and a one-line message.
    """
    limits = limits or LimitSettings()
    path = Path(path)
    try:
        data = _read_limited(path, limits.max_file_bytes, within)
        parts_within = within or (None if follow_symlinks else path.parent.resolve())
        data, path = _with_info_parts(data, path, limits, parts_within)
        return load_bytes(data, path, limits)
    except IngestError as exc:
        if exc.path is None:
            exc.path = str(path)
        raise


def load_bytes(data: bytes, path: Path, limits: LimitSettings | None = None) -> ParsedDocument:
    """Like :func:`load_file` for bytes already in memory (e.g. an upload named ``path``)."""
    limits = limits or LimitSettings()
    path = Path(path)
    if len(data) > limits.max_file_bytes:
        raise _too_big(len(data), limits.max_file_bytes, path)
    if path.suffix.lower() == GZIP_SUFFIX and data.startswith(GZIP_MAGIC):
        data, path = gunzip(data, limits.max_file_bytes), inner_path(path)
        if path.suffix.lower() == GZIP_SUFFIX:
            raise UnsupportedFormatError("a gzip file inside a gzip file; decompress it once "
                                         "and ingest the result")
    fmt = format_of(path) or sniff_format(data, path)
    if fmt in ("markdown", "text") and _whole_page(data):
        fmt = "html"  # a saved web page named .md or .txt: read as the page a browser shows
    return make_loader(fmt, limits).load(data, path)


def sample_text(path: Path, limits: LimitSettings, count: int) -> list[str]:
    """Samples of a file's text for a look at what it holds (:mod:`~citewise.ingest.editions`):
    ``count`` pages spread over a PDF (:meth:`PdfLoader.sample_text`), or ``count`` stretches
    of :data:`SAMPLE_CHARS` spread over a plain-text file (not parsed whole: a 19 MB text
    file took 14 s and 600 MB so); other formats: none. Read as :func:`load_file` reads,
    limits and all."""
    data = _read_limited(path, limits.max_file_bytes)
    if path.suffix.lower() == GZIP_SUFFIX and data.startswith(GZIP_MAGIC):
        data, path = gunzip(data, limits.max_file_bytes), inner_path(path)
    fmt = format_of(path)
    if fmt == "pdf":
        return PdfLoader(max_pages=limits.max_pages,
                         max_content_bytes=limits.max_pdf_content_bytes
                         ).sample_text(data, count)
    if fmt != "text":
        return []
    step = max(SAMPLE_CHARS, len(data) // count)
    return [data[at:at + SAMPLE_CHARS].decode("utf-8", errors="replace")
            for at in range(0, len(data), step)][:count]


SAMPLE_CHARS = 4_000


def _whole_page(data: bytes) -> bool:
    """Whether ``data`` is a whole HTML page (a doctype or ``<html>`` first). A security
    review's ``page.md`` holding one was read as one Markdown HTML block: no headings, its
    navigation, sidebar, footer and hidden text all indexed."""
    return looks_like_html(data[:4096].decode("utf-8", errors="ignore").lstrip("\ufeff"))


def _with_info_parts(data: bytes, path: Path, limits: LimitSettings,
                     within: Path | None) -> tuple[bytes, Path]:
    """An Info index file's bytes with its parts' nodes after them (and its name without
    ``.gz``), read from its folder (:mod:`~citewise.ingest.info_parts`); other files as
    they are. A part missing, or named outside the manual, is a one-line error."""
    inner = inner_path(path)
    if inner.suffix.lower() != ".info":
        return data, path
    if path != inner and data.startswith(GZIP_MAGIC):
        data = gunzip(data, limits.max_file_bytes)
    elif path != inner:
        return data, path  # not gzip after all: load_bytes says so
    names = indirect_parts(data)
    if not names:
        return data, inner
    parts, total = [], len(data)
    for name in names:
        if not is_part_name(inner.name, name):
            raise IngestError(f"its Indirect table names {name[:80]!r}, not a part of "
                              f"{inner.name}; not read. Fix: ingest its parts without it")
        found = next((p for p in (path.parent / name, path.parent / f"{name}.gz")
                      if p.is_file()), None)
        if found is None:
            raise IngestError(
                f"it is the index of a split Info manual whose text is in {', '.join(names)} "
                f"beside it, and {name} is missing. Fix: ingest it from the folder makeinfo "
                "wrote its parts to")
        if within is not None and found.is_symlink():
            raise IngestError(f"its part {found.name} is a symlink; not read (a manual's parts "
                              "are read from its folder). Fix: pass --follow-symlinks to "
                              "read parts from elsewhere")
        try:  # from the manual's folder (``within``)
            part = _read_limited(found, limits.max_file_bytes, within)
            if found.name != name:
                part = gunzip(part, limits.max_file_bytes)
        except IngestError as exc:  # the part at fault named, not only the manual
            raise type(exc)(f"its part {found.name}: {exc}") from None
        total += len(part)
        if total > limits.max_file_bytes:
            raise _too_big(total, limits.max_file_bytes, path)
        parts.append(part)
    return join_parts(data, parts), inner


def sniff_format(data: bytes, path: Path) -> str:
    """Guess the format of a file whose suffix is not a supported one, or raise."""
    if data.startswith(PDF_MAGIC):
        return "pdf"
    suffix = path.suffix.lower()
    known = describe_binary(data)
    if known is None and b"\x00" not in data[:8192]:
        if looks_like_html(data[:4096].decode("utf-8", errors="ignore")):
            return "html"
        if not FILE_TYPE.fullmatch(suffix):  # none, or a release's dot: "v2.38.1-notes"
            return "text"
    what = f" ({known})" if known else ""
    raise UnsupportedFormatError(
        f"unsupported file type {suffix or '(no suffix)'}{what}; supported: "
        f"{', '.join(SUPPORTED_SUFFIXES)}; convert the file or leave it out")


def gunzip(data: bytes, max_bytes: int) -> bytes:
    """The content of gzip ``data``, refused once it passes ``max_bytes``."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            inner = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise IngestError(f"not a readable gzip file ({one_line(exc, 120)}); "
                          "re-download it or ingest the uncompressed file") from None
    if len(inner) > max_bytes:
        raise LimitExceededError(
            f"decompresses to over limits.max_file_bytes ({_human(max_bytes)}); split it or "
            "raise limits.max_file_bytes")
    return inner


def _read_limited(path: Path, max_bytes: int, within: Path | None = None) -> bytes:
    """The file's bytes, checked on the file opened (not on its name, which can be swapped
    between the folder's listing and the read): a regular file (a FIFO opens without
    blocking and is refused), at most ``max_bytes``, and, with ``within``, really inside that
    folder: a file swapped for a symlink to a server file after ``ingest`` listed the folder
    was indexed (security review)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if within is not None:  # a walked file swapped for a symlink after the listing, even to
        flags |= getattr(os, "O_NOFOLLOW", 0)  # a restricted file inside (a review)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and within is not None:
            raise IngestError("it became a symlink after the folder was listed; not read. "
                              "Fix: ingest again (a symlink is skipped with a note)") from None
        fix = "check the path" if exc.errno == errno.ENOENT else "check its permissions"
        raise IngestError(f"cannot read file: {exc.strerror or exc}; {fix}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise IngestError("not a regular file; pass a file (directories are walked by ingest)")
    with os.fdopen(fd, "rb") as handle:
        if within is not None and not _inside(_opened_path(fd, path), within):
            raise IngestError(
                f"it leads outside {within} (a symlink made after the folder was listed); "
                "not read. Fix: pass --follow-symlinks to index files outside the folder")
        if info.st_size > max_bytes:
            raise _too_big(info.st_size, max_bytes, path)
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise IngestError(
                f"cannot read file: {exc.strerror or exc}; check its permissions") from None
    if len(data) > max_bytes:  # grew between stat and read
        raise _too_big(len(data), max_bytes, path)
    return data


def _opened_path(fd: int, path: Path) -> Path:
    """Where the open file really is: Linux names it in /proc; elsewhere, the name's real
    path when it is still the same file."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        real = Path(os.path.realpath(path))
        same = os.path.samestat(os.fstat(fd), os.stat(real)) if real.exists() else False
        return real if same else Path("/")


def _inside(real: Path, folder: Path) -> bool:
    return real == folder or folder in real.parents


def _too_big(size: int, max_bytes: int, path: Path) -> LimitExceededError:
    return LimitExceededError(
        f"file is {_human(size)}, over limits.max_file_bytes ({_human(max_bytes)}); "
        "split it or raise limits.max_file_bytes", path=str(path))


def _human(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size} bytes"
    return f"{size / (1024 * 1024):.1f} MiB"
