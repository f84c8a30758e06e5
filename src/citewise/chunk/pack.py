"""Pack one section's blocks into chunk drafts.

Greedy over whole blocks, using each block's count (counted once): a block joins the current
group while ``sum(tokens) <= chunk_tokens``, otherwise the group is emitted and a new one
starts. A group's text is the contiguous slice ``text[first.start:last.end]``, separators and
heading line included; its size is the sum of its blocks' counts (the ``"\\n\\n"`` separators
are whitespace, which whitespace and WordPiece tokenizers do not count).

Two exceptions keep a heading with its content:

* A group holding only heading blocks always takes the next non-heading block, even if the
  sum exceeds ``chunk_tokens`` by the heading's tokens — a heading is never a chunk of its
  own while its section has content. (A run of bare headings longer than ``chunk_tokens`` is
  cut like any other group.)
* A non-heading block that is alone larger than ``chunk_tokens`` is split
  (:func:`~citewise.chunk.split.split_block`). A headings-only group before it becomes the
  split's lead (it opens the first window); any other group is emitted first.
"""

from __future__ import annotations

from collections.abc import Callable

from citewise.chunk.draft import Counted, Draft, Section
from citewise.chunk.split import split_block


def pack_section(text: str, section: Section, chunk_tokens: int, overlap_tokens: int,
                 count: Callable[[str], int]) -> list[Draft]:
    """Drafts for one section, in document order (rules in the module docstring)."""
    drafts: list[Draft] = []
    group: list[Counted] = []
    total = 0
    headings = 0  # heading blocks in the group (kept as a count: the check is per block)
    for item in section.blocks:
        heading = item.block.kind == "heading"
        only_headings = bool(group) and headings == len(group)
        if item.tokens > chunk_tokens and not heading:
            lead = group if only_headings else []
            if group and not only_headings:
                drafts.append(_whole(text, group, section))
            drafts.extend(split_block(text, item, lead, section, chunk_tokens, overlap_tokens,
                                      count))
            group, total, headings = [], 0, 0
            continue
        over = group and total + item.tokens > chunk_tokens
        if over and (not only_headings or heading):  # a run of bare headings is cut too
            drafts.append(_whole(text, group, section))
            group, total, headings = [], 0, 0
        group.append(item)
        total += item.tokens
        headings += heading
    if group:
        drafts.append(_whole(text, group, section))
    return drafts


def _whole(text: str, group: list[Counted], section: Section) -> Draft:
    start, end = group[0].block.start, group[-1].block.end
    return Draft(text[start:end], start, end, sum(c.tokens for c in group),
                 tuple(c.block for c in group), section)
