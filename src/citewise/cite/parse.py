"""Sentences of an answer and the passage ids each one cites.

Decisions (each has a test):

* An id is ``S`` + digits, any case (``s3`` -> ``S3``, ``S03`` -> ``S3``).
* A bracket cites when EVERY item in it is an id; items are separated by commas, semicolons,
  spaces or "and": ``[S2, S5]``, ``[S2; S5]``, ``[S2 and S5]``; adjacent brackets
  ``[S2][S5]`` are two citations. Ranges (``[S2-S5]``) are not ids.
* Other brackets are not citations and are ignored: ``[1]`` (a list index or a footnote: our
  prompt only hands out S-ids, so reading ``[1]`` as ``S1`` would guess), ``[see S2]``,
  Markdown links ``[text](url)``.
* Text in inline code (```a[S1]```) and fenced code blocks is never read for citations, and a
  fenced block is not a sentence (it holds no claim in prose).
* Sentences end at ``.``/``!``/``?`` followed by space and an upper-case letter, digit, quote,
  bracket or parenthesis, and at line breaks (list items and headings are their own
  sentences). Common abbreviations (e.g., i.e., et al., Fig., vs.) and decimals do not end a
  sentence. A citation written after the full stop (``… falls. [S1]``) belongs to the
  sentence before it.
"""

from __future__ import annotations

import re

_BRACKET = re.compile(r"\[([^\[\]\n]*)\](?!\()")
_ID = re.compile(r"[Ss](\d{1,4})")
_SEPARATORS = re.compile(r"\s*(?:[,;]|\band\b|\s)\s*", re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(\[A-Z0-9])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "fig.", "figs.", "vs.", "cf.", "approx.", "no.",
                  "dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "eq.", "ref.", "refs.", "ca.",
                  "resp.", "incl.", "etc.", "u.s.", "u.k.", "p.", "pp.", "vol.")
_LEADING_CITATIONS = re.compile(r"^((?:\s*\[[^\[\]\n]*\])+)\s*")


def bracket_ids(content: str) -> tuple[str, ...] | None:
    """The ids in one bracket's content (``"S2, s5"`` -> ``("S2", "S5")``), or ``None`` when
    the bracket is not a citation (an item that is not an id, or no item)."""
    items = [item for item in _SEPARATORS.split(content.strip()) if item]
    if not items:
        return None
    ids = []
    for item in items:
        match = _ID.fullmatch(item)
        if match is None:
            return None
        ids.append(f"S{int(match.group(1))}")
    return tuple(ids)


def citation_ids(sentence: str) -> tuple[str, ...]:
    """Every id cited in ``sentence``, in order, each once (inline code is skipped)."""
    found: dict[str, None] = {}
    for match in _BRACKET.finditer(_INLINE_CODE.sub("", sentence)):
        for sid in bracket_ids(match.group(1)) or ():
            found.setdefault(sid, None)
    return tuple(found)


def strip_citations(sentence: str) -> str:
    """``sentence`` without its citation brackets (other brackets stay)."""
    def drop(match: re.Match[str]) -> str:
        return "" if bracket_ids(match.group(1)) is not None else match.group(0)

    text = re.sub(r"\s{2,}", " ", _BRACKET.sub(drop, sentence))
    return re.sub(r"\s+([.,;:!?])", r"\1", text).strip()


def _prose_lines(text: str) -> list[str]:
    """Non-empty lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and line.strip():
            lines.append(line.strip())
    return lines


def _ends_with_abbreviation(segment: str) -> bool:
    words = [w.lstrip("([\"'") for w in segment.lower().split()]
    return bool(words) and (words[-1] in _ABBREVIATIONS
                            or " ".join(words[-2:]) in _ABBREVIATIONS)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see the module docstring for the rules)."""
    sentences: list[str] = []
    for line in _prose_lines(text):
        pieces, start = [], 0
        for match in _BOUNDARY.finditer(line):
            candidate = line[start:match.start()]
            if _ends_with_abbreviation(candidate):
                continue
            pieces.append(line[start:match.end()].strip())
            start = match.end()
        pieces.append(line[start:].strip())
        for index, piece in enumerate(pieces):
            lead = _LEADING_CITATIONS.match(piece)
            if lead and index > 0 and bracket_ids_all(lead.group(1)):
                sentences[-1] = f"{sentences[-1]} {lead.group(1).strip()}"
                piece = piece[lead.end():]
            if piece:
                sentences.append(piece)
    return sentences


def bracket_ids_all(brackets: str) -> bool:
    """True when every bracket in ``brackets`` is a citation."""
    contents = _BRACKET.findall(brackets)
    return bool(contents) and all(bracket_ids(c) is not None for c in contents)


def parse_citations(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(sentence, ids)`` for every sentence of ``text``, ids in order of appearance."""
    return [(sentence, citation_ids(sentence)) for sentence in split_sentences(text)]
