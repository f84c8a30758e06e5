"""Markdown loader: CommonMark + GFM tables via markdown-it-py, with YAML front matter.

Blocks: headings (anchor = GitHub-style slug), paragraphs, lists (one item per line,
``- item`` or ``3. item``, nested items indented by two spaces), fenced/indented code
(verbatim, language dropped), tables (``a | b`` rows, ``header_lines`` = header rows) and
raw HTML blocks (their text). Every block's anchor is the slug of its nearest enclosing
heading, so ``file.md#anchor`` opens that section on GitHub/GitLab. A heading that an empty
HTML anchor names (``<a id="1.47-Compiler"></a>`` alone just before it, or inside it) takes that
id instead: Rust's ``releases.md`` has 200 "Compiler" sections, whose slugs (``compiler-57``)
depend on how a renderer numbers repeats, while its own ids are stable.

The walk is over markdown-it's flat token stream (open/close pairs with ``nesting`` and
``map`` line ranges), which is about twice as fast as building its syntax tree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from markdown_it.token import Token

from citewise.ingest.builder import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_NESTING,
    DocumentBuilder,
    pick_title,
)
from citewise.ingest.content import decode_text
from citewise.ingest.doc_names import name_title
from citewise.ingest.html import fragment_text
from citewise.ingest.html_hidden import tag_hides
from citewise.ingest.labels import is_label
from citewise.ingest.link_text import spelled_out
from citewise.ingest.markdown_guard import check_parts, parse_bounded
from citewise.ingest.metadata import split_front_matter
from citewise.ingest.myst import fence_directive
from citewise.ingest.normalize import collapse, verbatim
from citewise.ingest.roles import role_text
from citewise.ingest.slug import Slugger
from citewise.types import BlockKind, ParsedDocument

MAX_DIRECTIVE_DEPTH = 8
"""MyST directive fences read inside each other before the rest is kept as plain text."""
_LIST_OPEN = ("bullet_list_open", "ordered_list_open")
_CODE = ("fence", "code_block")
_LEAVES = ("text", "code_inline", "text_special")
_BREAKS = ("softbreak", "hardbreak")
_EMPTY_ANCHOR = re.compile(
    r"""<a\s+(?:[^>]*?\s)?(?:id|name)\s*=\s*["']([^"'<>\s]+)["'][^>]*>\s*</a>""",
    re.IGNORECASE)
"""An empty HTML anchor (``<a id="x"></a>``, ``<a name="x"></a>``): a link target, no text."""


class MarkdownLoader:
    """Loads ``.md``/``.markdown`` files; see the module docstring for the block rules."""

    format = "markdown"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS,
                 max_nesting: int = DEFAULT_MAX_NESTING) -> None:
        self.max_blocks = max_blocks
        self.max_nesting = max_nesting

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """Parse Markdown bytes (decoded by :func:`decode_text`); raises IngestError for bad
        bytes or front matter, and LimitExceededError for nesting deeper than
        ``max_nesting``."""
        text = decode_text(data, "Markdown")
        metadata, body, _ = split_front_matter(text)
        named, body = pandoc_title(body)
        if named and not metadata.get("title"):
            metadata = {**metadata, "title": named}
        check_parts(body, self.max_blocks)
        tokens = parse_bounded(body, self.max_nesting)
        builder = DocumentBuilder(self.max_blocks)
        _Walker(builder, tokens, self.max_nesting).walk()
        several = sum(t.type == "heading_open" and t.tag == "h1" for t in tokens) > 1
        title = pick_title(metadata.get("title"), page_name(path) if several else None,
                           builder.first_heading(1), page_name(path), builder.first_heading(),
                           fallback=name_title(path))
        return builder.build(
            title=title, fmt=self.format, metadata=metadata,
            empty_hint="the Markdown has no body text (front matter alone is not indexed)")


def page_name(path: Path) -> str | None:
    """The title MkDocs gives a page with no ``# heading`` and no title of its own: its file
    name, words apart, the first capitalised (``event-hooks.md``: "Event hooks"; a short
    word without vowels in capitals: "SSL"). httpx's ``advanced/timeouts.md`` opens with
    two sentences and then "## Setting and disabling timeouts", which was the title of the
    whole page: citations read "Setting and disabling timeouts › Fine tuning the
    configuration", and authentication.md was titled "Basic authentication". None for an
    ``index`` or ``README`` page, whose name says nothing (its first heading is used). Also
    the title of a page with several ``#`` headings, which its first does not name: man-db's
    NEWS.md has one per release, and every release's notes, back to 1995's, were cited as
    "man-db 2.11.2 (8 January 2023) › …"."""
    stem = path.name.split(".")[0]
    if stem.lower() in ("index", "readme", "") or not stem[0].isalpha():
        return None
    words = [w for w in re.split(r"[-_\s]+", stem) if w]
    words = [w.upper() if len(w) <= 3 and w.isalpha() and not set(w.lower()) & set("aeiouy")
             else w for w in words]
    return " ".join([words[0][0].upper() + words[0][1:], *words[1:]]) if words else None


def pandoc_title(body: str) -> tuple[str | None, str]:
    """``(title, body without it)`` of a Pandoc title block: up to three ``% `` lines at the
    top (title, authors, date). Rust's ``releases.md`` opens with ``% Rust Release Notes``,
    which was indexed as text while its first version heading, "Version 1.95", became the
    title of every release's notes."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith("% "):
        return None, body
    end = 1
    while end < min(3, len(lines)) and lines[end].startswith("% "):
        end += 1
    return lines[0][2:].strip() or None, "\n".join(lines[end:])


class _Walker:
    """Turns the token stream into builder calls, in document order."""

    def __init__(self, builder: DocumentBuilder, tokens: Sequence[Token],
                 max_nesting: int = DEFAULT_MAX_NESTING, depth: int = 0) -> None:
        self.builder = builder
        self.tokens = tokens
        self.max_nesting, self.depth = max_nesting, depth
        self.slugger = Slugger()
        self.named: str | None = None  # the id an anchor-only HTML block gave the next block

    def walk(self) -> None:
        """Emit every block of the token stream (lists and tables consumed whole)."""
        tokens, index = self.tokens, 0
        while index < len(tokens):
            token = tokens[index]
            kind = token.type
            named, self.named = self.named, None
            if kind == "heading_open":
                self._heading(token, tokens[index + 1], named)
            elif kind in ("paragraph_open", "html_block") and \
                    (anchor := _anchor_only(tokens, index)):
                self.named = anchor
                index += 2 if kind == "paragraph_open" else 0  # to its close: named is kept
            elif kind == "paragraph_open" and token.level == 0 and \
                    (label := _bold_label(tokens[index + 1])):
                self.builder.label(label)
            elif kind == "paragraph_open":
                self._add("text", collapse(inline_text(tokens[index + 1])))
            elif kind == "myst_target":
                self.named = token.content.strip() or None
            elif kind == "fence" and (directive := fence_directive(token)):
                self._directive(*directive)
            elif kind in _CODE:
                self._add("code", verbatim(token.content))
            elif kind == "html_block":
                self._add("text", collapse(fragment_text(token.content)))
            elif kind in _LIST_OPEN:
                close = _close_of(tokens, index)
                if not is_contents(tokens[index:close]):
                    self._add("list", "\n".join(self._list_lines(index, close, 0)))
                index = close
            elif kind == "table_open":
                close = _close_of(tokens, index)
                self._table(index, close)
                index = close
            index += 1  # containers (blockquote) fall through to their children

    def _directive(self, kind: str, label: str, body: str) -> None:
        """A MyST directive fence: dropped, code, or its label and Markdown content."""
        if kind == "code":
            self._add("code", body)
        elif kind == "text":
            if label:
                self._add("text", collapse(label))
            if self.depth >= MAX_DIRECTIVE_DEPTH:  # fences in fences in fences…: plain text
                self._add("text", body)
                return
            inner = _Walker(self.builder, parse_bounded(body, self.max_nesting),
                            self.max_nesting, self.depth + 1)
            inner.slugger = self.slugger
            inner.walk()

    def _add(self, kind: BlockKind, text: str, header_lines: int = 0) -> None:
        self.builder.add(kind, text, anchor=self.builder.section_anchor,
                         header_lines=header_lines)

    def _heading(self, token: Token, inline: Token, named: str | None) -> None:
        text = collapse(inline_text(inline))
        if text:
            slug = self.slugger.slug(text)  # counted even when unused: later repeats' numbers
            inside = _EMPTY_ANCHOR.findall("".join(
                c.content for c in inline.children or () if c.type == "html_inline"))
            self.builder.heading(text, int(token.tag[1]),
                                 anchor=(inside[0] if inside else None) or named or slug)

    def _list_lines(self, start: int, close: int, depth: int) -> list[str]:
        """Lines for the list whose open/close tokens are at ``start``/``close``."""
        tokens = self.tokens
        ordered = tokens[start].type == "ordered_list_open"
        number = _start_number(tokens[start])
        indent = "  " * depth
        lines: list[str] = []
        index = start + 1
        while index < close:
            item_close = _close_of(tokens, index)
            parts, nested = self._item(index + 1, item_close, depth)
            marker = f"{number}." if ordered else "-"
            number += 1
            lines.append(f"{indent}{marker} {' '.join(p for p in parts if p)}".rstrip())
            lines.extend(nested)
            index = item_close + 1
        return lines

    def _item(self, index: int, close: int, depth: int) -> tuple[list[str], list[str]]:
        """The text parts and the nested lines (sub-lists, code) of one list item; a
        paragraph after a sub-list or code is a nested line where it stands (Node.js's
        "1. The first line should: [rules] Examples: [examples]" read "1. The first line
        should: Examples:" over the rules, the example commit titles as rules)."""
        parts: list[str] = []
        nested: list[str] = []
        prefix = "  " * (depth + 1)
        while index < close:
            token = self.tokens[index]
            text = None
            if token.type in _LIST_OPEN:
                sub_close = _close_of(self.tokens, index)
                nested.extend(self._list_lines(index, sub_close, depth + 1))
                index = sub_close
            elif token.type in _CODE:
                nested.extend(f"{prefix}{line}".rstrip()
                              for line in verbatim(token.content).split("\n"))
            elif token.type == "inline":
                text = collapse(inline_text(token))
            elif token.type == "html_block":
                text = collapse(fragment_text(token.content))
            if text and nested:
                nested.append(f"{prefix}{text}")
            elif text is not None:
                parts.append(text)
            index += 1
        return parts, nested

    def _table(self, start: int, close: int) -> None:
        rows: list[str] = []
        cells: list[str] = []
        header_lines = 0
        in_head = False
        for token in self.tokens[start + 1:close]:
            if token.type in ("thead_open", "thead_close"):
                in_head = token.type == "thead_open"
            elif token.type == "inline":
                cells.append(collapse(inline_text(token)))
            elif token.type == "tr_close":
                rows.append(" | ".join(cells))
                header_lines += in_head
                cells = []
        self._add("table", "\n".join(rows), header_lines=header_lines)


def _bold_label(inline: Token) -> str | None:
    """The text of a paragraph that is one bold span reading as a label
    (:func:`citewise.ingest.labels.is_label`: "**Example 1: …**"), else None."""
    children = [c for c in inline.children or () if not (c.type == "text" and
                                                          not c.content.strip())]
    if len(children) < 3 or children[0].type != "strong_open" or \
            children[-1].type != "strong_close" or \
            sum(c.type == "strong_close" and c.level == children[0].level
                for c in children) != 1:
        return None
    text = collapse(inline_text(inline))
    return text if is_label(text) else None


def _anchor_only(tokens: Sequence[Token], index: int) -> str | None:
    """The id of the paragraph or HTML block at ``index`` when it holds nothing but empty
    anchors (``<a id="x"></a>`` alone on a line is a paragraph to CommonMark), else None."""
    token = tokens[index]
    if token.type == "paragraph_open":
        children = tokens[index + 1].children or ()
        if any(c.type not in ("html_inline", *_BREAKS) and c.content.strip()
               for c in children):
            return None
        raw = "".join(c.content for c in children if c.type == "html_inline")
    else:
        raw = token.content
    ids = _EMPTY_ANCHOR.findall(raw)
    return ids[-1] if ids and not _EMPTY_ANCHOR.sub("", raw).strip() else None


def is_contents(tokens: Sequence[Token]) -> bool:
    """Whether a list (its tokens) is the page's table of contents: two items or more, each
    only a link to a section of this page (``* [Issues](#issues)``). Indexed, it was quoted
    as the answer: a new user's "what do I certify under the Developer's Certificate of
    Origin?" got "- Developer's Certificate of Origin 1.1 [1]" from Node's CONTRIBUTING.md
    contents list; the sections themselves are indexed."""
    items = [t for t in tokens if t.type == "inline"]
    return len(items) >= 2 and all(_only_a_fragment_link(t) for t in items)


def _only_a_fragment_link(inline: Token) -> bool:
    children = inline.children or ()
    links = [c for c in children if c.type == "link_open"]
    inside, ok = 0, True
    for child in children:
        inside += child.type == "link_open"
        inside -= child.type == "link_close"
        if not inside and child.type not in ("link_open", "link_close", *_BREAKS) and \
                child.content.strip():
            ok = False  # words outside the link
    return ok and len(links) == 1 and str(links[0].attrs.get("href") or "").startswith("#")


def inline_text(token: Token) -> str:
    """The visible text of an inline token: markup dropped, image alt text kept, a link
    whose text only says where with its URL (:mod:`citewise.ingest.link_text`)."""
    out: list[str] = []
    opened: list[tuple[int, str]] = []  # (where a link's text starts in out, its href)
    hiding: list[str] = []  # the open inline tags of hidden text (html_hidden.tag_hides)
    for child in token.children or ():
        kind = child.type
        if kind == "html_inline":
            _follow_hiding(hiding, child.content)
        elif hiding:
            continue  # text a browser does not show (``<span hidden>…</span>``)
        elif kind in _LEAVES:
            out.append(child.content)
        elif kind == "link_open":
            opened.append((len(out), str(child.attrs.get("href") or "")))
        elif kind == "link_close" and opened:  # "[here](https://…)" keeps its URL
            start, href = opened.pop()
            spelled = spelled_out("".join(out[start:]), href)
            if spelled is not None:
                out[start:] = [spelled]
        elif kind == "myst_role":
            out.append(role_text(str(child.meta.get("name", "")), child.content))
        elif kind in _BREAKS:
            out.append(" ")
        elif kind == "image":
            out.append(inline_text(child))
    return "".join(out)


def _follow_hiding(hiding: list[str], raw: str) -> None:
    """Track which inline tags hide the text after them: an opening tag that hides it (or
    any tag inside one) is pushed, its closing tag pops it."""
    tag = tag_hides(raw)
    if tag is None:
        return
    name, hidden = tag
    if name.startswith("/"):
        if name[1:] in hiding:  # a browser closes what is open inside it too: the review's
            del hiding[len(hiding) - 1 - hiding[::-1].index(name[1:]):]  # </span> of
    elif hidden or hiding:  # "<span hidden><i>x</span></i> shown" ended the hidden text
        hiding.append(name)


def _close_of(tokens: Sequence[Token], start: int) -> int:
    """Index of the token closing the one opened at ``start`` (by ``nesting``)."""
    depth = 0
    for index in range(start, len(tokens)):
        depth += tokens[index].nesting
        if depth == 0:
            return index
    return len(tokens) - 1


def _start_number(token: Token) -> int:
    try:
        return int(token.attrGet("start") or 1)
    except (TypeError, ValueError):
        return 1
