"""Release notes and changelogs below the pages that document a feature, unless asked about.

Django ships 276 release-notes pages beside its documentation, BIND its changelog (1,429 of a
new user's 3,824 chunks), borg and valgrind theirs: each feature is announced there in the
words a user asks in ("Django 1.2 adds email backends … the console backend"), so a how-to
question's hits filled with release notes of versions long gone, cited before, or instead of,
the page that documents the feature (new users of the BIND manual and of Django's docs).

When a question does not ask about versions or changes (:func:`asks_about_changes`: a version
number, "what's new", "deprecated", "changed in", "upgrade" …), a hit whose document is
release notes (:func:`is_release_notes`, by its title or path) has its fused score scaled by
:data:`SCALE`, and the hits are ordered again: a note still ranks where nothing else matches
as well, and nothing is removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from citewise.types import Document

SCALE = 0.5
"""A release note's share of its fused score: in reciprocal rank fusion, first in both runs
counts as first in one."""

_TITLE = re.compile(r"\brelease notes?\b|^\s*(?:\d+(?:\.\d+)*\.?\s+)?(?:change\s?log|changes\b"
                    r"|(?:older\s+)?news\b|release history\b|changes in\b)|\bwhat'?s new\b"
                    r"|\bchangelog\b", re.IGNORECASE)
_PATH = re.compile(r"(?:^|/)(?:releases?|release[-_]?notes|change[-_]?logs?|whats[-_]?new)/"
                   r"|(?:^|/)(?:[^/]*[._-])?(?:release[-_]?notes|change[-_]?logs?|whats[-_]?new)"
                   r"(?:\.[^/]*)?$|(?:^|/)(?:[^/]*\.)?(?-i:NEWS|CHANGES)(?:\.[^/]*)?$"
                   r"|^(?:news|changes)(?:\.[^/]*)?$", re.IGNORECASE)
"""A folder of release notes (``releases/``, ``changelog/``), a file named as such
(``CHANGELOG.md``, ``release-notes.html``, ``dist.news.html``, ``NEWS``), or a ``news`` or
``changes`` page at the top of the ids (borg's ``changes.html``); not ``releases.md`` on how
to cut one, ``release-process.html`` nor ``howto/news.html`` on news feeds (a review)."""
_ASKS = re.compile("|".join((
    r"\d+\.\d+", r"\bv\d+\b", r"\b[a-z][\w+-]*\s+\d{1,2}\b(?![.:,]?\d)", r"\bversions?\b",
    r"\bwhat'?s new\b", r"\bnew in\b", r"\bnewly\b",
    r"\b(?:added|removed|changed|introduced|deprecated|dropped|renamed|fixed)\s+in\b",
    r"\bdeprecat\w*", r"\bchangelogs?\b", r"\bchange ?logs?\b", r"\bchanges in\b",
    r"\bwhat(?:'?s| has| was| is)? (?:changed|different|fixed|added|removed)\b",
    r"\bwhen (?:did|was|were)\b", r"\bsince\b", r"\brelease(?:s|d| notes?)\b",
    r"\b(?:which|what) release\b", r"\bupgrad\w*", r"\bbackwards?[- ]incompatib\w*",
    r"\bbreaking changes?\b", r"\bregressions?\b", r"\bnews\b", r"\bhistory of\b",
    r"\bcve-\d", r"\bstill supported\b")), re.IGNORECASE)
"""(A name and a number: "Django 5", "python 2"; "release" alone is SQLAlchemy's own word
for giving a connection back.)"""


def is_release_notes(document: Document) -> bool:
    """Whether ``document`` is release notes or a changelog: its title says so ("Django 1.2
    release notes", "Changelog", "NEWS", "What's New in SQLAlchemy 1.4?") or its path does
    (``releases/1.2.html``, ``changelog.html.gz``, ``dist.news.html``, ``CHANGES.rst``)."""
    return bool(_TITLE.search(document.title or "")) or bool(_PATH.search(document.doc_id))


def asks_about_changes(question: str) -> bool:
    """Whether ``question`` asks about versions or changes (module docstring)."""
    return _ASKS.search(question) is not None


def release_notes_later(order: Sequence[tuple[str, float]], documents: Mapping[str, Document]
                        ) -> tuple[list[tuple[str, float]], int]:
    """``order`` (fused ``(chunk_id, score)``, best first) with release notes' scores scaled
    by :data:`SCALE` and sorted again (ties keep their order), and how many were scaled."""
    scaled = 0
    out = []
    for cid, score in order:
        doc = documents.get(cid)
        if doc is not None and is_release_notes(doc):
            score, scaled = score * SCALE, scaled + 1
        out.append((cid, score))
    if not scaled:
        return list(order), 0
    return sorted(out, key=lambda item: -item[1]), scaled
