"""Text that runs on across a PDF page break.

A page ends where the paper did, not where the text does: 83 of the Valgrind manual's
paragraphs go on at the top of the next page ("… The commentary is intended" / "to be a
low-bandwidth, human-readable channel."), and so do code examples. Read page by page, each
half was a block of its own, so a chunk could begin mid-sentence, a sentence could be cut in
two chunks that no search finds together, and an extractive answer quoted half of it.

The last part of a page and the first part of the next are one part when both are code (an
example the break cut), or both are text and the first is unfinished (it ends in no ``.``,
``!``, ``?``, ``:`` or ``;``) and the second goes on from it: it starts in lowercase, or the
first ends in a comma, a hyphen or a word that cannot end a sentence ("the", "of", …). The
joined part keeps the page where it starts (its citation opens there), and a word hyphenated
across the break is joined again (:func:`~citewise.ingest.pdf_layout.dehyphenate`). A
heading between them, or a part that starts like a new one ("• item", "Note", "asn1 copy
node" after a sentence that ended), keeps them apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from citewise.ingest.pdf_layout import dehyphenate

PartKind = Literal["heading", "text", "code"]
_FINISHED = frozenset(".!?:;")
_GOES_ON = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "of",
    "on", "or", "than", "that", "the", "their", "this", "to", "was", "were", "which", "with"})
"""Words that do not end a sentence: a page that ends in one ends mid-sentence."""


@dataclass(frozen=True)
class Part:
    """One heading, text paragraph or code block of a page (1-based ``page``)."""

    kind: PartKind
    text: str
    page: int
    level: int = 0


def run_on(pages: Iterable[Sequence[Part]], words: frozenset[str] = frozenset(),
           ) -> Iterator[Part]:
    """The parts of ``pages`` in order, each page's last part joined with the next page's
    first when it runs on (see the module docstring); ``words`` is the document's
    vocabulary for the dehyphenation at the join."""
    pending: Part | None = None
    for parts in pages:
        for index, part in enumerate(parts):
            if pending is not None:
                if index == 0 and runs_on(pending, part):
                    part = _joined(pending, part, words)
                else:
                    yield pending
                pending = None
            if index == len(parts) - 1 and part.kind != "heading":
                pending = part  # it may go on at the top of the next page
            else:
                yield part
    if pending is not None:
        yield pending


def runs_on(last: Part, first: Part) -> bool:
    """Whether ``first`` (a page's first part) continues ``last`` (the previous page's)."""
    if last.kind != first.kind or last.kind == "heading":
        return False
    if last.kind == "code":
        return True
    tail, head = last.text.rstrip(), first.text.lstrip()
    if not tail or not head or tail[-1] in _FINISHED:
        return False
    if head[0].islower():
        return True
    ending = tail.rsplit(None, 1)[-1].lower()
    return head[0].isalnum() and (tail[-1] in ",-" or ending in _GOES_ON)


def _joined(last: Part, first: Part, words: frozenset[str]) -> Part:
    if last.kind == "code":  # its first line's indentation is layout
        return replace(last, text=f"{last.text.rstrip()}\n{first.text.strip(chr(10))}")
    text = f"{last.text.rstrip()}\n{first.text.lstrip()}"
    return replace(last, text=dehyphenate(text, words))
