"""Multilingual sites: hits in the question's language first.

Rust by Example ships its translations beside the English book, and a partly translated
page keeps the English text and examples under a Spanish title: a new user's English
question "how do I loop while a pattern keeps matching" got Spanish, Japanese, Chinese and
Korean pages in all ten hits, and the English ``vec.html`` outside them (its examples' text
is the same in every copy, and de-duplication kept the best-ranked copy, a translation's).

When the documents of the first hits declare two or more languages (``lang`` in their
metadata: ``<html lang>`` at ingest), the question's language is identified among those
(py3langid, Lui & Baldwin's langid.py: a naive Bayes model over byte n-grams, constrained to
the candidate languages; loaded once per process, and only for such an index) and, when it
is :data:`CONFIDENT`, the candidates are reordered: those in that language or declaring
none first, each group in its fused order. Nothing is removed, and an index in one language
is searched exactly as before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

from citewise.ingest.languages import primary_language
from citewise.types import Document

CONFIDENT = 0.9
"""The least probability (normalised over the candidate languages) at which the question's
language reorders the hits: "Vec::pop" reads as Spanish at 0.45 and changes nothing."""

SCALE = 0.99
"""The best score of a hit in another language, as a share of the last one in the question's."""

_lock = threading.Lock()
_identifier: list[Any] = []


def language_of(document: Document) -> str | None:
    """The primary language subtag ``document`` declares (``lang`` in its metadata, from
    ``<html lang>``, front matter or a sidecar: ``en-US`` is ``en``), or None."""
    value = document.metadata.get("lang")
    return primary_language(value) if isinstance(value, str) else None


def languages_of(documents: Iterable[Document]) -> set[str]:
    """The languages ``documents`` declare (:func:`language_of`)."""
    return {lang for lang in map(language_of, documents) if lang}


def question_language(question: str, candidates: Sequence[str]) -> str | None:
    """The language of ``question`` among ``candidates`` when identified with at least
    :data:`CONFIDENT` probability, else None."""
    identifier, every = _load()
    known = sorted(set(candidates) & every)  # the model's languages, not the last search's
    if len(known) < 2:
        return None
    with _lock:  # set_languages narrows the shared model (from its full one) for this call
        identifier.set_languages(known)
        lang, probability = identifier.classify(question)
    return str(lang) if probability >= CONFIDENT else None


def in_language_first(order: Sequence[tuple[str, float]], documents: dict[str, Document],
                      lang: str) -> list[tuple[str, float]]:
    """``order`` (fused ``(chunk_id, score)``) with the chunks whose document is in ``lang``
    or declares no language first; each group keeps its order, and the others' scores are
    scaled below the first group's (the context's diversity step ranks by score)."""
    def other(item: tuple[str, float]) -> bool:
        doc = documents.get(item[0])
        return doc is not None and language_of(doc) not in (None, lang)
    first = [item for item in order if not other(item)]
    rest = [item for item in order if other(item)]
    floor = min((score for _, score in first), default=0.0)
    top = max((score for _, score in rest), default=0.0)
    scale = min(1.0, SCALE * floor / top) if top > 0 else 1.0
    return first + [(cid, score * scale) for cid, score in rest]


def _load() -> tuple[Any, frozenset[str]]:
    """The identifier, and every language its model knows (read before any narrowing: a
    review's second tenant searched among the first one's languages)."""
    with _lock:
        if not _identifier:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            _identifier.append((model, frozenset(model.nb_classes)))
        return _identifier[0]
