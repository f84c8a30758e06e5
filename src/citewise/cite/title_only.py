"""A sentence that only names a source: its title or one of its section headings.

The support check finds every word of "Git v2.12.3 Release Notes [1]" in the passage titled
so, and the answer passed as answered: a new user asked which Git version added ``git
bugreport`` and was shown that title (of notes that never mention it), the model's
"[S1]Git v2.12.3 Release Notes[/Source id]". A title says where something is written, not
what: no claim, so no answer. A heading the passage's text also says is a claim like any.
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
        headings = {_key(h) for h in {passage.hit.document.title, *chunk.heading_path,
                    *(h for mark in chunk.sections for h in mark.heading_path)} if h}
        if said in headings and said not in _body(passage.text, headings):
            return True
    return False


def _body(text: str, headings: set[str]) -> str:
    """``text`` without its heading lines: a heading its text also says as a sentence
    ("Passwords expire every 90 days") is an answer (a review)."""
    return _key(" ".join(line for line in text.split("\n") if _key(line) not in headings))
