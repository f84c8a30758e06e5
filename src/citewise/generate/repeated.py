"""Sentences several passages say word for word: quoted once (:func:`unique`), cited to each
passage that says it, but for the same document's other sections (:func:`sources_of`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citewise.generate.extractive import ScoredSentence


_MARKER = re.compile(r"^(?:[-*•+]|\(?\d{1,3}[.)])\s+")
_QUOTES = str.maketrans("", "", "'\"`‘’“”«»")


def _key(text: str) -> str:
    """A sentence as compared: case, spacing, quote marks, a list item's marker and the final
    stop aside (systemd's UID ranges quoted "61184…65519 → UIDs for dynamic users… [1]. 2.
    61184…65519 → UIDs for dynamic users… [2].", two overlapping chunks cutting the list apart;
    "Note that libffi has no special support for bit-fields [1]. Note that 'libffi' has…
    [2].", a manual's HTML and Info copies, code set in quotes in one of them)."""
    return _MARKER.sub("", " ".join(text.lower().translate(_QUOTES).split())).rstrip(".!?")


def unique(ranked: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """The first of each sentence said word for word by several passages (it is quoted once,
    citing those :func:`sources_of` names)."""
    seen: set[str] = set()
    out = []
    for s in ranked:
        if _key(s.text) not in seen:
            seen.add(_key(s.text))
            out.append(s)
    return out


def sources_of(sentence: ScoredSentence, scored: Sequence[ScoredSentence],
               places: Mapping[str, tuple[str, tuple[str, ...]]] | None = None) -> list[str]:
    """The ids of every passage that says ``sentence`` word for word, in prompt order; of
    its own document, only the chosen sentence's (``places``: each id's document and heading
    path). In one manual a sentence repeated section after section is boilerplate whose
    meaning is its section's: the Node.js docs' "Returns: <Timeout> a reference to timeout"
    was cited to unref(), close(), ref() and refresh() ("[1, 2, 3, 4]") for "what does
    timeout.unref() do?"; and two chunks of one section (overlapping, or a list cut apart)
    are one source: "[1, 2]" listed the same link twice."""
    places = places or {}
    here = places.get(sentence.sid)

    def alike(sid: str) -> bool:  # another document's, or the sentence's own passage
        there = places.get(sid)
        return here is None or there is None or there[0] != here[0] or sid == sentence.sid

    sids = [s.sid for s in scored if _key(s.text) == _key(sentence.text) and alike(s.sid)]
    return list(dict.fromkeys(sids)) or [sentence.sid]
