"""Text an HTML page hides from its readers: what :mod:`citewise.ingest.html` drops before
reading.

A security review planted a sentence in a visible paragraph inside ``<span
style="display:none">``: nobody reviewing the page saw it, and citewise indexed it, quoted it
in answers and cited the page for it (a reader opening the link cannot find it). Pages also
hide text a reader *can* open: tab panels, "show syntax diagram" boxes (SQLite's
``hideorshow(…)``), a body hidden until a script runs. So:

* an element hidden by the ``hidden`` attribute (not ``hidden="until-found"``, which the
  browser's find reveals), an inline style (``display:none``, ``visibility:hidden``,
  ``font-size:0``, ``opacity:0``) or a screen-reader-only class (:data:`UNSEEN_CLASSES`) is
  dropped when it is inline (a ``span`` or a link in running text: nothing on the page opens
  it);
* a hidden block (``div``, ``section``, ``p``…) is kept when a reader can open it: a tab
  panel (``role="tabpanel"``), one a control on the page names (``aria-controls``, a
  ``data-target``, an ``href="#id"``, or an ``onclick``-style handler that mentions its id),
  or one holding most of the page's text (a page shown by its script); any other is dropped.

Comments, ``<template>`` and ``<noscript>`` never reach the text (the loader strips them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citewise.ingest.html_guard import INLINE_TAGS
from citewise.ingest.html_marks import Marks

UNSEEN_CLASSES = frozenset({"sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text",
                            "screenreader-only", "hidden-visually", "a11y-hidden"})
"""Classes that site frameworks (Bootstrap, WordPress, GOV.UK…) use for text only a screen
reader speaks ("(opens in a new tab)", "Skip to content"): a sighted reader never sees it."""
_HIDDEN_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0*)?"
    r"(?:px|pt|em|rem|%)?\s*(?:!important)?\s*(?:;|$)|opacity\s*:\s*0(?:\.0*)?\s*"
    r"(?:!important)?\s*(?:;|$))", re.IGNORECASE)
_CONTROL_ATTRS = ("aria-controls", "data-target", "data-bs-target", "data-toggle-target",
                  "for", "popovertarget")
_HANDLERS = ("onclick", "onmouseover", "onfocus", "onchange", "onkeydown", "onmousedown")
MOST = 0.5
"""A hidden block holding at least this share of the page's text is the page itself, shown
by its script, and is kept."""


def is_hidden(node: LexborNode) -> bool:
    """Whether ``node`` itself is hidden from a sighted reader (not through an ancestor)."""
    return hides(node.attributes)


def hides(attrs: Mapping[str, str | None]) -> bool:
    """Whether an element with ``attrs`` is hidden from a sighted reader."""
    if "hidden" in attrs and (attrs.get("hidden") or "").strip().lower() != "until-found":
        return True
    if _HIDDEN_STYLE.search(attrs.get("style") or ""):
        return True
    classes = (attrs.get("class") or "").split()
    return any(c.lower() in UNSEEN_CLASSES for c in classes)


def drop_hidden(tree: LexborHTMLParser, named: set[str], whole_page: bool = True) -> int:
    """Remove the hidden text of ``tree`` a reader cannot open (see the module docstring);
    ``named``: the ids the page's controls open (:func:`named_by_controls`, read before the
    loader strips its buttons); ``whole_page``: False for a fragment (a Markdown HTML
    block), whose hidden block is never "most of the page". Returns how many elements were
    dropped."""
    candidates = [n for n in tree.css("[hidden], [style], [class]") if is_hidden(n)]
    if not candidates:
        return 0
    root = tree.body or tree.root
    total = len(root.text(deep=True)) if root is not None and whole_page else 0
    dropped = Marks()
    for node in candidates:  # ancestors first
        if dropped.inside(node):
            continue
        if node.tag in INLINE_TAGS or not _openable(node, named, total):
            dropped.mark(node)
    return dropped.remove()


def _openable(node: LexborNode, named: set[str], total: int) -> bool:
    attrs = node.attributes
    if (attrs.get("role") or "").lower() == "tabpanel":
        return True
    ident = attrs.get("id")
    if ident and ident in named:
        return True
    return total > 0 and len(node.text(deep=True)) >= MOST * total


_WORD = re.compile(r"[\w.:-]+")


def named_by_controls(tree: LexborHTMLParser) -> set[str]:
    """Every id a control on the page may open: ids named by control attributes and ``#id``
    links, and each word of the page's event handlers (``hideorshow("x1863","x1864")``)."""
    named: set[str] = set()
    selector = ", ".join(f"[{a}]" for a in (*_CONTROL_ATTRS, *_HANDLERS)) + ", a[href^='#']"
    for node in tree.css(selector):
        attrs = node.attributes
        for name in _CONTROL_ATTRS:
            named.update((attrs.get(name) or "").replace("#", " ").split())
        for name in _HANDLERS:
            named.update(_WORD.findall(attrs.get(name) or ""))
        href = attrs.get("href") or ""
        if href.startswith("#"):
            named.add(href[1:])
    return named


_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w-]*)([^>]*?)(/?)\s*>", re.DOTALL)


def tag_hides(raw: str) -> tuple[str, bool] | None:
    """For one raw inline tag (Markdown's ``html_inline``): ``(name, hidden)`` of an opening
    tag, ``("/name", False)`` of a closing one, None for anything else (a comment, a
    self-closing or void tag)."""
    match = _TAG.fullmatch(raw.strip())
    if match is None or match.group(4):
        return None
    name = match.group(2).lower()
    if match.group(1):
        return "/" + name, False
    if name in _VOID:
        return None
    if name in NEVER_SHOWN:
        return name, True
    element = LexborHTMLParser(f"<{name}{match.group(3)}></{name}>").css_first(name)
    return name, element is not None and hides(element.attributes)


NEVER_SHOWN = frozenset({"script", "style", "noscript", "template", "iframe", "object", "svg",
                         "textarea", "title"})
"""Inline tags whose content a browser never shows as the paragraph's text (a security
review's ``<script>`` and ``<template>`` inside Markdown paragraphs were indexed)."""
_VOID = frozenset({"br", "img", "hr", "input", "wbr", "meta", "link", "source", "area",
                   "col", "embed", "param", "track"})
