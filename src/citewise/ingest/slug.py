"""GitHub-style heading slugs, so ``file.md#slug`` opens the right section on GitHub/GitLab.

Same rules as ``github-slugger``: lowercase, drop every character that is not a letter,
digit, ``_``, ``-`` or space, turn each space into ``-``; a repeated slug gets ``-1``,
``-2``, … in order of appearance.
"""

from __future__ import annotations

import re

_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def slugify(text: str) -> str:
    """The bare slug of one heading text (no de-duplication)."""
    return _DROP.sub("", text.strip().lower()).replace(" ", "-")


class Slugger:
    """Hands out unique slugs for one document, in document order."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, text: str) -> str | None:
        """The unique slug for ``text``, or None when nothing sluggable is left."""
        base = slugify(text)
        if not base:
            return None
        result = base
        while result in self._seen:
            self._seen[base] += 1
            result = f"{base}-{self._seen[base]}"
        self._seen[result] = 0
        return result
