"""support_score's signals and formula against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from citewise.cite.support import (
    SUPPORT_THRESHOLD,
    SupportSignals,
    support_score,
    support_signals,
)
from citewise.cite.terms import STEM_LENGTH, content_stems, entities, numbers
from citewise.testing import FakeEmbedder

CLAIM = "Aspirin lowers heart attack risk by 25% in Denmark."
EVIDENCE = "In Denmark, aspirin lowered the risk of heart attacks."


def test_word_forms_meet() -> None:
    assert len({frozenset(content_stems(w)) for w in ("reduces", "reduced", "reducing")}) == 1
    assert content_stems("studies") == content_stems("study")
    assert content_stems("inhibition") == content_stems("inhibits")
    assert content_stems("class") != content_stems("clash")
    assert all(len(s) <= STEM_LENGTH for s in content_stems("immunohistochemistry revealed"))


def test_terms() -> None:
    assert content_stems(CLAIM) == {"aspirin", "lower", "heart", "attack", "risk", "denmark"}
    assert numbers("10-20% of 1,000 PD-1 users took 2.50 mg") == {"10", "20", "1000", "2.5"}
    assert entities("Aspirin blocks PD-1 and BRCA1 in the UK and Denmark") == {
        "pd-1", "brca1", "uk", "denmark"}


def test_score_hand_computed() -> None:
    signals = support_signals(CLAIM, EVIDENCE)
    # recall 6/6 stems; numbers: "25" missing -> 0/1; entities: {denmark} found -> 1/1
    assert signals == SupportSignals(recall=1.0, numbers=0.0, entities=1.0)
    assert support_score(CLAIM, EVIDENCE) == pytest.approx((0.6 * 1 + 0.2 * 0 + 0.2 * 1) / 1.0)
    # no number, no entity in the claim: only recall counts; 2 of 3 stems found
    assert support_score("statins reduce cholesterol", "Statins reduced blood pressure.") == \
        pytest.approx(2 / 3)
    assert support_score("It is so.", "anything") == 1.0  # nothing to check


def test_score_with_an_embedder_adds_the_best_sentence_cosine() -> None:
    emb = FakeEmbedder()
    evidence = "Unrelated words here. In Denmark, aspirin lowered the risk of heart attacks."
    vectors = emb.embed_batch([CLAIM, "Unrelated words here.",
                               "In Denmark, aspirin lowered the risk of heart attacks."])
    cos = max(0.0, float(np.max(vectors[1:] @ vectors[0])))
    expected = (0.6 * 1 + 0.2 * 0 + 0.2 * 1 + 0.4 * cos) / (0.6 + 0.2 + 0.2 + 0.4)
    assert support_score(CLAIM, evidence, emb) == pytest.approx(expected)


def test_threshold_separates_an_obvious_pair() -> None:
    assert support_score(CLAIM, EVIDENCE) >= SUPPORT_THRESHOLD
    assert support_score("Vitamin C cures the common cold.", EVIDENCE) < SUPPORT_THRESHOLD
