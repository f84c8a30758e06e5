"""Keep only what the sources support: the reader's text under ``cite.policy: strict``.

Each segment of a generated answer gets a :class:`~citewise.cite.validate.Verdict`. Kept:
sentences supported by the passages they cite (or by the citation closing their paragraph),
code blocks quoted from the sources, and connectives ("In summary:") when something else is
kept and what they lead into stays (:func:`_stray`: not the "or" between two removed
commands). Removed, with the reason: uncited claims, claims below the support threshold,
sentences citing only ids that are not sources, sentences that stop where the value should
be ("… is [S1]."), code no source contains, sentences that only restate the question
(:func:`restates`: "Yes, Valgrind can automatically fix the memory leaks it finds"),
sentences that rest on words of the question their sources lack (:func:`premise_gap`: "To
enable Valgrind's machine learning mode to predict leaks, use `--gen-suppressions=yes`"),
sentences stating a number their sources do not (:func:`unstated_numbers`), sentences that
copy a source sentence with one of its names swapped (:mod:`citewise.cite.swapped`) or only
name a source (:mod:`citewise.cite.title_only`), and
sentences that lean on a removed one (:func:`refers_back`: "This option prints a suppression
for every error" once the sentence naming the option is gone); those reading the question's
words against the evidence are :mod:`citewise.cite.claim_words`. Ids
that are not sources are deleted from the brackets of the sentences that stay, so a
fabricated id never reaches the reader.

``Enforced.answered`` is false when no supported sentence is left, or only sentences that send
the reader elsewhere (:func:`points_elsewhere`: "See also … for more information", "The
guide [1] provides additional information on…"), or none gives the quantity a question asks
for (:mod:`citewise.cite.asked`: a definition of the connect timeout for "how long does httpx
wait before a request times out?"); the caller
then replaces the answer (extractive, or a decline) and says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from citewise.cite.asked import asks_quantity, only_leftovers, states_quantity
from citewise.cite.claim_words import (
    OWN_WORDS,
    PREMISE_GAP,
    PREMISE_GAP_VALUE,
    own_words_gap,
    premise_gap,
    restates,
    states_value,
    unknown_names,
    unstated_numbers,
)
from citewise.cite.code_sources import with_sources
from citewise.cite.leaning import (
    CONSEQUENCE,
    DEMONSTRATIVE,
    EXPLETIVE,
    LEAD_IN,
    PRONOUN,
    names_back,
)
from citewise.cite.parse import CITATION_BRACKET, bracket_ids, citation_ids, strip_citations
from citewise.cite.polarity import without_denied_yes
from citewise.cite.swapped import swapped_name
from citewise.cite.terms import tokens_lower
from citewise.cite.title_only import only_a_title
from citewise.cite.validate import (
    LIST_MARKER,
    Verdict,
    evidence_text,
    judge,
    passage_texts,
    source_line,
)
from citewise.protocols import Embedder
from citewise.types import ContextPassage

WHY = {"uncited": "no citation", "unsupported": "not supported by the sources it cites",
       "fabricated": "cites a source that does not exist", "incomplete": "incomplete sentence",
       "not_quoted": "code not found in any source",
       "restates": "only restates the question",
       "unfounded": "rests on words of the question that its sources lack",
       "pointer": "only points elsewhere",
       "dangling": "refers to a sentence that was removed",
       "unnamed": "names something none of the sources mention",
       "unresponsive": "gives no quantity, and the question asks how long, many or much",
       "leftover": "shares no word of the question, and the claim it went with was removed",
       "swapped": "copies a source sentence with another name in it",
       "title": "only names a source or a section"}
_POINTER = re.compile(
    r"(?:see(?: also)?|refer to|consult|please (?:see|refer to|consult)|for (?:more|further"
    r"|full|additional) (?:information|details)|(?:more|further|additional) (?:information"
    r"|details) (?:is|are|can be)|(?:you (?:can|may|could|will) )?(?:find|read|learn) "
    r"(?:more|further|additional|detailed|full) (?:information|details))\b",
    re.IGNORECASE)
"""Openings of a sentence that only sends the reader elsewhere ("See also http://… for more
information [S1].", "You can find more information about this option in the Valgrind User
Manual [1]": all valgrind's answer to its machine learning mode, which it lacks)."""
_POINTS_AT = re.compile(
    r"(?:the\s+)?[\w'’.\- ]{0,60}?\b(?:guide|manual|documentation|docs|section|chapter|page|"
    r"sources?|reference|book|article|faq|tutorial|appendix)(?:\s+(?:and|or)\b|\s*,)*"
    r"\s+(?:provides?|contains?|offers?|"
    r"gives?|has|have|includes?|describes?|covers?|explains?)\s+(?:(?:some|additional|more|"
    r"further|detailed|full|the|all|necessary|relevant|required|needed)\s+)*(?:information|"
    r"details|guidance|instructions|steps|explanations?|how to)\b", re.IGNORECASE)
"""A sentence whose subject is a document and whose claim is that it has information: new
users' whole answers "The Rust 2024 Edition Guide [1] provides additional information on
how to migrate…" and "The sources [1] and [2] provide the necessary information on how to
set the FC_DEBUG environment variable." (exit 0)."""
_CLAIMS = frozenset(WHY) - {"restates", "unresponsive", "leftover", "title"}
"""Removals that took a claim with them (a restatement only repeats the question; an
unresponsive sentence is supported, only not an answer)."""
@dataclass(frozen=True)
class Removal:
    text: str
    status: str

    @property
    def why(self) -> str:
        return WHY.get(self.status, self.status)


@dataclass(frozen=True)
class Enforced:
    """``text``: the kept segments, fabricated ids removed; ``answered``: at least one
    supported sentence is kept that does more than point elsewhere; ``removed``: what was
    taken out and why."""

    text: str
    answered: bool
    removed: tuple[Removal, ...]
    verdicts: tuple[Verdict, ...]


def drop_ids(sentence: str, unwanted: Sequence[str]) -> str:
    """``sentence`` with the ids in ``unwanted`` removed from its citation brackets (a bracket
    left empty disappears)."""
    if not unwanted:
        return sentence

    def repl(match: re.Match[str]) -> str:
        ids = bracket_ids(match.group(1))
        if ids is None:
            return match.group(0)
        left = [sid for sid in ids if sid not in unwanted]
        return "[" + ", ".join(left) + "]" if left else ""

    text = CITATION_BRACKET.sub(repl, sentence)
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()


def _with_ids(sentence: str, ids: Sequence[str]) -> str:
    """Append ``[S1, S2]`` before the final punctuation of ``sentence``."""
    bracket = "[" + ", ".join(ids) + "]"
    body = sentence.rstrip()
    if body and body[-1] in ".!?":
        return f"{body[:-1].rstrip()} {bracket}{body[-1]}"
    return f"{body} {bracket}"


def _render(kept: list[Verdict]) -> str:
    """Rebuild text from kept verdicts: same line joined by a space, lines of a paragraph by a
    line break, paragraphs by a blank line. A paragraph whose closing citation was removed
    gets its inherited ids back on its last kept sentence."""
    pieces: list[str] = []
    prev: Verdict | None = None
    for i, v in enumerate(kept):
        text = drop_ids(v.segment.text, v.fabricated)
        last_of_paragraph = i + 1 == len(kept) or kept[i + 1].segment.paragraph != \
            v.segment.paragraph
        if last_of_paragraph and v.segment.kind == "sentence" and not citation_ids(text):
            inherited = [sid for w in kept if w.segment.paragraph == v.segment.paragraph
                         and w.inherited for sid in w.ids]
            if inherited:
                text = _with_ids(text, list(dict.fromkeys(inherited)))
        if prev is None:
            sep = ""
        elif prev.segment.paragraph != v.segment.paragraph:
            sep = "\n\n"
        elif prev.segment.line != v.segment.line:
            sep = "\n"
        else:
            sep = " "
        pieces.append(sep + text)
        prev = v
    return "".join(pieces).strip()


def _marked(verdicts: Sequence[Verdict], texts: Mapping[str, str], status: str,
            fails: Callable[[str, str], bool]) -> list[Verdict]:
    """``verdicts`` with each supported sentence that cites a passage and ``fails`` against
    the text of the passages it is judged by (``fails(sentence, evidence)``; ``texts``:
    :func:`~citewise.cite.validate.passage_texts`) marked ``status``: the evidence checks
    below share this walk."""
    return [replace(v, status=status) if v.status == "supported"
            and v.segment.kind == "sentence" and v.ids
            and fails(v.segment.text, evidence_text(texts, v.ids)) else v for v in verdicts]


def _unfounded(question: str) -> Callable[[str, str], bool]:
    """A sentence's :func:`premise_gap` holds :data:`PREMISE_GAP` words or more
    (:data:`PREMISE_GAP_VALUE` when it states a value)."""
    def fails(sentence: str, evidence: str) -> bool:
        bar = PREMISE_GAP_VALUE if states_value(sentence, question) else PREMISE_GAP
        return len(premise_gap(sentence, question, evidence)) >= bar
    return fails


def _own_words_missing(question: str) -> Callable[[str, str], bool]:
    """Most of a sentence's own words (at least :data:`OWN_WORDS` of them,
    :func:`own_words_gap`) are missing from its evidence."""
    def fails(sentence: str, evidence: str) -> bool:
        missing, of = own_words_gap(sentence, question, evidence)
        return of >= OWN_WORDS and 2 * missing > of
    return fails


def _unstated(question: str) -> Callable[[str, str], bool]:
    """A sentence states a number its evidence lacks (:func:`unstated_numbers`): a value is
    the part of a claim a reader acts on, and one computed or recalled by the model is not
    the sources' (a safe failure: the sentence goes, and the answer may fall back to
    quoting)."""
    return lambda sentence, evidence: bool(unstated_numbers(sentence, question, evidence))


def _unknown_names(verdicts: Sequence[Verdict], passages: Sequence[ContextPassage],
                   texts: Mapping[str, str], question: str) -> list[Verdict]:
    """``verdicts`` with each supported sentence that names something no passage the model
    read mentions (text, title or section headings), nor the question, marked ``unnamed``.
    The support score weighs names at 0.2 of the words: a new user's "what typeface does
    the setuptools logo text use?" got "The setuptools logo text uses the Helvetica font
    [1]" (the manual says Monoid) over a passage on the logo's use, whose words it had.
    A name the model wrote from memory is no source's claim, whatever passage it cites."""
    read = [f"{texts[p.sid.upper()]}\n{p.hit.document.title or ''}\n"
            f"{' '.join(p.hit.chunk.heading_path)}" for p in passages]
    known = tokens_lower("\n".join([question, *read]))
    return [replace(v, status="unnamed") if v.status == "supported"
            and v.segment.kind == "sentence" and unknown_names(v.segment.text, known)
            else v for v in verdicts]


def enforce(answer_text: str, passages: Sequence[ContextPassage],
            embedder: Embedder | None = None, threshold: float | None = None,
            question: str | None = None) -> Enforced:
    """The supported part of ``answer_text`` (see the module docstring); with ``question``,
    a sentence that only restates it, or rests on words of it that its sources lack, is
    removed too."""
    verdicts = judged = judge(answer_text, passages, embedder, threshold)
    texts = passage_texts(passages)  # what every check below reads, instructions left out
    lines = {source_line(p).upper() for p in passages}  # judged by the code after them
    sources = {i for i, v in enumerate(verdicts) if v.segment.text.strip().upper() in lines}
    if question:
        verdicts = [replace(v, status="restates") if v.status == "supported"
                    and v.segment.kind == "sentence" and restates(v.segment.text, question)
                    else v for v in verdicts]
        verdicts = _marked(verdicts, texts, "unfounded", _unfounded(question))
        verdicts = _marked(verdicts, texts, "unsupported", _own_words_missing(question))
    verdicts = _marked(verdicts, passage_texts(passages, headings=True), "unsupported",
                       _unstated(question or ""))  # a release named in a heading counts
    verdicts = _marked(verdicts, texts, "swapped", lambda s, e: bool(swapped_name(s, e)))
    verdicts = [replace(v, status="title") if v.status == "supported" and v.segment.kind ==
                "sentence" and only_a_title(v.segment.text, passages) else v for v in verdicts]
    verdicts = _unknown_names(verdicts, passages, texts, question or "")
    verdicts = [judged[i] if i in sources else v for i, v in enumerate(verdicts)]
    verdicts = _without_dangling(verdicts)
    if question:
        verdicts = [_yes_kept_or_dropped(v, question) for v in verdicts]
    answered = any(v.status == "supported" and v.segment.kind == "sentence"
                   and not points_elsewhere(v.segment.text) for v in verdicts)
    why = _not_an_answer(verdicts, question) if answered and question else None
    if why is not None:
        answered = False
        verdicts = [replace(v, status=why) if v.status == "supported"
                    and v.segment.kind == "sentence" else v for v in verdicts]
    if not answered:  # a pointer left alone is no answer: say why it goes
        verdicts = [replace(v, status="pointer") if v.status == "supported"
                    and v.segment.kind == "sentence" else v for v in verdicts]
    kept = _without_bare_citations([v for i, v in enumerate(verdicts) if v.kept
                                    and not _stray(verdicts, i)]) if answered else []
    kept, orphans = with_sources(kept, passages, texts)
    removed = tuple(Removal(v.segment.text, v.status) for v in [
        *(v for v in verdicts if not v.kept), *orphans])
    return Enforced(_render(kept), answered, removed, tuple(verdicts))


def _yes_kept_or_dropped(verdict: Verdict, question: str) -> Verdict:
    """``verdict`` with its sentence's opening "Yes" dropped when the rest of it denies what
    was asked (:func:`citewise.cite.polarity.without_denied_yes`)."""
    if verdict.status != "supported" or verdict.segment.kind != "sentence":
        return verdict
    rest = without_denied_yes(verdict.segment.text, question)
    return verdict if rest is None else replace(
        verdict, segment=replace(verdict.segment, text=rest), rewritten=True)


def _unresponsive(verdicts: Sequence[Verdict], question: str) -> bool:
    """Whether ``question`` asks how long, many or much (:func:`~citewise.cite.asked.
    asks_quantity`) and nothing supported of the answer gives a quantity
    (:func:`~citewise.cite.asked.states_quantity`; code counts: it sets or reports one)."""
    kind = asks_quantity(question)
    return kind is not None and not any(
        v.status == "supported"
        and (v.segment.kind == "code" or states_quantity(v.segment.text, kind))
        for v in verdicts)


def _not_an_answer(verdicts: Sequence[Verdict], question: str) -> str | None:
    """Why the supported sentences do not answer ``question`` (``unresponsive``, or
    ``leftover``: :func:`~citewise.cite.asked.only_leftovers`), or None."""
    def texts(*statuses: str) -> list[str]:
        return [v.segment.text for v in verdicts if v.status in statuses and v.segment.kind
                == "sentence"]
    if _unresponsive(verdicts, question):
        return "unresponsive"
    return "leftover" if only_leftovers(texts("supported"), texts("uncited", "unsupported"),
                                        question) else None


def _stray(verdicts: Sequence[Verdict], i: int) -> bool:
    """Whether ``verdicts[i]`` is a connective of a few words ("or", "Alternatively:")
    leading into a removed segment or the answer's end: what it led into is gone. A new
    user's answer about torrents kept the "or" between two invented commands."""
    v = verdicts[i]
    if v.status != "connective" or len(v.segment.text.split()) > 3 or \
            citation_ids(v.segment.text):  # "[S2]" under the code it cites
        return False
    return i + 1 >= len(verdicts) or not verdicts[i + 1].kept


def _without_bare_citations(kept: list[Verdict]) -> list[Verdict]:
    """``kept`` without the lines that are only a citation ("[S4]"), unless they follow a code
    block (they cite it). The last kept sentence of their paragraph shows their ids again
    (:func:`_render`); one alone in its paragraph cites nothing. Rust's error index answer
    showed "[2]" as a paragraph of its own, and "[1]" on a line under the sentence it
    covered."""
    def bare(v: Verdict) -> bool:
        text = v.segment.text
        return (v.segment.kind == "sentence" and bool(citation_ids(text))
                and not strip_citations(text).strip(" \t.,;:-*•"))

    return [v for i, v in enumerate(kept)
            if not bare(v) or (i > 0 and kept[i - 1].segment.kind == "code")]


def points_elsewhere(sentence: str) -> bool:
    """Whether ``sentence`` only sends the reader elsewhere ("See also http://www.valgrind.org/
    for more information [S1]."). It is kept beside an answer, but is none on its own: after
    the premise check removed valgrind's pull-request claim, that line was all that was left,
    shown as the answer to an unanswerable question."""
    text = " ".join(LIST_MARKER.sub("", CITATION_BRACKET.sub(" ", sentence)).split())
    at = _POINTS_AT.match(text)  # "…contains information on it: use -j" gives it too
    return bool(_POINTER.match(text) or (at and ":" not in text[at.end():]))


def refers_back(sentence: str, before: str) -> bool:
    """Whether ``sentence`` cannot stand once the sentence before it was removed with status
    ``before``. After a removed claim, neither an opening that names it ("This option prints
    a suppression…" when "Use `--gen-suppressions=all`" went; "These options are described in
    the sources") nor one that draws on it ("This is because…", "You can then…") is read as
    meant. After a removed restatement of the question ("Yes, massif can measure the
    stack"), "This…" names the question's subject ("This can be done with truststore"); only
    a consequence of the removed yes ("This is because it measures only malloc…") dangles.
    In the four documentation eval runs' final answers, 7 of the 24 model answers with
    removed sentences opened on such a sentence (``benchmarks/dangling.py --opening``)."""
    text = LIST_MARKER.sub("", CITATION_BRACKET.sub(" ", sentence)).strip()
    text = LEAD_IN.sub("", text)  # "Note that this automatically sets…" opens on "this"
    if before == "restates":
        return bool(CONSEQUENCE.match(text))
    return before in _CLAIMS and bool(CONSEQUENCE.match(text) or DEMONSTRATIVE.match(text)
                                      or (PRONOUN.match(text) and not EXPLETIVE.match(text))
                                      or names_back(text))


def _without_dangling(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """``verdicts`` with each kept sentence that :func:`refers_back` to a removed segment
    just before it (connectives skipped) marked ``dangling``; one such removal can make the
    next sentence dangle too."""
    out: list[Verdict] = []
    before: str | None = None
    for v in verdicts:
        if v.status == "connective":
            out.append(v)
            continue
        if v.kept and v.segment.kind == "sentence" and before is not None \
                and refers_back(v.segment.text, before):
            v = replace(v, status="dangling")
        out.append(v)
        before = None if v.kept else v.status
    return out
