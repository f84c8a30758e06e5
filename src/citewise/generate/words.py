"""The words the extractive answer matches: stemmed as BM25 stems them, a release number whole.

"When was 3.11.2 released?" asked for "11" and "2" once split at its dots, and "released"
was no "Release": 3.11.0rc2's "Release date: 2022-09-11" was quoted over 3.11.2's "Release
date: 2023-02-07". Weights are ``ln(1 + N / df)`` over the prompt's passages
(:mod:`citewise.generate.extractive`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from citewise.cite.asked import asks_quantity
from citewise.text import STOPWORDS, stem

_WORD = re.compile(r"v?\d+(?:\.\d+)+|[^\W_]+", re.UNICODE)


def content_words(text: str) -> set[str]:
    """Lowercased word tokens minus stopwords and one-letter tokens, stemmed; a dotted number
    is one word, without a "v" ("3.11.2", "v18.0.0" is "18.0.0")."""
    return _words(text, series=False)


def passage_words(text: str) -> set[str]:
    """:func:`content_words` of a passage, and the series each dotted number is in: "3.11.0"
    is in "3.11" ("What changed in Python 3.11?"), "3.10" is not in "3.1"; a version's major
    number of two digits or more too ("Node 18" is "v18.0.0", "GCC 12" is "12.2.0"; a
    review), not a decimal's ("10.5 seconds" is no "10", a second review)."""
    return _words(text, series=True)


def _words(text: str, series: bool) -> set[str]:
    """The words of ``text`` in one pass over its tokens (passages are scored sentence by
    sentence: :func:`passage_words` runs on every one)."""
    words = set()
    for token in _WORD.findall(text.lower()):
        if "." not in token:
            if len(token) > 1 and token not in STOPWORDS:
                words.add(stem(token))
            continue
        parts = token.removeprefix("v").split(".")
        words.add(".".join(parts))
        if series:
            words.update(".".join(parts[:k]) for k in range(2, len(parts)))
            if len(parts[0]) > 1 and (token[0] == "v" or len(parts) > 2):
                words.add(parts[0])
    return words


def question_words(question: str) -> set[str]:
    """:func:`content_words` of ``question`` but its "how many/long/much" word (asked "How many
    CPU threads does grep use?", "many regular expression implementations…" was quoted), and
    the words that only ask for a comparison (:func:`comparison_words`)."""
    return content_words(question) - {stem(asks_quantity(question) or "")} \
        - comparison_words(question)


_COMPARES = re.compile(
    r"\bdiffer(?:ence|ences|s)?\s+(?:between|from)\b|\bdiffer(?:ent|s)?\s+from\b"
    r"|\b(?:vs\.?|versus)\s|\bcompare[sd]?\s+(?:to|with)\b", re.IGNORECASE)
_COMPARING = frozenset(stem(w) for w in (
    "difference", "differences", "different", "differ", "differs", "compare", "compared",
    "compares", "versus", "vs"))


def comparison_words(question: str) -> frozenset[str]:
    """The stems that only ask for a comparison ("what's the difference between apt remove
    and apt purge?", "X vs Y", "how does X compare to Y"), when the question asks one: a new
    user of the Debian Handbook got a chapter's "the different repositories … a different
    compression method … the differences" quoted, the sentences about purge scoring lower
    (each match of "differ" weighed as much as one of "purge")."""
    return _COMPARING if _COMPARES.search(question) else frozenset()


def idf_weights(question_words: set[str], passages: Sequence[str]) -> dict[str, float]:
    """``ln(1 + N / df(w))`` for each question word found in at least one passage."""
    bags = [passage_words(p) for p in passages]
    total = len(bags)
    weights: dict[str, float] = {}
    for word in question_words:
        df = sum(word in bag for bag in bags)
        if df:
            weights[word] = math.log(1 + total / df)
    return weights
