"""Bounds checked on HTML before it is parsed, so a hostile page costs linear time.

The HTML parser (lexbor) spends time proportional to the depth of open elements on every tag
and is quadratic in the options of one ``<select>``: 1.2 MB of unclosed nesting parsed in
250 s, 100k options in 137 s. :func:`check_nesting` refuses pages nested deeper than
``limits.max_nesting`` in one linear pass, and :func:`drop_selects` removes select elements
(form controls, never indexed) before parsing.
"""

from __future__ import annotations

import re

from citewise.errors import LimitExceededError

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr", "basefont", "bgsound", "frame", "keygen"})
INLINE_TAGS = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn",
    "em", "font", "i", "img", "ins", "kbd", "label", "mark", "q", "s", "samp", "small",
    "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "picture"})
"""Phrasing elements: read as running text, and not counted by :func:`check_nesting` (their
nesting costs the parser little; code walking the tree must not be quadratic in it:
:mod:`citewise.ingest.html_marks`)."""
_RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "plaintext")
# A start tag of the key closes an open element of the value, up to the nearest boundary.
_IMPLIED_END = {"li": (("li",), ("ul", "ol")), "dt": (("dt", "dd"), ("dl",)),
                "dd": (("dt", "dd"), ("dl",)), "tr": (("tr",), ("table",)),
                "td": (("td", "th"), ("table",)), "th": (("td", "th"), ("table",)),
                "option": (("option",), ("select",)), "p": (("p",), ())}
_CLOSES_P = frozenset({
    "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "main", "menu", "nav", "ol", "p", "pre", "section", "table", "ul", "li", "dd", "dt"})
_TAG = re.compile(r"<!--|<(/?)([A-Za-z][^\s/>]*)")
_COMMENT_END = re.compile(r"--!?>")
_TAG_REST = re.compile(r"""(?:[^>"']|"[^"]*"|'[^']*')*>""")
_QUOTE = re.compile("[\"']")
_FOREIGN = frozenset({"svg", "math"})
"""Inside SVG or MathML, ``<style>`` and ``<title>`` are elements, not raw text: the guard
must not skip what they hold."""


def check_nesting(text: str, limit: int, inline: frozenset[str] = frozenset()) -> None:
    """Refuse HTML whose elements nest deeper than ``limit`` (unclosed tags, usually), before
    parsing it: the HTML parser spends time proportional to the depth of open elements on
    every tag, so 100k unclosed ``<ul><li>`` take minutes. One linear pass over the tags with
    an approximate stack: void elements never open, an end tag closes up to its element,
    ``<li>``, ``<p>``, ``<td>``, ``<tr>``, ``<dt>``/``<dd>``, ``<option>`` close an open
    sibling, comments and raw-text elements (script, style... outside SVG and MathML) are
    skipped (to their end; one never closed is read on), and so are the
    ``inline`` (phrasing) elements, whose nesting costs the parser little. Raises
    :class:`LimitExceededError`."""
    stack: list[str] = []
    skip_to = 0  # inside a comment or a raw-text element until here
    unclosed: set[str] = set()  # raw-text names ("--": comments) with no end left in text
    for m in _TAG.finditer(text):
        if m.start() < skip_to:
            continue
        name = m.group(2)
        if name is None:  # "<!--"
            skip_to = _comment_end(text, m.end(), "--" in unclosed)
            if skip_to == m.end():
                unclosed.add("--")  # none closes later either: never search again
            continue
        name = name.lower()
        if m.group(1):  # an end tag
            if name in stack:
                del stack[len(stack) - 1 - stack[::-1].index(name):]
            continue
        if name in _RAW_TEXT and not _FOREIGN.intersection(stack):
            end = -1 if name in unclosed else _find_end_tag(text, name, m.end())
            if end < 0:  # never closed: read on, what follows is guarded (and the next
                unclosed.add(name)  # <script> is not searched for an end again)
            skip_to = max(end, skip_to)
            continue
        if name in _VOID or name in inline:  # inline nesting costs the parser little
            continue
        if (name in _FOREIGN or "svg" in stack or "math" in stack) and \
                _self_closed(text, m.end()):  # <svg …/>, and <circle …/> inside one,
            continue  # open nothing (SQLite's syntax diagrams: 409 shapes, 19 pages refused)
        _close_implied(stack, name)
        stack.append(name)
        if len(stack) > limit:
            raise LimitExceededError(
                f"the HTML nests elements more than {limit} levels deep (unclosed tags?) "
                "(limits.max_nesting); close the tags or raise limits.max_nesting")


def _self_closed(text: str, start: int) -> bool:
    """Whether the start tag whose name ends at ``start`` closes itself ("<svg …/>"): in
    SVG and MathML it does (a review's page with an empty ``<svg/>`` icon then had its
    script read as tags, and was refused)."""
    close = text.find(">", start, start + 4096)  # in C: a security review's run of
    if close < 0:  # "<svg " tags without ">" cost 36 µs a byte read by the pattern
        return False
    if not _QUOTE.search(text, start, close):
        return text[close - 1] == "/"
    end = _TAG_REST.match(text, start, start + 1024)  # quoted values may hold ">"; a
    return end is not None and end.group().endswith("/>")  # start tag is shorter (a review)


def _comment_end(text: str, start: int, none_left: bool = False) -> int:
    """Where the comment opened before ``start`` ends, as HTML5 reads it: "<!-->" and
    "<!--->" are whole (empty) comments, others end at "-->" or "--!>". A review put
    "<!-->" before 80,000 unclosed ``<ul><li>``: the guard skipped to a "-->" that never
    came and stopped, while the parser read them all (70 s for 1.5 KB gzipped). A comment
    never closed is read on (guarded), not skipped."""
    if text.startswith(">", start):
        return start + 1
    if text.startswith("->", start):
        return start + 2
    end = None if none_left else _COMMENT_END.search(text, start)
    return end.end() if end else start


def _find_end_tag(text: str, name: str, start: int) -> int:
    """Offset of ``</name`` (any case) after ``start``, or -1."""
    m = re.compile(f"</{name}", re.IGNORECASE).search(text, start)
    return m.start() if m else -1


_SELECT_OPEN = re.compile(r"<select\b", re.IGNORECASE)
_SELECT_CLOSE = re.compile(r"</select\s*>", re.IGNORECASE)


def drop_selects(text: str) -> str:
    """``text`` without its ``<select>`` elements (to the end when one is never closed). They
    are never indexed (form controls), and the parser is quadratic in the options of one
    select: 100k ``<option>`` took minutes."""
    if not _SELECT_OPEN.search(text):
        return text
    parts: list[str] = []
    pos = 0
    while (m := _SELECT_OPEN.search(text, pos)) is not None:
        parts.append(text[pos:m.start()])
        end = _SELECT_CLOSE.search(text, m.end())
        if end is None:
            return "".join(parts)
        pos = end.end()
    parts.append(text[pos:])
    return "".join(parts)


def _close_implied(stack: list[str], name: str) -> None:
    """Pop what a start tag ``name`` implicitly closes (see :func:`check_nesting`)."""
    if stack and stack[-1] == "p" and name in _CLOSES_P:
        stack.pop()
    closes, boundary = _IMPLIED_END.get(name, ((), ()))
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] in closes:
            del stack[i:]
            return
        if stack[i] in boundary:
            return
