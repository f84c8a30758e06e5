"""GNU Info loader (``.info``, and the ``.info-N`` parts of a split manual): the manuals of
GNU tools (grep, sed, coreutils, wget, …) as ``makeinfo`` writes them; Debian ships them
gzip-compressed in ``/usr/share/info``.

An Info file is a preamble, then nodes, each after a ``\\x1f`` line and a header
(``File: grep.info,  Node: Usage,  Next: Performance,  Up: Top``). Kept: each node's text,
split on blank lines; a line underlined with ``*``, ``=``, ``-`` or ``.`` is a heading of
level 1, 2, 3 or 4 (chapter, section, subsection, subsubsection), except that a heading
after a node's own one is always below it (``@heading Examples`` inside a section is
underlined like a chapter, and took the rest of GnuPG's chapter 9). Five spaces mark both
``@example`` code and the body of a ``@table`` item, so a paragraph is code only when it is
indented five more than the prose around it and a line reads like code (:func:`_is_example`);
other indented paragraphs stay text. Not indexed, being navigation rather than content:
the preamble (file name, copyright, directory entry), the node headers, each node's menu
(from ``* Menu:`` to its end: ``makeinfo`` puts menus last), the line above its footnotes,
the tag tables, and the ``\0\b[index\0\b]`` markers Info readers use.
Cross-references read as text ("see Startup File", :func:`cross_references`). The index file
of a split manual (``find.info``: its nodes are in ``find.info-1``, ``-2``) is read with its
parts from its folder (:mod:`~citewise.ingest.info_parts`); given alone (an upload), it has
no node text and is refused with a one-line error. Each block is
anchored at its node's name, slugged ("Regular Expressions" -> ``regular-expressions``). The
title is the Top node's ("GNU Findutils"), else the manual's file name ("gnupg" for the part
``gnupg.info-2``).
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from pathlib import Path

from citewise.errors import IngestError
from citewise.ingest.builder import DEFAULT_MAX_BLOCKS, DocumentBuilder, pick_title
from citewise.ingest.content import decode_text
from citewise.ingest.info_parts import indirect_parts
from citewise.ingest.normalize import clean_lines, collapse, paragraphs
from citewise.ingest.slug import slugify
from citewise.text import CODE_LINE
from citewise.types import ParsedDocument

NODE_SEPARATOR = "\x1f"
HEADING_LEVELS = {"*": 1, "=": 2, "-": 3, ".": 4}
_HEADER = re.compile(r"File: [^,\n]*,\s+Node: ([^,\n]+)")
_COOKIE = re.compile(rb"\x00\x08\[[^\x00\n]{0,2000}\x00\x08\]")  # "[index]", "[image …]"
_DIR_ENTRY = re.compile(
    r"^INFO-DIR-SECTION[^\n]*$|^START-INFO-DIR-ENTRY.*?^END-INFO-DIR-ENTRY$",
    re.MULTILINE | re.DOTALL)
_TOP_TITLE = re.compile(r"\x1f\nFile: [^,\n]*,\s+Node: Top,[^\n]*\n\n([^\n]+)\n\*{3,}\n")
_NOT_NODES = ("Tag Table:", "Indirect:", "End Tag Table", "Local Variables:")
EXAMPLE_INDENT = 5
FOOTNOTES = "---------- Footnotes ----------"
"""The line ``makeinfo`` puts above a node's footnotes: not indexed (a new user's search
showed it as a passage's text); the footnotes, "(1) …", are."""


def node_paragraphs(body: str) -> list[str]:
    """``body``'s paragraphs, apart at blank lines; not at lines of five spaces alone (ten,
    fifteen: :func:`_example_blank`), the blank lines inside an ``@example`` (nettle's SHA1
    program was split there: its ``#define`` line, read as prose, set the prose indent to
    five, and the rest of the program was prose, flush left). One pass over the lines (no
    pattern that could try every split of a run of blank lines)."""
    out: list[str] = []
    current: list[str] = []
    gap: list[str] = []
    for line in body.split("\n"):
        if not line.strip():
            gap.append(line)
            continue
        if gap and current and not all(_example_blank(g) for g in gap):
            out.append("\n".join(current))
            current = []
        elif current:
            current.extend(gap)
        gap = []
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def _example_blank(line: str) -> bool:
    """A blank line as ``makeinfo`` writes one inside an ``@example``: its indentation, five
    spaces a level; not the 37 spaces between the rows of coreutils' ``join`` table."""
    width = len(line.expandtabs(8))
    return width in (EXAMPLE_INDENT, 2 * EXAMPLE_INDENT, 3 * EXAMPLE_INDENT)
_TERM = re.compile(r"['‘`][^\n]{1,200}['’][^\n]{0,80}")
"""A line of a ``@table`` item's terms: unindented quoted lines ('--enable-ssh-support'),
whose description follows indented. Kept with the description's first paragraph: the option
ended one chunk and what it does began the next, and an answer never named it. Matched line
by line: one pattern over all the lines tried every split of every line at its quotes, and a
security review's 668-byte paragraph of quotes held a server for hours."""


class InfoLoader:
    """Loads GNU Info files; see the module docstring."""

    format = "info"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS) -> None:
        self.max_blocks = max_blocks

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """The nodes of an Info file as heading, text and code blocks."""
        text = decode_text(_COOKIE.sub(b"", data), "Info")
        builder = DocumentBuilder(self.max_blocks)
        nodes = text.split(NODE_SEPARATOR)
        for node in nodes[1:] if len(nodes) > 1 else nodes:
            _add_node(builder, node.strip("\n"))
        if not builder.has_blocks() and (parts := indirect_parts(data)):
            raise IngestError(
                f"it is the index of a split Info manual, its text in {', '.join(parts[:3])}"
                f"{', …' if len(parts) > 3 else ''}, which were not read with it. Fix: "
                "ingest it from its folder with `citewise ingest`, or upload the parts")
        if not builder.has_blocks():  # no nodes: the preamble is what it holds
            for para in paragraphs(_DIR_ENTRY.sub("", nodes[0])):
                builder.add("text", clean_lines(para))
        top = _TOP_TITLE.search(text)  # the Top node's title names the manual
        title = pick_title(top and collapse(top.group(1)), fallback=path.name.split(".")[0])
        return builder.build(title=title, fmt=self.format,
                             empty_hint="an Info file holds its text in nodes after \\x1f "
                                        "lines; this one has none with text")


def _add_node(builder: DocumentBuilder, node: str) -> None:
    if not node or node.startswith(_NOT_NODES):
        return
    first, _, body = node.partition("\n")
    header = _HEADER.match(first)
    if header is None:
        body = node  # not a node: a file without separators is read as one
    anchor = slugify(header.group(1)) if header else None
    body = re.split(r"^\* Menu:", body, maxsplit=1, flags=re.MULTILINE)[0]
    own: int | None = None  # the level of the node's own heading, its first paragraph
    paras = _with_terms_joined([item for para in node_paragraphs(body)
                                for item in _items_apart(para)])
    base = 0  # the indentation of the prose around: 0, or 5 in a table item's description
    example: list[str] = []  # an example's paragraphs, apart at its blank lines
    led = False  # the last text ends on a colon: what follows is what it leads into
    for index, para in enumerate(paras):
        if para.strip() == FOOTNOTES:  # ends the example before it (a review)
            _add_example(builder, example, anchor)
            continue
        heading = _heading(para)
        lead, code = _lead_in(para) if heading is None else ("", "")
        if lead and not _is_example(para, base) and _is_example(code, base):
            _add_example(builder, example, anchor)
            builder.add("text", clean_lines(cross_references(lead)), anchor=anchor)
            para = code
        if heading is None and _in_example(para, base, example, led):
            example.append(para)
            continue
        _add_example(builder, example, anchor)
        led = heading is None and para.rstrip().endswith(":")
        if heading is None:
            builder.add("text", clean_lines(cross_references(para)), anchor=anchor)
            base = _prose_indent(para)
            continue
        title, level = heading
        if index == 0:
            own = level
        elif level <= (own or 1):  # a heading inside the node (makeinfo's @heading "Examples"
            level = min((own or 1) + 1, 6)  # underlined like a chapter) stays in its section
        builder.heading(title, level, anchor=anchor)
    _add_example(builder, example, anchor)


def _in_example(para: str, base: int, example: list[str], led: bool) -> bool:
    """Whether ``para`` is an example (:func:`_is_example`) or goes on the one before it:
    comment lines at its indentation (wget's Sample Wgetrc, "### Sample Wget initialization
    file .wgetrc", was 29 paragraphs of prose); or short lines indented under a sentence
    leading into them, ``led`` (wget's "Say you want to download a URL. Just type:" over
    ``wget http://fly.srk.fer.hr/``, which was prose flush left)."""
    if _is_example(para, base):
        return True
    lines = [ln for ln in para.split("\n") if ln.strip()]
    indent = min(map(_indent, lines))
    if example and all(ln.lstrip().startswith("#") for ln in lines) and indent == min(
            _indent(ln) for ln in example[-1].split("\n") if ln.strip()):
        return True
    return led and indent >= base + EXAMPLE_INDENT and not para.rstrip().endswith(".") and \
        all(len(ln.split()) <= 8 for ln in lines)


def _lead_in(para: str) -> tuple[str, str]:
    """``(lead-in, rest)`` of a paragraph whose first line ends on a colon above lines
    indented deeper (sed's "Example: Replace the 2nd to 9th lines with the word ‘hello’:"
    over ``$ seq 10 | sed '2,9c hello'``: read as one example, the sentence was quoted inside
    the code), else ``("", para)``."""
    first, _, rest = para.partition("\n")
    lines = [ln for ln in rest.split("\n") if ln.strip()]
    if not lines or not first.rstrip().endswith(":") or \
            min(map(_indent, lines)) <= _indent(first):
        return "", para
    return first, rest


def _add_example(builder: DocumentBuilder, example: list[str], anchor: str | None) -> None:
    """One code block of an example's paragraphs (then ``example`` emptied), dedented
    together: nettle's ARCFOUR key setup, dedented a paragraph at a time, lost the
    indentation of its function body after each blank line."""
    if example:
        builder.add("code", textwrap.dedent("\n\n".join(example)).strip("\n"), anchor=anchor)
        example.clear()


_QUOTED = re.compile(r"‘[^’\n]*’")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_example(para: str, base: int) -> bool:
    """Whether ``para`` is an ``@example``: indented 5 more than the prose around it, with a
    line that reads like code (``;`` at its end, ``=``, braces, ``$``, a command and its
    option), outside ‘quoted’ terms. Read as prose, "printf (ngettext (…), n);" was quoted
    as a sentence with a citation after it."""
    lines = [ln for ln in para.split("\n") if ln.strip()]
    if all(_PROMPT.match(ln) for ln in lines):  # libtasn1's "$ asn1Decoding pkix.asn …"
        return True  # at the margin: quoted as a sentence, or "the following invocation" alone
    return min(map(_indent, lines)) >= base + 5 and any(
        CODE_LINE.search(_QUOTED.sub("", ln)) for ln in lines)


_PROMPT = re.compile(r"\s*\$ [A-Za-z./][\w./-]*(?:\s|$)")  # not "$ 5 per month" (a review)


def _prose_indent(para: str) -> int:
    """The indentation of a prose paragraph's lines: past a table item's unindented terms,
    and past a first line indented 3 more (Info's paragraph indent)."""
    lines = [ln for ln in para.split("\n") if ln.strip()]
    body = [ln for ln in lines if _indent(ln) > 0 or not ln.startswith(("‘", "'", "`"))]
    body = body or lines
    if len(body) > 1 and _indent(body[0]) == _indent(body[1]) + 3:
        body = body[1:]
    least = min(map(_indent, body))
    return least - 3 if len(body) == 1 and least % 5 == 3 else least  # "   One line."


_XREF = re.compile(r"\*([Nn])ote[ \t\n]+(?:\([^()\n]{1,80}\))?([^:*]{1,120}?)::"
                   r"|\*([Nn])ote[ \t\n]+([^:*]{1,120}?):[ \t\n]+(?:\([^()\n]{1,80}\))?"
                   r"[^.,:*]{1,120}?(?=[.,])")


def cross_references(text: str) -> str:
    """``text`` with Info's cross-references read as a person reads them: "(*note Startup
    File::)" is "(see Startup File)", "*Note Options: Invoking." is "See Options." The raw
    form stayed in chunks and a model echoed it in its answer ("(Startup File::)"). A
    lower-case note says "see" only where makeinfo wrote none, right after "(" (an old
    ``@pxref``): newer ones write "(see *note Triggering::)", and ``@ref`` reads "described
    in *note po/Makevars::"; both came out "see see" and "in see"."""
    def read(m: re.Match[str]) -> str:
        name = " ".join((m.group(2) or m.group(4)).split())
        if (m.group(1) or m.group(3)) == "N":
            return f"See {name}"
        # the character before, not text[:start] (a copy of the text per note: a review's
        # 150,000 notes in 7 KB gzipped took minutes)
        return f"see {name}" if text[m.start() - 1:m.start()] == "(" else name

    return _XREF.sub(read, text)


def _with_terms_joined(paras: list[str]) -> list[str]:
    """``paras`` (indentation kept) with each ``@table`` item's terms joined to the indented
    paragraph after them, what they do (:data:`_TERM`)."""
    out: list[str] = []
    index = 0
    while index < len(paras):
        para = paras[index]
        if _terms(para) and index + 1 < len(paras) and \
                paras[index + 1].startswith(" "):
            index += 1
            para = para + "\n" + paras[index]
        out.append(para)
        index += 1
    return out


def _items_apart(para: str) -> list[str]:
    """A ``@table`` written without blank lines between its items (coreutils' ``date``
    formats: "‘%d’" over "     day of month", "‘%D’" over "     date; same as…") as one
    paragraph per item, so that an answer quotes an item, not the table as one sentence
    ("‘%d’ day of month (e.g., ‘01’) ‘%D’ date; …"); other paragraphs as they are."""
    lines = para.split("\n")
    starts = [i for i, line in enumerate(lines)
              if line[:1] not in ("", " ") and _TERM.fullmatch(line)
              and (i == 0 or lines[i - 1][:1] == " ")]
    if len(starts) < 2 or starts[0] != 0 or lines[-1][:1] != " ":
        return [para]
    return ["\n".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)],
                                                    strict=True)]


def _terms(para: str) -> bool:
    """Whether every line of ``para`` is a term line (:data:`_TERM`)."""
    return all(_TERM.fullmatch(line) for line in para.strip("\n").split("\n"))


def _heading(para: str) -> tuple[str, int] | None:
    """``(title, level)`` for a line underlined with one of :data:`HEADING_LEVELS`."""
    lines = [line.rstrip() for line in para.strip("\n").split("\n")]
    if len(lines) != 2 or not lines[1] or lines[1][0] not in HEADING_LEVELS:
        return None
    rule, title = lines[1], collapse(lines[0])
    if rule != rule[0] * len(rule) or len(rule) < 3 or not title:
        return None
    if lines[0][:1].isspace() or abs(len(rule) - _width(lines[0])) > 1:
        return None  # "nameString  value" over "...": an example's lines, not a heading
    return title, HEADING_LEVELS[rule[0]]


def _width(line: str) -> int:
    """Columns ``line`` takes: ``makeinfo`` underlines a heading to its width (1,665 of the
    1,690 underlined lines of the manuals on a Debian machine; the other 25 were examples,
    tables and an indented report's sections, none a heading)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

