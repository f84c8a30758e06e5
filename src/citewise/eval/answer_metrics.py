"""Answer-level metrics for one question, as plain functions.

Rates over a set of questions are the mean of these per-question values over the questions
they apply to (see :func:`citewise.eval.scoring.answer_scores`):

* abstention accuracy — over unanswerable questions: 1 when the engine declined;
* false-decline rate — over answerable questions: 1 when the engine declined;
* citation validity — over answers given (not declined): 1 when no cited id is fabricated;
* unsupported-claim rate — over answers given: :func:`unsupported_claim_rate`;
* unsupported claims shown — over answers given: :func:`unsupported_claims_shown`, the
  claims of the FINAL answer (what the reader sees) that are uncited, unsupported by what they
  cite, or cite a source that does not exist (target 0);
* token F1 — over answerable questions (a decline scores 0): the SQuAD 2.0 official script's
  normalisation and token F1, maximised over the references (Rajpurkar et al. 2018,
  ``evaluate-v2.0.py``);
* containment — over answerable questions (a decline scores 0): :func:`contains_reference`,
  a reference's tokens as a run of the answer's tokens (:func:`answer_tokens`).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_CODE_WORD = re.compile(r"[^\s=,;:()\[\]{}\"'`<>!?*|“”‘’]+")
_CITE = re.compile(r"\[(?:S?\d+)(?:\s*,\s*S?\d+)*\]")


def normalize_answer(text: str) -> str:
    """SQuAD ``normalize_answer``: lowercase, drop punctuation, drop a/an/the, squeeze spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1: with common = multiset overlap of normalised tokens,
    P = common/|pred|, R = common/|ref|, F1 = 2PR/(P+R); if either side has no tokens, F1 is
    1 when both are empty, else 0 (``compute_f1`` in evaluate-v2.0.py)."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def max_token_f1(prediction: str, references: Sequence[str]) -> float:
    """Best :func:`token_f1` over the references (SQuAD scores against every gold answer)."""
    return max((token_f1(prediction, r) for r in references), default=0.0)


def answer_tokens(text: str) -> list[str]:
    """Lowercased words and code tokens, split at whitespace and at the punctuation that
    separates code tokens (``= , ; : ( ) [ ] { }``, quotes, ``< > ! ? * |``), each stripped
    of punctuation at its ends, articles left out. ``--fair-sched=yes`` is ``fair-sched yes``
    and ``httpx.BasicAuth(username="x")`` is ``httpx.basicauth username x``: SQuAD's
    normalisation deletes punctuation, which glued them into ``fairschedyes`` and
    ``httpxbasicauthusernamex``, so an answer stating the option or class did not contain it
    (16 such answers in the four documentation eval runs of 2026-12-03)."""
    out = []
    for word in _CODE_WORD.findall(text.lower()):
        word = word.strip(string.punctuation)
        if word and word not in ("a", "an", "the"):
            out.append(word)
    return out


def contains_reference(prediction: str, references: Sequence[str]) -> float:
    """1 when some reference's tokens occur as a run of the prediction's tokens
    (:func:`answer_tokens`; a long answer that states the short answer counts), else 0."""
    pred = f" {' '.join(answer_tokens(prediction))} "
    return float(any(ref and f" {' '.join(ref)} " in pred
                     for ref in map(answer_tokens, references)))


def strip_citations(answer: str) -> str:
    """The answer without its citation markers (``[1]``, ``[S2, S3]``), before scoring."""
    return " ".join(_CITE.sub(" ", answer).split())


def count_claims(answer: str) -> int:
    """Sentences in an answer, citation markers removed: a split after ``.!?`` followed by
    whitespace and a capital, digit, quote or bracket. At least 1 for non-empty text."""
    text = strip_citations(answer)
    if not text:
        return 0
    return sum(1 for s in _SENTENCE.split(text) if s.strip())


def unsupported_claim_rate(answer: str, unsupported: int) -> float:
    """Unsupported sentences / sentences (:func:`count_claims`), capped at 1; 0 for an empty
    answer. ``unsupported`` is the length of the validator's ``unsupported`` list."""
    claims = count_claims(answer)
    if claims == 0:
        return 0.0
    return min(1.0, unsupported / claims)


def unsupported_claims_shown(answer: Mapping[str, Any]) -> float:
    """Claims reaching the reader without support, from an answer record's validation of its
    final text: uncited + unsupported sentences, plus one per fabricated id left in it."""
    return float(len(answer.get("unsupported") or ()) + len(answer.get("uncited") or ())
                 + len(answer.get("fabricated") or ()))
