"""Vim's help files (``*usr_05.txt*  For Vim version 9.0 …``), read by the plain-text loader.

A help file is plain text with markup of its own: ``*tag*`` marks a place other files link to
(every section heading carries one: ``*05.1*  The vimrc file  *vimrc-intro*``), ``|tag|``
links to one, a line ending in `` ~`` is a column heading, a line ending in ``>`` opens an
example that a line starting with ``<`` may close, and the last line is a modeline for the
editor. A new user's trial of the user manual: every chapter's header (the file's name and
"Last change" date, "VIM USER MANUAL - by Bram Moolenaar", its list of sections, "Next
chapter / Previous chapter / Table of contents") was indexed as its first passage ("how do
I repeat the last change?" was answered "The sources disagree: Last change: 2006 Apr 24 /
Last change: 2021 Feb 22"), an example closed by ``<`` right above the next section's rule
took that section into its own, the modeline was a section, tags and links stayed in the
text, and citations had no anchor though vimhelp.org anchors each tag (``#05.1``).

Here: the heading's first tag is its anchor, the header and navigation lines and a file's
list of its own sections are not read, tags leave the text and links become their words,
the chapter's title ("Set your settings") titles the document.
"""

from __future__ import annotations

import re
import textwrap

from citewise.ingest.normalize import verbatim

_FIRST_LINE = re.compile(r"\*[\w.+-]+\.txt\*\s")
"""How a help file opens: its own tag (``*usr_05.txt*``), then the version line."""
_MODELINE = re.compile(r"(?:^|\s)vim?:\s*(?:set?\s+)?(?:\w+(?:=[^:\s]*)?:)*\w+(?:=[^:\s]*)?:?\s*$")
_MANUAL = re.compile(r"^\s*VIM (?:USER|REFERENCE) MANUAL\b")
_NAVIGATION = re.compile(r"^\s*(?:(?:Next|Previous) chapter|Table of contents|Copyright):",
                         re.IGNORECASE)
TAG = re.compile(r"\*[^*\s|]+\*")
_LINK = re.compile(r"(?<!\\)\|([^|\s]+?)(?<!\\)\|")
"""A link, ``|:global|``; not a pattern's escaped bars (usr_27's ``"/a\\|b\\|c"``), as Vim's
own help syntax reads them."""
_CONTENTS_LINE = re.compile(r"^\s*\|([^|\s]+)\|\s+\S|\S(?:\t+| {2,})\|([^|\s]+)\|\s*$")
"""A line of a file's list of its sections: its link first (``|05.1|  The vimrc file``) or
last, a column apart (``1. Commands  |python-commands|``)."""
_RULE = re.compile(r"(?:={10,}|-{10,})")
_OPENS_EXAMPLE = re.compile(r"(?:^|[ \t])>$")


def is_vim_help(text: str) -> bool:
    """Whether ``text`` is a Vim help file: it opens with its own ``*name.txt*`` tag, or its
    modeline says ``ft=help``."""
    head = text.lstrip("\ufeff")[:200]
    return bool(_FIRST_LINE.match(head)) or "ft=help" in text[-300:]


def prepared(text: str) -> str:
    """``text`` without its modeline (Vim reads one in the first or last five lines) and with
    a paragraph break after each line of ``<`` alone that closes an example (usr_06's "<"
    right above the rule of 06.5 made 06.5 part of 06.4)."""
    lines = text.split("\n")
    for i in [*range(min(5, len(lines))), *range(max(5, len(lines) - 5), len(lines))]:
        lines[i] = _MODELINE.sub("", lines[i])
    if lines and _FIRST_LINE.match(lines[0].lstrip("\ufeff")) and len(lines) > 1 and \
            lines[1].strip():  # the file's line alone: a plugin's help goes on below it
        lines.insert(1, "")
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if line.rstrip() == "<" and i + 1 < len(lines) and lines[i + 1].strip():
            out.append("")
    return "\n".join(out)


def heading_tag(para: str) -> str | None:
    """The first tag of a heading's line (``05.1`` of ``*05.1*  The vimrc file
    *vimrc-intro*``): the anchor vimhelp.org gives the place."""
    for line in para.split("\n"):
        if (match := TAG.search(line)) is not None:
            return match.group(0)[1:-1]
    return None


def front_matter(paragraphs: list[str]) -> tuple[str | None, set[int]]:
    """``(title, paragraphs not read)`` of a help file: its first line and the manual's
    name are not read, and the paragraph after them titles it ("Set your settings", "The
    Python Interface to Vim" less its tags); neither are navigation lines ("Next chapter:
    |usr_06.txt| …") nor a list of the file's own sections (``|05.1|  The vimrc file``,
    ``1. Commands  |python-commands|``), which were each chapter's first passage."""
    filled = [i for i, p in enumerate(paragraphs) if p.strip()]
    skip: set[int] = set()
    title = None
    if filled and _FIRST_LINE.match(paragraphs[filled[0]].lstrip()):
        skip.add(filled[0])
        rest = filled[1:]
        if rest and _MANUAL.match(paragraphs[rest[0]]):
            skip.add(rest[0])
            title = _title_line(paragraphs[rest[1]]) if len(rest) > 1 else None
            skip |= {rest[1]} if title else set()
    own = _heading_tags(paragraphs)
    for i in filled:
        lines = [line for line in paragraphs[i].split("\n") if line.strip()]
        if all(_NAVIGATION.match(line) for line in lines) or (
                len(lines) >= 2 and all(_lists_own(line, own) for line in lines)):
            skip.add(i)
    return title, skip


def _title_line(para: str) -> str | None:
    """The title a reference file's first paragraph gives, or None: one line after any
    lines of tags alone, less its tags; not a sentence, unless it carries a tag ("Editing
    with multiple windows and buffers.  *windows* *buffers*"): insert.txt's, windows.txt's,
    tabpage.txt's and cmdline.txt's were titled by their file names."""
    lines = [line for line in para.strip().split("\n") if TAG.sub("", line).strip()]
    if len(lines) != 1:
        return None
    title = " ".join(TAG.sub(" ", lines[0]).split())
    if title.endswith(".") and split_tags(lines[0])[1]:
        title = title[:-1]
    return None if not title or title.endswith(".") else title


def _lists_own(line: str, own: set[str]) -> bool:
    """Whether ``line`` is an entry of the file's list of its own sections: a link to one of
    them first or last, a column apart; not prose that links to them (a review's "… (see
    |myplug-usage|); set g:myplug_timeout as described in |myplug-options|" was dropped)."""
    match = _CONTENTS_LINE.search(line)
    return match is not None and (match.group(1) or match.group(2)) in own


def _heading_tags(paragraphs: list[str]) -> set[str]:
    """The tags of the file's section headings: the first tag of a line under a long rule."""
    out = set()
    for para in paragraphs:
        lines = para.strip("\n").split("\n")
        if len(lines) >= 2 and set(lines[0].strip()) == {"="}:
            out |= {t[1:-1] for t in TAG.findall(lines[1])}
    return out


def prose(text: str) -> str:
    """A paragraph of help text as a reader reads it: lines of tags alone and the tags at a
    line's end left out, links as their words (``|:global|`` is ``:global``), a column
    heading's `` ~`` mark gone."""
    out = []
    for line in text.split("\n"):
        bare = TAG.sub("", line)
        if not bare.strip() and line.strip() or _RULE.fullmatch(line.strip()):
            continue  # "*:syn-manual*" right-aligned above its paragraph; a rule
        line = split_tags(line)[0]
        line = _LINK.sub(r"\1", line)
        out.append(line[:-2].rstrip() if line.endswith(" ~") else line)
    return "\n".join(out)


def split_example(para: str) -> tuple[str, str | None]:
    """``(text, example)``: a paragraph cut at the line ending in ``>`` that opens an
    example (the example: the lines after it, or "" when the example's indented paragraphs
    follow); ``(para, None)`` when no line opens one."""
    lines = para.split("\n")
    for i, line in enumerate(lines):
        if _OPENS_EXAMPLE.search(line.rstrip()):
            lead = [*lines[:i], line.rstrip()[:-1]]
            return "\n".join(lead), "\n".join(lines[i + 1:])
    return para, None


def example(para: str) -> str:
    """An example's lines, dedented, without the ``<`` that may end it."""
    lines = [line[1:] if line.startswith("<") else line for line in para.split("\n")]
    return verbatim(textwrap.dedent("\n".join(lines).expandtabs(8)))


def tagless(title: str) -> str:
    """A heading without its tags: "*05.1* The vimrc file *vimrc-intro*" is "05.1 The vimrc
    file"; a new user saw the tags in every heading and citation. Nor a column heading's
    ``~`` ("Overview ~")."""
    words = title.split()
    while len(words) > 1 and (TAG.fullmatch(words[-1]) or words[-1] == "~"):
        words.pop()  # "Overview ~": a column heading's mark
    return " ".join(w[1:-1] if TAG.fullmatch(w) else w for w in words)


_DOTTED_HEADING = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,4}\.?[ \t]+\S[^\n]*")
"""A numbered heading of a section's subsection ("4.2 Substitute"); not "1. Unnamed
register" of a list (the review of this stop: change.txt's registers became sections)."""


def heads_apart(paragraphs: list[str]) -> list[str]:
    """``paragraphs`` with a numbered heading that carries its tag over the section's first
    lines, no blank line between, as two: the reference manual writes "4.2 Substitute
    *:substitute*" right over ":[range]s[ubstitute]/…", and 13 such sections of a new user's
    28 files were read as their previous section's (``:s`` cited as "4.1 Filter
    commands")."""
    out: list[str] = []
    for para in paragraphs:
        first, _, rest = para.partition("\n")
        title, tags = split_tags(first)
        if rest.strip() and tags and _DOTTED_HEADING.fullmatch(title):
            out.extend((first, rest))
        else:
            out.append(para)
    return out


Piece = tuple[str, str, str | None]
"""``(kind, text, anchor)``: kind ``label`` (text: the tags' names), ``text`` or ``code``."""


def pieces(para: str, in_example: bool) -> tuple[list[Piece], bool]:
    """A paragraph of help text as labels, text and examples, and whether an example is
    still open after it. Tags alone on the paragraph's first lines (right-aligned above an
    option's or a command's entry: ``*'tabstop'* *'ts'*``) label what follows, anchored at
    the first (vimhelp.org's ``#'tabstop'``): every option was cited as the 8,000-line
    "Options summary". An example opens after a line ending in ``>`` and runs, as Vim's help
    syntax reads it, to a line starting with ``<`` (whose rest is text again: "<\tWhat
    actually happens…") or with a character at the margin; read as running to the
    paragraph's end, and on to every indented paragraph after, it made most of options.txt
    code (:func:`_entry_tags` says which tags label an entry)."""
    lines = para.split("\n")
    out: list[Piece] = []
    tags, alone = ([], 0) if in_example else _entry_tags(lines)
    lines = lines[alone:]  # the lines of tags alone, now the label
    if tags:
        out.append(("label", " ".join(tags), tags[0]))
    text: list[str] = []
    code: list[str] = []
    for line in lines:
        if in_example:
            ends = line.startswith("<") or (line[:1].strip() != "" and bool(line.strip()))
            if not ends:
                code.append(line)
                continue
            in_example = False
            _flush(out, "code", code)
            line = line[1:] if line.startswith("<") else line
        if _OPENS_EXAMPLE.search(line.rstrip()):
            text.append(line.rstrip()[:-1])
            _flush(out, "text", text)
            in_example = True
        else:
            text.append(line)
    _flush(out, "text", text)
    _flush(out, "code", code)
    return out, in_example


def _entry_tags(lines: list[str]) -> tuple[list[str], int]:
    """``(tags, lines of tags alone)`` of an entry (an option, a command, a function) that
    ``lines`` open, else ``([], 0)``: tags alone on the first lines, or at the end of its first
    lines at the margin, over the entry's description indented under them (``*'tabstop'*
    *'ts'*`` over "'tabstop' 'ts'  number (default 8)" over "\tlocal to buffer";
    "abs({expr})  *abs()*" over "\t\tReturn the absolute value…"), or over one line that
    gives a command and what it does a column apart (``*dd*`` over "["x]dd\t\tDelete [count]
    lines"). Not a tag over a paragraph of the user manual, at the margin throughout
    (``*:syn-manual*``): that was a place in its section, and stays in it."""
    alone = 0
    while alone < len(lines) and lines[alone].strip() and not TAG.sub("", lines[alone]).strip():
        alone += 1
    body = lines[alone:]
    head = 0
    while head < min(len(body), MAX_ENTRY_LINES) and body[head].strip() \
            and body[head][:1] not in " \t":
        head += 1
    described = 0 < head < len(body) and body[head][:1] in " \t" and body[head].strip()
    one_line = len(body) == 1 and _COLUMN_GAP.search(body[0].strip()) is not None
    if not (described or one_line):
        return [], 0
    tags = [t[1:-1] for line in lines[:alone] for t in TAG.findall(line)]
    tags += [t for line in body[:head] for t in split_tags(line)[1]]
    return tags, alone if tags else 0


MAX_ENTRY_LINES = 4
_COLUMN_GAP = re.compile(r"[^\s.!?](?:\t+| {3,})\S")


def opens_at_margin(para: str) -> bool:
    """Whether a help paragraph's first line of text (tags alone are none) is at the
    margin: text about the section, after the entries above it (not an example's closing
    ``<``)."""
    for line in para.split("\n"):
        if line.strip() and TAG.sub("", line).strip():
            return line[:1] not in " \t<"
    return False


def split_tags(line: str) -> tuple[str, list[str]]:
    """``line`` less the tags at its end, and those tags' names, in one pass from the end:
    a pattern searched from every start was quadratic (the review of this stop: a 40 KB line
    of tags took 6 s)."""
    words = _BLANKS.split(line.rstrip())
    tags: list[str] = []
    while len(words) >= 3 and TAG.fullmatch(words[-1]):
        tags.append(words.pop()[1:-1])
        words.pop()
    return "".join(words), tags[::-1]


_BLANKS = re.compile(r"([ \t]+)")


def _flush(out: list[Piece], kind: str, lines: list[str]) -> None:
    body = "\n".join(lines)
    if body.strip():
        out.append((kind, example(body) if kind == "code" else body, None))
    lines.clear()
