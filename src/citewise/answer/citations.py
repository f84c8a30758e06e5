"""From a validated answer to what the reader sees: ``[S3]`` ids renumbered ``[1]``, ``[2]``…
in order of first use, and one :class:`Citation` per cited passage with the quote that best
matches the sentence citing it. A citation's heading and link are those of the section the
quote is in: a chunk that merged a glossary's small entries opens the entry quoted, not the
first one (:meth:`~citewise.types.Chunk.section_at`).

Ids the model invented (``fabricated``) are left in the text exactly as written and reported
by validation: never dropped, never replaced by a real passage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citewise.cite.parse import (
    Segment,
    citation_ids,
    inert_numbers,
    line_sentences,
    paragraph_citations,
    segments,
    strip_citations,
)
from citewise.types import Citation, ContextPassage, ValidationReport

BRACKET = re.compile(r"\[\s*([Ss]\d+(?:\s*(?:[,;]\s*)?[Ss]\d+)*)\s*(?:[,;]\s*)?\]")
_ID = re.compile(r"[Ss](\d+)")
_BLOCKS = re.compile(r"\n\s*\n")  # a passage's blocks; a heading is one
QUOTE_CHARS = 300


def renumber(text: str, report: ValidationReport) -> tuple[str, dict[str, str]]:
    """Replace each valid id by its citation number; keep fabricated ids verbatim. A number
    in brackets that was in the text before (a quoted footnote mark, a model's own ``[1]``)
    is put in parentheses first, so every ``[n]`` shown is a checked citation."""
    numbers = {sid: str(i) for i, sid in enumerate(report.cited, start=1)}
    shown = number_brackets(inert_numbers(text, len(numbers)),
                            lambda sid: numbers.get(sid, sid))
    return joined_trailing(shown), numbers


def joined_trailing(text: str) -> str:
    """``text`` (citations numbered) with a citation after a sentence's full stop joined to
    the sentence's own: "…reused [1]. [2]" reads "…reused [1, 2]."."""
    return _TRAILING.sub(_merged, text)


_TRAILING = re.compile(r"\[(\d+(?:, \d+)*)\]([.!?]) \[(\d+(?:, \d+)*)\](?=[ \t]*(?:\n|$))")
"""A citation after a sentence's own, past its full stop (the model's "…reused [S2]. [S1]"
read "…reused [1]. [2]", and "…every Tuesday [1]. [1]")."""


def _merged(match: re.Match[str]) -> str:
    ids = dict.fromkeys([*match.group(1).split(", "), *match.group(3).split(", ")])
    return f"[{', '.join(ids)}]{match.group(2)}"


def number_brackets(text: str, number: Callable[[str], str]) -> str:
    """``text`` with each citation bracket's ids (``S3``) written as ``number(id)``, each
    shown once per bracket: ``[S3, S1, s3]`` -> ``[1, 2]``."""
    def repl(match: re.Match[str]) -> str:
        shown = dict.fromkeys(number(f"S{n}") for n in _ID.findall(match.group(1)))
        return "[" + ", ".join(shown) + "]"

    return BRACKET.sub(repl, text)


def _sentences(text: str) -> list[str]:
    """The sentences of a passage's ``text`` as :func:`~citewise.cite.parse.line_sentences`
    cuts a line (not at "the ? operator", "asm! macro", "e.g."), per block between blank
    lines, each as the text writes it (line breaks kept: a quote is found in its chunk to
    place its anchor)."""
    out = []
    for block in _BLOCKS.split(text):
        flat, at = block.replace("\n", " "), 0
        for piece in line_sentences(flat):
            start = flat.find(piece, at)
            if start < 0:  # (a citation joined to it: not in a passage's text)
                out.append(piece)
                continue
            out.append(block[start:start + len(piece)].strip())
            at = start + len(piece)
    return out


def best_quote(passage_text: str, sentence_words: set[str]) -> str:
    """The passage sentence sharing most words with the citing sentences (first on ties):
    those holding its id, and the uncited sentences of a paragraph it closes. Sentences as
    the citation checker reads them (:func:`_sentences`): cut at every ".!?" and a space, a
    new user's quotes were "operator can only be used … the value the ?" and "… inline
    assembly via the asm!"."""
    sentences = [s for s in _sentences(passage_text) if s]
    if not sentences:
        return ""
    def overlap(s: str) -> int:
        return len(sentence_words & set(re.findall(r"\w+", s.lower())))
    quote = max(sentences, key=overlap) if sentence_words else sentences[0]
    return quote if len(quote) <= QUOTE_CHARS else quote[:QUOTE_CHARS - 1].rstrip() + "…"


def build_citations(text: str, passages: Sequence[ContextPassage],
                    report: ValidationReport) -> tuple[str, tuple[Citation, ...]]:
    """The reader's answer text and its citations, numbered in order of first use."""
    rendered, numbers = renumber(text, report)
    by_sid = {p.sid: p for p in passages}
    citing: dict[str, set[str]] = {sid: set() for sid in numbers}
    every = segments(text)
    sentences = [seg for seg in every if seg.kind == "sentence"]
    closing = paragraph_citations(sentences)
    for at, seg in enumerate(every):  # a citation closing a paragraph cites its uncited
        if seg.kind != "sentence":  # sentences too
            continue
        words = set(re.findall(r"\w+", _introduced(seg, every[at + 1:at + 2]).lower()))
        for sid in citation_ids(seg.text) or closing.get(seg.paragraph, ()):
            if sid in citing:
                citing[sid] |= words
    return rendered, tuple(cite(number, by_sid[sid], citing[sid])
                           for sid, number in numbers.items())


def _introduced(sentence: Segment, after: Sequence[Segment]) -> str:
    """The words a citation of ``sentence`` quotes by: its own, and when it leads into a
    code block (ends on a colon), the code's: an extractive "From “Synopsis” [3]:" above
    ``npm version [<newversion> | …]`` was quoted "Synopsis" on its citation card."""
    own = strip_citations(sentence.text)
    if after and after[0].kind == "code" and sentence.text.rstrip().endswith(":"):
        return own + " " + after[0].text
    return own


def cite(number: str, p: ContextPassage, sentence_words: set[str]) -> Citation:
    """Citation ``number`` of passage ``p``, quoting its sentence that best matches the words
    citing it, with the heading and link of the section that sentence is in."""
    chunk, doc = p.hit.chunk, p.hit.document
    quote = best_quote(p.text, sentence_words)
    found = chunk.text.find(quote.rstrip("…")[:80]) if quote else -1
    where = chunk.section_at(found)
    return Citation(
        id=number, sid=p.sid, chunk_id=chunk.chunk_id, doc_id=doc.doc_id, title=doc.title,
        heading_path=where.heading_path, anchor=where.anchor, source=p.hit.link(where.anchor),
        updated_at=doc.updated_at, quote=quote)


_PAGE_KIND = re.compile(r"\s+(?:manual page|man page|manual|documentation|docs|reference)\s*")


def place(title: str, heading_path: Sequence[str]) -> str:
    """``Title › Section › Heading``: the outermost heading and the two innermost, as a
    heading alone ("Compiler") is one of many in a release-notes file, where "Version 1.47.0
    › Compiler" was cited as the title's "Version 1.95 › Compiler"; and so is a pair ("2018
    edition" under "Language"): Rust's release notes were cited "Language › 2018 edition",
    without the version ("Version 1.32.0 (2019-01-17) › Language › 2018 edition"). Headings
    between are "…". A first heading the title opens with is the title's ("Advanced Usage"
    under "Advanced Usage — HTTPX 0.28 documentation": a review); so is one that is the title
    and a word saying what the page is ("git-config(1) Manual Page" under "git-config(1)",
    every citation of a new user's index of git's documentation)."""
    heading = [h for h in heading_path if h and h != title]
    first = heading[0].casefold() if heading else ""
    opens = first and title.casefold().startswith(first) and \
        not title[len(first):len(first) + 1].isalnum()  # not "Go" under "Goals…"
    if opens or (first.startswith(title.casefold())
                 and _PAGE_KIND.fullmatch(first[len(title):])):
        heading = heading[1:]
    if len(heading) > 3:
        heading = [heading[0], "…", *heading[-2:]]
    return " › ".join([title, *heading])


def format_citation(c: Citation) -> str:
    """``[1] Title › Section › Heading (source#anchor, updated 2026-…)`` (:func:`place`)."""
    return f"[{c.id}] {_card(c)}"


def _card(c: Citation) -> str:
    updated = f", updated {c.updated_at[:10]}" if c.updated_at else ""
    return f"{place(c.title, c.heading_path)} ({c.source}{updated})"


def citation_lines(citations: Sequence[Citation]) -> list[str]:
    """One line per place cited: citations of two passages of one section read ``[1, 3]
    Title › Section (link)``, not the same line twice under two numbers (a new user of
    Rust's API pages: "[1] … (fs/struct.File.html#method.open)" and "[2]" the same)."""
    numbers: dict[str, list[str]] = {}
    for c in citations:
        numbers.setdefault(_card(c), []).append(c.id)
    return [f"[{', '.join(ids)}] {card}" for card, ids in numbers.items()]


_OPEN = re.compile(r"\[[Ss\d\s,;]*$")  # a bracket that may still close as a citation
HOLD_CHARS = 40


class NumberedStream:
    """The model's streamed text with its source ids as citation numbers. The final answer
    numbers ids ``[1]``, ``[2]``… in order of first use (:func:`renumber`); streamed as
    written, a terminal's draft read "… in case of error. [S1]" above a final "… [1]", and
    an API client's ``token`` events carried ``[S1]`` beside an answer event's ``[1]`` (a new
    user). This numbers ids the same way as they arrive, holding back a bracket until it
    closes (a token may end in ``[S``), so a draft the checks keep word for word is the
    final answer already shown. Feed the pieces; show what :meth:`feed` and :meth:`close`
    return (``shown`` is everything returned so far)."""

    def __init__(self) -> None:
        self.numbers: dict[str, str] = {}
        self.pending = ""
        self.shown = ""

    def feed(self, piece: str) -> str:
        text = self.pending + piece
        held = _OPEN.search(text)
        if held is not None and len(text) - held.start() <= HOLD_CHARS:
            text, self.pending = text[:held.start()], text[held.start():]
        else:
            self.pending = ""
        return self._show(text)

    def close(self) -> str:
        text, self.pending = self.pending, ""
        return self._show(text)

    def _show(self, text: str) -> str:
        out = number_brackets(text, self._number)
        self.shown += out
        return out

    def _number(self, sid: str) -> str:
        """The number of ``sid`` (``S03`` is ``S3``), the next one the first time."""
        return self.numbers.setdefault(f"S{int(sid[1:])}", str(len(self.numbers) + 1))
