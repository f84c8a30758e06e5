"""A "Yes" that the rest of its own sentence denies.

A new user asked whether libffi supports bit fields in structures and was answered "Yes, [1]
states that 'libffi' has no special support for bit-fields." The sentence's claim is
supported (the manual says so) and its "Yes" says the opposite. :func:`without_denied_yes`
drops such an opening "Yes": it is the model's verdict, not the sources', and the rest of the
sentence states what they say.

A "Yes" is denied when the rest of the sentence puts a negation ("no", "not", "never",
"cannot", "…n't") at most :data:`NEAR` words before a word of the question ("no special
support" for "does it support…"), and the question itself negates nothing. "Yes, you do not
need to configure anything" (for "does it work out of the box?") keeps its yes: what it
negates is not what was asked. "Yes, but not …" is a qualified yes and is kept.
"""

from __future__ import annotations

import re

from citewise.cite.terms import content_stems

_YES = re.compile(r"\s*yes\s*[,.:;!-]+\s*(?=\S)", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|never|cannot|none|neither|nor)\b|n['’]t\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
NEAR = 3
"""Words a negation may stand before the question's word it denies."""


def without_denied_yes(sentence: str, question: str) -> str | None:
    """``sentence`` without its opening "Yes" when the rest denies what ``question`` asks
    (module docstring), its first letter capitalised; None when it keeps its yes."""
    match = _YES.match(sentence)
    if match is None or _NEGATION.search(question):
        return None
    rest = sentence[match.end():]
    if rest.lower().startswith("but "):
        return None
    asked = content_stems(question)
    words = _WORD.findall(rest)
    for i, word in enumerate(words):
        if _NEGATION.search(word):  # "not", "doesn't"
            after = " ".join(words[i + 1:i + 1 + NEAR])
            if content_stems(after) & asked:
                return rest[:1].upper() + rest[1:]
    return None


__all__ = ["NEAR", "without_denied_yes"]
