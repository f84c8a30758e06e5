"""Headings that plain-text release notes mark without an underline.

GNU projects write their ``NEWS`` as an Emacs outline: "* Noteworthy changes in release 9.1
(2022-04-15) [stable]" then "** Bug fixes" (coreutils, grep, findutils), or "*** Changes in
GDB 13" over "* item" entries (gdb). Others open each release with a bare line: "Version 0.21
- July 2020" (gettext), "Changes in 2.40:" (binutils). Read as paragraphs, gdb's 8,800-line
``NEWS`` had no heading at all, so no passage said which release it came from, and "which
version added tui new-layout?" was answered with an entry from another release.

A one-line paragraph at the margin is a heading when its kind recurs, and it opens a section
(the next paragraph is not the next item of its outline marker: one-line "* Fix …" items with
blank lines between are a list), and so do at least half of its kind:

- an outline line: one to four ``*``, a space and a title that does not end a sentence
  (an entry "* MI version 1 is deprecated." is text), twice or more;
- a release line: a version number ("2.40", "3.11.2") in a short line that does not end
  a sentence, three or more times with the same first word ("Version …", "Changes in …").

Each kind is its own style; the loader gives styles their levels in the order they first
appear, as it does for underlines.
"""

from __future__ import annotations

import re

from citewise.ingest.normalize import collapse

_OUTLINE = re.compile(r"(\*{1,4})[ \t]+(\S[^\n]{0,98}?)[ \t]*:?")
_VERSION = re.compile(r"(?<![\w.])\d{1,4}\.\d{1,4}(?:\.\d{1,4})*(?![\w])")
_FIRST_WORD = re.compile(r"[A-Za-z][\w-]*")
_SENTENCE_END = (".", ",", ";")
MAX_RELEASE_LINE = 80
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
        if len(titles) >= least and len(opening) * 2 >= len(titles):
            found.update((index, (titles[index], style)) for index in opening)
    return found


def _marked(line: str) -> tuple[str, Style] | None:
    """``(title, style)`` when ``line`` reads as an outline or release heading."""
    if line.endswith(_SENTENCE_END):
        return None
    outline = _OUTLINE.fullmatch(line)
    if outline is not None:
        return collapse(outline.group(2)), (outline.group(1), "outline")
    word = _FIRST_WORD.match(line)
    if len(line) <= MAX_RELEASE_LINE and word is not None and _VERSION.search(line):
        return collapse(line.rstrip(":")), (word.group(0).lower(), "release")
    return None


def _opens(index: int, style: Style, paragraphs: list[str]) -> bool:
    """Whether the paragraph after a marked line is its section's text: there is one, it is
    not a rule, and it is not the next item of the same outline marker ("* Fix …" after
    "* Fix …")."""
    after = paragraphs[index + 1].strip() if index + 1 < len(paragraphs) else ""
    if not after or after == after[0] * len(after):  # the end, or a rule ("=====")
        return False
    return style[1] != "outline" or not after.startswith(style[0] + " ")
