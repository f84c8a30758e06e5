"""``ExtractiveGenerator``: an answer made of the passages' own sentences, no LLM.

Each sentence of each passage is scored by the question's content words it contains,
weighted by their inverse document frequency over the passages of the prompt (a word found in
every passage says little about which one answers)::

    idf(w) = ln(1 + N / df(w))            N = passages, df(w) = passages containing w
    score(s) = Σ_{w ∈ Q ∩ s} idf(w)  +  Σ_{n ∈ Qnum ∩ s} idf(n)

(Spärck Jones 1972, "A statistical interpretation of term specificity"; the ``1 +`` keeps a
word found in every passage above zero.) ``Q`` are the question's content words (lowercased,
stopwords and one-letter tokens dropped, stemmed as BM25 stems them: "released" is "Release";
a dotted number is one word, in its series: "3.11.0" holds "3.11"); numbers in the question
(``Qnum``) count twice, since a sentence with the asked-about year or amount is much more
likely to be the answer. Stemming, measured on the four eval sets' extractive replay:
containment borg 0.36 → 0.41, httpx 0.51 → 0.55, valgrind 0.54 → 0.56, ninja dev 0.18 → 0.21,
abstention unchanged; SQuAD test half (``benchmarks/extractive.py --fixed 0.15``): 84.6 % of
answerable answers hold a reference (81.0 % unstemmed), 12.4 % of unanswerable declined
(13.1 %), 6.7 % of answerable (7.2 %).

A table (``a | b`` rows under a row of column labels) is scored row by row, and a row is
quoted with its labels: "Level: L4; Minimum: 68,000; Maximum: 88,000", not the whole table
flattened into one line (:func:`table_rows`).

Code is quoted as code (:mod:`citewise.generate.examples`): a block of a passage that is
code (one example, even with blank lines inside) is one unit, scored by its best line (its
identifiers split at case changes: ``DigestAuth`` holds "digest"), and shown fenced, line for
line. A chosen sentence brings the example that follows its paragraph when it leads into it
(:func:`~citewise.generate.companions.with_examples`); code chosen on its own comes with the
sentence before it, or with a line saying where it is from.

Asked about a term a manual describes in an entry (a term line such as
``'show-all-if-ambiguous'`` or ``--tool=<toolname> [default: memcheck]``, then its
description), the entry's sentences score above every other, in the manual's order
(:mod:`citewise.generate.entries`): the neighbouring entry that mentions the term is not
quoted in its place.

The best sentence is taken, then up to two more whose score is at least ``keep_ratio`` of the
best, in the order they appear in the prompt; each is followed by its ``[Sn]``, and one that
opens by pointing back ("They begin with…") brings the sentence before it, and a "Default:
2." the first sentence of its list item (:mod:`citewise.generate.companions`). A sentence
that is only a heading of its passage, or an instruction to the assistant
(:mod:`citewise.cite.instructions`), is never quoted, nor is a FAQ's question ("Q: …?"):
its "A: …" gets its score when higher. When a chosen sentence conflicts with
another passage (:mod:`citewise.answer.conflicts`: same fact, different number), the answer
is both sides, each cited, under "The sources disagree:".
Deterministic: ties keep prompt order.

The answer is :data:`~citewise.answer.prompt.INSUFFICIENT_EVIDENCE` when the best sentence
covers less than ``min_coverage`` of the question::

    coverage = score(best) / Σ_{w ∈ Q} idf(w)     (numbers twice, as in score)

where a question word found in no passage gets the largest idf possible, ``ln(1 + N)``: a
question about "share price targets" answered by a sentence that only shares the company name
covers little of it. :data:`MIN_COVERAGE` was chosen on the dev half of the SQuAD 2.0 subset
(``benchmarks/extractive.py``).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from citewise.cite.asked import answers_kind, asks_quantity
from citewise.cite.instructions import is_instruction
from citewise.cite.parse import line_sentences
from citewise.generate.companions import (
    BULLET,
    DEFAULT,
)
from citewise.generate.entries import (
    MAX_PARTS,
    Leads,
    asked_terms,
    asks_about,
    entry_parts,
    entry_score,
    in_reading_order,
    is_term_line,
)
from citewise.generate.examples import blocks, leads_in, starts_midway
from citewise.generate.labelled import off_label
from citewise.generate.quoting import render
from citewise.generate.releases import is_label, release_weight
from citewise.generate.repeated import unique
from citewise.generate.table_rows import is_history, table_rows
from citewise.generate.words import content_words, idf_weights, passage_words, question_words
from citewise.text import SECTION_NUMBER
from citewise.types import ContextPassage, Generation, Prompt

MIN_COVERAGE = 0.15
"""Measured with ``benchmarks/extractive.py`` on two sets. On the SQuAD 2.0 dev half the best
floor under a 15 % false-decline bound was 0.30 (test half: 23.4 % of unanswerable declined vs
20.0 % by the gate alone, but 14.4 % of answerable declined vs 8.7 %). On the httpx eval set
(``evals/``; questions in users' own words, which share fewer words with the docs) 0.30 declined
35 % of answerable questions and 0.25 declined 27 %, against 4 % with no floor. 0.15 is the
largest floor that costs at most two points of false declines on both (SQuAD dev 10.5 % vs
9.9 %, httpx 6 % vs 4 %); SQuAD test half: 20.0 % / 9.2 %, 75.9 % of answerable answers contain
a reference answer. It still declines answers that share only a name with the question."""

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")  # DigestAuth is digest + auth to a question
_BLOCK_END = re.compile(r"\n{2,}|\n(?=\s*[-*•]\s)")
_ITEM = re.compile(r"^[ \t]*(\d{1,3})[.)][ \t]", re.MULTILINE)
_BEFORE_ITEM = re.compile(r"\n(?=[ \t]*\d{1,3}[.)][ \t])")
_FAQ_Q = re.compile(r"(?:Q|Question)\s*[:.)]\s", re.IGNORECASE)  # a FAQ's "Q: Can I …?"
_FAQ_A = re.compile(r"(?:A|Answer)\s*[:.)]\s", re.IGNORECASE)  # and its "A: It may be …"


@dataclass(frozen=True)
class ScoredSentence:
    sid: str
    order: int  # position in the prompt (passage, then sentence)
    text: str
    score: float
    code: bool = False  # a code block (:mod:`citewise.generate.examples`), quoted fenced
    part: int = 0  # the block of the prompt it is in (blocks are split at blank lines)


_BOX_LABEL = re.compile(r"note|notes|warning|tip|hint|important|caution|attention|danger|"
                        r"see also|seealso|todo")
"""The title of an aside box alone (Sphinx's "Note" over its text): a new user of Knot DNS's
reference was answered "… in zone [1]. Note [1]. It's generally recommended …" (116 boxes
there)."""


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: cut at blank lines and before list bullets, whitespace inside
    collapsed, then at the sentence ends the citation checker sees
    (:func:`citewise.cite.parse.line_sentences`: after ``.!?`` and any closing quote or
    bracket, before an upper-case letter, digit or opening quote, not after "e.g."). With a
    rule of its own, "(And it can optionally measure stack memory, of course.) This means…"
    was quoted as one sentence and the checker cut it in two, the first half uncited."""
    blocks = (" ".join(p.split()) for part in _BLOCK_END.split(text)
              for p in _numbered_items(part))
    return [s for block in blocks if block for s in line_sentences(block)]


def _numbered_items(text: str) -> list[str]:
    """``text`` cut before each line that starts a numbered item ("2. Add the label"), when
    it holds a numbered list (two such lines numbered one after the other): a new user's
    answer quoted "Add `commit-queue-failed` label to the PR 3." with the next step's number
    (Node.js's commit-queue.md). A hard-wrapped line that starts with a number ("the
    default is\n64. Larger …") is no list."""
    numbers = [int(m[1]) for m in _ITEM.finditer(text)]
    if not any(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False)):
        return [text]
    return _BEFORE_ITEM.split(text)


def score_sentences(question: str, passages: Sequence[ContextPassage],
                    asked: str | None = None) -> list[ScoredSentence]:
    """Every passage sentence with its score (formula in the module docstring); sentences
    that are just a heading of their passage are left out. A table's rows are scored one by
    one (:func:`table_rows`): a row counts only when its own cells hold a question word, then
    with its header's words too; a table with no such row is one sentence, as before. A
    table of one data row is a record, scored with its header's words: rsyslog's parameter
    tables ("type | default | mandatory …" over "integer | 10 | no …" under the heading
    PollingInterval) were quoted flattened whole for "what's the default for imfile's
    PollingInterval", the question's words being in the header and the heading only.
    ``asked``: the user's question when ``question`` adds a rejected answer's claims to it (a
    version history table is quoted when the user asked about versions, not when a claim
    said "returns a version")."""
    q_words = question_words(question)
    weights = idf_weights(q_words, [p.text for p in passages])
    terms = asked_terms(question, [p.text for p in passages])
    scoring = _Scoring(weights, {w for w in q_words if any(c.isdigit() for c in w)},
                       content_words(" ".join(terms)) & weights.keys())
    scoring.release = release_weight(question if asked is None else asked, passages)
    scored: list[ScoredSentence] = []
    block = 0
    titled = asks_about(question if asked is None else asked, terms)
    for passage in in_reading_order(passages, terms, titled):
        chunk = passage.hit.chunk  # a chunk holding several sections has their headings too
        headings = {SECTION_NUMBER.sub("", h.strip().lower()) for path in (chunk.heading_path, *(
            m.heading_path for m in chunk.sections)) for h in path}
        parts = blocks(passage)
        entry = entry_parts(terms, [p for p, _ in parts], chunk.heading_path, titled)
        for j, (part, code) in enumerate(parts):
            block += 1
            if is_history(part, question if asked is None else asked):
                continue
            code = code and not (j in entry and is_term_line(part))  # read as a sentence
            if code and all(SECTION_NUMBER.sub("", line.strip().lower()) in headings
                            for line in part.splitlines() if line.strip()) \
                    and not (j and leads_in(parts[j - 1][0])):  # requests' "$ python -m pip
                continue  # install requests" titles its section and is the example the
                # sentence before leads into; "Using fs.writeFile() with …" reads as code
            if code:
                if not is_instruction(part) and not starts_midway(part):
                    scoring.asked = None  # a FAQ's question carries to its "A:" alone
                    scored.append(ScoredSentence(passage.sid, len(scored), part, scoring.code(
                        part, entry.get(j)), code=True, part=block))
                continue
            for text, value in scoring.sentences(passage, part, entry.get(j), headings,
                                                 len(scored)):
                scored.append(ScoredSentence(passage.sid, len(scored), text, value, part=block))
    return scoring.leads.first(scored)


class _Scoring:
    """The question's word weights (``weights``, ``numbers`` counted twice) and the words of
    the terms it asks about (``named``), applied to a passage's blocks; ``leads`` gathers
    each asked term's entry's first prose sentence (:class:`Leads`)."""

    def __init__(self, weights: Mapping[str, float], numbers: set[str], named: set[str]):
        self.weights, self.numbers, self.named = weights, numbers, named
        self.top = 1.0 + 2 * math.fsum(weights.values())
        self.leads = Leads(self.top)
        self.release: Callable[[ContextPassage], float] = lambda passage: 0.0
        self.asked: tuple[str, float] | None = None  # a FAQ question's passage and score

    def faq(self, sid: str, part: str) -> tuple[bool, float]:
        """(whether block ``part`` of passage ``sid`` is a FAQ's question, the score its
        answer takes): a question ("Q: Can I recover parts of a broken .xz file?") is never
        quoted, and was the whole answer; its "A: …" (the next block, or the line under it)
        answers it and takes its score when higher. Only so marked: a list of a FAQ's
        questions, or a hedged statement ending in "?", gave their score to a sentence that
        answered something else (the review of this stop)."""
        carried, self.asked = self.asked, None
        if _FAQ_Q.match(part):
            self.asked = (sid, carried[1] if carried and carried[0] == sid else 0.0)
            return True, 0.0
        answers = carried is not None and carried[0] == sid and _FAQ_A.match(part)
        return False, carried[1] if answers and carried else 0.0

    def score(self, text: str, given: set[str] | frozenset[str] = frozenset()) -> float:
        shared = (passage_words(text) & self.weights.keys()) - given
        # fsum: the same total whatever order the set yields its words in (str hashes are
        # salted per process; a plain sum differed in the last bit and flipped ties)
        return math.fsum([self.weights[w] for w in shared]
                         + [self.weights[w] for w in shared & self.numbers])

    def code(self, part: str, offset: int | None) -> float:
        """A code block's score: its best line's, not its size's (its words split at case
        changes); in an entry (``offset``), above every other sentence."""
        given = self.named if (offset or 0) >= MAX_PARTS else frozenset()
        lines = [_CAMEL.sub(" ", ln) for ln in part.split("\n") if ln.strip()]
        best = max(self.score(line, given) for line in lines)
        return best if offset is None else entry_score(self.top, best, offset, 0)

    def sentences(self, passage: ContextPassage, part: str, offset: int | None,
                  headings: set[str], first: int) -> list[tuple[str, float]]:
        """The sentences (or table rows) of the block ``part`` of ``passage`` with their
        scores; ``offset``: its place in the asked term's entry, if it is in one; ``first``:
        the index the first one will have in the scored list."""
        read = table_rows(part)  # one data row: the table is its record (module docstring)
        rows = [(text, self.score(text) if len(read) == 1 or self.score(cells) > 0 else 0.0)
                for text, cells in read]
        prose = not any(value > 0 for _, value in rows) and not (rows and offset is not None)
        if prose:
            rows = [(s, self.score(s)) for s in split_sentences(part)]
        asks, carried = self.faq(passage.sid, part)
        subject = section_subject(passage, self.named)
        release = self.release(passage)  # under a heading naming the asked release
        item: set[str] = set()  # the words of the list item's first sentence
        out: list[tuple[str, float]] = []
        for k, (text, value) in enumerate(rows):
            item = content_words(text) if BULLET.match(text) else item
            bare = SECTION_NUMBER.sub("", text.strip().rstrip(".:").lower() + " ").strip()
            if not bare or bare in headings or is_instruction(text) or is_label(rows, k) \
                    or _BOX_LABEL.fullmatch(bare):
                continue  # "5.8." is no sentence, nor "* Improvements" over its entries
            under = (offset or 0) >= MAX_PARTS  # under the term's heading: its words are
            if under:  # given, the rest of the question counts
                value = self.score(text, subject)
            if value > 0:
                # what the sentence need not repeat: its section's subject (unless given),
                # and for a "Default: 'w'." the option its list item names ("- flag …")
                about = (set() if under else subject) | (item if DEFAULT.match(text) else set())
                value += math.fsum(self.weights[w] for w in sorted(
                    (about & self.weights.keys()) - passage_words(text)
                    - (subject if under else set())))
            value += release
            if asks and _FAQ_A.match(text):  # the answer on the line under its question
                asks, carried, self.asked = False, self.asked[1] if self.asked else 0.0, None
            if asks:  # the question's best sentence score, for its answer
                self.asked = (passage.sid, max(self.asked[1] if self.asked else 0.0, value))
                continue
            value, carried = (max(value, carried), 0.0) if carried else (value, carried)
            listed = BULLET.match(text) is not None
            if offset is not None and not (listed and value <= 0):  # the asked term's entry,
                if prose and not listed:  # in order (entries.py); not "- original <Function>"
                    self.leads.offer(passage.hit.chunk, first + len(out), value)
                value = entry_score(self.top, value, offset, k)
            out.append((text, value))
        return out


def section_subject(passage: ContextPassage, named: set[str]) -> set[str]:
    """The words of ``named`` (a question's identifiers) that the passage's own heading holds:
    what its sentences need not repeat (under "util.promisify(original)", "Takes a function
    following the common error-first callback style…")."""
    path = passage.hit.chunk.heading_path
    return named & content_words(path[-1]) if path else set()


def coverage(question: str, passages: Sequence[ContextPassage],
             best: ScoredSentence | None) -> float:
    """The share of the question's idf weight that ``best`` matches (module docstring)."""
    q_words = question_words(question)
    if best is None or not q_words or not passages:
        return 0.0
    weights = idf_weights(q_words, [p.text for p in passages])
    top = math.log(1 + len(passages))
    numbers = {w for w in q_words if any(c.isdigit() for c in w)}
    total = math.fsum(weights.get(w, top) * (2 if w in numbers else 1) for w in q_words)
    return best.score / total if total else 0.0


def select_sentences(scored: Sequence[ScoredSentence], max_sentences: int = 3,
                     keep_ratio: float = 0.5) -> list[ScoredSentence]:
    """The best sentence plus up to ``max_sentences - 1`` others scoring at least
    ``keep_ratio`` × best, returned in prompt order. Empty when the best score is 0."""
    ranked = unique(sorted(scored, key=lambda s: (-s.score, s.order)))
    if not ranked or ranked[0].score <= 0:
        return []
    floor = ranked[0].score * keep_ratio
    chosen = [s for s in ranked[:max_sentences] if s.score >= floor]
    return sorted(chosen, key=lambda s: s.order)


class ExtractiveGenerator:
    """A :class:`~citewise.protocols.Generator` that quotes the best-matching sentences."""

    model_id = "extractive-v1"

    def __init__(self, max_sentences: int = 3, keep_ratio: float = 0.5,
                 min_coverage: float = MIN_COVERAGE) -> None:
        self.max_sentences = max_sentences
        self.keep_ratio = keep_ratio
        self.min_coverage = min_coverage

    def generate(self, prompt: Prompt, *, max_tokens: int = 512,
                 on_token: Callable[[str], None] | None = None,
                 timeout_s: float | None = None) -> Generation:
        start = time.monotonic()
        off = off_label(prompt.question, prompt.passages)
        kind = asks_quantity(prompt.question)  # a sentence giving no value asked for scores 0
        scored = [replace(s, score=0.0) if s.sid in off or not answers_kind(kind, s.text, s.code)
                  else s for s in score_sentences(prompt.question, prompt.passages)]
        chosen = select_sentences(scored, self.max_sentences, self.keep_ratio)
        best = max(chosen, key=lambda s: s.score, default=None)
        if coverage(prompt.question, prompt.passages, best) < self.min_coverage:
            chosen = []
        text = render(prompt, chosen, scored)
        if on_token is not None:
            on_token(text)
        return Generation(text=text, model_id=self.model_id, tokens_in=0,
                          tokens_out=len(text.split()), finish_reason="stop",
                          seconds=time.monotonic() - start)
