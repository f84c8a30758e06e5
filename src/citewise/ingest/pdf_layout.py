"""What a PDF's extracted lines are: page furniture to drop, headings to keep.

pypdf gives each page's text as lines and says nothing about their role. A manual's running
headers and footers ("Chapter 4: Function reference 21", "Shared MIME-info Database", "7")
would otherwise sit in the middle of every chunk, match every question that names the
product, and be quoted by extractive answers; its sections would be invisible, so no chunk
would know which section it is from.

* **Furniture** (dropped): among the first and last :data:`EDGE_LINES` non-blank lines of a
  page, a page number ("7", "iv", "Page 3 of 9", "- 12 -"), or a line whose *shape* (digits
  as ``#``, case and spacing folded) sits at the page edges of at least
  :data:`MIN_REPEATS` pages. A header naming the current chapter changes per chapter, so
  one that ends in a page number also counts by its *family*, its shape up to a colon when
  that holds a number ("chapter #:"): a chapter of one or two pages loses its header too.
  Nothing in the body is touched; "Step 2: …" lines do not end in a number; a code line
  (:mod:`citewise.ingest.pdf_code`) is never furniture.
* **Table-of-contents lines** (dropped): a title, dot leaders, a page number
  ("Concept Index . . . . . 32"); they match every question and answer none.
* **Hyphenation** (undone): a word a typesetter broke at a line end ("manip-" / "ulation")
  is joined again, so search finds "manipulation". Only a lowercase word part before the
  hyphen and a lowercase start after it count. The hyphen stays when the document spells the
  compound with it elsewhere and never without ("--gen-" / "suppressions=yes" in a manual
  that writes --gen-suppressions), or, spelled neither way, when the word is an option; the
  document is the dictionary. An identifier TeX broke after an underscore
  ("asn1_der_" / "decoding()", as Texinfo sets ``@code``) is joined too: it read
  "asn1_der_ decoding()", which no search for the function finds.
* **Headings** (kept, as headings): the PDF's outline (bookmarks) gives each section's title,
  level (nesting depth) and page. A line of that page that is the title (punctuation
  aside), alone or after a section number ("4.2 ASN.1 field functions" for "ASN.1 field
  functions", "Appendix A Copying Information" for "A Copying Information"), becomes a heading
  of that level (:mod:`citewise.ingest.pdf_headings` matches lines and entries in order).
  An entry whose line is not on its page makes no heading: none is invented.
  A PDF without an outline but with a printed table of contents (the first run of pages, among
  the first :data:`TOC_PAGES`, holding at least :data:`MIN_TOC_LINES` dot-leader lines) gets
  one from it: each entry, in order, is looked for as a line of the pages after the table
  (its printed page number is not the PDF's page index, front matter shifts it), each search
  starting where the last one matched; the level is the depth of its section number ("4.2"
  is 2; none is 1).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from citewise.ingest.pdf_code import is_code

EDGE_LINES = 2
MIN_REPEATS = 3
MAX_OUTLINE = 5000  # entries read from a (possibly hostile) outline
TOC_PAGES = 20  # a printed table of contents is looked for here (a back-of-book index is not)
MIN_TOC_LINES = 3
MAX_TOC = 2000  # entries read from a (possibly hostile) table of contents
SEARCH_PAGES = 60  # how far after the previous one a table-of-contents entry is looked for
_LONG_ROMAN = r"(?=[ivxlcdm]{3})m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_ROMAN = rf"(?:(?-i:{_LONG_ROMAN}|{_LONG_ROMAN.upper()})|[ivx]{{1,2}})"
"""A roman numeral: one or two of i, v, x, or a well-formed one of three letters or more,
all lowercase or all capitals (front matter runs to "clxxix" in a long manual; "c", "cd",
"Mix" are not)."""
_PAGE_NUMBER = re.compile(
    rf"(?:page\s+)?[-–—]?\s*(?:\d{{1,5}}|{_ROMAN})\s*[-–—]?(?:\s*(?:of|/)\s*\d{{1,5}})?",
    re.IGNORECASE)
_SECTION_NUMBER = re.compile(  # group 1: the number ("4.2"), whose depth is a level
    r"(?:(?:chapter|appendix|part|section)\s+)?((?:[A-Z]|\d{1,3})(?:\.\d{1,3})*)\.?\s+",
    re.IGNORECASE)
WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
"""A word, with its hyphenated compounds whole ("show-leak-kinds")."""
OPTION_WORD = re.compile(r"(?<!\S)--[a-z][\w-]*")
"""A long option standing as a word ("--quiet")."""
_OPTION_BREAK = re.compile(r"(?<!\S)--\n([a-z][\w-]*)(=\S*)?(\S*)[ \t]*")
"""An option's dashes left at a line end ("the --" / "track-origins=yes"): 94 lines of
the Valgrind manual, which answers then quoted as "the -- track-origins=yes"."""
_BROKEN_WORD = re.compile(r"\b([A-Za-z][a-z]+-|[A-Za-z]\w*_)\n([A-Za-z0-9]\S*)[ \t]*")
_LEADERS = re.compile(rf"(?:\s?\.){{4,}}\s*(?:\d{{1,5}}|{_ROMAN})$", re.IGNORECASE)
_FAMILY = re.compile(r"([^:]{0,24}#[^:]{0,24}:).*\S\s#")
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
                           "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})
"""Typographic ligatures as their letters: Chromium and pdfTeX set "ﬁrst" and "diﬀerent"
with one glyph each (449 words of a printed mdBook, 61 of a LaTeX paper), which no search for
"first" or "different" found."""


@dataclass(frozen=True)
class OutlineEntry:
    title: str
    level: int  # 1 = top
    page: int  # 1-based


def shape(line: str) -> str:
    """``line`` with digits as ``#``, lowercased, spaces collapsed: what running headers
    share from page to page."""
    return " ".join(re.sub(r"\d+", "#", line.lower()).split())


def family(line: str) -> str | None:
    """The shape up to the first colon, when that holds a number and the line ends in one
    ("chapter #:" for "Chapter 4: Function reference 21"), else None."""
    found = _FAMILY.fullmatch(shape(line))
    return found.group(1) if found else None


def _keys(line: str) -> set[str]:
    """What an edge line is counted (and looked up) by: its shape, and its family if any."""
    return {shape(line), *filter(None, [family(line)])}


def compact(text: str) -> str:
    """Letters and digits only, lowercased: outline titles and their lines differ in
    punctuation ("Nonregular files" / "Non-regular files")."""
    return re.sub(r"[\W_]+", "", text.lower())


PAGE_NUMBER_CHARS = 40
"""The longest line read as a page number ("Page 1234 of 5678", "- xlviii -"): the pattern,
tried on a long line of spaces and dashes, took cubic time with the GIL held (a security
review's 84-byte text file: 94 s; one PDF page of 1.4 KB: 12 s)."""


def is_page_number(line: str) -> bool:
    line = line.strip()
    return len(line) <= PAGE_NUMBER_CHARS and bool(_PAGE_NUMBER.fullmatch(line))


def _edges(lines: Sequence[str]) -> list[int]:
    """Indexes of the first and last :data:`EDGE_LINES` non-blank lines that are not code
    (a ``}`` closing an example at the foot of three pages is not a page footer)."""
    filled = [i for i, line in enumerate(lines) if line.strip() and not is_code(line)]
    return sorted(set(filled[:EDGE_LINES] + filled[-EDGE_LINES:]))


def furniture_shapes(pages: Sequence[Sequence[str]]) -> frozenset[str]:
    """Shapes at the page edges of at least :data:`MIN_REPEATS` pages, unless the body line
    beside them is one and the same on two pages or more and no other (pages with no body
    line, such as a part's title page, say nothing): that is a passage printed again, not a
    running header. A printed book repeats its "Migration" paragraph on three pages of
    style changes, and its lines were dropped from all three."""
    counts: Counter[str] = Counter()
    beside: dict[str, Counter[str]] = {}
    for lines in pages:
        found = {(key, neighbour) for i, neighbour in _edge_neighbours(lines)
                 for key in _keys(lines[i])}
        counts.update({key for key, _ in found})
        for key, neighbour in found:
            if neighbour:  # a page with no body line says nothing
                beside.setdefault(key, Counter())[neighbour] += 1
    return frozenset(s for s, n in counts.items() if n >= MIN_REPEATS and s
                     and not _printed_again(beside.get(s, Counter())))


def _printed_again(neighbours: Counter[str]) -> bool:
    return len(neighbours) == 1 and max(neighbours.values()) >= 2


def _edge_neighbours(lines: Sequence[str]) -> Iterator[tuple[int, str]]:
    """``(index, body line beside it)`` for each :func:`_edges` line of a page: the first
    body line after the top edge, the last one before the bottom edge ("" if none)."""
    filled = [i for i, line in enumerate(lines) if line.strip() and not is_code(line)]
    edges = _edges(lines)
    inner = [i for i in filled if i not in edges]
    for i in edges:
        side = inner[0] if inner and i < inner[0] else inner[-1] if inner else None
        yield i, shape(lines[side]) if side is not None else ""


def body_lines(lines: Sequence[str], furniture: frozenset[str],
               entries: Sequence[OutlineEntry] = ()) -> list[str]:
    """``lines`` without page furniture and table-of-contents lines (blank lines kept). A
    line that the page's outline ``entries`` name is a heading, never furniture: a printed
    book's "Summary" and "Migration" sections (34 and 10 of them) and its "Rust 2021"
    chapters sat at page edges often enough to be taken for running headers."""
    edges = set(_edges(lines))
    titles = {compact(entry.title) for entry in entries}
    return [line for i, line in enumerate(lines)
            if not (i in edges and (is_page_number(line) or _keys(line) & furniture)
                    and not heading_keys(line) & titles)
            and not is_toc_line(line)]


def is_toc_line(line: str) -> bool:
    """A title, dot leaders, a page number: "Concept Index . . . . . 32"."""
    text = line.rstrip()
    if len(text) > 400 or not re.search(r"(?:\d|\b[ivx]+)$", text, re.IGNORECASE):
        return False  # checked from the end: no backtracking over a long hostile line
    leaders = _LEADERS.search(text)
    return bool(leaders) and any(c.isalpha() for c in text[:leaders.start()])


def toc_title(line: str) -> str:
    """A contents entry's title: the line without its dot leaders and page number."""
    return _LEADERS.sub("", line).strip()


def outline(reader: Any) -> list[OutlineEntry]:
    """The outline's entries in order; a missing or damaged outline gives none."""
    out: list[OutlineEntry] = []

    def walk(items: Sequence[Any], level: int) -> None:
        for item in items:
            if len(out) >= MAX_OUTLINE:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            title = " ".join(str(getattr(item, "title", "") or "").translate(LIGATURES).split())
            page = reader.get_destination_page_number(item)
            if title and page is not None and page >= 0:
                out.append(OutlineEntry(title, min(level, 6), page + 1))

    try:
        walk(reader.outline, 1)
    except Exception:  # pypdf raises many types on a damaged outline; the text still loads
        return out
    return out


def toc_outline(pages: Sequence[Sequence[str]],
                bodies: Sequence[Sequence[str]]) -> list[OutlineEntry]:
    """An outline read from the printed table of contents in ``pages`` (raw lines), its
    entries found in ``bodies`` (the pages' body lines); see the module docstring."""
    titles, last = _toc_titles(pages)
    if not titles:
        return []
    where: dict[str, list[tuple[int, int]]] = {}  # heading key -> (page, line), in order
    for p in range(last + 1, len(bodies)):
        for j, line in enumerate(bodies[p]):
            for key in heading_keys(line):
                where.setdefault(key, []).append((p, j))
    out: list[OutlineEntry] = []
    cursor = (last + 1, 0)
    for title, level in titles:
        spots = where.get(compact(title), [])
        k = bisect.bisect_left(spots, cursor)
        if k < len(spots) and spots[k][0] < cursor[0] + SEARCH_PAGES:
            cursor = (spots[k][0], spots[k][1] + 1)
            out.append(OutlineEntry(title, level, spots[k][0] + 1))
    return out


def _toc_titles(pages: Sequence[Sequence[str]]) -> tuple[list[tuple[str, int]], int]:
    """(title, level) of each entry of the first run of table-of-contents pages, and the
    index of its last page (-1: none)."""
    titles: list[tuple[str, int]] = []
    last = -1
    for i, lines in enumerate(pages[:TOC_PAGES]):
        entries = [line.strip() for line in lines if is_toc_line(line)]
        if len(entries) < MIN_TOC_LINES:
            if titles:
                break
            continue
        for entry in entries:
            title = toc_title(entry)
            number = _SECTION_NUMBER.match(title)
            titles.append((title, min(number.group(1).count(".") + 1, 6) if number else 1))
        last = i
    del titles[MAX_TOC:]
    return titles, last


def by_page(entries: Sequence[OutlineEntry]) -> dict[int, list[OutlineEntry]]:
    pages: dict[int, list[OutlineEntry]] = {}
    for entry in entries:
        pages.setdefault(entry.page, []).append(entry)
    return pages


def heading_keys(line: str) -> set[str]:
    """The titles ``line`` can be the heading line of, compacted: the whole line, and the
    line after its section number ("4.2 Naming" -> "naming"; "Appendix A Copying" ->
    "copying" and "acopying")."""
    text = line.strip()
    keys = {compact(text)}
    number = _SECTION_NUMBER.match(text)
    if number and text[number.end():]:
        keys |= {compact(text[number.end():]), compact(text.split(None, 1)[-1])}
    return keys - {""}


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """The lowercased words of a document, with every run of two or more parts of its
    hyphenated compounds ("show-leak-kinds": "show-leak", "leak-kinds" and itself) and its
    options ("--quiet"), for :func:`dehyphenate` to ask which spelling the document uses
    elsewhere."""
    out: set[str] = set()
    for text in texts:
        out.update(w.lower() for w in OPTION_WORD.findall(text))
        for word in WORD.findall(text):
            parts = word.lower().split("-")[:8]
            out.add(word.lower())
            out.update("-".join(parts[i:j]) for i in range(len(parts))
                       for j in range(i + 2, len(parts) + 1))
    return frozenset(out)


def dehyphenate(text: str, words: frozenset[str] = frozenset()) -> str:
    """``text`` with words broken across lines joined again (see the module docstring); the
    rest of the second line stays on its own line. A hyphen at a line end stays when the
    document spells the compound with it elsewhere (``words``: :func:`vocabulary`) and never
    without, or, when it says neither, when the word is an option (``--gen-``/
    ``suppressions``): a typesetter that breaks only at hyphens (Apache FOP) turned 40 of the
    Valgrind manual's options into ``--gensuppressions``, which answers then quoted."""
    def then_break(match: re.Match[str]) -> str:
        """The line break the joined word leaves before the rest of the second line."""
        return "\n" if match.end() < len(text) and text[match.end()] != "\n" else ""

    def join(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        if head.endswith("-"):
            if not tail[0].islower():
                return match.group(0)
            option = text[match.start() - 1:match.start()] == "-"  # not text[:start]: a
            if not _keeps_hyphen(head[:-1], tail, words, option):  # copy per broken word
                head = head[:-1]  # (a review's 200,000 of them: quadratic)
        return head + tail + then_break(match)

    def option(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2) or ""
        if not (value or "-" in name or f"--{name.lower()}" in words):
            return match.group(0)  # prose: "-- in"
        return f"--{name}{value}{match.group(3)}" + then_break(match)

    text = _OPTION_BREAK.sub(option, text)
    return _BROKEN_WORD.sub(join, text)


def _keeps_hyphen(head: str, tail: str, words: frozenset[str], option: bool) -> bool:
    first = re.match(r"[A-Za-z0-9]+", tail)
    part = first.group(0) if first else tail
    with_hyphen = f"{head}-{part}".lower() in words
    without = f"{head}{part}".lower() in words
    if with_hyphen != without:
        return with_hyphen
    return option
