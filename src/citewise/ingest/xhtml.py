"""XHTML's empty elements, as an XML reader reads them.

DocBook's XSL stylesheets write XHTML: every section's anchor is ``<a id="_sudo"/>`` inside its
heading. An HTML parser ignores the ``/`` of a non-void element, so the ``<a>`` stays open and
wraps the rest of the section: a new user's index of the Debian Reference (``<?xml …?>``,
``xmlns="http://www.w3.org/1999/xhtml"``) read 107 of its 163 multi-line code blocks and 168 of
its 170 tables as one line of prose inside that link, and gave 61 of ch09's 103 headings the
previous section's anchor. A page that declares itself XHTML has such elements closed where
they open (``<a id="_sudo"></a>``) before it is parsed. Only such anchors: an ``<a>`` with
nothing but an ``id`` or ``name``, open or closed, hides nothing. A browser reads a ``.html``
file as HTML whatever it declares, so a self-closed ``<style/>``, ``<textarea/>`` or ``<div
hidden="hidden"/>`` keeps what follows hidden there; closed, it was indexed and citable (the
review of this stop). A page that does not declare itself XHTML is read as it is.
"""

from __future__ import annotations

import re

_XHTML = re.compile(r"<\?xml\b|xmlns\s*=\s*[\"']http://www\.w3\.org/1999/xhtml[\"']",
                    re.IGNORECASE)
_EMPTY = re.compile(r"<([A-Za-z][\w:-]*)((?:\s+[^\s<>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|"
                    r"[^\s<>\"']+))?)*)\s*/>")
HEAD = 4_096
"""How much of a page's start is read for its declaration."""


def is_xhtml(text: str) -> bool:
    """Whether the page declares itself XHTML (an XML prolog or the XHTML namespace near its
    start)."""
    return _XHTML.search(text, 0, HEAD) is not None


def close_empty_elements(text: str) -> str:
    """``text`` with each anchor ``<a id="…"/>`` written ``<a id="…"></a>`` when the page is
    XHTML (module docstring); as it is otherwise."""
    if "/>" not in text or not is_xhtml(text):
        return text
    return _EMPTY.sub(_closed, text)


_ANCHOR_ATTRIBUTES = frozenset({"id", "name", "xml:id"})
_ATTRIBUTE = re.compile(r"\s+([^\s<>/=]+)")


def _closed(found: re.Match[str]) -> str:
    tag = found.group(1)
    names = {m.lower() for m in _ATTRIBUTE.findall(_QUOTED.sub("", found.group(2)))}
    if tag.lower() != "a" or not names or not names <= _ANCHOR_ATTRIBUTES:
        return found.group(0)
    return f"<{tag}{found.group(2)}></{tag}>"


_QUOTED = re.compile(r"\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+)")
