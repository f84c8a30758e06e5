"""Which retrieved passages satisfy which pieces of evidence, at document or section level.

**Document level.** A passage lies in place ``(doc, section)`` when its ``doc_id`` equals
``doc``; the section is ignored. The ranking is first collapsed to documents by first
occurrence (a document ranks where its best passage ranks), as ``eval beir`` does.

**Section level.** A passage lies in ``(doc, section)`` when its ``doc_id`` equals ``doc`` and

* ``section`` is null (anywhere in the document), or
* ``section`` equals the passage's ``anchor`` (the nearest enclosing heading's slug / HTML id /
  ``page=N``), or
* ``section`` equals the GitHub slug (:func:`citewise.ingest.slug.slugify`) of one of the
  headings in the passage's ``heading_path`` — the passage sits in a sub-section of it.

Comparison ignores case and a leading ``#``. Passages are *not* collapsed at section level:
rank i is the i-th passage returned.

**Credit.** Each piece is found at most once: walking the ranking best first, a passage is
credited with the highest-grade piece it satisfies that no better-ranked passage already
found; a passage crediting nothing gains 0. The credited list is turned into a pseudo
ranking and pseudo qrels, so the trec_eval-convention functions in
:mod:`citewise.eval.metrics` score it unchanged (and a plain document ranking with one place
per piece scores exactly as trec_eval does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from citewise.eval.questions import Piece, Place
from citewise.ingest.slug import slugify

Level = Literal["doc", "section"]
LEVELS: tuple[Level, ...] = ("doc", "section")


def _norm(anchor: str | None) -> str:
    return (anchor or "").strip().lstrip("#").lower()


def in_section(hit: Mapping[str, Any], section: str | None) -> bool:
    """True when a retrieved passage (``anchor``, ``heading_path``) lies inside ``section``."""
    if section is None:
        return True
    want = _norm(section)
    if want == _norm(hit.get("anchor")):
        return True
    return any(slugify(h) == want for h in hit.get("heading_path") or ())


def in_place(hit: Mapping[str, Any], place: Place, level: Level) -> bool:
    if hit["doc_id"] != place.doc:
        return False
    return level == "doc" or in_section(hit, place.section)


def ranked_units(hits: Sequence[Mapping[str, Any]], level: Level) -> list[Mapping[str, Any]]:
    """The ranking scored at ``level``: documents by first occurrence, or every passage."""
    if level == "section":
        return list(hits)
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit["doc_id"] not in seen:
            seen.add(hit["doc_id"])
            out.append(hit)
    return out


def credit(hits: Sequence[Mapping[str, Any]], pieces: Sequence[Piece],
           level: Level) -> tuple[list[str], dict[str, int]]:
    """``(pseudo_ranking, pseudo_qrels)``: rank i holds ``p<j>`` when it finds piece j first,
    else ``-<i>`` (never relevant); qrels map ``p<j>`` to piece j's grade."""
    qrels = {f"p{j}": piece.grade for j, piece in enumerate(pieces)}
    found: set[int] = set()
    ranking: list[str] = []
    for i, hit in enumerate(ranked_units(hits, level)):
        best = None
        for j, piece in enumerate(pieces):
            if j in found or not any(in_place(hit, pl, level) for pl in piece.places):
                continue
            if best is None or piece.grade > pieces[best].grade:
                best = j
        if best is None:
            ranking.append(f"-{i}")
        else:
            found.add(best)
            ranking.append(f"p{best}")
    return ranking, qrels


def relevant_mask(hits: Sequence[Mapping[str, Any]], pieces: Sequence[Piece],
                  level: Level) -> list[bool]:
    """For each passage (not collapsed): does it lie in any place of any piece?"""
    return [any(in_place(h, pl, level) for p in pieces for pl in p.places) for h in hits]
