"""The walk over a cleaned HTML page (:mod:`citewise.ingest.html` removed its chrome and
hidden text first): headings, paragraphs, code, lists, tables and loose text become blocks
through the document builder.

Anchors: a block's anchor is the ``id`` of its nearest enclosing element that has one, or of
its nearest enclosing *heading* that has one (``<h2 id>``, or an ``<a id|name>`` inside the
heading), whichever starts later in the document; an ``<a name>`` marker (or an empty
``<span id>`` where no id encloses it: Texinfo 6) acts as an id for the rest of its
container. Ids of page wrappers and chrome (``menu-bar``, ``content``, ``page-wrapper``…,
:mod:`citewise.ingest.html_chrome`) are never anchors: text above the first heading then has
``None`` (the page's top), so ``page.html#anchor`` always points at the block's own section.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborNode

from citewise.ingest.builder import DocumentBuilder
from citewise.ingest.html_chrome import is_chrome_id
from citewise.ingest.html_guard import INLINE_TAGS
from citewise.ingest.html_tables import is_layout_table, own_cells, table_rows
from citewise.ingest.html_terms import bold_line, short_term
from citewise.ingest.labels import is_label
from citewise.ingest.normalize import collapse, verbatim

SKIP_TAGS = frozenset({"nav", "aside", "form", "footer", "button", "select", "textarea",
                       "dialog", "canvas", "head", "title", "meta", "link"})
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_KEEP_HEADER_IN = ("article", "main")
_PERMALINK = re.compile(r"[#¶§\U0001F517\u2693\u200b\s]+")
"""Text of a heading's permalink (``#``, ``¶``, ``§``, a link or anchor emoji)."""
_LINK_WORD = re.compile(r"\[\w+\]")
"""A link's text that is one word in brackets: in a heading, a link to somewhere else."""
_MAX_DEPTH = 200
ADMONITIONS = frozenset({"note", "important", "warning", "tip", "caution", "danger",
                         "attention", "hint"})


def pre_text(node: LexborNode) -> str:
    """A ``<pre>``'s code, verbatim; several ``<code>`` children (Node.js puts an example's
    ESM and CommonJS variants in one ``<pre>``) are separated by a blank line instead of run
    together (``});const { createReadStream } = require('node:fs');``)."""
    codes = [c for c in node.iter() if c.tag == "code"]
    whole = node.text(deep=True)
    if len(codes) < 2 or "".join(whole.split()) != "".join(
            "".join(c.text(deep=True).split()) for c in codes):  # text outside the codes
        return verbatim(whole)
    return "\n\n".join(verbatim(c.text(deep=True)).strip("\n") for c in codes)


def heading_text(node: LexborNode) -> str:
    """A heading's text without its permalink: a link to a ``#fragment`` whose text is only a
    mark (``#``, ``¶``, ``§``, ``🔗``) at its start or end. Node.js's pages end every heading
    in ``<a class="mark" href="#…">#</a>``, which made citations read "Example: Read file
    stream line-by-Line#" and the .html copy of a page differ from its .md source. A block
    inside it starts a word: rustdoc's ``<div class="where">`` read "ToOwned for Twhere T:
    Clone" (2,056 of a new user's chunks)."""
    for block in node.css("div, p, br"):
        block.insert_before(" ")
    text = collapse(node.text(deep=True))
    for link in node.css('a[href^="#"]'):
        mark = collapse(link.text(deep=True))
        if not mark or not _PERMALINK.fullmatch(mark) or mark == text:
            continue
        if text.endswith(mark):
            text = text[: -len(mark)].rstrip()
        elif text.startswith(mark):
            text = text[len(mark):].lstrip()
    for link in node.css("a"):  # "Stream[src]": Node.js's link to its source, Sphinx's
        mark = collapse(link.text(deep=True))  # viewcode "[source]": at an end, not all
        if _LINK_WORD.fullmatch(mark) and mark != text:
            text = text[: -len(mark)].rstrip() if text.endswith(mark) else \
                text[len(mark):].lstrip() if text.startswith(mark) else text
    return text


def _is_permalink(node: LexborNode) -> bool:
    """A link to a ``#fragment`` whose text is only a permalink mark, beside a heading rather
    than in it (rustdoc's ``<a class="anchor">§</a>`` before each ``<h3>``, which ended the
    section above in "§")."""
    return (node.tag == "a" and (node.attrs.get("href") or "").startswith("#")
            and _PERMALINK.fullmatch(collapse(node.text(deep=True))) is not None)


def _anchor_of(node: LexborNode, *, heading: bool = False) -> str | None:
    """The element's own ``id`` (or ``name`` for ``<a>``), stripped; None when absent or a
    wrapper's (:func:`~citewise.ingest.html_chrome.is_chrome_id`) but on a heading or an
    anchor inside one (``heading``): Apache's ``<h2 id="header">Header Directive`` and
    ``<h2 id="main">Main Configuration Files`` lost their anchors, their citations opening
    the page's top."""
    value = node.id or (node.attrs.get("name") if node.tag == "a" else None)
    if not value or not value.strip() or (is_chrome_id(value) and not heading):
        return None
    return value.strip()


def _is_marker(node: LexborNode, scope: Scope) -> bool:
    """An ``<a>`` (``id`` or ``name``); or an empty ``<span id>`` in a container no id
    encloses (``scope``: the container's own): Texinfo 6 marks each node and section so in
    a page without other ids (``<span id="Description-1"></span><h3>1.1 Description</h3>``),
    where Sphinx's label targets and Texinfo 7's index entries sit inside a section that
    has its own."""
    return node.tag == "a" or (scope is None and node.tag == "span"
                               and not node.text(deep=True).strip())


def _trailing_marker(paragraph: LexborNode) -> str | None:
    """The id of an empty ``<a name|id>`` that ends ``paragraph`` (no text after it): it
    names what follows. SQLite's hand-written pages put ``<a name="timeout"></a>`` before
    ``<h3>The "timeout" method</h3>`` with the paragraph before still open, so the parser
    puts the marker inside it; 120 of its 2,213 sections lost their anchors (all 102 result
    codes cited at the page's first section)."""
    last = None
    for child in paragraph.iter(include_text=True):
        if child.tag == "-text":
            if (child.text_content or "").strip():
                last = None
        elif _is_element(child):
            last = child
    if last is None or last.tag != "a" or last.text(deep=True).strip() or \
            last.attrs.get("href"):
        return None
    return _anchor_of(last)


def _is_top_node(node: LexborNode, text: str) -> bool:
    """Texinfo's heading that only names the ``Top`` node (``<h1 class="node-heading">Top``,
    bc's manual): it put "Top" in every section's heading path, between the manual's title
    and its chapters."""
    return text == "Top" and "node-heading" in (node.attrs.get("class") or "").split()


def _is_element(node: LexborNode) -> bool:
    return not node.tag.startswith("-")


Scope = tuple[int, str] | None  # (sequence number where the id starts, the id)


class Walker:
    """Recursive descent over the DOM, emitting blocks through the builder.

    Anchor rule: of the nearest enclosing element with an id (or ``<a name>`` earlier in the
    same container) and the nearest enclosing heading with an id, the one that starts later
    in the document wins. Sequence numbers give "later". A heading without an id of its own
    takes that of an element opened after the previous heading and enclosing it, for the
    blocks up to the next heading (not for its subheadings, which may lie outside it):
    rustdoc wraps each item's heading alone in ``<section id="method.new">`` and puts its
    text after the section, which then was anchored at the list holding every method.
    """

    def __init__(self, builder: DocumentBuilder) -> None:
        self.builder = builder
        self.seq = 0
        self.headings: list[tuple[int, int, str | None, bool]] = []  # level, seq, id, adopted
        self.last_heading = 0  # seq of the last heading emitted
        self.term: tuple[str, str | None] | None = None  # a <dt> waiting for its text, own id
        self.labelled = False  # whether the container walked now opened a bold label

    def _scope(self, ident: str | None, outer: Scope) -> Scope:
        if not ident:
            return outer
        self.seq += 1
        return (self.seq, ident)

    def _anchor(self, scope: Scope) -> str | None:
        best = scope
        for depth, (_, seq, ident, adopted) in enumerate(reversed(self.headings)):
            if ident and (depth == 0 or not adopted):  # an adopted id is not inherited
                if best is None or seq > best[0]:
                    best = (seq, ident)
                break
        return best[1] if best else None

    def container(self, node: LexborNode, scope: Scope, depth: int,
                  in_article: bool = False) -> Scope:
        """Walk a container's children: flush loose inline text, dispatch block children.
        Returns the scope at its end (an ``<a name>`` marker inside it starts one)."""
        inline: list[str] = []
        entry = termed = scope  # termed: the scope a term's own anchor started
        outer, self.labelled = self.labelled, False
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                inline.append(child.text_content or "")
            elif not _is_element(child) or tag in SKIP_TAGS:
                continue
            elif tag in INLINE_TAGS:
                marker = _anchor_of(child) if _is_marker(child, scope=entry) else None
                if marker:
                    self._flush(inline, scope)
                    scope = self._scope(marker, scope)
                if not _is_permalink(child):
                    inline.append(child.text(deep=True))
            elif tag == "header" and not in_article:
                continue
            else:
                self._flush(inline, scope)
                if tag == "dt" and scope is termed:  # a term with no anchor of its own
                    scope = entry  # ends the one before's (a review: zsh's builtins all
                    # cited autoload's); a marker between them (SQLite's) still names it
                scope = self._block(child, scope, depth, in_article) or scope
                termed = scope if tag == "dt" else termed
        self._flush(inline, scope)
        if self.labelled:  # a bold label titles what follows it in this box only
            self._pending()
            self.builder.end_label()
        self.labelled = outer
        return scope

    def _flush(self, inline: list[str], scope: Scope) -> None:
        if inline:
            self._text(collapse("".join(inline)), self._anchor(scope))
            inline.clear()

    def _text(self, text: str, anchor: str | None) -> None:
        """A text block; a definition term waiting for its description opens it
        (:mod:`citewise.ingest.html_terms`)."""
        if self.term is not None and text.strip():
            (term, own), self.term = self.term, None
            text, anchor = f"{term}\n{text}", own or anchor  # as written: no added colon
        self.builder.add("text", text, anchor=anchor)

    def _pending(self) -> None:
        """A waiting term whose description is no paragraph: a block of its own."""
        if self.term is not None:
            (term, own), self.term = self.term, None
            self.builder.add("text", term, anchor=own)

    def _block(self, node: LexborNode, outer: Scope, depth: int,
               in_article: bool) -> Scope:
        """Emit one block-level element (or descend into a container); returns the scope an
        ``<a name>`` marker closing a paragraph starts for what follows (None: unchanged)."""
        tag = node.tag
        scope = self._scope(_anchor_of(node), outer)
        if tag == "dt":
            return self._entry(node, scope, depth, in_article)
        if tag not in ("p", "dd") and depth < _MAX_DEPTH:
            self._pending()
        if tag in HEADINGS and _is_admonition_title(node):
            self.builder.add("text", f"{heading_text(node).rstrip(':')}:",
                             anchor=self._anchor(scope))
        elif tag in HEADINGS:
            self._heading(node, HEADINGS[tag], scope)
        elif tag == "p" and (bold := bold_line(node)) is not None and self.term is None:
            self.builder.end_label()  # the next bold line ends a label, a label or not
            if is_label(bold) and ":" not in bold:  # "Default: off" is a value, quoted
                self.builder.label(bold, self._anchor(scope))
                self.labelled = True
            else:
                self._text(bold, self._anchor(scope))
        elif tag == "p" or depth >= _MAX_DEPTH:
            self._text(collapse(node.text(deep=True)), self._anchor(scope))
            return self._scope(_trailing_marker(node), None) if tag == "p" else None
        elif tag == "pre":
            self.builder.add("code", pre_text(node), anchor=self._anchor(scope))
        elif tag in ("ul", "ol"):
            self.builder.add("list", "\n".join(_list_lines(node, 0)), anchor=self._anchor(scope))
        elif tag == "table" and (box := _admonition_box(node)) is not None:
            for cell in own_cells(node):  # DocBook's note box: its word leads its text
                if collapse(cell.text(deep=True)).rstrip(":").lower() == box:
                    self._text(f"{collapse(cell.text(deep=True)).rstrip(':')}:",
                               self._anchor(scope))
                elif collapse(cell.text(deep=True)):  # (the icon's cell says nothing)
                    scope = self.container(cell, scope, depth + 1, in_article)
        elif tag == "table" and is_layout_table(node):
            for cell in own_cells(node):  # a marker in one cell names the cells after it
                scope = self.container(cell, scope, depth + 1, in_article)
        elif tag == "table":
            self._table(node, self._anchor(scope))
        else:
            self.container(node, scope, depth + 1, in_article or tag in _KEEP_HEADER_IN)
            if tag == "dd":
                self._pending()

    def _entry(self, node: LexborNode, scope: Scope, depth: int, in_article: bool) -> Scope:
        """A ``<dt>``: joined with its description when short (:func:`short_term`); a term
        with an anchor of its own (its id, or an ``<a name>`` inside it: Postfix's 879
        ``<dt><b><a name="message_size_limit">message_size_limit</a> (default: …)</b>``)
        anchors its description too, up to the next term (the scope returned)."""
        own = _anchor_of(node) or next(
            (a for inner in node.css("a[name], a[id]") if (a := _anchor_of(inner))), None)
        term = short_term(node, entry=own is not None)
        if term is not None:
            self._pending()
            self.term = (term, own or self._anchor(scope))
        else:
            if depth < _MAX_DEPTH:
                self._pending()
            self.container(node, scope, depth + 1, in_article)
        return self._scope(own, None) if own else None

    def _heading(self, node: LexborNode, level: int, scope: Scope) -> None:
        text = heading_text(node)
        if not text or _is_top_node(node, text):
            return
        inner = node.css_first("a[id], a[name]")
        own = _anchor_of(node, heading=True) or (
            _anchor_of(inner, heading=True) if inner is not None else None)
        adopted = own is None and scope is not None and scope[0] > self.last_heading
        if adopted:  # a wrapper opened for this heading: <section id><h4>…</section>
            own = scope[1]
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.seq += 1
        self.last_heading = self.seq
        self.headings.append((level, self.seq, own, adopted))
        self.builder.heading(text, level, anchor=own or self._anchor(scope), inherit=False)

    def _table(self, node: LexborNode, anchor: str | None) -> None:
        caption = node.css_first("caption")
        if caption is not None:
            self.builder.add("text", collapse(caption.text(deep=True)), anchor=anchor)
        rows, header_lines = table_rows(node)
        self.builder.add("table", "\n".join(rows), anchor=anchor, header_lines=header_lines)


def _admonition_box(table: LexborNode) -> str | None:
    """The word of the note box ``table`` lays out, or None: DocBook's HTML puts each note,
    tip or caution in a table (``<div class="caution"><table summary="Caution">``, an icon
    whose ``alt`` is "[Caution]", the word in a ``<th>``, the text below). Read as a table,
    the Debian Reference's 122 boxes were "[Caution] | Caution" rows above their text."""
    parent = table.parent
    classes = set(((parent.attrs.get("class") if parent is not None else None)
                   or "").lower().split())
    summary = (table.attrs.get("summary") or "").strip().lower()
    return summary if summary in ADMONITIONS and summary in classes else None


def _is_admonition_title(node: LexborNode) -> bool:
    """A heading that only titles a note box (DocBook's ``<div class="note"><h3
    class="title">Note</h3>``): not a section. A new user's answers cited "xsltproc ›
    OPTIONS › Note" for three options, and "Important The given directory must already
    exist." was a chunk of its own, second for an unrelated question. Its word leads the
    box's text instead ("Note:", kept with it by the chunker)."""
    word = heading_text(node).rstrip(":").strip().lower()
    parent = node.parent
    classes = set(((parent.attrs.get("class") if parent is not None else None)
                   or "").lower().split())
    return word in ADMONITIONS and word in classes


def _list_lines(node: LexborNode, depth: int) -> list[str]:
    """``- item`` (or ``3. item``) lines; nested lists, ``pre`` and tables indented under
    their item, in their place: text after them is a line of its own, indented too (BIND's
    "A simple primaries definition:", its record, then "This custom property defines…")."""
    ordered = node.tag == "ol"
    number = _int_attr(node, "start", 1)
    indent = "  " * depth
    lines: list[str] = []
    for item in node.iter():
        if item.tag != "li":
            continue
        marker = f"{number}." if ordered else "-"
        number += 1
        own: list[str] = []  # the item's lines
        parts: list[str] = []  # its text since the last block
        for child in _item_children(item):
            if child.tag in ("ul", "ol", "pre", "table"):
                _said(own, parts, f"{indent}{marker} ", f"{indent}  ")
            if child.tag in ("ul", "ol") and depth < _MAX_DEPTH:
                own.extend(_list_lines(child, depth + 1))
            elif child.tag in ("pre", "table"):
                shown = pre_text(child).split("\n") if child.tag == "pre" else \
                    table_rows(child)[0]
                own.extend(f"{indent}  {line}".rstrip() for line in shown)
            elif child.tag == "-text":
                parts.append(child.text_content or "")
            elif _is_element(child) and child.tag not in SKIP_TAGS:
                text = child.text(deep=True)
                parts.append(text if child.tag in INLINE_TAGS else f" {text} ")
        _said(own, parts, f"{indent}{marker} ", f"{indent}  ")
        lines.extend(own)
    return lines


def _said(own: list[str], parts: list[str], first: str, later: str) -> None:
    """Add the text gathered in ``parts`` to the item's lines ``own`` (the item's line
    opens with ``first``, a later one, after a block, with ``later``) and clear it."""
    text = collapse("".join(parts))
    parts.clear()
    if not own:
        own.append(f"{first}{text}".rstrip())
    elif text:
        own.append(f"{later}{text}")


_WRAPPERS = frozenset({"div", "blockquote", "section", "figure", "article"})
_MAX_WRAPPERS = 4  # Sphinx's are two deep; each costs a search of the wrapper's subtree


def _item_children(item: LexborNode, depth: int = 0) -> Iterator[LexborNode]:
    """A list item's children, and the children of a block wrapper holding code, a table or
    a list, in their place: Sphinx wraps each example in ``<div class="highlight-…"><div
    class="highlight"><pre>``, and a new user of Knot DNS's manual found kdig's examples
    and the migration tables of numbered steps run into one line of prose (Exim's manual:
    112 of its 1,153 examples)."""
    for child in item.iter(include_text=True):
        if depth < _MAX_WRAPPERS and child.tag in _WRAPPERS and \
                child.css_first("pre, table, ul, ol") is not None:
            yield from _item_children(child, depth + 1)
        else:
            yield child


def _int_attr(node: LexborNode, name: str, default: int) -> int:
    try:
        return int((node.attrs.get(name) or "").strip())
    except ValueError:
        return default
