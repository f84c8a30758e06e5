"""A source sentence copied with one of its names swapped for another.

The support score counts the claim's words found anywhere in the passages it cites, so a
model that copies a sentence and changes its subject passes it: asked which Git version gave
``git fetch`` an ``--atomic`` option, the local model answered 'The "git fetch" command has
been taught an "--atomic" option that makes a push that updates more than one ref an
"all-or-none" affair [1]' from Git 2.4.0's notes, which say it of "git push" (and mention
"git fetch" elsewhere). :func:`swapped_name` finds the evidence sentence the claim copies
(most of its content words, :data:`COPIED`) and the names each holds that the other lacks:
quoted phrases ("git push"), code spans and identifiers (``--atomic``, ``http2``). A claim
naming something its copied sentence does not, where that sentence names something of the
same family the claim does not (two names of as many words, the first the same, one other
word swapped), says of one thing what the source says of another.
"""

from __future__ import annotations

import re

from citewise.cite.parse import line_sentences, strip_citations
from citewise.cite.terms import code_spans, content_stems, holds_word, named_identifiers

COPIED = 0.6
"""The least share of a claim's content words one evidence sentence holds for the claim to
copy it."""
MIN_WORDS = 4  # a claim of fewer content words copies nothing telling
_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,60})[\"”]")
_PARAGRAPH = re.compile(r"\n\s*\n")


def names(text: str) -> list[str]:
    """The names ``text`` writes: quoted phrases of five words or fewer, code spans and
    identifiers (:func:`~citewise.cite.terms.named_identifiers`), lowercased."""
    quoted = [q for q in _QUOTED.findall(text) if len(q.split()) <= 5]
    found = [*quoted, *code_spans(text), *named_identifiers(text)]
    return list(dict.fromkeys(" ".join(n.lower().split()) for n in found if n.strip()))


def copied_sentence(claim: str, evidence: str) -> str | None:
    """The evidence sentence holding the largest share of ``claim``'s content words, when
    that share is at least :data:`COPIED` (a paragraph's lines read as one: release notes
    and man pages wrap sentences)."""
    wanted = content_stems(claim, skip_meta=True)
    if len(wanted) < MIN_WORDS:
        return None
    best, share = None, COPIED
    for paragraph in _PARAGRAPH.split(evidence):
        for sentence in line_sentences(" ".join(paragraph.split())):
            found = len(wanted & content_stems(sentence)) / len(wanted)
            if found >= share:
                best, share = sentence, found
    return best


def swapped_name(sentence: str, evidence: str) -> tuple[str, str] | None:
    """``(the claim's name, the source's name)`` when ``sentence`` copies an evidence
    sentence (:func:`copied_sentence`) but names something it does not, where the source
    sentence names something the claim does not; else None."""
    claim = strip_citations(sentence)
    source = copied_sentence(claim, evidence)
    if source is None:
        return None
    written, listed = names(claim), names(source)
    if len(written) > MAX_NAMES or len(listed) > MAX_NAMES:
        return None
    own = [n for n in written if not holds_word(n, source)]
    other = [n for n in listed if not holds_word(n, claim)]
    return next(((o, t) for o in own for t in other if _one_word_apart(o, t)), None)


MAX_NAMES = 50  # a claim or sentence naming more is a list, not a copy with one swap


def _one_word_apart(own: str, other: str) -> bool:
    """Whether two names of two words or more differ in one word, the first the same ("git
    fetch" for "git push"): a name of the source's family with a member swapped. An alias
    ("--dry-run" for "-n"), a placeholder ("citewise ingest <folder>" for "citewise ingest
    docs/ --db team.db") or an older command ("git reset HEAD <file>" for "git restore
    --staged <file>") is no such swap (a review of this check)."""
    a, b = own.split(), other.split()
    return len(a) == len(b) >= 2 and a[0] == b[0] and \
        sum(x != y for x, y in zip(a, b, strict=True)) == 1
