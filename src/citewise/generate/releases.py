"""The sections of a release the question asks about: weight for entries that name no word of it.

"What changed in strace 6.0?" shares no word with the entries of the section "Noteworthy
changes in release 6.0" ("* Enhanced decoding of PTP_* ioctl commands."), first in the
context, and the extractive answer declined. :func:`release_weight` gives each passage under
a heading naming a release the question names (:func:`~citewise.cite.terms.labels`, as
written and compared by :func:`~citewise.cite.terms.names_release`: "3.10" is not "3.1" but
"1.70" is named by "1.70.0", and a date's "10" in "(2019-10-05)" names nothing) the weight
a number of the question has, twice its idf among the passages' headings, added to each of
its sentences' scores; no weight when no heading names it. :func:`is_label` tells the label over
a release's entries ("* Improvements") from an entry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from citewise.cite.terms import labels, names_release
from citewise.generate.companions import BULLET
from citewise.types import ContextPassage


def release_weight(question: str, passages: Sequence[ContextPassage]) \
        -> Callable[[ContextPassage], float]:
    """The weight of each passage's sentences for the releases ``question`` names."""
    asked = labels(question, written=True)
    named = {p.sid for p in passages if asked and _names(asked, labels(
        " ".join(p.hit.chunk.heading_path), written=True))}  # once, not per scored block
    if not named:
        return lambda passage: 0.0
    weight = 2 * math.log(1 + len(passages) / len(named))
    return lambda passage: weight if passage.sid in named else 0.0


def _names(asked: set[str], heading: set[str]) -> bool:
    """Whether a heading's labels name a release asked about (:func:`names_release`)."""
    return any(names_release(a, h) for a in asked for h in heading)


_LABEL = re.compile(r"\s*[-*•]\s+[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,2}:?\s*")


def is_label(rows: Sequence[tuple[str, float]], k: int) -> bool:
    """Whether row ``k`` of a block is a label over the entries after it: a bullet of one to
    three words that opens the block, followed by a bullet that is a sentence ("*
    Improvements" over "* Enhanced decoding of …." in strace's NEWS, quoted alone as "*
    Improvements [1]."). "* Dark theme" among short items is an item (a review)."""
    return k == 0 and len(rows) > 1 and _LABEL.fullmatch(rows[0][0]) is not None \
        and BULLET.match(rows[1][0]) is not None and rows[1][0].rstrip().endswith(".")
