"""A table in a passage read row by row: each data row one sentence, with its column labels.

Loaders write tables as ``a | b`` rows. A question is answered by a row, and a row quoted
alone loses what its cells are: "Level: L4; Minimum: 68,000; Maximum: 88,000" says it, "L4 |
68,000 | 88,000" does not (:mod:`citewise.generate.extractive`).
"""

from __future__ import annotations

import re

from citewise.cite.parse import line_sentences
from citewise.cite.terms import labels

_CELL = " | "
_EMPTY_LAST = re.compile(r" \|$")
_EMPTY_FIRST = re.compile(r"^\| ")
"""A row whose last (or first) cell is empty ("Bereavement (other relatives) | 2 | ",
stripped to "… | 2 |"): one cell short, it made the demo's leave table no table, quoted
flattened whole."""
_NUMBER = re.compile(r"[-+]?[\d.,]+%?")
_CODE_CHARS = re.compile(r"[$={};<>\\`]")


def table_rows(part: str) -> list[tuple[str, str]]:
    """``(row as "Header: cell; …", the row's own cells)`` for each data row of ``part``
    when it is a table (``a | b`` lines, as loaders write tables, two or more, all with the
    same number of cells, each row one sentence) whose first line is a header row (the
    chunker repeats it at the top of every piece of a split table): every cell of it reads as
    a column label (:func:`_is_label`), or whose terms end in ``:`` (:func:`_term_rows`).
    ``[]`` otherwise, e.g. for a term/description table (``recompact | recompact the
    .ninja_deps file.``), which is read as sentences."""
    lines = [line.strip() for line in part.split("\n") if line.strip()]
    cells = [[c.strip() for c in _EMPTY_FIRST.sub(" | ", _EMPTY_LAST.sub(" | ", line)).split(_CELL)]
             for line in lines]
    if len(lines) < 2 or len(cells[0]) < 2 or any(len(c) != len(cells[0]) for c in cells):
        return []
    if len(cells[0]) == 2 and all(row[0].endswith(":") for row in cells):
        return _term_rows(cells)
    header = cells[0]
    if not all(_is_label(c) for c in header):
        return []
    out = []
    for row in cells[1:]:
        shown = _labelled(header, row)
        if len(line_sentences(shown)) == 1:
            out.append((shown, " ".join(row)))
            continue
        parts = _sentence_rows(header, row)
        if parts is None:
            return []  # a row of several sentences would be cited for its last one only
        out.extend(parts)
    return out


def _labelled(header: list[str], row: list[str]) -> str:
    return " ".join("; ".join(f"{h}: {c}" if h else c
                              for h, c in zip(header, row, strict=True) if c).split())


def _sentence_rows(header: list[str], row: list[str]) -> list[tuple[str, str]] | None:
    """A row whose one cell holds several sentences, as one row per sentence, each with the
    row's other cells ("Version: v10.0.0; Changes: Not passing it will throw a TypeError at
    runtime."); None when more than one cell does. Node's version histories have such rows:
    the table was read as prose, its rows run together, and "v7.0.0 | The callback parameter
    is no longer optional." was left out as a repeat of v10.0.0's first sentence, so the
    next sentence, "Not passing it will emit a deprecation warning", read as v7.6.0's."""
    split = [line_sentences(c) if c else [] for c in row]
    long = [i for i, sentences in enumerate(split) if len(sentences) > 1]
    if len(long) != 1:
        return None
    if any(len(x.split()) < 3 or not x[:1].isupper() for x in split[long[0]]):
        return None  # "See sec. 4.2 of the spec." is no two sentences (a review)
    out = []
    for sentence in split[long[0]]:
        cells = [sentence if i == long[0] else c for i, c in enumerate(row)]
        shown = _labelled(header, cells)
        if len(line_sentences(shown)) != 1:
            return None
        out.append((shown, " ".join(cells)))
    return out


_HISTORY_HEADER = re.compile(r"(?i)versions?|releases?|changes?|history|added|notes?|date")
_VERSION = re.compile(r"(?i)v?\d+(?:\.\d+)+|v\d+")
_VERSION_NOTE = re.compile(r"(?i)(?:added|deprecated|removed|introduced|changed) (?:in|since):? "
                           r"v?\d+(?:\.\d+)*(?:, v?\d+(?:\.\d+)*)*\.?")
"""A one-line note of the versions that added or deprecated an API ("Added in: v2.3.0",
quoted as the answer to "What does os.homedir return?")."""
_ASKS_HISTORY = re.compile(r"(?i)\b(?:versions?|releases?|when|since|added|introduced|"
                           r"changed?|changes|deprecated|removed|history)\b|\d+\.\d+|"
                           r"\bwhat(?:'s| is) new\b|\bv\d+")


def is_history(part: str, question: str) -> bool:
    """Whether ``part`` is a version-history table ("Version | Changes" rows of ``v20.8.0 |
    Calling promisify on a function that returns a Promise is deprecated.``) and
    ``question`` asks nothing about versions or changes. The Node.js docs open each API
    entry with one: asked "What does util.promisify do?", a new user was answered with its
    rows, which share the name, before the description, which does not repeat it."""
    lines = [line.strip() for line in part.split("\n") if line.strip()]
    header = [c.strip() for c in lines[0].split(_CELL)] if lines else []
    table = (len(lines) >= 2 and len(header) >= 2
             and all(_HISTORY_HEADER.fullmatch(c) for c in header)
             and all(_VERSION.match(line) for line in lines[1:]))
    noted = bool(lines) and all(_VERSION_NOTE.fullmatch(line) for line in lines)
    return (table or noted) and not _ASKS_HISTORY.search(question) and not labels(question)


def _term_rows(cells: list[list[str]]) -> list[tuple[str, str]]:
    """Each row of a term/description table whose terms end in ``:`` (an API reference's
    parameters: ``sec: | the security block to use``, ``Returns: | -1 in case of error``) as
    ``"term: description"``: read with its first row as column labels, the quote paired
    "Returns" with the first parameter's description."""
    out = []
    for term, text in cells:
        shown = " ".join(f"{term} {text}".split())
        if len(line_sentences(shown)) != 1:
            return []
        out.append((shown, f"{term} {text}"))
    return out


def _is_label(cell: str) -> bool:
    """A column label: at most five words and 40 characters, not a bare number, not a
    sentence (no final period), not code (``wc -l``, ``$HOME``, ``a=b``: a shell pipeline
    also has `` | ``)."""
    words = cell.split()
    return (len(cell) <= 40 and len(words) <= 5 and not cell.endswith(".")
            and not _NUMBER.fullmatch(cell) and not _CODE_CHARS.search(cell)
            and not any(w.startswith("-") for w in words))
