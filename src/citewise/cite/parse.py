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
* :func:`canonical_citations` (run on a model's answer before anything reads it) rewrites
  the variants small models write, ``[Source id="S1"]``, ``[Source id: S1]``, ``[source
  S1]``, ``[Sources: S1, S2]``, to ``[S1]`` / ``[S1, S2]``, drops a closing tag written
  after what a citation covers (``[/Source id]``, ``</source>``); and when the answer *starts*
  with a citation, the model cites before what it cites (``[S1] A. [S2] B.``), so each such
  leading bracket moves to the end of the sentence after it (``A [S1]. B [S2].``).
* :func:`inert_citations` (run on every passage before a generator or a quote sees it) writes
  a source's own citation-shaped brackets in parentheses (``[S1]`` -> ``(S1)``): a quoted
  sentence holding ``[S1]`` was read as citing S1, so a page could attach another, trusted
  source's number to its own claim. :func:`inert_numbers` (run on an answer before its ids
  become numbers) does the same for a lone ``[3]`` in prose, which would look like the
  answer's citation 3; intervals (``[0, 1]``), links and code keep their brackets.
* :func:`segments` keeps the answer's shape for rebuilding it: paragraphs (a blank line, a
  list item or a heading starts one), lines, and fenced code blocks as segments of their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from citewise.text import CODE_LINE

_BRACKET = re.compile(r"\[([^\[\]\n]*)\](?!\()")
CITATION_BRACKET = _BRACKET  # a bracket that may be a citation (see bracket_ids)
_ID = re.compile(r"[Ss](\d{1,4})")
_SEPARATORS = re.compile(r"\s*(?:[,;]|\band\b|\s)\s*", re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_INLINE_CODE_PARTS = re.compile(f"({_INLINE_CODE.pattern})")  # re.split keeps the code
_NUMBER = re.compile(r"\[\s*(\d{1,4})\s*\](?!\()")  # not a link's "[1](…)"
_FOOTNOTE_AFTER = re.compile(r"(?:\([^()\n]*\s[^()\n]*\)|[.,;:!?])$")
"""What a footnote mark follows, not an index: a parenthesis of prose (with a space in it)
or punctuation. "…52 weeks at full pay (see the HR policy)[1]." quoted from a wiki page
kept its ``[1]``, the real HR policy's number in that answer (a security review). After an
identifier or a call, ``f(x)[0]``, a number is an index (kept), and after a plain word when
the sentence goes on (``argv[1] is``), not when its clause ends there (:func:`_indexes`)."""
_WORD_BEFORE = re.compile(r"(?<![\w$.])[A-Za-z][a-z]+$")  # a plain word, no code in it
_NAME_BEFORE = re.compile(r"(?<![\w$.])\(?[A-Z][a-z]+\)?$")
"""A capitalised word (or one in parentheses) right before a bracket: a name in prose,
where a footnote's mark goes, not code's index (``argv[1]``, ``items[2]``, and Ruby's
``ARGV[1]``, all capitals, stay: the second review of this stop). Its number, when the
answer shows a citation of that number, is put in parentheses: a security review's source
"Per the Official Security Policy[2] employees must…" showed ``[2]`` beside the real
policy's citation 2."""
_CLAUSE_END = re.compile(r"[.,;:!?]?(?:\s+[A-Z\[(]|\s*$)")
FENCE = re.compile(r"^\s*(```|~~~)")
"""A line that opens or closes a fenced code block (what the checker reads as one)."""
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(\[A-Z0-9])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "fig.", "figs.", "vs.", "cf.", "approx.", "no.",
                  "dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "eq.", "ref.", "refs.", "ca.",
                  "resp.", "incl.", "etc.", "u.s.", "u.k.", "p.", "pp.", "vol.")
# a list item's number or letter ("1.", "(2)", "b)") opens its sentence: "1." alone was
# quoted as a sentence ("1 [1]. Use a mix of <Tab> and space characters [1].")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,3}|[a-zA-Z])[.)]")
_LONE_MARK = re.compile(r"(?:^|[\s,(])[?!]$")
"""A ``?`` or ``!`` standing as a word of its own names the symbol, ending no sentence: "The
question mark operator, ? [S1], is used at the end of an expression" was two sentences, the
first removed as restating the question, the second as uncited (a new user of Rust by
Example)."""
_LEADING_CITATIONS = re.compile(r"^((?:\s*\[[^\[\]\n]*\])+)\s*")
_VARIANT = re.compile(  # no two adjacent optional runs: linear on hostile whitespace
    r"""\[\s*sources?\b[\s:]*(?:id\s*[=:]\s*)?["']?([Ss]\d{1,4}(?:["']?[\s,;]+(?:id\s*[=:]\s*)?"""
    r"""["']?[Ss]\d{1,4})*)["']?\s*\]""", re.IGNORECASE)
_CITE_FIRST = re.compile(
    r"\[(S\d{1,4}(?:, S\d{1,4})*)\]\s*([^\[\n]*?[^\s\[])(?:([.!?])(?=\s|$)|(?=\n|$))")


_CLOSING_TAG = re.compile(r"(?<=\S)(?:\[\s*/\s*sources?(?:\s+id\b[^\[\]\n]{0,30})?\s*\]|"
                          r"</\s*sources?\s*>)", re.IGNORECASE)
"""A closing tag a model writes after what it cites, as if the citation were an element: a new
user's answer was "[1]Git v2.12.3 Release Notes[/Source id]"."""
_LABELLED = re.compile(r"\b(?:Sources?|References?|Citations?)\s*:\s*"
                       r"(\[S\d{1,4}(?:, S\d{1,4})*\](?:\s*\[S\d{1,4}(?:, S\d{1,4})*\])*)",
                       re.IGNORECASE)
"""A citation with a label ("Sources: [S1]"): a new user's answer ended "…each time it is
run. Sources: [1]"."""


def canonical_citations(text: str) -> str:
    """``text`` with citation variants written as ``[S1]`` and cite-first sentences turned
    round (see the module docstring)."""
    text = _VARIANT.sub(lambda m: "[" + ", ".join(
        f"S{int(n)}" for n in _ID.findall(m.group(1))) + "]", text)
    text = _LABELLED.sub(r"\1", text)  # "… each time it is run. Sources: [S1]"
    text = _outside_code(text, lambda prose: _CLOSING_TAG.sub("", prose))  # "[S1]Git v2.12.3
    # Release Notes[/Source id]"; not Maven's "<source>17</source>" in a code block
    if not re.match(r"\s*\[S\d{1,4}(?:, S\d{1,4})*\]\s*\w", text):
        return text
    return _CITE_FIRST.sub(lambda m: f"{m.group(2)} [{m.group(1)}]{m.group(3) or ''}", text)


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to its prose only: fenced blocks and inline code
    stay as written."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            line = "".join(part if i % 2 else change(part)  # odd parts: inline code
                           for i, part in enumerate(_INLINE_CODE_PARTS.split(line)))
        out.append(line)
    return "\n".join(out)


def inert_citations(text: str) -> str:
    """``text`` with every bracket that would read as a citation in parentheses."""
    text = _VARIANT.sub(lambda m: f"({m.group(0)[1:-1]})", text)
    return _BRACKET.sub(
        lambda m: f"({m.group(1)})" if bracket_ids(m.group(1)) is not None else m.group(0), text)


def inert_numbers(text: str, taken: int = 0) -> str:
    """``text`` with a lone number in brackets (``[3]``; not a link's, not an index such as
    ``argv[1]``; a footnote after a parenthesis of prose is one) in parentheses, outside
    fenced code blocks and inline code. ``taken``: the citation numbers the answer shows
    (1..taken), which a plain word's bracket never keeps (:func:`_indexes`)."""
    return _outside_code(text, lambda prose: _NUMBER.sub(
        lambda m: m.group(0) if _indexes(prose, m.start(), m.end(), 0 < int(m.group(1)) <= taken)
        else f"({m.group(1)})", prose))


def _indexes(prose: str, at: int, end: int, taken: bool = False) -> bool:
    """Whether the brackets at ``prose[at:end]`` index what is right before them: an
    identifier, a call or another index, or a plain word when prose goes on after them
    ("argv[1] is the script"); not a footnote's place (:data:`_FOOTNOTE_AFTER`, and a plain
    word's mark that ends its clause, "…at full pay[1]. The board decided[2]," a review),
    nor after a letter no code writes ("every 5 days\u3164[2]": a Hangul filler, blank on
    screen), nor after a name (:data:`_NAME_BEFORE`) when ``taken`` (the answer shows a
    citation of that number)."""
    before = prose[at - 1] if at else ""
    if not before.isascii() or not (before.isalnum() or before in "_$)]"):
        return False
    if _FOOTNOTE_AFTER.search(prose, max(0, at - 80), at) is not None:
        return False
    if taken and _NAME_BEFORE.search(prose, max(0, at - 80), at) is not None:
        return False  # "Policy[2]", "(Policy)[2]": no code indexes a name so
    word = _WORD_BEFORE.search(prose, max(0, at - 80), at)
    return word is None or _CLAUSE_END.match(prose, end) is None


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
    """``sentence`` without its citation brackets (other brackets stay), and without the
    space a bracket leaves before punctuation ("value [S1]." -> "value.")."""
    text = re.sub(r"\s{2,}", " ", without_brackets(sentence))
    return re.sub(r"\s+([.,;:!?])", r"\1", text).strip()


def without_brackets(sentence: str) -> str:
    """``sentence`` with each citation bracket replaced by a space and nothing else changed:
    what identifiers are read from (".ninja_log" keeps its space before the dot)."""
    def drop(match: re.Match[str]) -> str:
        return " " if bracket_ids(match.group(1)) is not None else match.group(0)

    return _BRACKET.sub(drop, sentence)


def _prose_lines(text: str) -> list[str]:
    """Non-empty lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and line.strip():
            lines.append(line.strip())
    return lines


def _ends_with_abbreviation(segment: str) -> bool:
    words = [w.lstrip("([\"'") for w in segment.lower().split()]
    return bool(words) and (words[-1] in _ABBREVIATIONS or " ".join(words[-2:])
                            in _ABBREVIATIONS) or _ends_with_initial(segment)


_INITIAL = re.compile(r"\W*(?:[A-Z][a-z]+|[A-Z]\.)(?:\s+[A-Z]\.)+")


def _ends_with_initial(segment: str) -> bool:
    """Whether ``segment`` is a name up to its middle initial, the subject opening its
    sentence ("Phillip J." of "Phillip J. Eby is the seminal author of setuptools", quoted as
    "Eby is the seminal author…"; "J. R." of "J. R. R. Tolkien"). Only there: "…leave from
    Terminal B. Boarding closes…", "World War I. Next…" end their sentences (a review: glued,
    an unsupported second sentence was kept with its first)."""
    return _INITIAL.fullmatch(segment.strip()) is not None


def _elided_range(candidate: str, after: str) -> bool:
    """Whether an ellipsis elides the middle of a run of numbers: bzip2's manual sets "the
    block size to 100 k, 200 k ... 900 k when compressing", quoted as two sentences, "900 k
    when compressing" the second."""
    return candidate.endswith("...") and after[:1].isdigit() and \
        any(c.isdigit() for c in candidate[-12:-3])  # "We waited... 2 days later" ends one


_QUOTE_REACH = 120  # a quote opened further back was never closed: split as usual


def _inside_quote(candidate: str) -> bool:
    """Whether ``candidate`` ends inside a code span or a ‘quoted’ term: sed's manual
    quotes ‘sed -Ei '...' FILE’, and the quote of the sentence after it began "FILE’ Same
    as ‘-E -i’…"."""
    for opener, closers in (("‘", "’"), ("`", "`'")):  # `foo' is Texinfo's old quoting
        at = candidate.rfind(opener)
        if at >= 0 and len(candidate) - at <= _QUOTE_REACH and not any(
                c in candidate[at + 1:] for c in closers) and (
                opener != "`" or candidate.count("`") % 2 == 1):
            return True
    return False


def line_sentences(line: str) -> list[str]:
    """The sentences of one prose line (a citation after the full stop joins the sentence
    before it)."""
    sentences: list[str] = []
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(line):
        candidate = line[start:match.start()]
        if _ends_with_abbreviation(candidate) or _ENUMERATOR.fullmatch(candidate.strip()) \
                or _inside_quote(candidate) or _LONE_MARK.search(candidate) \
                or _elided_range(candidate, line[match.end():]):
            continue
        pieces.append(line[start:match.end()].strip())
        start = match.end()
    pieces.append(line[start:].strip())
    for index, piece in enumerate(pieces):
        lead = _LEADING_CITATIONS.match(piece)
        if lead and index > 0 and sentences and bracket_ids_all(lead.group(1)):
            sentences[-1] = f"{sentences[-1]} {lead.group(1).strip()}"
            piece = piece[lead.end():]
            if _STOP_ONLY.fullmatch(piece):  # "… --logs-dir=. [S1]." ends with its stop:
                sentences[-1] += piece  # a "." of its own joined the next sentence (npm)
                piece = ""
        if piece:
            sentences.append(piece)
    return sentences


_STOP_ONLY = re.compile(r"[.!?…]+[\"'”’)]*")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see the module docstring for the rules)."""
    return [s for line in _prose_lines(text) for s in line_sentences(line)]


_LIST_OR_HEADING = re.compile(r"^\s*(?:[-*•+]\s|\d{1,3}[.)]\s|#{1,6}\s)")


@dataclass(frozen=True)
class Segment:
    """A piece of an answer in reading order: a prose ``sentence`` or a fenced ``code`` block
    (its lines, fences included). ``paragraph`` numbers paragraphs (a blank line, a list item
    or a heading starts a new one) and ``line`` the source line, so the text can be rebuilt
    from the segments that are kept."""

    kind: str
    text: str
    paragraph: int
    line: int


_INDENTED = re.compile(r"^(?: {4}|\t)\s*\S")


def _indented_code(lines: list[str], at: int, opens: bool) -> int:
    """How many lines from ``lines[at]`` are an indented code block (Markdown: four spaces
    after a blank line, not a list item's next paragraph), 0 when none: a model copying an
    Info manual's example (``Plural-Forms: nplurals=3; \\``) wrote it indented, and its lines
    were read as prose sentences cut at each "?". Prose indented by mistake is not code: a
    block counts only when a line of it reads like code (``=``, braces, ``$``, a closing
    ``;``, a command and its option)."""
    if not opens:
        return 0
    end = at
    while end < len(lines) and _INDENTED.match(lines[end]):
        end += 1
    return end - at if any(CODE_LINE.search(ln) for ln in lines[at:end]) else 0


def segments(text: str) -> list[Segment]:
    """``text`` cut into :class:`Segment` s (same sentence rules as :func:`split_sentences`)."""
    out: list[Segment] = []
    paragraph, fence_lines, previous_break, in_list = 0, None, True, False
    lines = text.splitlines()
    skip = 0
    for number, raw in enumerate(lines):
        if skip:
            skip -= 1
            continue
        block = 0 if fence_lines is not None else _indented_code(
            lines, number, previous_break and not in_list)
        if block:
            paragraph += 1
            out.append(Segment("code", "\n".join(lines[number:number + block]), paragraph,
                               number))
            skip, previous_break = block - 1, True
            continue
        if FENCE.match(raw):
            if fence_lines is None:
                fence_lines = [raw]
                continue
            fence_lines.append(raw)
            paragraph += 1
            out.append(Segment("code", "\n".join(fence_lines), paragraph, number))
            fence_lines, previous_break = None, True
            continue
        if fence_lines is not None:
            fence_lines.append(raw)
            continue
        if not raw.strip():
            previous_break = True
            continue
        item = bool(_LIST_OR_HEADING.match(raw))
        if previous_break or item:
            paragraph += 1
            in_list = item and not raw.lstrip().startswith("#")
        previous_break = item
        out.extend(Segment("sentence", s, paragraph, number) for s in line_sentences(raw.strip()))
    if fence_lines is not None:  # an unclosed fence: still code, never prose
        out.append(Segment("code", "\n".join(fence_lines), paragraph + 1, len(out)))
    return out


def paragraph_citations(items: list[Segment]) -> dict[int, tuple[str, ...]]:
    """For each paragraph, the ids cited by its LAST sentence: a citation that closes a
    paragraph covers the paragraph's uncited sentences (``A. B. C [S1].``)."""
    last: dict[int, tuple[str, ...]] = {}
    for seg in items:
        if seg.kind == "sentence":
            last[seg.paragraph] = citation_ids(seg.text)
    return last


def bracket_ids_all(brackets: str) -> bool:
    """True when every bracket in ``brackets`` is a citation."""
    contents = _BRACKET.findall(brackets)
    return bool(contents) and all(bracket_ids(c) is not None for c in contents)


def parse_citations(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(sentence, ids)`` for every sentence of ``text``, ids in order of appearance."""
    return [(sentence, citation_ids(sentence)) for sentence in split_sentences(text)]
