"""How well an evidence text supports a claim, from cheap signals (no NLI model ships).

Signals (each in [0, 1], ``None`` when the claim has nothing of that kind):

* ``recall``: share of the claim's content-word stems (words about the answer itself, such as
  "sources", left out) found in the evidence (:func:`citewise.cite.terms.content_stems`);
* ``numbers``: share of the claim's numbers found in the evidence;
* ``entities``: share of the claim's entity-like tokens (acronyms, gene names, capitalised
  names) found in the evidence's tokens;
* ``cosine``: with an :class:`~citewise.protocols.Embedder`, the largest cosine between the
  claim and an evidence sentence (max(0, cos)).

Score: the weighted mean of the signals present, weights :data:`WEIGHTS`::

    support = Σ_s w_s x_s / Σ_s w_s      over the signals s that are not None

A claim with no content word has nothing to check and scores 1.0.

:data:`SUPPORT_THRESHOLD` (and :data:`SUPPORT_THRESHOLD_EMBED` with an embedder) were
calibrated by ``benchmarks/support.py`` on SciFact claims (scifact-hf-csv): the claim vs the
abstract holding its SUPPORT evidence (positives) against cited abstracts without evidence
and another claim's evidence abstract (negatives). Rule: the largest threshold that flags at
most 10 % of the supported pairs of the dev split (claims_train.csv) — a bounded false-flag
rate, so that a correct, cited answer is rarely flagged. Measured (lexical, seed 0, stems of
:func:`citewise.text.stem`): dev 1,031 pairs -> threshold 0.45 (false-flag 10.0 %, recall
81 %); test split (claims_validation.csv, 375 pairs): precision 0.942, recall 0.823,
false-flag 8.7 %, ROC AUC 0.927. Limits: same-topic abstracts without evidence are flagged
71/113 times only, and a contradiction written with the source's own words is rarely caught
(22/71 CONTRADICT pairs flagged). With the shipped all-MiniLM-L6-v2 cosine (``--embed
2000``: every pair): dev threshold 0.505 (false-flag 10.0 %); test precision 0.955, recall
0.814, false-flag 6.5 %, ROC AUC 0.943 (13/71 CONTRADICT).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from citewise.cite.parse import split_sentences
from citewise.cite.terms import content_stems, entities, numbers, tokens_lower
from citewise.protocols import Embedder

#: Weights of the signals in the support score.
WEIGHTS: Mapping[str, float] = {"recall": 0.6, "numbers": 0.2, "entities": 0.2, "cosine": 0.4}
#: Flag a cited sentence below this lexical support (calibration: module docstring).
SUPPORT_THRESHOLD = 0.45
#: The same with an embedder passed (the cosine signal included).
SUPPORT_THRESHOLD_EMBED = 0.505


@dataclass(frozen=True)
class SupportSignals:
    recall: float | None
    numbers: float | None
    entities: float | None
    cosine: float | None = None

    def score(self, weights: Mapping[str, float] = WEIGHTS) -> float:
        """The weighted mean of the signals present (1.0 when none is)."""
        present = {k: v for k, v in self.__dict__.items() if v is not None}
        total = sum(weights[k] for k in present)
        if total == 0:
            return 1.0
        return sum(weights[k] * v for k, v in present.items()) / total


def _share(wanted: set[str], found: set[str]) -> float | None:
    return len(wanted & found) / len(wanted) if wanted else None


def support_signals(claim: str, evidence: str,
                    embedder: Embedder | None = None) -> SupportSignals:
    """The signals of ``claim`` against ``evidence`` (see the module docstring)."""
    claim_stems = content_stems(claim, skip_meta=True)  # "the sources say" is no claim
    evidence_tokens = tokens_lower(evidence)
    cosine = None
    if embedder is not None and claim_stems and evidence.strip():
        cosine = max_cosine(embedder, claim, evidence)
    return SupportSignals(
        recall=_share(claim_stems, content_stems(evidence)),
        numbers=_share(numbers(claim), numbers(evidence)),
        entities=_share(entities(claim), evidence_tokens),
        cosine=cosine)


def max_cosine(embedder: Embedder, claim: str, evidence: str) -> float:
    """max(0, largest cosine between the claim and one evidence sentence); vectors are
    L2-normalised by the Embedder contract, so cosine is the dot product."""
    sentences = split_sentences(evidence) or [evidence]
    vectors = embedder.embed_batch([claim, *sentences])
    return max(0.0, float(np.max(vectors[1:] @ vectors[0])))


def support_score(claim: str, evidence_text: str, embedder: Embedder | None = None) -> float:
    """Support of ``claim`` by ``evidence_text`` in [0, 1] (see the module docstring)."""
    return support_signals(claim, evidence_text, embedder).score()


def support_threshold(embedder: Embedder | None = None) -> float:
    """The calibrated threshold for the score computed with (or without) an embedder."""
    return SUPPORT_THRESHOLD if embedder is None else SUPPORT_THRESHOLD_EMBED
