"""Whether any document the asker may read holds a word: the lookup behind the gate's
"names no readable document contains" veto (:func:`citewise.answer.salient.absent_terms`).

BM25 finds the candidates, but the index stems with Porter's original algorithm (SQLite's
FTS5 ``porter`` tokenizer), which folds an acronym's last ``s`` away: "LFS" is looked up as
``lf``. A new user of git's documentation asked "how do I set up Git LFS for large binary
files?" and was answered about line endings, every page writing "LF". A candidate counts
when a word of its title, headings or text has the word's stem by the one Python-side
stemmer (:func:`citewise.text.stem`, Porter2: "Normans" is in a page saying "Norman",
"lfs" in none saying "LF"), diacritics folded as the index folds them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

from citewise.text import stem, word_stems

if TYPE_CHECKING:
    from citewise.protocols import Store
    from citewise.types import Principal

DEPTH = 100
"""Candidates read per word: the ones BM25 ranks first for it alone."""


def word_lookup(store: Store, principal: Principal) -> Callable[[str], bool]:
    """``has_word(word)``: whether a chunk ``principal`` may read holds ``word`` (module
    docstring). A word of letters alone is confirmed in the candidates' text; anything else
    (a number, "c-r") as BM25 finds it."""
    def has_word(word: str) -> bool:
        found = store.search_sparse(word, DEPTH, principal)
        if not found or not word.isalpha():
            return bool(found)
        wanted = stem(_fold(word))
        rows = store.get_chunks([s.chunk_id for s in found], principal)
        return any(wanted in _stems(chunk.text, document.title or "", *chunk.heading_path)
                   for chunk, document in rows.values())
    return has_word


def _stems(*texts: str) -> set[str]:
    return word_stems(*(_fold(t) for t in texts))


def _fold(text: str) -> str:
    """``text`` without combining marks ("café" -> "cafe"), as the index reads it."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))
