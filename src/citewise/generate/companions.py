"""What a chosen sentence is quoted with, so that it says what it says where it stood: the
sentence it points back to (:func:`antecedent`: "They begin with the build keyword…"), the
first sentence of the list item a "Default: 2." ends, and the example
(:func:`with_examples`) or the list (:func:`with_lists`) it leads into. Used by the
extractive answer and the claim quotes (:mod:`citewise.generate.extractive`,
:mod:`citewise.generate.claim_quotes`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING

from citewise.cite.enforce import points_elsewhere
from citewise.cite.leaning import LEAD_IN, names_back
from citewise.cite.terms import is_entry_name
from citewise.generate.entries import is_term_line
from citewise.generate.examples import leads_in, points_ahead, unfinished

if TYPE_CHECKING:
    from citewise.generate.extractive import ScoredSentence
    from citewise.types import Chunk, ContextPassage, SectionMark

_POINTS_BACK = re.compile(r"(?:it|its|they|their|them|this|these|that|those|such|he|she|"
                          r"then|therefore|thus|hence|however|but|also|otherwise)\b",
                          re.IGNORECASE)


def with_antecedents(chosen: Sequence[ScoredSentence],
                     scored: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """``chosen`` with, before each sentence that opens on a word pointing back ("They
    begin with the build keyword…", "It now reports more types of memory leak…", "That is
    when…"), the sentence before it in its passage, unless already chosen: quoted alone
    it does not say what "they" are. In the four documentation eval runs, 16 of the 96
    extractive answers quoted such a sentence, 5 as their first."""
    picked = {s.order for s in chosen}
    out: list[ScoredSentence] = []
    for s in chosen:
        before = antecedent(s, scored)
        if before is not None and before.order not in picked:
            out.append(before)
            picked.add(before.order)
        out.append(s)
    return out


def antecedent(s: ScoredSentence, scored: Sequence[ScoredSentence]) -> ScoredSentence | None:
    """The sentence before ``s`` in its passage when ``s`` cannot be quoted without it
    (:func:`with_antecedents`), else None."""
    if DEFAULT.match(s.text):
        return _item_head(s, scored)
    before = scored[s.order - 1] if s.order > 0 else None  # order: index in scored
    if s.code and before is not None and before.sid == s.sid and not before.code and \
            points_elsewhere(before.text):
        before = _paragraph_opening(before, scored)
    if before is not None and before.sid == s.sid and s.code and _opens_entry(s.text) and \
            not (leads_in(before.text) or points_ahead(before.text)
                 or unfinished(before.text)):
        return None  # the last sentence of the entry before (module docstring of entries)
    if before is not None and before.sid == s.sid and (
            ((s.code or _leans_back(s.text)) and not before.code and not _is_title(before.text))
            or (before.code and not s.code and s.text[:1].islower())):
        return before  # a sentence going on from an example ("prints two lines of
    return None  # context…" after grep -C 2 'hello') comes with it


def _opens_entry(code: str) -> bool:
    """Whether a code block opens with a term line (BIND's "minimal-responses" over its
    "Grammar: …"): the sentence before it ends the previous entry. A new user of the BIND
    manual asked "what does minimal-responses do" and was answered "The default is yes [1]."
    first, message-compression's default, linked to minimal-responses' entry."""
    first = code.strip().split("\n", 1)[0]
    return is_term_line(first) and "(" not in first and "=" not in first


def _paragraph_opening(s: ScoredSentence,
                       scored: Sequence[ScoredSentence]) -> ScoredSentence | None:
    """The first sentence of ``s``'s paragraph, when it is another and says more than where
    to read more: the AWS CLI's examples end the paragraph over their command on "For more
    information, see AWS CLI supported global command line options …", which the answer
    check removes, and a new user's "how do I call a lambda function and pass it some json?"
    was declined with ``aws lambda invoke … --payload …`` chosen, introduced by nothing
    else."""
    first = s
    while first.order > 0 and (prior := scored[first.order - 1]).sid == s.sid and \
            prior.part == s.part and not prior.code:
        first = prior
    return first if first is not s and not points_elsewhere(first.text) else None


DEFAULT = re.compile(r"(?:Default|Defaults to)\b", re.IGNORECASE)
BULLET = re.compile(r"\s*[-*•]\s")


def _item_head(s: ScoredSentence, scored: Sequence[ScoredSentence]) -> ScoredSentence | None:
    """The first sentence of the list item a "Default: 2." sentence ends: what the default
    is of. The Node.js docs end each option so ("- depth <number> Specifies the number of
    times to recurse… Default: 2."), and "What is the default depth of util.inspect?" was
    answered with two such sentences and nothing of what they were the defaults of."""
    for before in reversed(scored[max(0, s.order - 8):s.order]):
        if before.sid != s.sid or before.part != s.part or before.code:
            return None
        if BULLET.match(before.text):
            return before
    return None


def _leans_back(text: str) -> bool:
    """Whether ``text`` opens on a word pointing back, past a lead-in ("Note that using this
    option makes it much harder…"), or names "this/such option" in its first words ("How to
    pass such an option to xgettext…"): quotes a new user got without the option meant."""
    text = LEAD_IN.sub("", text)
    return bool(_POINTS_BACK.match(text) or names_back(text, within=4))


_ASKS_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b", re.IGNORECASE)
_GIVES_DEFAULT = re.compile(r"(?:(?:The|Its|This) )?default(?: value)? (?:is|was)\b|"
                            r"Defaults? to\b|Default:|By default\b", re.IGNORECASE)


def with_defaults(chosen: Sequence[ScoredSentence], scored: Sequence[ScoredSentence],
                  question: str, passages: Sequence[ContextPassage] = ()
                  ) -> list[ScoredSentence]:
    """``chosen`` with the sentence of their entry that gives a default ("The default is
    3000.", "Default: 2"), when the question asks for one: after a sentence, the one after
    it in its block, or a later block of its passage up to :data:`DEFAULT_PARTS` on in the
    same section when that section is one option's entry (``passages``: their chunks'
    section marks; :func:`_names_one_thing`). A new user's "what is
    xsltproc's default maximum template depth …?" was answered with ``--maxdepth``'s
    "Adjust the maximum depth of the template stack …" and not the value; new users of
    Knot DNS's and Kea's references, whose "Default: …" is a paragraph of its own after a
    Note box or at a list item's end, got the description and the Note and not the
    value."""
    if not _ASKS_DEFAULT.search(question):
        return list(chosen)
    chunks = {p.sid: p.hit.chunk for p in passages}
    picked = {s.order for s in chosen}
    out: list[ScoredSentence] = []
    for i, s in enumerate(chosen):
        out.append(s)
        after = None if s.code or _GIVES_DEFAULT.match(s.text) else \
            _default_after(s, scored, chunks.get(s.sid))
        following = chosen[i + 1] if i + 1 < len(chosen) else None
        if after is None or after.order in picked or (
                following is not None and following.sid == s.sid
                and following.order < after.order):  # a later quote of the entry takes it
            continue
        out.append(after)
        picked.add(after.order)
    return out


DEFAULT_PARTS = 4
_ITEM = re.compile(r"\s*(?:[-*•+]|\d{1,3}[.)])\s")
"""How many blocks after a quoted sentence :func:`with_defaults` looks for its default."""


def _default_after(s: ScoredSentence, scored: Sequence[ScoredSentence],
                   chunk: Chunk | None) -> ScoredSentence | None:
    """The first sentence after ``s`` in its passage that gives a default, in its block or
    a block up to :data:`DEFAULT_PARTS` on in the same section of ``chunk``."""
    for t in scored[s.order + 1:]:
        if t.sid != s.sid or t.part > s.part + DEFAULT_PARTS or _ITEM.match(t.text):
            return None  # (a list item starts another entry: Kea's max-reclaim-leases)
        if not t.code and _GIVES_DEFAULT.match(t.text):
            if t.part == s.part:
                return t if t.order == s.order + 1 else None
            here = None if chunk is None else _section_of(chunk, s.text)
            entry = here is not None and _names_one_thing(here)
            return t if entry and here == _section_of(chunk, t.text) \
                and not _entry_between(chunk, s.text, t.text) else None
    return None


def _entry_between(chunk: Chunk | None, first: str, then: str) -> bool:
    """Whether another entry's term line stands between the sentences ``first`` and
    ``then`` of ``chunk``: a new user of git's documentation asked for gc.auto's default and
    was given gc.auto's "The default value is 6700" and gc.autoPackLimit's "The default value
    is 50", the next entry under the same one-word heading ("CONFIGURATION")."""
    text = "" if chunk is None else chunk.text
    start = _find(text, first)
    end = None if start is None else _find(text, then, start + 1)
    if start is None or end is None:
        return False
    return any(is_term_line(line) for line in text[start:end].splitlines()[1:])


def _find(text: str, sentence: str, start: int = 0) -> int | None:
    words = sentence.split()[:6]
    found = re.compile(r"\s+".join(map(re.escape, words))).search(text, start) if words \
        else None
    return None if found is None else found.start()


def _names_one_thing(section: SectionMark) -> bool:
    """Whether ``section`` is one option's or term's entry: its heading is one word
    (Knot's ``zone-max-ttl``) or its anchor is a name (``#bounce_template_file``). A
    review's Kea question on hold-reclaimed-time got max-reclaim-leases' "The default
    value is 100" from the next paragraph of a section describing several."""
    heading = section.heading_path[-1].strip() if section.heading_path else ""
    anchor = section.anchor or ""
    return bool(heading and " " not in heading) or is_entry_name(anchor)


def _section_of(chunk: Chunk, sentence: str) -> SectionMark | None:
    """The section of ``chunk`` that holds ``sentence`` (its first words, any spacing), or
    None when it is not found."""
    found = _find(chunk.text, sentence)
    return None if found is None else chunk.section_at(found)


def with_examples(chosen: Sequence[ScoredSentence], scored: Sequence[ScoredSentence],
                  limit: int = 2) -> list[ScoredSentence]:
    """``chosen`` with the code example that follows a chosen sentence's paragraph in its
    passage (:mod:`citewise.generate.examples`), at most ``limit`` examples in all, when the
    sentence leads into it (ends on a colon or an ellipsis: "You can install SOCKS support
    using pip:" is quoted with ``$ pip install httpx[socks]``; or stops on a word wanting
    it, "then run", :func:`~citewise.generate.examples.unfinished`; or says "the following
    invocation…", :func:`~citewise.generate.examples.points_ahead`) or the example has several
    lines and a word of the question. Not a one-line block after a full stop: in an option
    reference that is the next option's synopsis (``--vgdb-prefix=<prefix>``), not an
    example of this one. (A code block chosen for its own words comes with the sentence
    before it, :func:`with_antecedents`, or with its section's name, :func:`_quotes`.)"""
    picked = {s.order for s in chosen}
    shown = sum(s.code for s in chosen)
    out: list[ScoredSentence] = []
    for s, following in zip_longest(chosen, chosen[1:]):
        out.append(s)
        if following is not None and following.part == s.part:
            continue  # the example goes after the paragraph's last quoted sentence
        after = next((t for t in scored[s.order + 1:] if t.part != s.part), None)
        if after is not None and after.code and after.sid == s.sid and not s.code \
                and after.part == s.part + 1 and after.order not in picked and shown < limit \
                and (leads_in(s.text) or unfinished(s.text) or points_ahead(s.text)
                     or (after.score > 0 and "\n" in after.text)):
            out.append(after)
            picked.add(after.order)
            shown += 1
    return out


MAX_LIST_ITEMS = 8
MAX_LIST_CHARS = 800


def with_lists(chosen: Sequence[ScoredSentence],
               scored: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """``chosen`` with the list a chosen sentence leads into (:func:`list_after`), whole and
    in its order: the Rustonomicon's "Which obey the following rules:" was quoted without
    "- A reference cannot outlive its referent" and "- A mutable reference cannot be
    aliased", removed as an incomplete sentence, and a new user asking for the rules of
    aliasing was declined. An item also chosen on its own is quoted once, in the list."""
    attached: set[int] = set()
    out: list[ScoredSentence] = []
    for s in chosen:
        if s.order in attached:
            continue
        out.append(s)
        if s.code or not leads_in(s.text):
            continue
        for t in list_after(s, scored):
            if t.order not in attached:
                out.append(t)
                attached.add(t.order)
    return out


def list_after(lead: ScoredSentence, scored: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """The list ``lead`` leads into, in its passage: bullet items from the sentence after it
    (in its block or the next; blank lines between items too), with an item's further
    sentences, up to the first block or trailing sentence that is no item. Empty when the
    list is long (over :data:`MAX_LIST_ITEMS` items or :data:`MAX_LIST_CHARS` characters) or
    shares no word with the question (a planted "works as follows:" brought eight unscored
    lines: a review) unless its items are values of a few words ("- gzip", "- zstd"). A nested
    list is quoted flat: the sentences scored have lost their indentation (a review)."""
    items: list[ScoredSentence] = []
    part = lead.part
    for t in scored[lead.order + 1:]:
        if t.sid != lead.sid or t.code or t.part > part + 1:
            break
        bullet = BULLET.match(t.text) is not None
        if t.part != part and not bullet or not items and not bullet:
            break  # a block that opens with no item, or no item right after the lead-in
        part = t.part
        items.append(t)
    while items and not BULLET.match(items[-1].text):
        items.pop()  # prose after the list's last item, in its block
    bullets = [t for t in items if BULLET.match(t.text)]
    values = all(len(t.text.split()) <= 4 for t in items)  # "- gzip", "- zstd", "- none"
    if not bullets or len(bullets) > MAX_LIST_ITEMS or \
            sum(len(t.text) for t in items) > MAX_LIST_CHARS or \
            not (values or any(t.score > 0 for t in items)):
        return []
    return items



def _is_title(text: str) -> bool:
    """A heading inside a passage ("Simulation Details"): a few words, no final stop."""
    return len(text.split()) <= 4 and not text.rstrip().endswith((".", "!", "?", ":", ")"))
