"""What a claim's words say against the question it answers and the evidence it cites.

The support score counts a sentence's words found in its sources, and the question's words are
the easiest to find there: retrieval chose the passages for them. These checks read the rest:
a sentence that only restates the question (:func:`restates`), one resting on words of the
question its sources lack (:func:`premise_gap`), one whose own words are mostly missing
(:func:`own_words_gap`), numbers its sources do not state (:func:`unstated_numbers`), and
names no source mentions (:func:`unknown_names`). :mod:`citewise.cite.enforce` removes what
fails them.
"""

from __future__ import annotations

import re

from citewise.cite.parse import CITATION_BRACKET
from citewise.cite.terms import content_stems, introduced_names, labels, numbers
from citewise.cite.validate import LIST_MARKER

_VERDICT_WORDS = content_stems("yes indeed correct possible")
"""Words that turn a question into its answer's claim without adding anything to check."""
_TOKEN = re.compile(r"`[^`]+`|\w[\w.\-/]*\w|\w")
OWN_WORDS = 4
"""The fewest own words (:func:`own_words_gap`) a sentence must add before most of them
missing from its sources removes it. Replayed on the ninja and httpx runs' final answers
(stop 29 and 36), it removes four sentences, all wrong or empty: ninja's "use the Ninja build
system's file reference feature" (for ``rspfile``), httpx's "By setting ``max_connections``
to 10, you ensure that the client will not exceed 10 connections" (for a rate limit, which
httpx does not have), and the backtick escape."""
PREMISE_GAP = 3
"""A cited sentence is ``unfounded`` when at least this many of the content words it takes
from the question are missing from the passages it cites (:func:`premise_gap`). Chosen on
the ninja dev set's model answers (``benchmarks/premise.py``): the least count that takes no
sentence from a right answer there. At 2, four of its 9 answers to answerable questions lose a
right sentence ("alias", "several" are not the manual's words); at 3, one loses its wrong
sentence ("…you can use a default target statement") and the one answer to an unanswerable
question ("To start the Ninja build server…") loses all it said."""
PREMISE_GAP_VALUE = 2
""":data:`PREMISE_GAP` for a sentence that states a value (:func:`states_value`: a number
standing as a word, not a list marker nor a label the question gives; "HTTP/2" and "1080p"
are names, and "waits 2.5 seconds" a value). A number is found in a passage by itself, wherever
it stands: "How many threads does the zlib thread pool use by default?" (Node's docs give
none) was answered "The zlib thread pool uses 4 threads by default [1]" from a Worker's
``stackSizeMb … Default: 4``, missing "zlib" and "pool", two words of the question, under
the bar of 3. In stop 44's and 45's ninja dev and httpx model answers (``benchmarks/
premise.py``), the right sentences missing two question words state no value; the one
that did was httpx's answer to a rate limit it lacks ("limit a client to 10 requests per
second using ``httpx.Limits``", missing "per" and "request")."""


def restates(sentence: str, question: str) -> bool:
    """Whether ``sentence`` says nothing but ``question`` (and "yes" or "no"): no content
    word, number or identifier the question lacks. Its support check is vacuous (the
    question's words are in what retrieval found, by construction), and its one claim, the
    yes, is not something word overlap can check: in the final answers of the four
    documentation eval runs, 3 of the 12 such sentences answered unanswerable questions
    ("Yes, Valgrind can automatically fix the memory leaks it finds";
    ``benchmarks/restatements.py``)."""
    text = CITATION_BRACKET.sub(" ", sentence)
    if content_stems(text, skip_meta=True) - content_stems(question) - _VERDICT_WORDS:
        return False
    if numbers(text) - numbers(question):
        return False
    asked = question.lower()
    return all(t.strip("`").lower() in asked for t in _TOKEN.findall(text)
               if t.startswith("`") or re.search(r"\d|\w[_./]\w", t))  # identifiers


def premise_gap(sentence: str, question: str, evidence: str) -> set[str]:
    """The content-word stems ``sentence`` shares with ``question`` that ``evidence`` lacks.

    The support score counts a sentence's words found in its sources, and the question's
    words are the easiest to find there: retrieval chose the passages for them. A sentence
    that joins the question's subject to a passage about something else ("To enable
    Valgrind's machine learning mode to predict leaks, you can use `--gen-suppressions=yes`
    [S1]") scores as supported on the words it took from the passage. The words it took
    from the question and cannot find in the passage (machine, learning, mode, predict,
    enable) say that the passage is not about what the sentence claims it is."""
    text = CITATION_BRACKET.sub(" ", sentence)
    taken = content_stems(text, skip_meta=True) & content_stems(question)
    return taken - content_stems(evidence) - _VERDICT_WORDS


def own_words_gap(sentence: str, question: str, evidence: str) -> tuple[int, int]:
    """``(missing, of)``: how many of the content-word stems ``sentence`` adds to the
    question's its ``evidence`` lacks, of how many. The support score counts the question's
    words too, and retrieval chose the passages for them: "To write a literal dollar sign in
    a Ninja file, you can use the backtick character (`) to escape it [1]" scored 0.70 on the
    words it shares with the question (literal, dollar, sign, Ninja, file), while what it
    said of its own (use, backtick, character, escape) was three quarters missing."""
    text = CITATION_BRACKET.sub(" ", sentence)
    own = content_stems(text, skip_meta=True) - content_stems(question) - _VERDICT_WORDS
    return len(own - content_stems(evidence)), len(own)


def unstated_numbers(sentence: str, question: str, evidence: str) -> set[str]:
    """The numbers of ``sentence`` that ``evidence`` lacks, but for the values ``question``
    gives (a label of the question, such as its "Rust 2027", is no value: :func:`labels`). The
    support score weighs numbers at 0.2 of the words, so a claim in its source's words with
    another value passes ("Parental leave is 52 weeks [S1]" against "sixteen weeks"; "The key
    for AES-256 is 256 bits, which is 32 bytes [1]" against a passage giving "512 bits for
    AES-256"). In the five eval runs' final model answers, every number of a kept sentence
    was in its cited passages but two, both answers to unanswerable SQuAD questions ("The
    Roman Empire fell in the 4th century")."""
    text = LIST_MARKER.sub("", CITATION_BRACKET.sub(" ", sentence))  # "1. Run …": no value
    return numbers(text) - (numbers(question) - labels(question)) - numbers(evidence)


_VALUE = re.compile(r"(?<![\w./-])\d+(?:[.,]\d+)*(?![\w/]|[.,]\d)")
"""A number standing as a word: not glued to a name ("HTTP/2", "1080p", "http2")."""


def states_value(sentence: str, question: str) -> bool:
    """Whether ``sentence`` states a value: a number standing as a word (:data:`_VALUE`)
    that is not a list item's marker nor a label the question gives ("Ninja 1.10")."""
    text = LIST_MARKER.sub("", CITATION_BRACKET.sub(" ", sentence))
    found = set().union(*(numbers(m.group()) for m in _VALUE.finditer(text)))
    return bool(found - labels(question))


def unknown_names(sentence: str, known: set[str]) -> list[str]:
    """The names ``sentence`` writes (:func:`~citewise.cite.terms.introduced_names`) that are
    not among the ``known`` tokens (a plural's singular counts, and ``VG_`` of
    ``VG_(FUNC)`` is ``VG``)."""
    text = CITATION_BRACKET.sub(" ", sentence)
    return [n for n in introduced_names(text) if not {n, n.strip("_"), n.removesuffix("s")}
            & known]
