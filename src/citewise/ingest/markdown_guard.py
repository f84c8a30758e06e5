"""Markdown parsed within bounds: what keeps a hostile ``.md`` from costing minutes or
gigabytes (:mod:`citewise.ingest.markdown` reads the tokens). Nesting past
``limits.max_nesting`` and more list items, cells and links than ``limits.max_blocks`` allow
are refused with a one-line error; a paragraph whose link-label scans would be quadratic
keeps its text without inline markup."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from citewise.errors import LimitExceededError
from citewise.ingest.myst import looks_like_myst, use_myst


def parse_bounded(body: str, max_nesting: int) -> list[Token]:
    """markdown-it tokens of ``body``, refusing nesting deeper than ``max_nesting``.

    markdown-it stops descending at its ``maxNesting`` option and silently drops everything
    deeper (a 9 MB nested list became 154 characters). Parsing with two spare levels shows
    whether anything reached the limit: then the document is refused, never cut."""
    md = MarkdownIt("commonmark", {"maxNesting": max_nesting + 2}).enable("table")
    if looks_like_myst(body):
        use_myst(md)
    md.core.ruler.at("inline", _bounded_inline)
    try:
        tokens = md.parse(body)
    except RecursionError:
        tokens = None
    if tokens is None or _deepest(tokens) >= max_nesting:
        raise LimitExceededError(
            f"the Markdown nests lists/quotes/markup more than {max_nesting} levels deep "
            "(limits.max_nesting); flatten it or raise limits.max_nesting")
    return tokens


PARTS_PER_BLOCK = 2
"""List items, table cells and links a Markdown file may hold per allowed block
(``limits.max_blocks``): 100,000 by default."""
_ITEM_LINE = re.compile(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)


def count_parts(body: str) -> int:
    """An upper estimate of the list items, table cells and links in ``body``: what makes
    markdown-it's token stream large (about 2 KB of memory each)."""
    return len(_ITEM_LINE.findall(body)) + body.count("|") + body.count("](")


def check_parts(body: str, max_blocks: int) -> None:
    """Refuse, before parsing, a body whose :func:`count_parts` is over
    :data:`PARTS_PER_BLOCK` × ``max_blocks``. A security review's 6 KB ``.md.gz`` of 1.5
    million ``- a`` lines took 100 s and 3.4 GB of a server's memory to parse (markdown-it
    builds several objects per item), and ``max_blocks`` was only checked after the parse
    (a list is one block); 100,000 items parse in about 7 s. Rust's ``releases.md`` has
    about 12,000."""
    limit = PARTS_PER_BLOCK * max_blocks
    parts = count_parts(body)
    if parts > limit:
        raise LimitExceededError(
            f"the Markdown has about {parts:,} list items, table cells and links, over "
            f"{limit:,} ({PARTS_PER_BLOCK} per block of limits.max_blocks); split the file "
            "or raise limits.max_blocks")


INLINE_NESTING = 32
"""Nesting allowed inside a paragraph (links in emphasis in links...). markdown-it uses one
``maxNesting`` for blocks and inlines, and its link-label scan recurses up to it: with the
block limit (256) a paragraph of 400 ``[`` took 72 ms, with 32 under 10 ms. Deeper inline
markup is kept as text, not dropped."""
MAX_OPEN_BRACKETS = 8
LABEL_SCAN_PER_CHAR, LABEL_SCAN_FLOOR = 64, 65_536
"""markdown-it scans from every ``[`` to its ``]`` (to the end of the paragraph when there is
none): 200 KB of ``[`` took 94 s. A paragraph with more than :data:`MAX_OPEN_BRACKETS`
unclosed ``[``, or whose scans would pass ``64 × its length + 65,536`` characters in all,
keeps its text as is, without inline markup (links, emphasis)."""
_BRACKETS = re.compile(r"\\.|[\[\]]")


def label_scan_cost(text: str) -> tuple[int, int]:
    """``(characters markdown-it's link-label parser would scan, unclosed [ count)`` for
    ``text``: from each ``[`` to its matching ``]``, or to the end when unmatched (escaped
    brackets skipped)."""
    opened: list[int] = []
    cost = 0
    for m in _BRACKETS.finditer(text):
        if m.group() == "[":
            opened.append(m.start())
        elif m.group() == "]" and opened:
            cost += m.start() - opened.pop()
    return cost + sum(len(text) - start for start in opened), len(opened)


def _bounded_inline(state: StateCore) -> None:
    """markdown-it's ``inline`` core rule with :data:`INLINE_NESTING`, except that a paragraph
    over the bracket limits becomes one text token (its words kept, its markup not parsed)."""
    options = state.md.options
    block_nesting, options["maxNesting"] = options["maxNesting"], INLINE_NESTING
    try:
        for token in state.tokens:
            if token.type != "inline":
                continue
            if token.children is None:
                token.children = []
            if "[" in token.content and _too_costly(token.content):
                token.children.append(Token("text", "", 0, content=token.content))
            else:
                state.md.inline.parse(token.content, state.md, state.env, token.children)
    finally:
        options["maxNesting"] = block_nesting


def _too_costly(text: str) -> bool:
    cost, unclosed = label_scan_cost(text)
    return unclosed > MAX_OPEN_BRACKETS or cost > LABEL_SCAN_PER_CHAR * len(text) + \
        LABEL_SCAN_FLOOR


def _deepest(tokens: Sequence[Token]) -> int:
    deepest = 0
    for token in tokens:
        deepest = max(deepest, token.level)
        for child in token.children or ():
            deepest = max(deepest, token.level + child.level)
    return deepest
