"""The intermediate values of the chunker: counted blocks, sections and chunk drafts."""

from __future__ import annotations

from dataclasses import dataclass

from citewise.types import Block


@dataclass(frozen=True)
class Counted:
    """A block with its token count (counted once per document)."""

    block: Block
    tokens: int


@dataclass(frozen=True)
class Section:
    """Consecutive blocks that chunks never cross.

    ``start`` is the offset of the first block (the key of ``section_id``); ``parent`` is the
    heading path that sibling sections share (used by the small-section merge).
    """

    blocks: tuple[Counted, ...]
    heading_path: tuple[str, ...]
    parent: tuple[str, ...]

    @property
    def start(self) -> int:
        return self.blocks[0].block.start

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.blocks)

    @property
    def headed(self) -> bool:
        """Whether the section begins with a heading block (a preamble does not)."""
        return self.blocks[0].block.kind == "heading"

    @property
    def heading_only(self) -> bool:
        return all(c.block.kind == "heading" for c in self.blocks)


@dataclass(frozen=True)
class Draft:
    """A chunk before ids and hashes: its text, span, the blocks it draws on, its section.

    ``text == doc_text[start:end]`` except for continued table chunks (header + rows).
    ``tokens`` is the sum of the counts of the pieces it was built from (blocks, sentences,
    lines, rows); it equals the count of ``text`` for whitespace-splitting tokenizers.
    """

    text: str
    start: int
    end: int
    tokens: int
    blocks: tuple[Block, ...]
    section: Section
