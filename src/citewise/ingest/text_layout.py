"""How a plain-text paragraph is laid out: indented code, diagrams and tables, whose layout
is their meaning, and lists written a line an item (:func:`line_items`).

A plain-text manual sets its examples apart by indentation alone: XZ Utils'
``xz-file-format.txt`` indents its C functions deeper than its prose, draws its headers as
boxes (``+---+---+``) and aligns its tables in columns. Read as prose, each line lost its
indentation, a box was quoted as a sentence ("+---+---+ | Header Magic Bytes | Stream Flags
|…") and a table ran into one line. Such a paragraph is kept verbatim, as code, when it is
indented deeper than the prose before it, has two lines or more, and reads as layout: half
its lines or more, two at least, carry a mark of code or layout (:func:`_marked`), or two
do and its lines after the first step in and out (code's nesting; not a list's items and
their hanging indents; with one mark, libjpeg's paragraph before an option list was code).
An entry of release notes ("- Fixed the return value of lzma_microlzma_encoder() if the" /
"  LZMA options …") has no mark and stays prose.
"""

from __future__ import annotations

import re

MIN_LINES = 2
STEP = 2  # deeper than the prose before it by at least this many columns
MIN_MARKS = 2
_CODE_END = re.compile(r";$|\s\{$|^[{}]")
_CODE_START = re.compile(r"#\s*(?:include|define|if|endif)\b|//|/\*|\*/|\$ \S|>>> ")
_BOX = re.compile(r"[+|][-=+| ]*[+|]|\+[-=]{3,}.*")
_COLUMNS = re.compile(r"[^\s.!?:,;](?: {3,}|\t)\S|[^\s.!?:,;] {2}\S.*[^\s.!?:,;] {2}\S")
_ITEM = re.compile(r"(?:[-*•]|\[\d+\]|\d{1,3}[.)])\s")


def indent_of(para: str) -> int:
    """The least indentation of ``para``'s non-blank lines (tabs as 8 columns)."""
    lines = [line.expandtabs(8) for line in para.split("\n") if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in lines), default=0)


def is_layout(para: str, prose_indent: int) -> bool:
    """Whether ``para`` is code, a diagram or a table to keep verbatim (module docstring);
    ``prose_indent``: the indentation of the prose paragraph before it."""
    lines = [line.expandtabs(8).rstrip() for line in para.split("\n") if line.strip()]
    if len(lines) < MIN_LINES or indent_of(para) < prose_indent + STEP:
        return False
    stripped = [line.strip() for line in lines]
    marks = sum(1 for line in stripped if _marked(line))
    listed = any(_ITEM.match(line) for line in stripped)
    nested = not listed and len({len(ln) - len(ln.lstrip()) for ln in lines[1:]}) > 1
    return marks >= MIN_MARKS and (marks * 2 >= len(lines) or nested)


def _marked(line: str) -> bool:
    """A line of code (``return i;``, ``{``, ``#include``, ``$ make``), of a box diagram
    (``+-------+``, ``| CRC32 |``) or of a table (columns three spaces or a tab apart, or
    twice two spaces, not after a sentence's end); not a list item ending on ";" ("* the
    exact version of GCC;")."""
    code_end = _CODE_END.search(line) is not None and _ITEM.match(line) is None
    return bool(code_end or _CODE_START.match(line) or _BOX.fullmatch(line)
                or _COLUMNS.search(line))


MIN_LINE_ITEMS = 4
OPEN_WORDS = "and|or|the|a|an|of|to|in|for|with|by"
"""Words a line that goes on below ends with ("… the", "… and"): a list item's line, a
numbered step (:mod:`citewise.ingest.text`)."""
_ENDS_OPEN = re.compile(rf"(?:[,(\-/&]|\b(?:{OPEN_WORDS}))$")


def line_items(para: str, columns: bool = False) -> list[str]:
    """``para`` as its blocks: one per line when it is a list written a line an item
    (:data:`MIN_LINE_ITEMS` or more lines, all at one indentation, all but one in five
    opening with a capital, a digit or an option's dash and not ending mid-phrase, three in
    five of an item's shape, :data:`_ITEM_SHAPE`, and none ending a sentence inside), else
    itself. perf's
    tips.txt is sixty tips a line each and no blank line: one block, whose sentences ran
    together, so an answer quoted 1,000 characters of tips and cut one ("perf record -F").
    ``columns``: a line of two columns is an item whatever its first letter (:data:`_COLUMN`;
    Vim's help, where the paragraphs of other text files that would split so are logs and
    shell sessions)."""
    lines = [line for line in para.split("\n") if line.strip()]
    lead = lines[:1] if lines and lines[0].rstrip().endswith(":") else []
    items = _continued(lines[len(lead):]) if columns else lines[len(lead):]
    indents = {len(line) - len(line.lstrip()) for line in items}
    if len(items) < MIN_LINE_ITEMS or len(indents) != 1 or \
            sum("|" in line for line in items) * 2 >= len(items):  # a table's rows stay one
        return [para]
    odd = sum(1 for line in items if not (_opens_item(line.lstrip())
                                          or columns and _COLUMN.search(line))
              or _ENDS_OPEN.search(line.rstrip()))  # "…: perf stat -x," is an item too
    listed = sum(1 for line in items
                 if _ITEM_SHAPE.search(line) or columns and _COLUMN.search(line))
    if odd * 5 > len(items) or listed * 5 < len(items) * 3 or \
            any(_INNER_END.search(line) for line in items):  # wrapped prose, not a list
        return [para]
    return [*lead, *items]


def _continued(lines: list[str]) -> list[str]:
    """``lines`` with each line indented deeper than the least, in no columns, joined to the
    item above it: a description wrapped under its column ("filter()\t\tremove … when
    {expr}" / "\t\t\t\tevaluates to true")."""
    least = indent_of("\n".join(lines))
    out: list[str] = []
    for line in lines:
        if out and indent_of(line) > least and not _COLUMN.search(line):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


_COLUMN = re.compile(r"\S(?:\t+| {2,})\S")
"""Two columns: a term, tabs or two spaces or more, what it is (Vim's "get()\t\t\tget an item
without error for wrong index", its function lists' items, each opening lower-case: read as
one run-on paragraph, an answer about reversing lines quoted a list of 40 functions)."""
_ITEM_SHAPE = re.compile(r"^\s*(?:\d|-)|\S: \S|\S(?:\t| {2,})\S")
"""An item's shape: a number or an option first ("136059 Ctrl-navigation …", "-c  compact"),
a label and its value ("To change sampling frequency to 100 Hz: perf record -F 100"), or
columns. A review's wrapped prose, its lines by chance each opening with a capital ("Run the
installer and wait until / Windows restarts. Then open / …"), has none of them."""
_INNER_END = re.compile(r"[.!?]\s+[A-Z]")


def _opens_item(line: str) -> bool:
    return line[:1].isupper() or line[:1].isdigit() or line[:1] == "-"
