"""Which heading of a plain-text file titles it (:mod:`citewise.ingest.text`'s rules): the
one opening the file, unless it and the next name two releases, or it names a part of a
document; and whether that opening heading stands above the rest of the file."""

from __future__ import annotations

import re


def shape(title: str) -> str:
    """A heading without its numbers: "Overview of Changes in GTK+ 1.2.4" is the shape of
    "Overview of Changes in GTK+ 1.3.2"."""
    return re.sub(r"\d+(?:\.\d+)*", "#", title.lower())


def above(found: dict[int, tuple[str, tuple[str, str]]]) -> bool:
    """Whether the heading opening the file has a level of its own above the rest: its style
    is used again, but not by the next heading (Python's HISTORY, :func:`file_title`), nor by a
    heading of its shape: setuptools' changelog opens with "v66.1.1" over "Misc", and every
    later release was a subsection of "Misc" or "Changes"."""
    styles = [found[i][1] for i in sorted(found)]
    return 0 in found and len(styles) > 1 and styles[1] != styles[0] and \
        styles[0] in styles[2:] and not any(
            shape(title) == shape(found[0][0])
            for i, (title, style) in found.items() if i > 0 and style == styles[0])


def file_title(found: dict[int, tuple[str, tuple[str, str]]]) -> str | None:
    """The heading that opens the file, which titles it (Python's HISTORY: "Python
    History" underlined with "-", then releases with "=", then "Library" with "-" again: it
    stays above the releases, where its style reused below made every release a subsection
    of "Core and Builtins"), unless it and the next heading, in one style, name releases
    (strace's NEWS opens with the first of 48: "Noteworthy changes in release 6.1"), or it
    names a part of a document (:data:`SECTION_NAMES`)."""
    if 0 not in found:
        return None
    opening, style = found[0]
    later = [found[i] for i in sorted(found) if i > 0]
    releases = _RELEASED.search(opening) and later and later[0][1] == style \
        and _RELEASED.search(later[0][0])  # the first two headings name two releases
    return None if releases or opening.lower().rstrip(":") in SECTION_NAMES else opening


_RELEASED = re.compile(r"(?<![\w.])v?\d{1,4}\.\d{1,4}")  # "v66.1.1" too


def names_release(title: str) -> bool:
    """Whether a heading names a release ("v5.5.0 (2024-08-18)", "Version 3.1.4")."""
    return _RELEASED.search(title) is not None


SECTION_NAMES = frozenset({
    "introduction", "overview", "general information", "about", "description",
    "project description", "background", "summary", "preface", "contents",
    "table of contents", "synopsis", "getting started", "abstract"})
"""Headings that name a part of a document, never the document: util-linux's
howto-pull-request opens with "Introduction", bash's README too, GTK's with "General
Information"; each was the file's title, and its citations read "Introduction › Setup"."""
