"""Conflicting evidence: two passages that give different values for the same fact.

Two sentences conflict (:func:`find_conflicts`) when they come from different documents, both
share a content word with the question, say nearly the same thing in words (Jaccard overlap of
their content-word stems, numbers left out, at least :data:`MIN_OVERLAP`, with at least
:data:`MIN_SHARED` stems in common) and state different numbers (each has a number the other
lacks): "Parental leave is 16 weeks" vs "Parental leave is 20 weeks", an old and a new version
of a policy; not when the question names a release that only one of their sections' headings
names, or when their sections' headings name two releases (another release's "Release date:
…" is no disagreement). Values written as words, or
contradictions without numbers, are not detected.

citewise shows a conflict instead of resolving it: the extractive answer quotes both sides, and
a generated answer that cites only one side gets a paragraph quoting both
(:func:`conflict_text`), each side cited, with the documents' dates in the citations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.cite.instructions import is_instruction
from citewise.cite.terms import content_stems, labels, numbers
from citewise.text import release_numbers
from citewise.types import ContextPassage

_BULLET = re.compile(r"^[-*•][ \t]+")
MIN_OVERLAP = 0.5
MIN_SHARED = 2
CONFLICT_LEAD = "The sources disagree:"


@dataclass(frozen=True)
class Side:
    sid: str
    sentence: str


@dataclass(frozen=True)
class Conflict:
    a: Side
    b: Side


def _sentences(passage: ContextPassage) -> list[str]:
    from citewise.generate.extractive import split_sentences

    headings = {h.strip().lower() for h in passage.hit.chunk.heading_path}
    return [s for s in split_sentences(passage.text) if not is_instruction(s)
            and s.strip().rstrip(".:").lower() not in headings]


def find_conflicts(question: str, passages: Sequence[ContextPassage]) -> list[Conflict]:
    """Pairs of conflicting sentences (module docstring), strongest overlap first."""
    wanted, asked = content_stems(question), labels(question)
    rows = []
    for p in passages:
        for sentence in _sentences(p):
            nums = numbers(sentence)
            stems = content_stems(sentence)
            if nums and stems & wanted:
                rows.append((p, sentence, stems, nums))
    found: list[tuple[float, Conflict]] = []
    for i, (pa, sa, ta, na) in enumerate(rows):
        for pb, sb, tb, nb in rows[i + 1:]:
            if pa.hit.document.doc_id == pb.hit.document.doc_id or na == nb \
                    or _other_editions(asked, pa, pb):
                continue
            shared = ta & tb
            overlap = len(shared) / len(ta | tb)
            if len(shared) >= MIN_SHARED and overlap >= MIN_OVERLAP and na - nb and nb - na:
                found.append((overlap, Conflict(Side(pa.sid, sa), Side(pb.sid, sb))))
    found.sort(key=lambda x: -x[0])
    return [c for _, c in found]


def _other_editions(asked: set[str], a: ContextPassage, b: ContextPassage) -> bool:
    """Whether one passage's headings name a release the question asks about
    (:func:`~citewise.cite.terms.labels`) and the other's do not: "What's New in Python
    3.4.6?" and "… 3.6.5 release candidate 1?" each say "Release date: …", of two releases,
    and a new user's "When was Python 3.4.6 released?" was told the sources disagree; or
    both headings name releases (:func:`~citewise.text.release_numbers`), and not the same:
    "Update macOS installer to SQLite 3.39.4" (3.11.1) and "… to 3.8.3" (3.4.0rc1) are two
    releases' entries. Two versions of one policy, dated or asked about without a version,
    still disagree."""
    headings = [" ".join(p.hit.chunk.heading_path) for p in (a, b)]
    releases = [set(release_numbers(h)) for h in headings]
    if all(releases) and releases[0] != releases[1]:  # release notes: entries of two releases
        return True
    marks = [asked & numbers(h) for h in headings]
    return marks[0] != marks[1]


def _cited(side: Side) -> str:
    text = _BULLET.sub("", side.sentence.strip())  # its own list item's "- " goes
    end = text[-1] if text[-1] in ".!?" else "."
    body = text[:-1] if text[-1] in ".!?" else text
    return f"{body} [{side.sid}]{end}"


def conflict_text(conflict: Conflict) -> str:
    """``The sources disagree:`` then one list item per side, each quoted and cited."""
    return f"{CONFLICT_LEAD}\n- {_cited(conflict.a)}\n- {_cited(conflict.b)}"


def unresolved(conflicts: Sequence[Conflict], cited: Sequence[str]) -> Conflict | None:
    """The first conflict of which an answer citing ``cited`` shows only one side."""
    return next((c for c in conflicts if (c.a.sid in cited) != (c.b.sid in cited)), None)
