"""A page that only says it moved: "This document has been moved to giteveryday(7)."

Git's documentation keeps ``everyday.html`` and ``git-remote-helpers.html`` as such notes
(a link to the new page, "Please let the owners of the referring site know…", "Thanks.");
indexed under their old titles, a new user's "everyday git commands" ranked the note fourth.
A page of at most :data:`MOVED_MAX_CHARS` characters whose text says it has moved, with a
link in that sentence, is read as a redirect stub to that page (skipped by a folder's
ingest and listed, as a ``<meta http-equiv=refresh>`` page is).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

MOVED_MAX_CHARS = 300
_MOVED = re.compile(r"\b(?:has|have) (?:been )?moved (?:permanently )?to\b", re.IGNORECASE)


def moved_to(tree: LexborHTMLParser, text: str) -> str | None:
    """The page a short note that the page has moved links to (the link in the sentence
    that says so), or None."""
    if len(text) > MOVED_MAX_CHARS or _MOVED.search(text) is None:
        return None
    root = tree.body or tree.root
    for link in root.css("a[href]") if root is not None else ():
        href = (link.attrs.get("href") or "").strip()
        said = link.parent.text(deep=True) if link.parent is not None else ""
        if href and not href.startswith(("#", "javascript:", "mailto:")) \
                and _MOVED.search(said) is not None:
            return href
    return None
