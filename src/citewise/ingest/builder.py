"""Assemble blocks into a :class:`~citewise.types.ParsedDocument` with exact offsets.

Every loader emits blocks in document order through a :class:`DocumentBuilder`; the
builder joins them with a blank line, so ``text[block.start:block.end] == block.text``
holds by construction, keeps the heading stack (``heading_path``) and enforces
``limits.max_blocks``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from citewise.errors import IngestError, LimitExceededError
from citewise.ingest.normalize import drop_controls
from citewise.types import Block, BlockKind, ParsedDocument

SEPARATOR = "\n\n"
DEFAULT_MAX_BLOCKS = 50_000
DEFAULT_MAX_NESTING = 256
TITLE_SEPARATORS = re.compile(r"\s+(?:[-—–|·:]|::)\s+")
"""What parts a page title joins ("Search — Kea 2.2.0 documentation", "Postfix manual -
smtp(8)"): the site's name is one part (boilerplate, duplicates, a site's search page)."""


class DocumentBuilder:
    """Collects blocks for one document; see the module docstring."""

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS) -> None:
        self.max_blocks = max_blocks
        self._parts: list[str] = []
        self._blocks: list[Block] = []
        self._length = 0
        self._headings: list[tuple[int, str, str | None]] = []
        self._first_by_level: dict[int, str] = {}
        self._path: tuple[str, ...] = ()
        self._anchor: str | None = None
        self._labels = 0  # how many headings at the stack's end are bold labels (label())

    @property
    def heading_path(self) -> tuple[str, ...]:
        """The enclosing headings at this point, outermost first."""
        return self._path

    @property
    def section_anchor(self) -> str | None:
        """The anchor of the nearest enclosing heading that has one."""
        return self._anchor

    def first_heading(self, level: int | None = None) -> str | None:
        """The first heading seen of ``level`` (or of any level, the highest first)."""
        if level is not None:
            return self._first_by_level.get(level)
        return next((self._first_by_level[k] for k in sorted(self._first_by_level)), None)

    def has_blocks(self) -> bool:
        return bool(self._blocks)

    def text_so_far(self) -> str:
        return "".join(self._parts)

    def heading(self, text: str, level: int, *, anchor: str | None = None,
                page: int | None = None, inherit: bool = True) -> None:
        """Open a section: pop headings of the same or a deeper level, push this one.

        The heading block's anchor is ``anchor``; when that is None and ``inherit`` is set,
        the anchor of the nearest enclosing heading that has one.
        """
        text = drop_controls(text)
        if not text.strip():
            return
        level = min(max(level, 1), 6)
        self._drop_labels()  # a label heads no section
        self._push(level, text, anchor)
        self._first_by_level.setdefault(level, text)
        block_anchor = self._anchor if inherit else anchor
        self.add("heading", text, anchor=block_anchor, page=page, level=level)

    def label(self, text: str, anchor: str | None = None) -> None:
        """A bold line over the blocks after it ("**Example 1: Sync all local objects …**",
        :func:`citewise.ingest.labels.is_label`): a heading one level below the section it
        is in, with that section's anchor (a page gives a bold line no id of its own), never
        the document's title; the next label, or any heading, ends it (the review of this
        stop: a bold tagline above a README's first heading held every section under it).
        ``anchor``: the label's own, where the page gives it one (a Vim help tag)."""
        text = drop_controls(text)
        if not text.strip():
            return
        self._drop_labels()
        level = min((self._headings[-1][0] if self._headings else 0) + 1, 6)
        self._push(level, text, anchor)
        self._labels = 1
        self.add("heading", text, anchor=self._anchor, level=level)

    def end_label(self) -> None:
        """Close the open label: what follows is its section's again (a Vim help paragraph at
        the margin after an option's entry; the review of this stop found "["x]dd Delete
        [count] lines" cited as the entry of ``d`` before it)."""
        if self._labels:
            self._drop_labels()
            self._refresh()

    def _drop_labels(self) -> None:
        """Take the open labels off the heading stack (:meth:`_refresh` not called)."""
        del self._headings[len(self._headings) - self._labels:]
        self._labels = 0

    def _push(self, level: int, text: str, anchor: str | None) -> None:
        while self._headings and self._headings[-1][0] >= level:
            self._headings.pop()
        self._headings.append((level, text, anchor))
        self._refresh()

    def _refresh(self) -> None:
        self._path = tuple(text for _, text, _ in self._headings)
        self._anchor = next((a for _, _, a in reversed(self._headings) if a), None)

    def add(self, kind: BlockKind, text: str, *, anchor: str | None = None,
            page: int | None = None, level: int = 0, header_lines: int = 0) -> None:
        """Append one block (control characters dropped, see
        :func:`~citewise.ingest.normalize.drop_controls`); whitespace-only text is ignored."""
        text = drop_controls(text)
        if not text.strip():
            return
        if len(self._blocks) >= self.max_blocks:
            raise LimitExceededError(
                f"more than {self.max_blocks} blocks (limits.max_blocks); "
                "split the document or raise limits.max_blocks")
        if self._parts:
            self._parts.append(SEPARATOR)
            self._length += len(SEPARATOR)
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        self._blocks.append(Block(
            kind=kind, text=text, start=start, end=self._length,
            heading_path=self._path, anchor=anchor, level=level, page=page,
            header_lines=header_lines))

    def drop_title_lead(self, title: str) -> None:
        """Drop the text blocks before the first heading that only repeat ``title``, when a
        heading follows: the page's title drawn as text (SQLite's ``div.fancy_title`` on 134
        pages). Each was a chunk of its own, "SQLite Autoincrement" and nothing else, first
        in a search for "sqlite autoincrement"; the title already heads every chunk."""
        first = next((i for i, b in enumerate(self._blocks) if b.kind == "heading"), 0)
        same = " ".join(title.split()).casefold()
        lead = {i for i, b in enumerate(self._blocks[:first])
                if b.kind == "text" and " ".join(b.text.split()).casefold() == same}
        if not lead:
            return
        blocks = [b for i, b in enumerate(self._blocks) if i not in lead]
        self._parts, self._blocks, self._length = [], [], 0
        for block in blocks:
            if self._parts:
                self._parts.append(SEPARATOR)
                self._length += len(SEPARATOR)
            self._parts.append(block.text)
            self._blocks.append(replace(block, start=self._length,
                                        end=self._length + len(block.text)))
            self._length += len(block.text)

    def build(self, *, title: str, fmt: str, metadata: Mapping[str, Any] | None = None,
              pages: int | None = None, empty_hint: str = "") -> ParsedDocument:
        """Freeze the document; raise :class:`IngestError` when it holds no text at all."""
        if not self._blocks:
            hint = empty_hint or "check that the file has content"
            raise IngestError(f"no extractable text; {hint}")
        clean = drop_controls(title)
        return ParsedDocument(
            title=title if clean == title else " ".join(clean.split()),
            text="".join(self._parts), blocks=tuple(self._blocks),
            metadata=dict(metadata or {}), pages=pages, format=fmt)


def pick_title(*candidates: object, fallback: str) -> str:
    """The first candidate that is a non-blank string (collapsed), else ``fallback``."""
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip():
            return " ".join(candidate.split())
    return fallback
