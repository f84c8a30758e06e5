"""A sentence that only names a source: its title or one of its section headings.

The support check finds every word of "Git v2.12.3 Release Notes [1]" in the passage titled
so, and the answer passed as answered: a new user asked which Git version added ``git
bugreport`` and was shown that title (of notes that never mention it), the model's
"[S1]Git v2.12.3 Release Notes[/Source id]". A title says where something is written, not
what: no claim, so no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.cite.parse import strip_citations
from citewise.types import ContextPassage

_MARKUP = re.compile(r"[*_`#>\"“”'‘’]+")


def _key(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).lower().split()).rstrip(" .:;,!")


def only_a_title(sentence: str, passages: Sequence[ContextPassage]) -> bool:
    """Whether ``sentence`` (its citations and markup aside) is the title of one of
    ``passages`` or one of their section headings."""
    said = _key(strip_citations(sentence))
    if not said:
        return False
    for passage in passages:
        chunk = passage.hit.chunk
        headings = {passage.hit.document.title, *chunk.heading_path,
                    *(h for mark in chunk.sections for h in mark.heading_path)}
        if said in {_key(h) for h in headings if h}:
            return True
    return False
