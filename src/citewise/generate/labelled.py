"""Passages that do not speak of the version or edition a question names.

A question's labels (:func:`citewise.cite.terms.labels`: "the 2021 edition", "wget 1.21")
say which thing it asks about. A passage that never mentions one of them, in its text, its
headings or its document's title, is about something else, however many of the question's
words it shares: asked "Which Rust release introduced the 2021 edition?", the quote
fallback answered "Release version 1.31.0 … The edition system was created for the release
of Rust 2018 [1]" from the Rust 2018 chapter. Quotes are taken only from passages that name
every label of the question; a model's sentence echoing a label its sources lack is removed
by the citation check (:func:`citewise.cite.enforce.unstated_numbers`).
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.cite.terms import labels, names_release, numbers, written_numbers
from citewise.types import ContextPassage


def off_label(question: str, passages: Sequence[ContextPassage]) -> frozenset[str]:
    """The ids of ``passages`` lacking a label of ``question`` (module docstring)."""
    wanted = labels(question, written=True)
    if not wanted:
        return frozenset()
    out = set()
    for passage in passages:
        hit = passage.hit
        said = " ".join([hit.document.title or "", *hit.chunk.heading_path, passage.text])
        values, written = numbers(said), written_numbers(said)
        if not all(numbers(w) <= values or any(names_release(w, n) for n in written)
                   for w in wanted):
            out.add(passage.sid)
    return frozenset(out)
