"""The part of a document a citation opens: the section around an anchor.

``GET /v1/documents/{id}/content`` sent every block of a document to show one cited
passage; a new user's 390-page PDF manual was 1.2 MB of JSON for each citation clicked.
With ``anchor`` it sends the section holding the first block with that anchor: from the
nearest heading at or before it up to the next heading of the same or a higher level, at
most :data:`MAX_BLOCKS` blocks (a long chapter is cut to a window that starts a few blocks
before the anchored one, or ends where the section does). ``citewise show`` prints the same
section in a terminal (:meth:`citewise.facade.EngineVerbs.section`). Pure: blocks in, a slice
out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

from citewise.text import SECTION_NUMBER
from citewise.types import Block

MAX_BLOCKS = 120
BEFORE = 10  # blocks kept before the anchored one when a section is cut to a window


def loose(anchor: str) -> str:
    """``anchor`` as a person may type it: an Info user writes the node's name, ``#Usage`` or
    ``#Known Bugs``, for the anchor ``#usage`` / ``#known-bugs`` (``citewise show --help``'s
    own example was refused): case and runs of other characters than letters and digits do
    not count."""
    return re.sub(r"[\W_]+", "-", anchor.casefold()).strip("-")


def loose_forms(anchor: str) -> set[str]:
    """:func:`loose` of ``anchor`` as typed and percent-decoded."""
    return {loose(anchor), loose(unquote(anchor))}


_PATH_STEP = re.compile(r"(?<=\s)>(?=\s)")
r"""A path's " > " (its words stripped after the split): ``\s+>\s+`` tried every run of
spaces at each of its places, and a reader's 120 KB anchor of spaces held the server 116 s
(a security review)."""


def _heading_at(blocks: Sequence[Block], anchor: str, wanted: set[str]) -> int | None:
    """The first heading whose words are ``anchor``'s, else the first whose path ends with
    its steps ("Changes in GDB 12 › New commands", as a citation prints it: gdb's NEWS has
    a "New commands" section in each of 40 releases, and the first was GDB 13's). A
    heading's own words come first: "Edit > Preferences" is one heading (a review)."""
    headings = [i for i, b in enumerate(blocks) if b.kind == "heading"]
    own = next((i for i in headings if loose(blocks[i].text) in wanted), None)
    if own is None:  # "Limits" for "9 Limits" (bc.html's anchor is "Limits-1": a new user's
        own = next((i for i in headings  # --anchor Limits was refused)
                    if loose(SECTION_NUMBER.sub("", blocks[i].text)) in wanted), None)
    parts = anchor.split("›") if "›" in anchor else _PATH_STEP.split(anchor)
    steps = [loose(step) for step in parts if step.strip()]  # a path "›" (or " > ") apart
    if own is not None or len(steps) < 2:
        return own
    return next((i for i in headings if [loose(h) for h in blocks[i].heading_path[
        -len(steps):]] == steps), None)


def _after_title(anchor: str, title: str) -> str | None:
    """``anchor`` less its first step when that is the document's ``title``: a citation
    prints "usr_10 › 10.1 Record and playback commands", and a new user's `show` of it was
    refused where the section's path has no title (a Vim help chapter's)."""
    first, sep, rest = anchor.partition("›")
    return rest.strip() if sep and loose(first) == loose(title) and rest.strip() else None


def section_around(blocks: Sequence[Block], anchor: str,
                   title: str | None = None) -> tuple[int, int] | None:
    """``(start, end)`` of the blocks to show for ``anchor`` (``blocks[start:end]``), or
    None when no block has it, even as :func:`loose` reads anchors or percent-decoded (a
    new user pasted a Japanese page's anchor as the browser copied it), nor a heading its
    words (a plain-text manual's sections have no anchors: a new user's ``--anchor "4.2
    Compressed cat pages"`` of man-db's manual was refused, "its sections: none")."""
    at = None
    for typed in (anchor, unquote(anchor)):  # as given first: a page may have both "50%"
        at = next((i for i, b in enumerate(blocks) if b.anchor == typed), None)  # and
        if at is not None:  # "50%25"; a browser copies a link's anchor percent-encoded
            break
    if at is None:
        wanted = loose_forms(anchor)
        at = next((i for i, b in enumerate(blocks) if b.anchor and
                   loose(b.anchor) in wanted), None)
    if at is None:  # a heading's own words: plain text has no anchors ("4.2 Compressed cat
        at = _heading_at(blocks, anchor, wanted)  # pages")
    if at is None and title and (rest := _after_title(anchor, title)):  # a citation's
        at = _heading_at(blocks, rest, loose_forms(rest))  # path opens with the title
    if at is None:
        return None
    start = next((i for i in range(at, -1, -1) if blocks[i].kind == "heading"), 0)
    level = blocks[start].level if blocks[start].kind == "heading" else 0
    end = next((i for i in range(start + 1, len(blocks))
                if blocks[i].kind == "heading" and (not level or blocks[i].level <= level)),
               len(blocks))
    if blocks[at].anchor != blocks[start].anchor:  # an anchor inside the section (a list's
        start = at  # id): from where a browser opens it, not 40 parameters above it
    if end - start > MAX_BLOCKS:
        start = max(start, min(at - BEFORE, end - MAX_BLOCKS))
        end = start + MAX_BLOCKS
    return start, end
