"""Plain-text loader (``.txt``, ``.text``): paragraphs split on blank lines.

Lines inside a paragraph are kept (spaces collapsed within each line). A paragraph of one
line underlined (and optionally overlined) with ``=``, ``-``, ``~``, … is a heading, as in
reStructuredText and setext Markdown, and so is one line under a long rule alone (Vim's help
files), and so are release notes' outline and release lines (:mod:`text_headings`: "***
Changes in GDB 13", "Version 0.21 - July 2020"); levels follow the order the styles first
appear, and a Vim help heading's ``*tags*`` are not part of its title. A Vim help example (a
line ending in ``>`` or only ``>``, then indented lines) is code, and so is a paragraph
indented deeper than the prose before it that reads as code, a diagram or a table
(:mod:`text_layout`). The title is a heading that
opens the file in a style used once, else the file's name (``name_title``: "gdb NEWS").
Plain text has no deep links, so anchors are None, except a Vim help file's section tags
(:mod:`vim_help`).

A formatter's output for a terminal (groff's, man-db's manual) is read as the page it prints:
its bold and underline dropped, numbered section headings, a running header kept once, page
numbers and a printed table of contents left out, and words it broke with a hyphen at a line
end joined again.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from citewise.ingest import vim_help
from citewise.ingest.builder import DEFAULT_MAX_BLOCKS, DocumentBuilder, pick_title
from citewise.ingest.content import decode_text
from citewise.ingest.doc_names import name_title
from citewise.ingest.normalize import clean_lines, collapse, verbatim, without_terminal
from citewise.ingest.pdf_layout import (
    OPTION_WORD,
    WORD,
    dehyphenate,
    heading_keys,
    is_page_number,
    is_toc_line,
    toc_title,
)
from citewise.ingest.text_headings import heads_apart, is_rule, marked_headings
from citewise.ingest.text_layout import OPEN_WORDS, indent_of, is_layout, line_items
from citewise.ingest.text_titles import above, file_title, shape
from citewise.types import ParsedDocument

MIN_OVERLINE = 20  # a rule this long above one line, with no rule below, makes it a heading
MAX_TITLE = 100


class TextLoader:
    """Loads plain text (decoded by :func:`decode_text`); see the module docstring."""

    format = "text"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS) -> None:
        self.max_blocks = max_blocks

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """Split text into paragraph (and underlined heading) blocks."""
        raw = decode_text(data, "plain")
        text = without_terminal(raw)  # "ESC[1m1.  Introduction"
        words = _spellings(text) if _typeset(raw) else None
        builder = DocumentBuilder(self.max_blocks)
        styles: list[tuple[str, str]] = []
        example = False  # inside a Vim help example: indented paragraphs after a ">"
        prose_indent = 0  # of the last prose paragraph: deeper layout is code (text_layout)
        vim = vim_help.is_vim_help(text)
        text = vim_help.prepared(text) if vim else text
        read = _PARAGRAPHS.split(text)  # Vim's help underlines no heading over its text
        split = vim_help.heads_apart(read) if vim else underlines_apart(read)
        opens_split = len(split) > len(read) and split[0] != read[0]
        paragraphs = heads_apart(split)
        running = _running_lines(paragraphs)
        numbered = _numbering(paragraphs)
        furniture = _furniture(paragraphs, running)
        vim_title, front = vim_help.front_matter(paragraphs) if vim else (None, set())
        furniture |= front
        found = _headings(paragraphs, furniture, numbered)
        title = vim_title or (None if opens_split else file_title(found))  # a section over its
        # text is no title (the review of this stop: chromium's README.Debian was titled by
        # its first section, "Command-line Flags")
        for index, para in enumerate(paragraphs):
            if not para.strip() or index in furniture:
                continue
            section = numbered(para)
            if section is not None:
                example = False
                if vim:  # "4.2 Substitute *:substitute*": its tag is its anchor
                    builder.heading(vim_help.tagless(section[0]), section[1],
                                    anchor=vim_help.heading_tag(para))
                else:
                    builder.heading(*section)
                continue
            heading = found.get(index)
            if heading is None:
                here = builder.section_anchor  # a Vim help section's tag, else None
                if vim:
                    example, prose_indent = _vim_blocks(builder, para, example, prose_indent)
                    continue
                if example and para[:1] in " \t":
                    builder.add("code", vim_help.example(para), anchor=here)
                    continue
                if words is None and is_layout(para, prose_indent):  # code, a box, a table
                    builder.add("code", verbatim(textwrap.dedent(para.expandtabs(8))),
                                anchor=here)
                    continue
                lead, code = vim_help.split_example(para)
                lead = vim_help.prose(lead) if vim else lead
                for item in line_items(lead, columns=vim) if lead.strip() else ():
                    builder.add("text", _prose(item, words), anchor=here)
                prose_indent = indent_of(lead) if lead.strip() else prose_indent
                example = code is not None
                if code and code.strip():
                    builder.add("code", vim_help.example(code), anchor=here)
                continue
            example = False
            style = TITLE if index == 0 and above(found) else heading[1]
            if style not in styles:
                styles.append(style)
            builder.heading(heading[0], min(styles.index(style) + 1, 6),
                            anchor=vim_help.heading_tag(para) if vim else None)
        title = pick_title(title, fallback=name_title(path))
        return builder.build(title=title, fmt=self.format,
                             empty_hint="the file is empty or only whitespace")


TITLE = ("", "title")  # the style of a heading that titles the file: its level alone


def _vim_blocks(builder: DocumentBuilder, para: str, example: bool,
                prose_indent: int) -> tuple[bool, int]:
    """Add a Vim help paragraph's labels, text and examples (:func:`vim_help.pieces`);
    ``(whether an example is still open, the prose indentation)`` after it."""
    if not example and vim_help.opens_at_margin(para):
        builder.end_label()  # the section's text again, after an entry
    parts, example = vim_help.pieces(para, example)
    for kind, text, anchor in parts:
        here = builder.section_anchor
        if kind == "label":
            builder.label(text, anchor=anchor)  # "'tabstop' 'ts'"
        elif kind == "code" or is_layout(text, prose_indent):  # an example, a table
            builder.add("code", text if kind == "code" else
                        verbatim(textwrap.dedent(text.expandtabs(8))), anchor=here)
        else:
            lead = vim_help.prose(text)
            for item in line_items(lead, columns=True) if lead.strip() else ():
                builder.add("text", _prose(item, None), anchor=here)
            prose_indent = indent_of(lead) if lead.strip() else prose_indent
    return example, prose_indent


def _headings(paragraphs: list[str], furniture: set[int],
              numbered: Callable[[str], tuple[str, int] | None]) \
        -> dict[int, tuple[str, tuple[str, str]]]:
    """``{paragraph index: (title, style)}`` of the underlined, outline and release headings
    (numbered section headings are read apart, furniture is not read)."""
    marked = marked_headings(paragraphs, furniture)
    found = {}
    for index, para in enumerate(paragraphs):
        if index in furniture or numbered(para) is not None:
            continue
        if (heading := marked.get(index) or _underlined_heading(para)) is not None:
            found[index] = heading
    underlined = {shape(t): style for i, (t, style) in found.items() if i not in marked}
    for index in marked:  # GTK's NEWS underlines its newer releases, not its older ones:
        title, style = found[index]  # one style, not older releases inside a newer one
        found[index] = (title, underlined.get(shape(title), style))
    return found


def _furniture(paragraphs: list[str], running: dict[str, int]) -> set[int]:
    """The paragraphs of a printed page's furniture, not read: a running header after its
    first showing, a page number, a printed table of contents (:func:`_printed_contents`).
    A roman page number ("i", "vi") only next to other furniture or at the end: a paragraph
    "vi" in an editor's manual is its name (a review)."""
    contents = _printed_contents(paragraphs, bool(running))
    header = {i for i, p in enumerate(paragraphs) if p.strip() in running}
    filled = [i for i, p in enumerate(paragraphs) if p.strip()]
    out = set(contents) | {i for i in header if running[paragraphs[i].strip()] < i}
    for k, i in enumerate(filled):
        line = paragraphs[i].strip()
        if not running or not is_page_number(line):
            continue
        near = {filled[k - 1] if k else -1, filled[k + 1] if k + 1 < len(filled) else -1}
        if line.isdigit() and len(line) <= 4 or near & (contents | header) or k + 1 == len(filled):
            out.add(i)
    return out


def _printed_contents(paragraphs: list[str], paged: bool) -> set[int]:
    """The paragraphs of a printed table of contents: ones most of whose lines are titles
    with dot leaders and page numbers that never go down ("6.2  Contents of an index
    database ....  19"), most of them titles of the text's own headings, in a paged text
    (``paged``: it has running headers) or under a "Contents" line, and that line. man-db's
    manual ends with four pages of them, which searches for a section's title found before
    the section; a list of settings ("Timeout ....  30") or exit statuses with leaders stays."""
    titles = _heading_titles(paragraphs)
    out = set()
    for i, para in enumerate(paragraphs):
        above = _lines(paragraphs[i - 1]) if i else []
        under = len(above) == 1 and bool(_CONTENTS.fullmatch(above[0]))
        if (paged or under) and _listed(_lines(para), titles):
            out.add(i)
            if under:
                out.add(i - 1)
    return out


def _heading_titles(paragraphs: list[str]) -> set[str]:
    """The compacted titles of the text's numbered and underlined headings, with and without
    their numbers (:func:`~citewise.ingest.pdf_layout.heading_keys`)."""
    out: set[str] = set()
    for para in paragraphs:
        heading = _numbered_heading(para) or _underlined_heading(para)
        if heading is not None:
            out |= heading_keys(heading[0])
    return out


def _lines(para: str) -> list[str]:
    return [line.strip() for line in para.split("\n") if line.strip()]


def _listed(lines: list[str], titles: set[str]) -> bool:
    """Two or more lines, most of them contents entries whose page numbers never go down,
    half of them or more titles of ``titles``."""
    entries = [line for line in lines if is_toc_line(line)]
    pages = [int(m.group(1)) for line in entries if (m := _PAGE.search(line))]
    named = sum(1 for line in entries if heading_keys(toc_title(line)) & titles)
    return len(entries) >= 2 and 2 * len(entries) >= len(lines) and pages == sorted(pages) \
        and 2 * named >= len(entries)


_CONTENTS = re.compile(r"(?:table\s+of\s+)?contents", re.IGNORECASE)
_PAGE = re.compile(r"(\d{1,5})$")


def _typeset(raw: str) -> bool:
    """Whether ``raw`` is a formatter's output for a terminal (groff's bold and underline, as
    escape sequences or overstrikes): its justified lines break words with a hyphen."""
    return "\x1b[" in raw or "\x08" in raw


def _prose(para: str, words: frozenset[str] | None) -> str:
    """A text paragraph's lines; in typeset text (``words``: :func:`_spellings`) the
    words a formatter broke at a line end joined again ("the loca-" / "tion" of man-db's
    manual, which a search for "location" missed; "man-" / "db" keeps its hyphen, as the
    document spells it: :func:`~citewise.ingest.pdf_layout.dehyphenate`)."""
    lines = clean_lines(para)
    return lines if words is None else dehyphenate(lines, words)


def _spellings(text: str) -> frozenset[str]:
    """How the typeset ``text`` spells each word it breaks with a hyphen at a line end, for
    :func:`~citewise.ingest.pdf_layout.dehyphenate`: with the hyphen or without, as the rest
    of the text spells it more often ("man-db" 46 times against "mandb" 8); spelled neither
    way, with the hyphen when both parts are words of the text ("package-" / "specific"),
    else joined ("loca-" / "tion"; and "cross-" / "compiling", as man-db's manual has no
    "cross" alone: without a dictionary, one of its 106 breaks is read wrong). Plus its
    ``--options``."""
    rest = _BREAK.sub(" ", text)
    counts = Counter(w.lower() for w in WORD.findall(rest))
    parts = {w.lower() for w in _PART.findall(rest)}
    out = {w.lower() for w in OPTION_WORD.findall(rest)}
    for match in _BREAK.finditer(text):
        head, tail = match.group(1).lower(), match.group(2).lower()
        hyphened, joined = counts[f"{head}-{tail}"], counts[head + tail]
        keep = hyphened > joined if hyphened != joined else head in parts and tail in parts
        out.add(f"{head}-{tail}" if keep else head + tail)
    return frozenset(out)


_BREAK = re.compile(r"\b([A-Za-z][a-z]+)-[ \t]*\n[ \t]*([A-Za-z0-9]+)")
_PART = re.compile(r"[A-Za-z0-9]+")


def _underlined_heading(para: str) -> tuple[str, tuple[str, str]] | None:
    """``(title, (rule char, placement))`` for a heading paragraph, else None: a line
    underlined, over- and underlined, or only overlined by a long rule (Vim's help files and
    many READMEs separate sections so: "=====" above "*05.1* The vimrc file")."""
    raw = para.strip("\n").expandtabs(8).split("\n")
    lines = [line.strip() for line in raw]
    if len(lines) == 2 and len(lines[0]) >= MIN_OVERLINE and is_rule(lines[0]) \
            and lines[0][0] != "_" and not is_rule(lines[1]) and len(lines[1]) <= MAX_TITLE:
        # "____" above a line is a footnote's rule (groff: "5 writing portable software …")
        title = vim_help.tagless(collapse(lines[1]))
        return (title, (lines[0][0], "over")) if title else None
    overlined = len(lines) == 3 and is_rule(lines[0]) and lines[0] == lines[2]
    if overlined:
        lines = lines[1:]
    if len(lines) != 2 or not is_rule(lines[1]) or is_rule(lines[0]):
        return None
    title = collapse(lines[0])
    if not title or len(lines[1]) < min(len(title), 3):
        return None
    if not overlined and len(lines[1]) < len(title) and _indent(raw[-2]) != _indent(raw[-1]):
        return None  # "^^^^" under a word of an example line points at it (gdb's NEWS)
    return title, (lines[1][0], "over-under" if overlined else "under")


def underlines_apart(paragraphs: list[str]) -> list[str]:
    """``paragraphs`` with an underlined heading over its text, no blank line between, as
    two: pyparsing's ``CHANGES`` writes "Version 3.1.4 - August, 2024" over dashes over its
    "- Fix …" entries, and 98 of its 101 releases were no heading (every passage from 1.5.2
    back to 1.0 cited as 1.5.3). Only a line underlined as long as itself, with a heading's
    rule (not "```" under "… in `%post`:") at its margin (not "  for i" over a diff's
    "****"), over text, not a rule; not a table's header over its rule (columns apart by two
    spaces or more)."""
    split: list[str] = []
    for para in paragraphs:
        lines = para.split("\n")
        head, title, rule = "\n".join(lines[:2]), lines[0].strip(), lines[1:2] and lines[1].strip()
        if len(lines) > 2 and lines[2].strip() and not is_rule(lines[2].strip()) \
                and rule and is_rule(rule) and rule[0] in "=-~^*#+" \
                and len(rule) >= len(title) - 1 and _TABLE_HEAD.search(title) is None \
                and _indent(lines[0]) == _indent(lines[1]) \
                and _underlined_heading(head) is not None:
            split.extend((head, "\n".join(lines[2:])))
        else:
            split.append(para)
    return split


_TABLE_HEAD = re.compile(r"\S {2,}\S|\t")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_PARAGRAPHS = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)*")  # a paragraph keeps its indent
_SECTION = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,4})\.?[ \t\u00a0]{1,4}"
                      r"([^\W\d_][^\n]{0,78}[^.:;,\n])")
"""A numbered section heading alone on its line ("1.  Introduction", "3.5.1.  ISO 8859-1
(latin1) manual pages"), as groff's ``-ms`` and many text manuals write them; the Debian
Reference's text edition sets a no-break space after the number."""
_COLUMNS = re.compile(r"\S[ \t]{3,}\S")


def _numbering(paragraphs: list[str]) -> Callable[[str], tuple[str, int] | None]:
    """How the text's one-line numbered paragraphs read: as section headings
    (:func:`_numbered_heading`) when two or more carry a sub-level ("1.1.  man-db"), else
    never (a numbered list, "1.  Install it", alone does not make its items headings)."""
    deep = sum(1 for p in paragraphs if (h := _numbered_heading(p)) is not None and h[1] > 1)
    return _numbered_heading if deep >= 2 else lambda para: None


def _numbered_heading(para: str) -> tuple[str, int] | None:
    """``(title, level)`` for a one-line numbered section heading, else None."""
    line = para.strip()
    match = _SECTION.fullmatch(line) if "\n" not in line else None
    if match is None:
        return None
    number, title = match.groups()
    if _GOES_ON.search(title):  # a step that goes on below: util-linux's howto-pull-request
        return None  # "6. Push a backup of your branch 'textual' to 'yourgit', then"
    return f"{number} {collapse(title)}", min(number.count(".") + 1, 6)


_GOES_ON = re.compile(rf"\S\s+(?:then|{OPEN_WORDS})$", re.IGNORECASE)


def _running_lines(paragraphs: list[str]) -> dict[str, int]:
    """One-line paragraphs set in columns that repeat three times or more, each with the
    index of its first showing: a paginated manual's running header and footer ("man-db
    v2.11.2    2023-01-08" on every page of man-db's manual, indexed as text between its
    sections)."""
    seen: dict[str, list[int]] = {}
    for index, para in enumerate(paragraphs):
        line = para.strip()
        if line and "\n" not in line and _COLUMNS.search(line):
            seen.setdefault(line, []).append(index)
    return {line: at[0] for line, at in seen.items() if len(at) >= 3}
