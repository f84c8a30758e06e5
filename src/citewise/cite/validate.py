"""Check an answer's citations against the passages it was written from.

For each sentence (:func:`citewise.cite.parse.parse_citations`):

* ``fabricated``: cited ids that are not the ``sid`` of any passage, in order of first use.
  They are reported, never dropped or replaced (the reader sees what the model wrote).
* ``unsupported``: sentences making a claim whose support score
  (:func:`citewise.cite.support.support_score`) against the UNION of the passages they
  validly cite is below the calibrated threshold; a claim citing only fabricated ids is
  unsupported too (score ``None``: there is nothing to compare it with).
* ``uncited``: sentences making a claim with no citation at all.
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
from collections.abc import Sequence

from citewise.cite.parse import parse_citations, strip_citations
from citewise.cite.support import support_score, support_threshold
from citewise.cite.terms import content_stems
from citewise.protocols import Embedder
from citewise.types import ContextPassage, SentenceIssue, ValidationReport

MIN_CLAIM_WORDS = 3
DECLINE_PATTERN = re.compile(
    r"insufficient evidence|not enough (?:evidence|information)|(?:do|does) not (?:answer|"
    r"contain|say|mention)|cannot (?:be )?answer", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$)")


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


def validate(answer_text: str, passages: Sequence[ContextPassage],
             embedder: Embedder | None = None, threshold: float | None = None,
             ) -> ValidationReport:
    """The :class:`ValidationReport` of ``answer_text`` (see the module docstring).

    ``threshold`` overrides the calibrated one (``support_threshold(embedder)``).
    """
    texts = {p.sid.upper(): p.text for p in passages}
    limit = support_threshold(embedder) if threshold is None else threshold
    cited: dict[str, None] = {}
    fabricated: dict[str, None] = {}
    unsupported: list[SentenceIssue] = []
    uncited: list[SentenceIssue] = []
    for sentence, ids in parse_citations(answer_text):
        valid = [sid for sid in ids if sid in texts]
        for sid in ids:
            (cited if sid in texts else fabricated).setdefault(sid, None)
        if not is_claim(sentence):
            continue
        if not ids:
            uncited.append(SentenceIssue(sentence))
        elif not valid:
            unsupported.append(SentenceIssue(sentence, ids, None))
        else:
            evidence = "\n".join(texts[sid] for sid in valid)
            score = support_score(strip_citations(sentence), evidence, embedder)
            if score < limit:
                unsupported.append(SentenceIssue(sentence, ids, round(score, 4)))
    return ValidationReport(cited=tuple(cited), fabricated=tuple(fabricated),
                            unsupported=tuple(unsupported), uncited=tuple(uncited))
