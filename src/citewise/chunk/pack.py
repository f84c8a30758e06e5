"""Pack one section's blocks into chunk drafts.

Greedy over whole blocks, using each block's count (counted once): a block joins the current
group while ``sum(tokens) <= chunk_tokens``, otherwise the group is emitted and a new one
starts. A group's text is the contiguous slice ``text[first.start:last.end]``, separators and
heading line included; its size is the sum of its blocks' counts (the ``"\\n\\n"`` separators
are whitespace, which whitespace and WordPiece tokenizers do not count).

A *lead* stays with the block it introduces: a heading, or a *lead-in* — a text block ending
in ``:`` of at most half of ``chunk_tokens`` ("… as well as a ``for await`` loop:" before its
example). Three rules follow:

* A group holding only leads always takes the next non-heading block, even if the sum exceeds
  ``chunk_tokens`` by the leads' tokens — a heading or lead-in is never a chunk of its own
  while its section has content after it. (A run of bare headings or lead-ins longer than
  ``chunk_tokens`` is cut like any other group.)
* When a block does not fit, the leads at the end of the group move with it into the next
  group instead of closing the one before.
* A non-heading block that is alone larger than ``chunk_tokens`` is split
  (:func:`~citewise.chunk.split.split_block`); the leads before it open the split's first
  draft, and the rest of the group is emitted first.

So a chunk exceeds ``chunk_tokens`` only by the leads it opens with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citewise.chunk.draft import Counted, Draft, Section
from citewise.chunk.split import split_block
from citewise.types import Block


def introduces(block: Block) -> bool:
    """A text block ending in ``:``, which says what the block after it is."""
    return block.kind == "text" and block.text.rstrip().endswith(":")


def is_lead(item: Counted, chunk_tokens: int) -> bool:
    """Whether ``item`` must stay with the block after it (see the module docstring)."""
    block = item.block
    return block.kind == "heading" or (introduces(block) and item.tokens <= chunk_tokens // 2)


def pack_section(text: str, section: Section, chunk_tokens: int, overlap_tokens: int,
                 count: Callable[[str], int]) -> list[Draft]:
    """Drafts for one section, in document order (rules in the module docstring)."""
    drafts: list[Draft] = []
    group: list[Counted] = []
    total = 0
    for item in section.blocks:
        heading = item.block.kind == "heading"
        cut = len(group) - _leads_at_end(group, chunk_tokens)  # group[cut:] are leads
        if item.tokens > chunk_tokens and not heading:
            if cut:
                drafts.append(_whole(text, group[:cut], section))
            drafts.extend(split_block(text, item, group[cut:], section, chunk_tokens,
                                      overlap_tokens, count))
            group, total = [], 0
            continue
        over = bool(group) and total + item.tokens > chunk_tokens
        if over and (cut or is_lead(item, chunk_tokens)):
            # a run of bare headings or lead-ins longer than the budget is cut too
            keep = cut or len(group)
            drafts.append(_whole(text, group[:keep], section))
            group = group[keep:]
            total = sum(c.tokens for c in group)
        group.append(item)
        total += item.tokens
    if group:
        drafts.append(_whole(text, group, section))
    return drafts


def _leads_at_end(group: Sequence[Counted], chunk_tokens: int) -> int:
    n = 0
    while n < len(group) and is_lead(group[-1 - n], chunk_tokens):
        n += 1
    return n


def _whole(text: str, group: Sequence[Counted], section: Section) -> Draft:
    start, end = group[0].block.start, group[-1].block.end
    return Draft(text[start:end], start, end, sum(c.tokens for c in group),
                 tuple(c.block for c in group), section)
