"""Text an HTML page hides from its readers: what :mod:`citewise.ingest.html` drops before
reading.

A security review planted a sentence in a visible paragraph inside ``<span
style="display:none">``: nobody reviewing the page saw it, and citewise indexed it, quoted it
in answers and cited the page for it (a reader opening the link cannot find it). Pages also
hide text a reader *can* open: tab panels, "show syntax diagram" boxes (SQLite's
``hideorshow(…)``), a body hidden until a script runs. So:

* an element hidden by the ``hidden`` attribute (not ``hidden="until-found"``, which the
  browser's find reveals), an inline style that hides it (:func:`style_hides`), a
  screen-reader-only or framework class (:data:`UNSEEN_CLASSES`, :data:`HIDING_CLASSES`) or a
  class the page's own ``<style>`` hides (:func:`stylesheet_classes`) is dropped when it is
  inline (a ``span`` or a link in running text: nothing on the page opens it);
* a hidden block (``div``, ``section``, ``p``…) is kept when a reader can open it: a tab
  panel (``role="tabpanel"`` on a page with tabs), one a visible control names
  (:func:`named_by_controls`: an ``aria-controls``, a ``data-target``, an ``href="#id"``,
  or an ``onclick``-style handler that mentions its id), or one holding :data:`MOST` of
  the page's text (a page shown by its script); any other is dropped;
* what browsers never draw (:data:`NEVER_RENDERED`: media fallbacks, ``<datalist>``…) is
  stripped with the scripts.

Not judged: stylesheets the page links to, and a block opened by a control that is itself
inside a hidden block nothing opens.

Comments, ``<template>`` and ``<noscript>`` never reach the text (the loader strips them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citewise.ingest.html_guard import INLINE_TAGS
from citewise.ingest.html_marks import Marks

UNSEEN_CLASSES = frozenset({"sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text",
                            "screenreader-only", "hidden-visually", "a11y-hidden"})
"""Classes that site frameworks (Bootstrap, WordPress, GOV.UK…) use for text only a screen
reader speaks ("(opens in a new tab)", "Skip to content"): a sighted reader never sees it."""
HIDING_CLASSES = frozenset({"d-none", "hidden", "invisible", "is-hidden", "hide"})
"""Framework classes that hide an element (Bootstrap's ``d-none``, Tailwind's ``hidden``…)."""
_ZERO = r"(?:0+\.?0*|\.0+)"
_TINY = r"(?:0*\.\d+|0+)"  # under one unit: "font-size:0.0001px"
_FAINT = r"(?:0*\.0\d*|0+\.?0*)"  # under a tenth: "opacity:0.001", "scale(0.01)"
_PX1 = r"(?:[01](?:\.0*)?(?:px)?)"  # "1px", "0"
_END = r"\s*(?:!important)?\s*(?:;|$)"
_PART = r"[\w.%]+"  # one colour component: "0", "50%", "120deg"
_SEP = r"(?:\s*,\s*|\s+)"  # an alpha is the fourth ("rgba(0,0,0,0)", "rgb(0 0 0 / 0)")
_HIDDEN_STYLE = re.compile(
    rf"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
    rf"|content-visibility\s*:\s*hidden"
    rf"|font-size\s*:\s*{_TINY}(?:px|pt)?{_END}|font-size\s*:\s*{_ZERO}[a-z%]*{_END}"
    rf"|font-size\s*:\s*{_FAINT}(?:em|rem|ex|ch|vw|vh){_END}"
    rf"|opacity\s*:\s*{_FAINT}{_END}|opacity\s*:\s*{_TINY}%{_END}"
    rf"|filter\s*:\s*opacity\(\s*{_FAINT}%?\s*\)|zoom\s*:\s*{_FAINT}%?{_END}"
    rf"|transform\s*:[^;]*scale[xy3d]?\(\s*{_FAINT}\s*[,)]"
    rf"|transform\s*:[^;]*translate[xy3d]?\(\s*-\d{{4,}}"
    rf"|clip-path\s*:\s*(?:(?:circle|ellipse)\(\s*{_ZERO}[a-z%]*\s*[)a]"
    rf"|polygon\(\s*(?:{_ZERO}[a-z%]*\s+{_ZERO}[a-z%]*\s*,?\s*)+\))"
    rf"|clip\s*:\s*rect\(\s*{_PX1}[\s,]+{_PX1}[\s,]+{_PX1}[\s,]+{_PX1}\s*\)"
    rf"|clip\s*:\s*rect\(\s*0[a-z]*[\s,]+0"
    rf"|color\s*:\s*(?:transparent|#[0-9a-f]{{3}}0|#[0-9a-f]{{6}}00"
    rf"|(?:rgb|hsl)a?\(\s*{_PART}{_SEP}{_PART}{_SEP}{_PART}\s*[,/]\s*{_ZERO}%?\s*\)){_END}"
    rf"|(?:text-indent|left|top|margin-left|margin-top)\s*:\s*-(?:\d{{3,}}|[5-9]\d(?:\.\d*)?r?em))")
_BOXED = re.compile(rf"(?:^|;)\s*(?:max-)?(?:width|height)\s*:\s*(?:{_ZERO}[a-z%]*|1px){_END}")
_ESCAPE = re.compile(r"\\(?:([0-9a-f]{1,6})\s?|(.))", re.DOTALL | re.IGNORECASE)
_CLIPPED = re.compile(r"(?:^|;)\s*overflow\s*:\s*hidden")
_ZERO_LENGTH = re.compile(r"0(?:\.0*)?[a-z]*")
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASS_ONLY = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_CONTROL_ATTRS = ("aria-controls", "data-target", "data-bs-target", "data-toggle-target",
                  "popovertarget")
_HANDLERS = ("onclick", "onmouseover", "onfocus", "onchange", "onkeydown", "onmousedown")
_CONTROL_TAGS = frozenset({"button", "input", "summary", "select"})
MOST = 0.9
"""A hidden block holding at least this share of the page's text is the page itself, shown
by its script, and is kept (the review of this stop: at a half, a page could hide as much
as it showed)."""


def style_hides(style: str) -> bool:
    """Whether an inline ``style`` hides its element: comments and escapes removed first
    (the review of this stop: ``display:/**/none``, ``display:n\\one``, ``font-size:.0px``,
    ``opacity:0%``, ``visibility:collapse``, ``color:transparent``, off-screen positions and
    a zero-size box with its overflow hidden were all read; the next: hex escapes
    ``display:\\6e one``, ``rgba(0,0,0,0)`` and ``#0000``, ``opacity:0.001`` and other
    values under a tenth, ``0.01em`` text, ``zoom``, ``content-visibility:hidden``, the
    classic ``clip:rect(1px,1px,1px,1px)``, ``clip-path:circle(0)``, a 1px box with its
    overflow hidden, ``-99em`` and ``translateX(-99999px)``)."""
    text = _ESCAPE.sub(_unescape, _COMMENT.sub("", style)).lower()  # "\4e one" is "None"
    return bool(_HIDDEN_STYLE.search(text) or _inset_away(text)
                or (_BOXED.search(text) and _CLIPPED.search(text)))


_INSET = re.compile(r"(?:^|;)\s*clip-path\s*:\s*inset\(([^)]*)\)")
_PERCENT = re.compile(r"(\d+(?:\.\d*)?|\.\d+)%")


def _inset_away(style: str) -> bool:
    """Whether a ``clip-path: inset(…)`` leaves nothing: its top and bottom, or its left and
    right, insets (percent, CSS's one to four values) add up to 100 % or more. A security
    review's ``inset(100%)`` and ``inset(0 0 100% 0)`` were read, and ``inset(60% 0 0 0)``,
    which shows the lower part, must stay."""
    match = _INSET.search(style)
    if match is None:
        return False
    values = match.group(1).split(" round ")[0].split()
    if not 1 <= len(values) <= 4:
        return False
    shares = [_share(v) for v in values]
    top, right = shares[0], shares[1 % len(shares)]
    bottom = shares[2] if len(shares) > 2 else top
    left = shares[3] if len(shares) > 3 else right
    return top + bottom >= 100 or left + right >= 100


def _share(value: str) -> float:
    """An inset in percent (a zero length is 0; any other length counts as none)."""
    if (percent := _PERCENT.fullmatch(value)) is not None:
        return float(percent.group(1))
    return 0.0 if _ZERO_LENGTH.fullmatch(value) else -1000.0


def _unescape(escape: re.Match[str]) -> str:
    """One CSS escape as its character: ``\\6e`` (hex, a space after it eaten) is "n"."""
    if escape[1] is None:
        return escape[2]
    code = int(escape[1], 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def stylesheet_classes(tree: LexborHTMLParser) -> frozenset[str]:
    """The classes the page's own ``<style>`` rules hide (``.x{display:none}``, selectors
    of one class), read before the loader strips its styles."""
    found: set[str] = set()
    for node in tree.css("style"):
        for selectors, body in _RULE.findall(_COMMENT.sub("", node.text() or "")):
            if not style_hides(body.replace("\n", " ")):
                continue
            for selector in selectors.split(","):
                if (one := _CLASS_ONLY.fullmatch(selector.strip())) is not None:
                    found.add(one[1].lower())
    return frozenset(found)


@dataclass(frozen=True)
class Hints:
    """What a page says before the loader strips its buttons and styles
    (:func:`read_hints`): the ids its visible controls open, the classes its styles hide."""

    opened: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    tabs: bool = False  # whether the page has tabs (role="tab") to open its tab panels


def read_hints(tree: LexborHTMLParser) -> Hints:
    """The :class:`Hints` of ``tree`` (call before the loader strips buttons and styles)."""
    classes = stylesheet_classes(tree)
    return Hints(named_by_controls(tree, classes), classes, any(
        not is_hidden(tab, classes) and _INVISIBLE.sub("", tab.text(deep=True))
        for tab in tree.css('[role="tab"]')))  # a hidden, empty tab opens nothing (review)


def is_hidden(node: LexborNode, classes: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` itself is hidden from a sighted reader (not through an ancestor);
    ``classes``: those the page's own styles hide (:func:`stylesheet_classes`)."""
    return hides(node.attributes, classes)


def hides(attrs: Mapping[str, str | None], classes: frozenset[str] = frozenset()) -> bool:
    """Whether an element with ``attrs`` is hidden from a sighted reader."""
    if "hidden" in attrs and (attrs.get("hidden") or "").strip().lower() != "until-found":
        return True
    if style_hides(attrs.get("style") or ""):
        return True
    return any(c.lower() in UNSEEN_CLASSES or c.lower() in HIDING_CLASSES
               or c.lower() in classes for c in (attrs.get("class") or "").split())


def drop_hidden(tree: LexborHTMLParser, hints: Hints, whole_page: bool = True) -> int:
    """Remove the hidden text of ``tree`` a reader cannot open (see the module docstring);
    ``hints``: :func:`read_hints`, read before the loader strips buttons and styles;
    ``whole_page``: False for a fragment (a Markdown HTML block), whose hidden block is
    never "most of the page". Returns how many elements were dropped."""
    named = hints.opened
    candidates = [n for n in tree.css("[hidden], [style], [class]")
                  if is_hidden(n, hints.classes)]
    if not candidates:
        return 0
    root = tree.body or tree.root
    total = len(root.text(deep=True)) if root is not None and whole_page else 0
    dropped = Marks()
    for node in candidates:  # ancestors first
        if dropped.inside(node):
            continue
        if node.tag in INLINE_TAGS or not _openable(node, named, total, hints.tabs):
            dropped.mark(node)
    return dropped.remove()


def _openable(node: LexborNode, named: frozenset[str], total: int, tabs: bool) -> bool:
    attrs = node.attributes
    if tabs and (attrs.get("role") or "").lower() == "tabpanel":
        return True  # (a tab panel on a page with no tab opened by nothing: a review)
    ident = attrs.get("id")
    if ident and ident in named:
        return True
    return total > 0 and len(node.text(deep=True)) >= MOST * total


_WORD = re.compile(r"[\w.:-]+")


_INVISIBLE = re.compile(r"[\s\u200b-\u200f\u2060-\u2064\ufeff\u00ad]+")


def named_by_controls(tree: LexborHTMLParser,
                      classes: frozenset[str] = frozenset()) -> frozenset[str]:
    """Every id a control may open: ids named by control attributes and ``#id`` links, and
    each word of event handlers (``hideorshow("x1863","x1864")``). A control counts when it
    has text or is a form control, and is not inside the element it names (the review of
    this stop: an empty ``<a href="#sec">`` inside the hidden block it named kept it;
    ``label for`` names a form field and opens nothing), and is not hidden itself (by its
    own attributes, or a class of ``classes``) nor a hidden input. A control inside another
    hidden box counts: SQLite's syntax diagrams open inside one another."""
    named: set[str] = set()
    selector = ", ".join(f"[{a}]" for a in (*_CONTROL_ATTRS, *_HANDLERS)) + ", a[href^='#']"
    for node in tree.css(selector):
        if not (node.tag in _CONTROL_TAGS or _INVISIBLE.sub("", node.text(deep=True))):
            continue  # (a review's link of one zero-width space named a hidden block)
        if is_hidden(node, classes) or (node.attributes.get("type") or "").lower() == "hidden":
            continue  # a control no one sees opens nothing (a review)
        around = _ancestor_ids(node)
        if around is None:
            continue
        attrs = node.attributes
        ids = {i for name in _CONTROL_ATTRS
               for i in (attrs.get(name) or "").replace("#", " ").split()}
        ids.update(w for name in _HANDLERS for w in _WORD.findall(attrs.get(name) or ""))
        href = attrs.get("href") or ""
        if href.startswith("#"):
            ids.add(href[1:])
        named.update(ids - around)
    return frozenset(named)


MAX_CONTROL_DEPTH = 64
"""How far up a control is looked at for the element it names; a deeper control opens
nothing (it might be inside what it names)."""


def _ancestor_ids(node: LexborNode) -> set[str] | None:
    """The ids of ``node``'s ancestors; None past :data:`MAX_CONTROL_DEPTH` of them."""
    ids: set[str] = set()
    at = node.parent
    for _ in range(MAX_CONTROL_DEPTH):
        if at is None:
            return ids
        if not at.tag.startswith("-") and (ident := at.attributes.get("id")):
            ids.add(ident)
        at = at.parent
    return ids if at is None else None


_TAG = re.compile(r"""<\s*(/?)\s*([A-Za-z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(/?)\s*>""",
                  re.DOTALL)  # quoted values may hold ">" (the review of this stop)
_MAY_HIDE = re.compile(r"hidden|style|class", re.IGNORECASE)


def tag_hides(raw: str) -> tuple[str, bool] | None:
    """For one raw inline tag (Markdown's ``html_inline``): ``(name, hidden)`` of an opening
    tag, ``("/name", False)`` of a closing one, None for anything else (a comment, a void
    tag). A ``/`` before ``>`` closes nothing but a void element: a browser reads
    ``<span style="display:none"/>`` as an open, hidden span (the review of this stop)."""
    match = _TAG.fullmatch(raw.strip())
    if match is None:
        return None
    name = match.group(2).lower()
    if match.group(1):
        return "/" + name, False
    if name in _VOID:
        return None
    if name in NEVER_SHOWN:
        return name, True
    if not _MAY_HIDE.search(match.group(3)):
        return name, False  # no attribute that could hide it: no parse (a review: 30 µs a tag)
    element = LexborHTMLParser(f"<{name}{match.group(3)}></{name}>").css_first(name)
    return name, element is not None and hides(element.attributes)


NEVER_RENDERED = ("video", "audio", "datalist", "noembed", "noframes", "rp", "annotation",
                  "annotation-xml")
"""Elements whose content a browser draws for no reader: the fallback inside ``<video>`` and
``<audio>``, a ``<datalist>``'s options, ``<noembed>``, ``<noframes>``, ruby's ``<rp>``,
MathML's annotations (a security review's planted sentences in each were indexed)."""
NEVER_SHOWN = frozenset({"script", "style", "noscript", "template", "iframe", "svg", "title",
                         *NEVER_RENDERED})
"""Inline tags whose content a browser never shows as the paragraph's text (a security
review's ``<script>`` and ``<template>`` inside Markdown paragraphs were indexed)."""
_VOID = frozenset({"br", "img", "hr", "input", "wbr", "meta", "link", "source", "area",
                   "col", "embed", "param", "track"})
