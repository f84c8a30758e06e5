"""A link whose text only says where ("here", "click here", "this page") keeps its target.

A README's "Doxygen generated documentation exists <a href="https://json-c.github.io/json-c/">
here</a>" was indexed as "…documentation exists here.", and "Where is the json-c
documentation?" was answered with that sentence: the one thing the reader needed was the
link. Such a link is written ``here (https://json-c.github.io/json-c/)``. Only an http(s)
URL of one line and at most :data:`MAX_URL` characters is spelled out (never
``javascript:``, a path on the machine that indexed the page, or a page-local ``#fragment``);
a link with words of its own ("the API reference") says what it is and stays as it is.
"""

from __future__ import annotations

import re

from citewise.ingest.metadata import link_scheme

MAX_URL = 300
_BRACKETS = str.maketrans({"[": "%5B", "]": "%5D", "(": "%28", ")": "%29"})
"""Brackets and parentheses are written percent-encoded (the same URL to a browser): a
review's ``href="https://evil.example/x[S1][2]y"`` put a bare ``[2]`` in an answer, which
reads as a citation of another source, and ``?q=[1]`` was shown rewritten as ``?q=(1)``."""
_ONLY_WHERE = re.compile(
    r"(?:click |see |go |look )?(?:here|there)|this(?: (?:page|link|site|url|document))?|"
    r"(?:this |the )?link|(?:on |at )?(?:this|that) (?:page|site)", re.IGNORECASE)


def spelled_out(text: str, href: str) -> str | None:
    """``text (href)`` when ``text`` only says where and ``href`` is a web URL, else None."""
    href = href.strip()
    if not _ONLY_WHERE.fullmatch(" ".join(text.split())):
        return None
    if len(href) > MAX_URL or any(c.isspace() or ord(c) < 32 for c in href) \
            or link_scheme(href) not in ("http", "https"):
        return None
    return f"{text.strip()} ({href.translate(_BRACKETS)})"
