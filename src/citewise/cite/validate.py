"""Check an answer's citations against the passages it was written from.

For each sentence (:func:`citewise.cite.parse.parse_citations`):

* ``fabricated``: cited ids that are not the ``sid`` of any passage, in order of first use.
  They are reported, never dropped or replaced (the reader sees what the model wrote).
* ``unsupported``: sentences making a claim whose support score
  (:func:`citewise.cite.support.support_score`) against the UNION of the passages they
  validly cite is below the calibrated threshold; a claim citing only fabricated ids is
  unsupported too (score ``None``: there is nothing to compare it with).
* ``uncited``: sentences making a claim with no citation at all. A citation that closes a
  paragraph covers the paragraph's uncited sentences: they are judged against its ids.
* Passage text is read without the sentences that address the assistant
  (:mod:`citewise.cite.instructions`): an injected instruction is never evidence.
* Code in backticks must occur verbatim in the cited passages (an invented command or
  option is unsupported, however many words it shares with them), and so must an
  identifier written without backticks (:func:`citewise.cite.terms.named_identifiers`:
  ``max_keepalive``, ``httpx.Client``, ``C-CRATE-NAME``): a sentence naming the rule of
  another passage than the one it cites was kept on the words the two share.
* A fenced code block is supported when every line of it is in the sources. A cited
  sentence ending on a colon is complete when such a block follows ("You can install it
  using pip [S1]:" then ``$ pip install httpx[socks]``), and a source line ('From
  "Examples" [S2]:', :func:`source_line`) is supported only when the block after it is in
  the passage it cites.
* ``cited``: the valid ids, in order of first use.

A sentence makes a claim when, without its citations, it has at least
:data:`MIN_CLAIM_WORDS` content words that are not about the answer itself ("sources",
"passages"…), and it is not a heading (``#…``, or a short line ending with ``:``), a
question, or a decline (:data:`DECLINE_PATTERN`, which matches the generator's
``INSUFFICIENT_EVIDENCE`` reply; a test keeps the two in step). Connectives such as
"In summary:" or "The sources differ." have too few content words to count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from citewise.cite.instructions import without_instructions
from citewise.cite.parse import (
    FENCE,
    Segment,
    citation_ids,
    paragraph_citations,
    segments,
    split_sentences,
    strip_citations,
    without_brackets,
)
from citewise.cite.support import support_score, support_threshold
from citewise.cite.terms import (
    code_spans,
    content_stems,
    holds_word,
    labels,
    letter_names,
    named_identifiers,
    numbers,
    quoted_names,
)
from citewise.protocols import Embedder
from citewise.text import release_numbers
from citewise.types import ContextPassage, SentenceIssue, ValidationReport

MIN_CLAIM_WORDS = 3
DECLINE_PATTERN = re.compile(
    r"insufficient evidence|not enough (?:evidence|information)|(?:do|does) not (?:answer|"
    r"contain|say|mention)|cannot (?:be )?answer", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$)")
_SECTION_NUMBER = re.compile(r"^\s*(?:(?i:chapter|section|appendix|part)\s+(?:\d+|[A-Z]|[IVXLC]+)"
                             r"(?:\.\d+)*(?:[.:]\s+|\s+(?=[A-Z]))|\d+(?:\.\d+)*\.?\s+)")
"""A heading's numbering: "7.7. ", "Chapter 8. ", "Part II " before a capitalised title (not
"Part 3 of 4 steps" nor "Part vi editor")."""
_QUOTES = "\"'\u201c\u201d\u2018\u2019"


def section_label(passage: ContextPassage) -> str:
    """The name of ``passage``'s place: its innermost heading, numbering dropped ("7.7. ",
    "Chapter 8. ": the sentence splitter cut 'From "Chapter 8.' off a quote's label, and
    the check removed it, leaving 'Configuration" [3]:') and quotes too (a heading
    ``"target"``), else its document's title."""
    name = (passage.hit.chunk.heading_path or (passage.hit.document.title,))[-1]
    name = _SECTION_NUMBER.sub("", name).strip()
    if len(name) > 2 and name[0] in _QUOTES and name[-1] in _QUOTES:  # "target", not 'a' b'
        name = name[1:-1].strip()
    return name


def source_line(passage: ContextPassage) -> str:
    """The line that introduces code quoted from ``passage`` when no sentence of it does:
    'From "Examples" [S2]:'. :func:`judge` holds it supported when the code after it is
    the cited passage's own: the claim is where the code comes from, and that is checked."""
    return f"From \u201c{section_label(passage)}\u201d [{passage.sid}]:"


def is_claim(sentence: str) -> bool:
    """Whether ``sentence`` (citations included or not) asserts something checkable."""
    text = strip_citations(sentence).strip(" -*•\t")
    if not text or _HEADING.match(sentence) or text.endswith("?"):
        return False
    if text.endswith(":") and len(text.split()) <= 8:
        return False
    if DECLINE_PATTERN.search(text):
        return False
    return len(content_stems(text, skip_meta=True)) >= MIN_CLAIM_WORDS


@dataclass(frozen=True)
class Verdict:
    """What the checks found for one :class:`~citewise.cite.parse.Segment` of an answer.

    ``status``: ``supported`` (cited, and its cited passages support it), ``connective``
    (no content of its own: "In summary:"), ``uncited``, ``unsupported`` (below the support
    threshold, or code not found in its sources), ``fabricated`` (cites only ids that are not
    sources), ``incomplete`` (stops where the value should be: "The default is [S1]."),
    ``not_quoted`` (a code block whose lines no source contains). ``ids``: the valid ids it
    is judged against (its own, else the ids closing its paragraph); ``inherited``: whether
    they came from the paragraph; ``rewritten``: the check changed the segment's text (a
    denied "Yes" dropped: :mod:`citewise.cite.polarity`)."""

    segment: Segment
    status: str
    ids: tuple[str, ...] = ()
    fabricated: tuple[str, ...] = ()
    score: float | None = None
    inherited: bool = False
    rewritten: bool = False

    @property
    def kept(self) -> bool:
        return self.status in ("supported", "connective")


_DANGLING = frozenset((  # words a sentence cannot end on ("… employed in" can)
    "is", "are", "was", "were", "be", "been", "being", "the", "a", "an", "and", "or", "of",
    "than", "per", "via", "like", "e.g", "equals", "namely"))
_PLACE_WORDS = frozenset(("on", "in", "at", "to", "by", "from", "since", "until"))
_AWAITS_PLACE = frozenset((  # "… which was released on [1]." (a new user's Git answer)
    "released", "added", "introduced", "published", "deprecated", "removed", "dated",
    "scheduled", "changed", "renamed", "moved", "set", "available", "located", "stored",
    "found", "defined", "updated", "fixed"))
"""A word that waits for a date or a place after its preposition: a sentence ending on
"which was released on" or "it is set to" stops where its value should be; "log in", "turn
it on" do not, nor a clause whose object stands before it ("the commit a line was added
in", "the value that your name is set to", "which directory a command is found in": a
review), so the word before the verb must be a pronoun standing as its subject."""
_BE = frozenset(("is", "was", "are", "were", "be", "been"))
_PRONOUN_SUBJECTS = frozenset(("which", "that", "it", "this", "they", "these", "those"))
_WH = frozenset(("which", "what", "where", "whom", "whose"))
LIST_MARKER = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")
"""A list item's marker ("- ", "* ", "2. ") at the start of a line."""


def _is_lead_in(sentence: str) -> bool:
    """A short line introducing what follows ("Parental leave:", "In summary:")."""
    text = strip_citations(sentence).strip()
    return text.endswith(":") and len(text.split()) <= 8 and not citation_ids(sentence)


def has_content(sentence: str) -> bool:
    """Whether a sentence says anything checkable (a content word, number or entity)."""
    text = strip_citations(sentence)
    return bool(content_stems(text, skip_meta=True) or numbers(text) or code_spans(text))


def is_incomplete(sentence: str) -> bool:
    """A sentence that ends where its value should be ("… is [S1].", "… set to:", "For
    example, [S1]": what followed was removed or never written). Only cited sentences are
    asked: an uncited short lead-in ("In summary:") is a connective."""
    text = strip_citations(sentence).rstrip(" .")
    words = text.rstrip("!:;,").split()
    if not words:
        return False
    code = any(c in text for c in "`()=[]{}")  # a quoted code line may end on ':' or ','
    return words[-1].lower() in _DANGLING or (text.endswith((":", ",")) and not code) or (
        text.endswith(":") and len(words) > 8) or (
        len(words) > 3 and words[-1].lower() in _PLACE_WORDS
        and words[-2].lower() in _AWAITS_PLACE and words[-3].lower() in _BE
        and _pronoun_subject([w.lower().strip(",") for w in words[-7:-3]]))


def _pronoun_subject(before: list[str]) -> bool:
    """Whether the words before a sentence's last verb end on a pronoun as its subject, and
    no wh-word put the verb's object in front ("which directory it is found in")."""
    if not before or before[-1] not in _PRONOUN_SUBJECTS:
        return False
    return before[-1] in ("which", "that") or not _WH & set(before[:-1])


def _norm(text: str) -> str:
    return " ".join(text.split())


def code_quoted(code: str, evidence: str) -> bool:
    """Every non-empty line of ``code`` (fences left out) occurs in ``evidence``."""
    body = [ln for ln in code.splitlines() if ln.strip() and not FENCE.match(ln)]
    flat = _norm(evidence)
    return all(_norm(ln) in flat for ln in body)


_CODE_TOKEN = re.compile(r"-{0,2}[^\W_][\w.\-]*|_[\w.\-]+")
_SIGIL = re.compile(r"[^\w\s]")


_LETTER_SPAN = re.compile(r"[-:+]?[A-Za-z]{1,2}")


def span_quoted(code: str, evidence: str) -> bool:
    """Whether an inline code span of a claim is in ``evidence``: word for word, or its
    tokens (options, names, values) in the same order within a few tokens, as a synopsis
    or a template writes it. ``borg key change-passphrase`` is in "borg [common options]
    key change-passphrase", ``--gen-suppressions=all`` in "--gen-suppressions=<yes|no|all>";
    ``--gen-suppressions=auto`` and ``borg change-passphrase key`` are not. Word for word
    only, 10 of the 35 model sentences removed as unsupported in the four documentation eval
    runs had a code span, 9 of them answering answerable questions (those two examples).
    The symbols a span opens with are part of it: ``#[allow(unused)]`` (a Rust outer
    attribute, which rustdoc's book never wrote) is not in ``#![allow(unused)]``, nor
    ``$PATH`` in "PATH". A span of a letter or two (``q``, ``-p``, ``:s``) is found in any
    text, so it must be a word of its own there, in its case (ed's ``q`` and ``Q`` differ): a
    new user was told to quit ed without saving with `q` (it is `Q`), cited to an overview
    whose only "q" was inside words."""
    if _LETTER_SPAN.fullmatch(code.strip()):
        return holds_word(code.strip(), evidence, ignore_case=False)
    if _norm(code) in _norm(evidence):
        return True
    lowered = code.lower()
    wanted = _CODE_TOKEN.findall(lowered)
    if not wanted:
        return False
    lead = "".join(lowered[:lowered.index(wanted[0])].split())
    text = evidence.lower()
    # a name that ends a sentence ("… in httpx.Client.") is the name without the full stop
    have = [(m.start(), m.group().rstrip(".")) for m in _CODE_TOKEN.finditer(text)]
    reach = len(wanted) + 6  # "[common options]", "<yes|no|…>" between the tokens
    for start, (at, token) in enumerate(have):
        if token != wanted[0] or not _opens_with(text, at, lead):
            continue
        pos, found = start, 1
        for want in wanted[1:]:
            nxt = next((i for i in range(pos + 1, min(len(have), start + reach))
                        if have[i][1] == want), None)
            if nxt is None:
                break
            pos, found = nxt, found + 1
        if found == len(wanted):
            return True
    return False


def _opens_with(text: str, at: int, lead: str) -> bool:
    """Whether the symbols just before ``text[at]`` (spaces left out) are ``lead``, and no
    other symbol comes right before them: ``#[`` opens "… #[derive", not "#![allow"."""
    if not lead:
        return True
    before = "".join(text[max(0, at - 4 * len(lead) - 4):at].split())
    return before.endswith(lead) and not (len(before) > len(lead)
                                          and _SIGIL.match(before[-len(lead) - 1]))


def passage_texts(passages: Sequence[ContextPassage], *,
                  headings: bool = False) -> dict[str, str]:
    """Each passage's text by its upper-cased id, without its instructions to the assistant
    (:mod:`citewise.cite.instructions`): what a sentence is checked against, under those of
    its section's headings that name a release (the prompt shows the model the headings,
    and release notes name the release only there: "In Python 3.11.0 alpha 1, math.cbrt
    was added" was removed, checked against the entry alone, a new user's). Other headings
    are no evidence (a review: the heading "Can employees carry over 10 unused vacation
    days?" supported "Yes, they can" over a body saying no), but for a claim's numbers,
    ``headings`` (every heading)."""
    return {p.sid.upper(): without_instructions(_with_headings(p, every=headings))
            for p in passages}


def _with_headings(passage: ContextPassage, every: bool) -> str:
    shown = [h for h in passage.hit.chunk.heading_path
             if every or labels(h, written=True) & set(release_numbers(h))]
    return "\n".join((" › ".join(shown), passage.text)) if shown else passage.text


def evidence_text(texts: Mapping[str, str], ids: Sequence[str]) -> str:
    """The evidence of a sentence judged against the passages ``ids`` (valid ids)."""
    return "\n".join(texts[sid] for sid in ids)


def judge(answer_text: str, passages: Sequence[ContextPassage],
          embedder: Embedder | None = None, threshold: float | None = None) -> list[Verdict]:
    """One :class:`Verdict` per segment of ``answer_text``, in order. Passage text is read
    without its instructions to the assistant (:mod:`citewise.cite.instructions`)."""
    texts = passage_texts(passages)
    limit = support_threshold(embedder) if threshold is None else threshold
    items = segments(answer_text)
    closing = paragraph_citations(items)
    quoted = {i: code_quoted(seg.text, "\n".join(texts.values()))
              for i, seg in enumerate(items) if seg.kind == "code"}
    labels = {source_line(p).upper(): p.sid.upper() for p in passages}
    out: list[Verdict] = []
    leads: list[int] = []  # the verdicts of lead-ins complete by the list after them
    for i, seg in enumerate(items):
        if seg.kind == "code":
            out.append(Verdict(seg, "supported" if quoted[i] else "not_quoted"))
            continue
        sid = labels.get(seg.text.strip().upper())
        if sid is not None:  # a source line claims only where the code after it is from
            shown = quoted.get(i + 1) and code_quoted(items[i + 1].text, texts[sid])
            out.append(Verdict(seg, "supported" if shown else "unsupported", (sid,),
                               score=1.0 if shown else 0.0))
            continue
        own = citation_ids(seg.text)
        ids = own or closing.get(seg.paragraph, ())
        valid = tuple(sid for sid in ids if sid in texts)
        fake = tuple(sid for sid in own if sid not in texts)
        listed = not quoted.get(i + 1, False) and _quoted_lead_in(items, i, valid, closing,
                                                                  texts)
        verdict = _sentence_verdict(seg, valid, bool(ids), texts, embedder, limit,
                                    shows_value=quoted.get(i + 1, False) or listed)
        if listed:
            leads.append(len(out))
        out.append(replace(verdict, fabricated=fake, inherited=bool(ids) and not own))
    for k in leads:  # a lead-in whose list did not hold ends where its value should be
        if out[k].status == "supported" and out[k + 1].status not in ("supported",
                                                                       "connective"):
            out[k] = replace(out[k], status="incomplete")
    return out


def _quoted_lead_in(items: Sequence[Segment], i: int, valid: tuple[str, ...],
                    closing: Mapping[int, tuple[str, ...]], texts: Mapping[str, str]) -> bool:
    """Whether sentence ``i`` ends on a colon before a list item citing one of its passages
    (``valid``), and is its passage's own sentence, word for word: the list is its value
    (the Rustonomicon's "Which obey the following rules:"). Only as quoted: a model's "These
    files are safe to delete [S1]:" before a list its source says never to delete passed the
    word checks (a review)."""
    if i + 1 >= len(items) or items[i + 1].kind == "code" or not valid or \
            LIST_MARKER.match(items[i + 1].text) is None:
        return False
    lead = strip_citations(items[i].text).rstrip(" .")
    if not lead.endswith(":"):
        return False
    after = citation_ids(items[i + 1].text) or closing.get(items[i + 1].paragraph, ())
    if not set(after) & set(valid):
        return False
    said = _norm(lead).rstrip(":").casefold()  # a whole sentence of it, not a part: "Python
    # 3.6 supports these features:" cut from "Neither Python 2 nor Python 3.6 supports…"
    return any(_norm(sentence).rstrip(":").casefold() == said  # (the second review)
               for sentence in split_sentences(evidence_text(texts, valid)))


def _sentence_verdict(seg: Segment, valid: tuple[str, ...], cites: bool,
                      texts: Mapping[str, str], embedder: Embedder | None,
                      limit: float, shows_value: bool = False) -> Verdict:
    """``shows_value``: a code block quoted from the sources or a list follows
    (:func:`_quoted_lead_in`), so a sentence ending on a colon ("You can install it using pip
    [S1]:", "Which obey the following rules [S1]:") is complete: the code or the list is its
    value."""
    if not has_content(seg.text) or _HEADING.match(seg.text) or DECLINE_PATTERN.search(
            seg.text) or _is_lead_in(seg.text):
        return Verdict(seg, "connective", valid)
    if not cites:
        return Verdict(seg, "uncited")
    if not valid:
        return Verdict(seg, "fabricated")
    if is_incomplete(seg.text) and not (
            shows_value and strip_citations(seg.text).rstrip(" .").endswith(":")):
        return Verdict(seg, "incomplete", valid)
    evidence = evidence_text(texts, valid)
    claim = LIST_MARKER.sub("", strip_citations(seg.text))
    named = [*code_spans(claim), *named_identifiers(without_brackets(seg.text))]
    if not all(span_quoted(name, evidence) for name in named) or not all(
            holds_word(name, evidence) for name in [*letter_names(claim),
                                                    *quoted_names(claim)]):
        return Verdict(seg, "unsupported", valid, score=0.0)
    score = round(support_score(claim, evidence, embedder), 4)
    return Verdict(seg, "supported" if score >= limit else "unsupported", valid, score=score)


def validate(answer_text: str, passages: Sequence[ContextPassage],
             embedder: Embedder | None = None, threshold: float | None = None,
             ) -> ValidationReport:
    """The :class:`ValidationReport` of ``answer_text`` (see the module docstring).

    ``threshold`` overrides the calibrated one (``support_threshold(embedder)``).
    """
    cited: dict[str, None] = {}
    fabricated: dict[str, None] = {}
    unsupported: list[SentenceIssue] = []
    uncited: list[SentenceIssue] = []
    for verdict in judge(answer_text, passages, embedder, threshold):
        sentence = verdict.segment.text
        own = citation_ids(sentence) if verdict.segment.kind == "sentence" else ()
        for sid in own:
            (fabricated if sid in verdict.fabricated else cited).setdefault(sid, None)
        if verdict.segment.kind == "code" or not is_claim(sentence):
            continue
        if verdict.status == "uncited":
            uncited.append(SentenceIssue(sentence))
        elif verdict.status == "fabricated":
            unsupported.append(SentenceIssue(sentence, own, None))
        elif verdict.status in ("unsupported", "incomplete"):
            unsupported.append(SentenceIssue(sentence, own or verdict.ids, verdict.score))
    return ValidationReport(cited=tuple(cited), fabricated=tuple(fabricated),
                            unsupported=tuple(unsupported), uncited=tuple(uncited))
