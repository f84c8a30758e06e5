"""Split a document's blocks into sections, the units chunks never cross.

Rules, applied in order:

1. **Split.** A section is a heading block plus the blocks after it up to the next heading
   or, in an HTML page, the first block outside it (a bold label's box ended).
   Blocks before the first heading form a *preamble* section whose heading path is the first
   block's own ``heading_path`` (``()`` or the title, as the loader set it).
2. **Heading-only sections merge forward.** A section holding only heading blocks (a heading
   directly followed by another heading) is prepended to the next section. The merged section
   takes the *next* section's heading path: for the usual parent→child case (``# Guide`` then
   ``## Install``) that is the deeper path; when an empty heading is followed by a sibling or a
   shallower heading, the content still belongs to the later heading, so its path is kept too.
   A heading-only section at the very end of the document stays as it is.
3. **Small sections merge with the next sibling.** A section of fewer than ``min_tokens``
   tokens absorbs the next section when both begin with a heading, share the same parent path
   (``heading_path[:-1]``) and the sum fits ``chunk_tokens``. The merged section's heading path
   is that common parent path, because its text now holds both headings; its ``start`` is the
   first one's. Merging repeats while the merged section stays under ``min_tokens`` and fits.
   Preambles never merge this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.chunk.draft import Counted, Section
from citewise.types import Block


def build_sections(blocks: Sequence[Counted], chunk_tokens: int,
                   min_tokens: int, boxed_labels: bool = False) -> list[Section]:
    """Rules 1–3 of the module docstring, in order (``boxed_labels``: see
    :func:`split_sections`)."""
    sections = merge_heading_only(split_sections(blocks, boxed_labels))
    return merge_small_siblings(sections, chunk_tokens, min_tokens)


def split_sections(blocks: Sequence[Counted], boxed_labels: bool = False) -> list[Section]:
    """Rule 1: cut before every heading block; with ``boxed_labels`` (an HTML page, whose
    bold labels title their box only), also before a block no longer under the section's
    heading: SQLAlchemy's "Class signature" line over one paragraph headed the class's every
    method after its box, 3,026 of a new user's 13,809 chunks, their citations reading "…
    › Class signature". (Vim help gives a tag's path to its next line only: cut so, its
    sections fell into tag-only chunks, a review found.)"""
    groups: list[list[Counted]] = []
    for counted in blocks:
        block = counted.block
        if block.kind == "heading" or not groups or (
                boxed_labels and _left(block, groups[-1][0].block)):
            groups.append([])
        groups[-1].append(counted)
    return [_section(group) for group in groups]


def _left(block: Block, first: Block) -> bool:
    """Whether ``block`` is outside the section ``first`` (a heading) opened: its heading
    path does not go through that heading."""
    path = first.heading_path
    return first.kind == "heading" and bool(path) and block.heading_path[:len(path)] != path


def merge_heading_only(sections: Sequence[Section]) -> list[Section]:
    """Rule 2: prepend heading-only sections to the section after them."""
    out: list[Section] = []
    carry: list[Counted] = []  # a list: 20k headings in a row must not copy tuples n² times
    for i, section in enumerate(sections):
        if section.heading_only and i + 1 < len(sections):
            carry.extend(section.blocks)
            continue
        if carry:
            section = Section((*carry, *section.blocks), section.heading_path, section.parent)
            carry = []
        out.append(section)
    return out


def merge_small_siblings(sections: Sequence[Section], chunk_tokens: int,
                         min_tokens: int) -> list[Section]:
    """Rule 3: a section under ``min_tokens`` absorbs its next sibling if the sum fits."""
    out: list[Section] = []
    for section in sections:
        prev = out[-1] if out else None
        if (prev is not None and prev.tokens < min_tokens and prev.headed and section.headed
                and prev.parent == section.parent
                and prev.tokens + section.tokens <= chunk_tokens):
            out[-1] = Section(prev.blocks + section.blocks, prev.parent, prev.parent)
        else:
            out.append(section)
    return out


def _section(blocks: list[Counted]) -> Section:
    path = blocks[0].block.heading_path
    return Section(tuple(blocks), path, path[:-1])
