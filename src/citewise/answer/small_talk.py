"""Small talk: a thanks or a greeting is not a question about the documents.

A new user's "thanks!" after an answer was searched like a question and answered "Thanks to
Michael Sperberg-McQueen for various fixes and clarifications on this document [1]!" (a
changelog's acknowledgement), exit 0. :func:`is_small_talk` recognises the whole message as
one of a few fixed phrases (:data:`PHRASES`), punctuation and case aside; ``ask`` declines
it (reason ``not_a_question``) before any search, and a follow-up's rewrite leaves it as it
is. Anything longer ("thanks, and how do I …?") is a question as before.
"""

from __future__ import annotations

import re

_PHRASES_TEXT = """
thanks | thank you | thanks a lot | thank you very much | thanks so much | many thanks |
thx | ty | cheers | great | great thanks | cool | nice | perfect | awesome | ok | okay |
ok thanks | okay thanks | got it | hi | hello | hey | hi there | hello there |
good morning | good afternoon | good evening | bye | goodbye | see you
"""
PHRASES = frozenset(p.strip() for p in _PHRASES_TEXT.replace("\n", " ").split("|"))
_NOT_WORDS = re.compile(r"[^\w\s]+")


def is_small_talk(text: str) -> bool:
    """Whether ``text`` is only a thanks or a greeting (module docstring)."""
    words = " ".join(_NOT_WORDS.sub(" ", text.lower()).split())
    return words in PHRASES
