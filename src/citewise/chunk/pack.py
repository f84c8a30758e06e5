"""Pack one section's blocks into chunk drafts.

Greedy over whole blocks, using each block's count (counted once): a block joins the current
group while ``sum(tokens) <= chunk_tokens``, otherwise the group is emitted and a new one
starts. A group's text is the contiguous slice ``text[first.start:last.end]``, separators and
heading line included; its size is the sum of its blocks' counts (the ``"\\n\\n"`` separators
are whitespace, which whitespace and WordPiece tokenizers do not count).

A *lead* stays with the block it introduces: a heading, or a *lead-in* of at most half of
``chunk_tokens`` — a text block ending in ``:``, ``...`` or ``…`` ("… as well as a ``for
await`` loop:" before its example), or one of at most :data:`SHORT_WORDS` words right before
a code block ("Here is a trivial example that calls puts a few times.", "Or, using the
command-line client."), or an option set alone, as code or as one line of text, before the
text that says what it does. Three rules follow:

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

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from citewise.chunk.draft import Counted, Draft, Section
from citewise.chunk.split import split_block
from citewise.types import Block

_OPTION_TERM = re.compile(r"-{1,2}[A-Za-z][^\n]{0,78}")
"""A command-line option set alone as code ("--pid=<number>", "-e --exit-at-zero"): the term
of the description after it (a PDF manual's option list; 18 of the Valgrind manual's option
names ended one chunk while what they do began the next). A man page's ``<dt>`` is a line of
text: libxslt's "--maxvars VALUE" ended the xsltproc OPTIONS chunk and "Maximum number of
variables…" began the next, so "xsltproc maxvars" was answered with ``--maxdepth``'s default,
the last description the chunk held (a new user, stop 41)."""
SHORT_WORDS = 40
"""The longest text block (words) that leads into the code after it without a colon. In the
httpx, borg, valgrind, ninja and libffi manuals, such blocks say what the example does ("For
example, showing a progress bar using the tqdm library.") or what to do before it."""


def introduces(block: Block, after: Block | None) -> bool:
    """Whether ``block`` says what the block ``after`` it is (the module docstring)."""
    if block.kind not in ("code", "text"):
        return False
    if after is not None and after.kind == "text" and _OPTION_TERM.fullmatch(
            block.text.strip()):
        return True
    if block.kind == "code":
        return False
    if block.text.rstrip().endswith((":", "...", "…")):
        return True
    return after is not None and after.kind == "code" and \
        len(block.text.split()) <= SHORT_WORDS


def leads(blocks: Sequence[Counted], chunk_tokens: int) -> list[bool]:
    """For each block, whether it must stay with the block after it (the module docstring)."""
    return [c.block.kind == "heading" or
            (c.tokens <= chunk_tokens // 2 and
             introduces(c.block, blocks[i + 1].block if i + 1 < len(blocks) else None))
            for i, c in enumerate(blocks)]


def pack_section(text: str, section: Section, chunk_tokens: int, overlap_tokens: int,
                 count: Callable[[str], int]) -> list[Draft]:
    """Drafts for one section, in document order (rules in the module docstring)."""
    blocks = lead_ins_apart(section.blocks, chunk_tokens, count)
    lead = leads(blocks, chunk_tokens)
    drafts: list[Draft] = []
    first, total = 0, 0  # the current group is blocks[first:i]
    for i, item in enumerate(blocks):
        cut = i  # blocks[cut:i] are the leads at the end of the group
        while cut > first and lead[cut - 1]:
            cut -= 1
        if item.tokens > chunk_tokens and item.block.kind != "heading":
            if cut > first:
                drafts.append(_whole(text, blocks[first:cut], section))
            drafts.extend(split_block(text, item, blocks[cut:i], section, chunk_tokens,
                                      overlap_tokens, count))
            first, total = i + 1, 0
            continue
        if i > first and total + item.tokens > chunk_tokens and (cut > first or lead[i]):
            # a run of bare headings or lead-ins longer than the budget is cut too
            keep = cut if cut > first else i
            drafts.append(_whole(text, blocks[first:keep], section))
            first, total = keep, sum(c.tokens for c in blocks[keep:i])
        total += item.tokens
    if first < len(blocks):
        drafts.append(_whole(text, blocks[first:], section))
    return drafts


_LAST_SENTENCE = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z])")


def lead_ins_apart(blocks: Sequence[Counted], chunk_tokens: int,
                   count: Callable[[str], int]) -> list[Counted]:
    """``blocks`` with the last sentence of a text block too long to be a lead-in split off
    when it introduces the block after it (it ends in ``:``, ``...`` or ``…``): that sentence
    is a lead-in and stays with what it introduces. A PDF page's paragraphs are one block, so
    "…Rust 2021 will use a new prelude. It's identical to the current one, except for three
    new additions:" ended one chunk and the three traits began the next."""
    out: list[Counted] = []
    for i, item in enumerate(blocks):
        block = item.block
        after = blocks[i + 1].block if i + 1 < len(blocks) else None
        body = block.text.rstrip()
        if (block.kind != "text" or item.tokens <= chunk_tokens // 2 or after is None
                or after.kind == "heading" or not body.endswith((":", "...", "…"))):
            out.append(item)
            continue
        cuts = list(_LAST_SENTENCE.finditer(body))
        tail = body[cuts[-1].end():] if cuts else ""
        head = body[:cuts[-1].end()].rstrip() if cuts else ""
        if not head or not tail or count(tail) > chunk_tokens // 2:
            out.append(item)
            continue
        offset = block.start + cuts[-1].end()
        out.append(Counted(replace(block, text=head, end=block.start + len(head)),
                           count(head)))
        out.append(Counted(replace(block, text=block.text[cuts[-1].end():], start=offset),
                           count(tail)))
    return out


def _whole(text: str, group: Sequence[Counted], section: Section) -> Draft:
    start, end = group[0].block.start, group[-1].block.end
    return Draft(text[start:end], start, end, sum(c.tokens for c in group),
                 tuple(c.block for c in group), section)
