"""Word documents (``.docx``, Office Open XML) via python-docx: the body as a person reads it.

Organisations keep their policies in Word. The body is read in document order:

* a paragraph styled ``Title`` is the document's title; ``Heading N`` (or a custom style
  based on one, or a paragraph with an outline level) is a heading of level N, so chunks
  carry a heading path;
* list paragraphs (numbered or bulleted: a ``List …`` style or numbering properties) become
  one list block of ``- item`` lines per run of them;
* tables become ``a | b`` rows (cells merged across columns once; the first row counts as a
  header when Word marks it as a repeating header row);
* core properties: ``title`` → title, ``author`` → owner (placeholders such as "Microsoft
  Office User" are ignored). ``modified`` is not taken: tools that write .docx from a
  template keep the template's date (python-docx: 2013-12-23), so updated_at stays the
  file's time unless the sidecar says otherwise.

Page headers and footers, comments and tracked deletions are not body text and are not read.
Word has no deep links a browser opens, so anchors are None.

The package is checked before python-docx inflates it: every part's declared size (zip
enforces it while inflating) must add up to at most :data:`INFLATE_FACTOR` x
``limits.max_file_bytes``, so a zip bomb is refused unread. python-docx parses XML with
entity resolution off.
"""

from __future__ import annotations

import io
import itertools
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from citewise.config import LimitSettings
from citewise.errors import IngestError, LimitExceededError, UnsupportedFormatError
from citewise.ingest.builder import DEFAULT_MAX_BLOCKS, DocumentBuilder, pick_title
from citewise.ingest.doc_names import name_title
from citewise.ingest.normalize import collapse, one_line
from citewise.types import ParsedDocument

INFLATE_FACTOR = 4
_HEADING = re.compile(r"heading\s*([1-9])", re.IGNORECASE)
_PLACEHOLDERS = frozenset({"microsoft office user", "user", "author", "unknown", "admin",
                           "administrator", "windows user"})
_FIX = "re-save it from Word or LibreOffice as .docx, or export it as PDF"


class DocxLoader:
    """Loads ``.docx`` bytes; see the module docstring."""

    format = "docx"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS,
                 max_file_bytes: int = LimitSettings().max_file_bytes) -> None:
        self.max_blocks = max_blocks
        self.max_file_bytes = max_file_bytes

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """Read the body's headings, paragraphs, lists and tables in order; a package
        python-docx stumbles on fails in one line (IngestError), like a damaged one."""
        document = _open(data, self.max_file_bytes * INFLATE_FACTOR, self.max_blocks)
        try:
            return self._walk(document, path)
        except IngestError:
            raise
        except Exception as exc:  # python-docx on odd XML: IndexError, KeyError, ValueError…
            raise IngestError(f"cannot read this .docx ({type(exc).__name__}: "
                              f"{one_line(exc, 100)}); {_FIX}") from None

    def _walk(self, document: Any, path: Path) -> ParsedDocument:
        from citewise.ingest.word_hidden import drop_hidden_runs  # python-docx, lazily

        drop_hidden_runs(document)
        builder = DocumentBuilder(self.max_blocks)
        items: list[str] = []
        title_text = None
        styles = _Styles(document)
        for block in document.iter_inner_content():
            if hasattr(block, "rows"):  # a table
                _flush(builder, items)
                rows, header = _rows(block)
                builder.add("table", "\n".join(rows), header_lines=header)
                continue
            level, text = _heading_level(block, styles), collapse(block.text)
            if level is None and _is_list(block, styles):
                if text:
                    items.append(f"- {text}")
                continue
            _flush(builder, items)
            if level == 0:  # the Title paragraph: the document's title, not a section
                title_text = title_text or text
            elif level is not None:
                builder.heading(text, level)
            else:
                builder.add("text", _lines(block.text))
        _flush(builder, items)
        metadata = _properties(document)
        title = pick_title(metadata.pop("title", None), title_text, builder.first_heading(1),
                           builder.first_heading(), fallback=name_title(path))
        return builder.build(title=title, fmt=self.format, metadata=metadata,
                             empty_hint="the document body holds no text")


_COUNTED = frozenset({"p", "tbl", "tr", "tc"})
"""Elements python-docx reads one by one (paragraphs, tables, rows, cells), by local name in
any namespace (DrawingML's paragraphs counted too): :func:`_too_large`."""


MAX_ELEMENTS_PER_BLOCK = 20
"""Elements of any kind (runs, their text and properties…) allowed per block: a million at
the default 50,000 blocks (a thousand-page document holds about half as many)."""


def _too_large(xml: bytes, max_blocks: int) -> bool:
    """Whether ``word/document.xml`` holds over ``max_blocks`` paragraphs, over twice as
    many paragraphs, tables, rows and cells, or over :data:`MAX_ELEMENTS_PER_BLOCK` times as
    many elements, streamed (any encoding or prefix, memory kept
    flat) and stopped at the bound. python-docx reads each one (a paragraph about half a
    millisecond), empty ones too, which make no block: the security review's 36 KB of empty
    paragraphs held the upload lock 45 s; the second review's 340 KB of empty table cells,
    164 s and 1.6 GB, after a count of ``<w:p`` bytes and one as parsed."""
    from lxml import etree

    paragraphs = counted = elements = 0
    try:
        for _, element in etree.iterparse(io.BytesIO(xml), events=("end",), huge_tree=False,
                                          resolve_entities=False, no_network=True):
            elements += 1
            name = etree.QName(element).localname if isinstance(element.tag, str) else ""
            if name in _COUNTED:
                counted += 1
                paragraphs += name == "p"
            if paragraphs > max_blocks or counted > 2 * max_blocks or \
                    elements > MAX_ELEMENTS_PER_BLOCK * max_blocks:
                return True
            element.clear(keep_tail=False)
            parent = element.getparent()  # none for the root (a comment may precede it)
            while parent is not None and element.getprevious() is not None:
                del parent[0]  # memory kept flat
    except etree.LxmlError:
        return False  # a damaged part: python-docx says so, in one line
    return False


def _open(data: bytes, max_inflated: int, max_blocks: int = DEFAULT_MAX_BLOCKS) -> Any:
    """The python-docx Document for ``data``, after the zip checks (module docstring) and
    at most ``max_blocks`` paragraphs: python-docx reads each (about half a millisecond,
    six lookups), empty ones too, which make no block: a security review's 36 KB of empty
    paragraphs held the upload lock 45 s (about an hour at 100 KB)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = set(package.namelist())
            inflated = sum(info.file_size for info in package.infolist())
            if "word/document.xml" in names and inflated <= max_inflated and \
                    _too_large(package.read("word/document.xml"), max_blocks):
                raise _too_many(max_blocks)  # before python-docx parses it
    except (zipfile.BadZipFile, OSError, ValueError, zlib.error) as exc:
        raise UnsupportedFormatError(f"not a .docx file: not a readable zip package "
                                     f"({one_line(exc, 80)}); {_FIX}") from None
    if "word/document.xml" not in names:
        raise UnsupportedFormatError(f"not a .docx file: no word/document.xml in the zip "
                                     f"package; {_FIX}")
    if inflated > max_inflated:
        raise LimitExceededError(
            f"its parts inflate to {inflated} bytes, over {INFLATE_FACTOR} x "
            "limits.max_file_bytes; split the document or raise limits.max_file_bytes")
    import docx  # python-docx: imported when a .docx is read

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx/lxml raise many types for a damaged package
        raise IngestError(f"cannot read this .docx ({one_line(exc, 120)}); {_FIX}") from None
    from docx.oxml.ns import qn

    body = getattr(document.element, "body", None)  # a root python-docx did not take for
    if body is None:  # a document (a fuzz case's one-byte cut of its tag): no body to read
        raise IngestError(f"cannot read this .docx (its document part has no body); {_FIX}")
    found = body.iter(qn("w:p"))  # a backstop, in C: a part the stream
    if next(itertools.islice(found, max_blocks, None), None) is not None:  # above could
        raise _too_many(max_blocks)  # not read (``_too_large`` lets python-docx judge it)
    return document


def _too_many(max_blocks: int) -> LimitExceededError:
    return LimitExceededError(f"its body is too large to read (over {max_blocks} "
                              f"paragraphs, {2 * max_blocks} paragraphs, tables, rows and "
                              f"cells, or {MAX_ELEMENTS_PER_BLOCK * max_blocks} elements: "
                              "limits.max_blocks); split the document or raise "
                              "limits.max_blocks")


class _Styles:
    """The names of each paragraph style and of the styles it is based on (at most 10: no
    cycles), read from ``styles.xml`` in one pass. python-docx's ``paragraph.style`` scans
    every style for each lookup, and a base style again: a security review's 35 KB file, 4,000
    empty paragraphs in 4,000 styles, read for over a minute while an upload slot waited.
    As python-docx reads them: only paragraph styles (a character style named "heading 2" is
    none), an unknown id is the default style (the last marked default), and a style whose
    XML lacks a value is read without it rather than failing the file (a review)."""

    def __init__(self, document: Any) -> None:
        from docx.oxml.ns import qn

        self.styles: dict[str, tuple[str, str | None]] = {}
        self.default: str | None = None
        try:
            found = document.styles.element.findall(qn("w:style"))
        except (KeyError, ValueError, AttributeError):
            found = []
        val = qn("w:val")
        for style in found:
            if style.get(qn("w:type")) not in (None, "paragraph"):
                continue
            sid = style.get(qn("w:styleId")) or ""
            name, based = style.find(qn("w:name")), style.find(qn("w:basedOn"))
            self.styles.setdefault(sid, ((name.get(val) if name is not None else None) or "",
                                         based.get(val) if based is not None else None))
            if style.get(qn("w:default")) in ("1", "true", "on"):
                self.default = sid
        self.chains: dict[str | None, tuple[str, ...]] = {}

    def names(self, paragraph: Any) -> tuple[str, ...]:
        """The paragraph's style name and its base styles' names, lowercased."""
        ids = paragraph._p.xpath("./w:pPr/w:pStyle/@w:val")
        key = str(ids[0]) if ids and str(ids[0]) in self.styles else self.default
        if key not in self.chains:
            names, at = [], key
            while at is not None and at in self.styles and len(names) < 10:
                name, at = self.styles[at]
                names.append(name.strip().lower())
            self.chains[key] = tuple(names)
        return self.chains[key]


def _heading_level(paragraph: Any, styles: _Styles) -> int | None:
    """0 for a Title paragraph, N for Heading N (or an outline level N-1), else None."""
    for name in styles.names(paragraph):
        if name == "title":
            return 0
        found = _HEADING.fullmatch(name)
        if found:
            return int(found.group(1))
    outline = paragraph._p.xpath("./w:pPr/w:outlineLvl/@w:val")
    if outline and str(outline[0]).isdigit() and int(outline[0]) < 9:
        return int(outline[0]) + 1
    return None


def _is_list(paragraph: Any, styles: _Styles) -> bool:
    if paragraph._p.xpath("./w:pPr/w:numPr"):
        return True
    names = styles.names(paragraph)
    return bool(names) and names[0].startswith("list")


def _flush(builder: DocumentBuilder, items: list[str]) -> None:
    if items:
        builder.add("list", "\n".join(items))
        items.clear()


MAX_GRID_SPAN = 63
"""The most columns one cell may span: Word's tables have at most 63 columns."""


def _lines(text: str) -> str:
    """A paragraph's text with its manual line breaks kept, spaces collapsed per line."""
    return "\n".join(line for line in (collapse(part) for part in text.split("\n")) if line)


def _rows(table: Any) -> tuple[list[str], int]:
    """``a | b`` rows (a merged cell once in a row, in each row it spans) and 1 when the
    first row repeats as a header."""
    from docx.oxml.ns import qn

    for tc in table._tbl.iter(qn("w:tc")):  # python-docx yields a cell once per column it
        if tc.grid_span > MAX_GRID_SPAN:  # spans: a review's 1 KB file claiming 2e9 took
            tc.grid_span = MAX_GRID_SPAN  # 13 GB and a minute and more
    from docx.table import _Cell

    rows: list[str] = []
    above: dict[int, str] = {}  # grid column -> text of the cell the row above has there
    for tr in table._tbl.tr_lst:
        cells, column, here = [], tr.grid_before, {}
        for tc in tr.tc_lst:  # python-docx's row.cells looks up each merged cell's first
            if tc.vMerge == "continue":  # row again, from the row above, recursively: 1.4
                cells.append(above.get(column, ""))  # KB of merged rows read for 37 s
            else:
                cells.append(collapse(_Cell(tc, table).text))
            here[column] = cells[-1]
            column += tc.grid_span
        above = here  # only the row just above: never a cell two rows up (a review)
        if any(cells):
            rows.append(" | ".join(cells))
    first = table.rows[0]._tr.xpath("./w:trPr/w:tblHeader") if len(table.rows) else []
    return rows, 1 if first and rows else 0


def _properties(document: Any) -> dict[str, Any]:
    """Core properties: title, author → owner (when real)."""
    out: dict[str, Any] = {}
    try:
        props = document.core_properties
        for key, value in (("title", props.title), ("owner", props.author)):
            text = " ".join(str(value or "").split())
            if text and text.lower() not in _PLACEHOLDERS:
                out[key] = text
    except Exception:  # damaged properties must not sink an otherwise good document
        return out
    return out
