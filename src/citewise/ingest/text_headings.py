"""Headings that plain-text release notes mark without an underline.

GNU projects write their ``NEWS`` as an Emacs outline: "* Noteworthy changes in release 9.1
(2022-04-15) [stable]" then "** Bug fixes" (coreutils, grep, findutils), or "*** Changes in
GDB 13" over "* item" entries (gdb). Others open each release with a bare line: "Version 0.21
- July 2020" (gettext), "Changes in 2.40:" (binutils). Read as paragraphs, gdb's 8,800-line
``NEWS`` had no heading at all, so no passage said which release it came from, and "which
version added tui new-layout?" was answered with an entry from another release.

A one-line paragraph at the margin is a heading when its kind recurs, and it opens a section
(the next paragraph is its text: not the next item of its outline marker, one-line "* Fix …"
items with blank lines between being a list, nor a rule or the next underlined heading):

- an outline line: one to four ``*``, a space and a title that is no sentence (an entry
  "* MI version 1 is deprecated." is text) and names no subject ("* win32: …"), twice or
  more, more than half of them opening sections;
- a release line: a version number ("2.40", "3.11.2") in a short line that is no sentence,
  three or more times with the same first word ("Version …", "Changes in …"; a month's
  name counts as one word; so does the number itself, first: XZ Utils' "5.4.1
  (2023-01-11)", whose ``NEWS`` was one section of 441 blocks).

Each kind is its own style; the loader gives styles their levels in the order they first
appear, as it does for underlines. A release line over its entries indented, with no blank
line between (bc's "Changes in bc from 1.06 to 1.07." then "    Added void functions."), is
read apart first (:func:`heads_apart`).
"""

from __future__ import annotations

import re

from citewise.ingest.normalize import collapse

_OUTLINE = re.compile(r"(\*{1,4})[ \t]+(\S[^\n]{0,98}?)[ \t]*:?")
_VERSION = re.compile(r"(?<![\w.])\d{1,4}\.\d{1,4}(?:\.\d{1,4})*"
                      r"(?:-?(?:alpha|beta|rc|pre)\d*)?(?![\w])")  # "5.3.5beta"
_FIRST_WORD = re.compile(r"[A-Za-z][\w-]*")
_SENTENCE_END = (".", ",", ";")
_INNER_END = re.compile(r"[.!?]\s+[A-Z(]")  # a sentence ends inside the line
_ENDS_ON_VERSION = re.compile(r"(\d\.\d{1,4})\.$")  # bc's "Changes in bc from 1.06 to 1.07."
_ENTRY = re.compile(r"[\w./+-]+:\s")  # "configure.ac: …", "win32: …": an entry's subject
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_TAIL_WORD = re.compile(r"\b[a-z]+\b")
MAX_TAIL_WORDS = 4
_VERBS = frozenset({"is", "are", "was", "were", "will", "would", "has", "have", "had", "can",
                    "could", "should", "still", "does", "did", "be", "been", "runs", "must"})
"""After its number a release line says little: "released", "final", "- bug fix release",
a date, "(…)"; "Server 2.1 was upgraded on Monday" goes on as a sentence (a review)."""
_MONTHS = frozenset({"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                     "nov", "dec"})  # "Apr 08, 2022: libfoo 3.6.1 released": one style
MAX_RELEASE_LINE = 80
_NUMBER_FIRST = "#"
"""The first word of a release line that opens on its number: XZ Utils' "5.4.1 (2023-01-11)"."""
MIN_OUTLINE = 2
MIN_RELEASE = 3

Style = tuple[str, str]


def marked_headings(paragraphs: list[str], skip: set[int] = frozenset()) \
        -> dict[int, tuple[str, Style]]:
    """``{paragraph index: (title, style)}`` for the outline and release headings of
    ``paragraphs`` (the indexes in ``skip``, a page's furniture, are not read)."""
    kinds: dict[Style, dict[int, str]] = {}
    for index, para in enumerate(paragraphs):
        if index in skip or para[:1] in " \t" or "\n" in para.strip():
            continue
        marked = _marked(para.strip())
        if marked is not None:
            kinds.setdefault(marked[1], {})[index] = marked[0]
    found: dict[int, tuple[str, Style]] = {}
    for style, titles in kinds.items():
        least = MIN_OUTLINE if style[1] == "outline" else MIN_RELEASE
        opening = [index for index in titles if _opens(index, style, paragraphs)]
        if len(titles) >= least and len(opening) >= 2 and len(opening) * 2 > len(titles):
            found.update((index, (titles[index], style)) for index in opening)
    return found


def heads_apart(paragraphs: list[str]) -> list[str]:
    """``paragraphs`` with a release line at the margin over indented lines (bc's
    "Changes in bc from 1.06 to 1.07." then "    Added void functions.", no blank line
    between) as two paragraphs, when that line is a heading (:func:`marked_headings`). Not an
    outline line: "* Fix …" over its wrapped "  interface." is one entry (at-spi2-core)."""
    split: list[str] = []
    heads: dict[int, int] = {}  # index in split -> index in paragraphs
    for index, para in enumerate(paragraphs):
        head, _, rest = para.partition("\n")
        head = _ENDS_ON_VERSION.sub(r"\1", head.strip())  # "… to 1.07." over its entries
        if rest.strip() and head and para[:1] not in " \t" and _release_head(head) \
                and all(not ln.strip() or ln[:1] in " \t" for ln in rest.split("\n")) \
                and not _wrapped(rest.lstrip()):
            heads[len(split)] = index
            split.extend((head, rest))
        else:
            split.append(para)
    found = marked_headings(split) if heads else {}
    kept = {heads[i]: (split[i], split[i + 1]) for i in heads if i in found}
    return [part for index, para in enumerate(paragraphs) for part in kept.get(index, (para,))]


_SAYS = frozenset({"now", "uses", "works", "requires", "supports", "adds", "fixes", "fixed",
                   "added", "removed", "updated", "changed", "improved", "dropped"})
def _wrapped(rest: str) -> bool:
    """Whether the lines under a release line go on from it: "Fixed crash in the 1.2 parser"
    over "  when the input is empty." (a review). A lower-case word opens no entry, but a
    component's ("libfoo: added …"); bullets (an "o " too), quotes and brackets do (a second
    review)."""
    return rest[:1].islower() and rest[:2] != "o " and _ENTRY.match(rest) is None


def _release_head(line: str) -> bool:
    """A release line over its entries, no sentence of one: "GDB now uses readline 2.2" over
    its wrapped lines is an entry of gdb's NEWS."""
    marked = _marked(line)
    return marked is not None and marked[1][1] == "release" \
        and not (_VERBS | _SAYS).intersection(_TAIL_WORD.findall(line.lower()))


def _marked(line: str) -> tuple[str, Style] | None:
    """``(title, style)`` when ``line`` reads as an outline or release heading: not a
    sentence ("… with Eiffel support. (Hiebert)" in Vim's version5.txt), nor an entry
    naming what it changed ("* configure.ac: pre-release version bump")."""
    if line.endswith(_SENTENCE_END) or _INNER_END.search(line):
        return None
    outline = _OUTLINE.fullmatch(line)
    if outline is not None:
        title = collapse(outline.group(2))
        return None if _ENTRY.match(title) else (title, (outline.group(1), "outline"))
    word = _FIRST_WORD.match(line)
    versions = list(_VERSION.finditer(line))
    tail = _TAIL_WORD.findall(_ASIDE.sub("", line[versions[-1].end():])) if versions else []
    first = word.group(0).lower() if word is not None else \
        _NUMBER_FIRST if versions and _dated(line, versions[0]) else None
    if len(line) <= MAX_RELEASE_LINE and first is not None and versions \
            and len(tail) <= MAX_TAIL_WORDS and not _VERBS.intersection(tail):
        return collapse(line.rstrip(":")), ("month" if first[:3] in _MONTHS else first,
                                            "release")
    return None


def _dated(line: str, version: re.Match[str]) -> bool:
    """Whether ``line`` opens on ``version`` and says no more than a date: "5.4.1
    (2023-01-11)", "2.9.7: Nov 02 2017", "3.29.90"; not a numbered section ("2.1 Primitive
    Types"), an entry ("1.07<tab>Fix test failures") nor an address alone ("10.0.0.1", the
    review of this stop: three resolvers were three sections)."""
    rest = _ASIDE.sub("", line[version.end():])
    said = line[version.end():].strip(" \t:-")  # a date, or a number alone of at most three
    parts = version.group().count(".") + 1  # parts (adwaita's "3.29.90"): not 10.0.0.1
    return version.start() == 0 and (bool(said) or parts <= 3) and all(
        w[:3].lower() in _MONTHS for w in _LETTERS.findall(rest))


_LETTERS = re.compile(r"[A-Za-z]+")
_UNDERLINE_CHARS = frozenset("=-~^*#+_`:.'\"")


def is_rule(line: str) -> bool:
    """Whether ``line`` (stripped) is a rule: three or more of one underline character."""
    return len(line) >= 3 and line[0] in _UNDERLINE_CHARS and line == line[0] * len(line)


def _underlined(para: str) -> bool:
    """Whether ``para`` is a line over a rule ("Overview of changes in 1.0.8" / "=====")."""
    lines = para.split("\n")
    rule = lines[-1].strip()
    return len(lines) in (2, 3) and is_rule(rule) and rule[0] in "=-~^*#+"


def _opens(index: int, style: Style, paragraphs: list[str]) -> bool:
    """Whether the paragraph after a marked line is its section's text: there is one, it is
    not a rule, and it is not the next item of the same outline marker ("* Fix …" after
    "* Fix …")."""
    after = paragraphs[index + 1].strip() if index + 1 < len(paragraphs) else ""
    if not after or after == after[0] * len(after) or _underlined(after):  # the end, a rule
        return False  # or the next section's heading (libfribidi's last entry)
    return style[1] != "outline" or not after.startswith(style[0] + " ")
