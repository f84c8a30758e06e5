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
                    r"|(?:older\s+)?news\b|release history\b)|\bchanges in\b|\bwhat'?s new\b"
                    r"|\bchangelog\b", re.IGNORECASE)
_PATH = re.compile(r"(?:^|[/.])(?:releases?|release[-_]?notes?|change[-_]?logs?|whats[-_]?new)"
                   r"(?=[/._-]|$)|(?:^|[/.])(?:changes|news)(?=[._-][^/]*$|$)", re.IGNORECASE)
"""A folder or file of release notes (``releases/``, ``changelog/``, ``CHANGELOG.md``), or a
file named as one (``CHANGES.rst``, ``dist.news.html``: not a folder ``changes/``)."""
_ASKS = re.compile(
    r"\d+\.\d+|\bv\d+\b|\bversions?\b|\bwhat'?s new\b|\bnew in\b|\bnewly\b|\b(?:added|removed|"
    r"changed|introduced|deprecated|dropped|renamed)\s+in\b|\bdeprecat\w*|\bchangelogs?\b"
    r"|\bchange ?logs?\b|\bchanges in\b|\bwhat changed\b|\brelease(?:s|d| notes?)?\b"
    r"|\bupgrad\w*|\bbackwards?[- ]incompatib\w*|\bbreaking changes?\b|\bregressions?\b"
    r"|\bnews\b|\bhistory of\b", re.IGNORECASE)


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
