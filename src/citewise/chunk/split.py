"""Split one block that is alone larger than ``chunk_tokens`` into several drafts.

``lead`` is the run of blocks that must open the first draft (the section's heading lines, a
lead-in ending in ``:``; see :mod:`~citewise.chunk.pack`). It is joined to the block's first
unit, so it opens the first draft and is never a draft of its own or repeated.

* **Prose** (``text``, ``list``): cut into units, each counted once — a list by lines, then
  sentences, then words; text by sentences, then words — refining only units still larger
  than ``chunk_tokens``. Windows of ≤ ``chunk_tokens`` with ≈ ``overlap_tokens`` overlap
  are planned from the unit counts (:func:`~citewise.chunk.window.plan_balanced`). A window's
  text is the slice from its first unit's start to its last unit's end.
* **Code**: cut between top-level statements (:func:`~citewise.chunk.spans.statement_spans`);
  a statement alone over the budget between the statements of its body (a class's methods,
  a dict's entries), and only then between lines; windows without overlap. A single line
  longer than the budget is cut by characters.
* **Table**: cut between rows only. Every draft starts with the ``header_lines`` header rows.
  The first draft is a contiguous slice (lead + header + its rows). A continued draft's
  ``text`` is ``header + "\\n" + rows`` while ``start``/``end`` span only its rows, so its text
  is *not* a slice of the document. Budgets: header + rows (+ lead for the first) ≤
  ``chunk_tokens``, at least one row per draft.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citewise.chunk.draft import Counted, Draft, Section
from citewise.chunk.spans import (
    Span,
    inner_statement_spans,
    line_spans,
    sentence_spans,
    statement_spans,
    word_spans,
)
from citewise.chunk.window import group_greedy, plan_balanced
from citewise.types import Block

Count = Callable[[str], int]
Splitter = Callable[[str, int, int], list[Span]]
_PROSE_SPLITTERS: dict[str, tuple[Splitter, ...]] = {
    "list": (line_spans, sentence_spans, word_spans),
    "text": (sentence_spans, word_spans),
}


WIDE = 2
"""A table row over this many chunk budgets is cut like a list's lines (then words)."""


def split_block(text: str, item: Counted, lead: Sequence[Counted], section: Section,
                budget: int, overlap: int, count: Count) -> list[Draft]:
    """Drafts for one oversized block, dispatched on its kind (see the module docstring)."""
    kind = item.block.kind
    if kind == "table":
        drafts = _split_table(text, item, lead, section, budget, count)
        if drafts is not None:
            return drafts
        kind = "list"  # too wide for whole rows: cut by lines, then words, like a list
    if kind == "code":
        splitters: tuple[Splitter, ...] = (statement_spans, inner_statement_spans, line_spans)
        overlap = 0
    else:
        splitters = _PROSE_SPLITTERS.get(kind, _PROSE_SPLITTERS["text"])
    units = refine(text, (item.block.start, item.block.end), item.tokens, splitters,
                   budget, count)
    spans = [s for s, _ in units]
    tokens = [max(t, 1) for _, t in units]  # a word the tokenizer drops ("\u200d") still
    # takes room: 300,000 of them between spaces were one "15-token" chunk of 600,000 chars
    if lead:
        spans[0] = (lead[0].block.start, spans[0][1])
        tokens[0] += sum(c.tokens for c in lead)
    drafts = []
    for i, j in plan_balanced(tokens, budget, overlap):
        start, end = spans[i][0], spans[j - 1][1]
        used = _blocks(lead, item.block) if i == 0 else (item.block,)
        drafts.append(Draft(text[start:end], start, end, sum(tokens[i:j]), used, section))
    return drafts


def refine(text: str, span: Span, tokens: int, splitters: Sequence[Splitter], budget: int,
           count: Count) -> list[tuple[Span, int]]:
    """Cut ``span`` with the first splitter, then recursively cut every piece still over
    ``budget`` with the next one; returns ``(span, tokens)`` pairs. A piece that no splitter
    can cut further (one huge word, a long line of code) is cut by characters
    (:func:`cut_chars`)."""
    if tokens <= budget:
        return [(span, tokens)]
    if not splitters:
        return cut_chars(text, span, tokens, budget, count)
    pieces = splitters[0](text, *span)
    if len(pieces) <= 1 and len(splitters) > 1:
        return refine(text, span, tokens, splitters[1:], budget, count)
    out: list[tuple[Span, int]] = []
    for piece in pieces:
        out.extend(refine(text, piece, count(text[piece[0]:piece[1]]), splitters[1:], budget,
                          count))
    return out


def cut_chars(text: str, span: Span, tokens: int, budget: int,
              count: Count) -> list[tuple[Span, int]]:
    """Cut ``span`` (``tokens`` long) into equal runs of characters expected to hold about
    ``budget`` tokens each; the last resort for text without a space or line break. A run
    that is only whitespace is left out: it would be a chunk with no text (a fuzz case, 276
    spaces before "00" in an indented code block, cut into 257 spaces and the rest)."""
    start, end = span
    width = max(1, (end - start) * budget // max(tokens, 1))
    pieces = [(s, min(s + width, end)) for s in range(start, end, width)
              if not text[s:min(s + width, end)].isspace()]
    return [(p, count(text[p[0]:p[1]])) for p in pieces]


def _split_table(text: str, item: Counted, lead: Sequence[Counted], section: Section,
                 budget: int, count: Count) -> list[Draft] | None:
    """Drafts of whole rows, each after the header; None when the header is over ``budget``
    or a row over :data:`WIDE` times it: then rows cannot be kept whole (a security review's
    table of 300,000 cells was one 2.4 MB chunk, returned whole by every search that hit
    it). A row a little over the budget stays whole in a chunk of its own."""
    block = item.block
    lines = line_spans(text, block.start, block.end)
    lead_tokens = sum(c.tokens for c in lead)
    header, rows = lines[:block.header_lines], lines[block.header_lines:]
    if not rows and item.tokens > budget:
        return None
    if not rows:
        start = lead[0].block.start if lead else block.start
        return [Draft(text[start:block.end], start, block.end, lead_tokens + item.tokens,
                      _blocks(lead, block), section)]
    head_text = text[header[0][0]:header[-1][1]] if header else ""
    head_tokens = count(head_text) if header else 0
    row_tokens = [count(text[s:e]) for s, e in rows]
    if head_tokens > budget or max(row_tokens) > WIDE * budget:
        return None
    groups = group_greedy(row_tokens, budget - head_tokens - lead_tokens, budget - head_tokens)
    drafts = []
    for n, (i, j) in enumerate(groups):
        end, tokens = rows[j - 1][1], head_tokens + sum(row_tokens[i:j])
        if n == 0:
            start = lead[0].block.start if lead else block.start
            drafts.append(Draft(text[start:end], start, end, lead_tokens + tokens,
                                _blocks(lead, block), section))
            continue
        start = rows[i][0]
        body = text[start:end]
        drafts.append(Draft(f"{head_text}\n{body}" if header else body, start, end, tokens,
                            (block,), section))
    return drafts


def _blocks(lead: Sequence[Counted], block: Block) -> tuple[Block, ...]:
    return tuple(c.block for c in lead) + (block,)
