"""Cut a span of text into smaller spans: lines, code statements, sentences, words.

Every function takes ``(text, start, end)`` and returns ``(start, end)`` pairs of absolute
offsets into ``text``, in order, without leading/trailing whitespace, never overlapping. The
chunker uses them as cut points, so a piece of text is always a slice ``text[start:end]``.

Sentence rule (a deliberately small regex splitter): a sentence ends after ``.``, ``!`` or ``?``
(plus any closing quotes/brackets) followed by whitespace and then an uppercase letter, a
digit, or an opening quote/bracket; or after ``。！？`` (no whitespace needed); or at a line
break before a bullet (``* ``, ``- ``, ``• ``): strace's NEWS lists a release's entries as
one paragraph of "* Added …" lines, and a window cut inside an entry ended a chunk on "*
Added", which an answer quoted. A ``.`` does
not end a sentence when the word before it is

* in :data:`ABBREVIATIONS` (``vs.``, ``Dr.``, ``et al.``, ``approx.`` ...),
* in :data:`NUMBER_ABBREVIATIONS` and a digit follows (``Fig. 2``, ``No. 5``, ``pp. 3``),
* dotted letters such as ``e.g.``, ``i.e.``, ``U.S.``, or
* a single capital letter, an initial (``J. Smith``).

Decimals (``3.14``) never split because no whitespace follows the dot.

Statement rule (:func:`statement_spans`, for code): a statement starts at a line indented no
deeper than every other line of the span, unless that line closes a bracket (``}``, ``)``,
``]``), continues a compound statement (``else``, ``elif``, ``except``, ``finally``,
``catch``), or follows a line that cannot end a statement (ending in ``\\``, an opening
bracket, ``=``, ``=>``, ``+``, ``|``, ``&&``, ``||``) or that is a comment or decorator at that
indentation (``#``, ``//``, ``@``), which belongs with the statement after it, or stands
inside a string literal that runs over lines (:func:`opens_string`).
:func:`inner_statement_spans` applies the same rule one level down, inside one statement.
"""

from __future__ import annotations

import re

Span = tuple[int, int]

_LINE = re.compile(r"[^\n]*\S[^\n]*")
_WORD = re.compile(r"\S+")
_CONTINUED = ("\\", "(", "[", "{", "=", "=>", "+", "|", "&&", "||")
_CLAUSE = re.compile(r"[)\]}]|(?:else|elif|except|finally|catch)\b")
_ATTACHED = ("#", "//", "@")
_BOUNDARY = re.compile(
    r"(?<![.!?])[.!?]+[\"'”’)\]]*\s+(?=[A-Z0-9\"'“‘(\[À-ÖØ-Þ])"  # Latin: punctuation, space,
    # capital; from the run's first mark only: tried inside a run of 40,000 dots it took 30 s
    r"|[。！？]+[」』）]*\s*"  # CJK full stops need no space
    r"|\n(?=[ \t]*[-*•][ \t]+\S)"  # a line that opens a bullet item
)
_DOTTED = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]?$")
_NEXT_CHAR = re.compile(r"\S")
# Always abbreviations: never end a sentence.
ABBREVIATIONS = frozenset({
    "al", "approx", "ca", "cf", "co", "corp", "dept", "dr", "gen", "inc", "jr", "lt",
    "ltd", "mr", "mrs", "ms", "mt", "prof", "rev", "sr", "st", "vs",
})
# Abbreviations only before a number ("Fig. 2", "No. 5", "pp. 3-4"): "... said no. 5 ..." is rare,
# "... said no. Then ..." is not.
NUMBER_ABBREVIATIONS = frozenset({
    "apr", "aug", "ch", "dec", "eq", "eqs", "feb", "fig", "figs", "jan", "jul", "jun", "mar",
    "no", "nos", "nov", "oct", "p", "pp", "ref", "refs", "sec", "secs", "sep", "sept", "tab",
    "vol", "vols",
})


def line_spans(text: str, start: int, end: int) -> list[Span]:
    """Lines that contain a non-space character; a span starts at the line's first column
    (indentation kept) and ends at the newline."""
    return [m.span() for m in _LINE.finditer(text, start, end)]


def statement_spans(text: str, start: int, end: int) -> list[Span]:
    """Top-level statements of code, each with its comments, by the rule in the module
    docstring; a statement's span runs from its first line's start to its last line's end."""
    lines = line_spans(text, start, end)
    if not lines:
        return []
    indents = [_indent(text, a, b) for a, b in lines]
    quoted = _in_string(text, lines)
    top = min(i for i, q in zip(indents, quoted, strict=True) if not q)
    spans: list[Span] = [lines[0]]
    for k in range(1, len(lines)):
        a, b = lines[k]
        prev = text[lines[k - 1][0]:lines[k - 1][1]].strip()
        begins = (indents[k] == top and not quoted[k]
                  and not _CLAUSE.match(text, a + indents[k], b)
                  and not prev.endswith(_CONTINUED)
                  and not (indents[k - 1] == top and prev.startswith(_ATTACHED)))
        if begins:
            spans.append((a, b))
        else:
            spans[-1] = (spans[-1][0], b)
    return spans


_QUOTE_FREE = re.compile(r"""\\.|'"'""")  # an escaped character, a '"' character literal


def opens_string(line: str) -> bool:
    """Whether ``line`` opens (or closes) a ``"`` string that runs over lines: an odd count of
    its double quotes, escaped ones and a ``'"'`` character aside (a triple quote counts
    three). rustdoc's ``let road_not_taken = b"I shall be telling this with a sigh`` runs
    five lines at the margin, and a window opened at its last ("And that has made all the
    difference.";), quoted as an answer's example."""
    return _QUOTE_FREE.sub("", line).count('"') % 2 == 1


def _in_string(text: str, lines: list[Span]) -> list[bool]:
    """For each line, whether it starts inside a string literal opened on a line before."""
    out, quoted = [], False
    for a, b in lines:
        out.append(quoted)
        quoted ^= opens_string(text[a:b])
    return out


def bracket_depth(code: str) -> int:
    """Brackets opened and not closed by the end of ``code`` (a closing bracket with none open
    counts too, as a negative step; brackets inside strings count as well)."""
    return sum((char in "([{") - (char in ")]}") for char in code)


def inner_statement_spans(text: str, start: int, end: int) -> list[Span]:
    """The statements of one statement's body (a class's methods, a dict's entries): its
    first line joins the first of them, and its closing lines (indented no deeper than the
    first line, like ``}``) join the last."""
    lines = line_spans(text, start, end)
    if not lines:
        return []
    outer = _indent(text, *lines[0])
    last = len(lines)
    while last > 1 and _indent(text, *lines[last - 1]) <= outer:
        last -= 1
    if last <= 1:
        return [(lines[0][0], lines[-1][1])]
    body = statement_spans(text, lines[1][0], lines[last - 1][1])
    body[0] = (lines[0][0], body[0][1])
    body[-1] = (body[-1][0], lines[-1][1])
    return body


def _indent(text: str, start: int, end: int) -> int:
    n = start
    while n < end and text[n] in " \t":
        n += 1
    return n - start


def word_spans(text: str, start: int, end: int) -> list[Span]:
    """Maximal runs of non-whitespace."""
    return [m.span() for m in _WORD.finditer(text, start, end)]


def sentence_spans(text: str, start: int, end: int) -> list[Span]:
    """Sentences by the rule in the module docstring."""
    spans: list[Span] = []
    pos = start
    for m in _BOUNDARY.finditer(text, start, end):
        if _is_abbreviation(text, pos, m.start()):
            continue
        _append_trimmed(spans, text, pos, m.end())
        pos = m.end()
    _append_trimmed(spans, text, pos, end)
    return spans


def _is_abbreviation(text: str, pos: int, dot: int) -> bool:
    """Whether the ``.`` at ``dot`` closes an abbreviation rather than a sentence."""
    if text[dot] != ".":
        return False
    begin = dot
    while begin > pos and not text[begin - 1].isspace():
        begin -= 1
    word = text[begin:dot].lstrip("(\"'“‘[")
    if len(word) == 1 and word.isupper():
        return True
    word = word.lower()
    if word in ABBREVIATIONS or _DOTTED.match(word):
        return True
    nxt = _NEXT_CHAR.search(text, dot + 1)
    return word in NUMBER_ABBREVIATIONS and nxt is not None and nxt.group().isdigit()


def _append_trimmed(spans: list[Span], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))
