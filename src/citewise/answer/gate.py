"""The grounding gate: decline before generation when the evidence is absent or weak.

The gate looks only at retrieval (scores and term overlap of passages the principal may read),
never at what a passage *says* — so text inside a source ("ignore previous instructions…")
cannot open it. Signals, each in [0, 1] (dense cosine can be slightly negative):

* ``dense_top``: the best dense cosine among the retrieved hits (0 without a dense signal);
* ``coverage``: the best share, among the top :data:`COVERAGE_DEPTH` hits, of the question's
  content terms (stopwords removed, stemmed: :mod:`citewise.text`) that occur in the passage;
* ``combined``: their mean;
* ``<signal>+terms``: the same, minus :data:`VETO` (below any threshold a cosine can reach)
  when a salient term of the question has no evidence (:mod:`citewise.answer.salient`): an
  identifier absent from the readable top passages, or a name no readable document uses at
  all. The missing terms are in the trace (``gate.missing``) and the decline reason is
  ``missing_terms``.

Also measured on the SQuAD dev half and not kept (ROC AUC; dense_top 0.686): agreement of the
two signals' top 3 (0.529), the best BM25 score per query term (0.504), the margin between the
two best dense cosines (0.556), dense_top plus a share of BM25 (≤ 0.688). Sentence-level
cosine (the best question-sentence cosine among the top 5 passages' sentences, alone or
averaged with coverage and dense_top; ``benchmarks/gate_terms.py --sentence --signals
combined,sent_top,sent_comb``), chosen with the shipped rule (mean dev abstention, 10 % false
declines on every dev set): dev mean abstention 0.455-0.484 against ``combined+terms``' 0.481,
so not kept.

Which signal and which threshold are not constants copied from elsewhere: ``citewise
calibrate`` measures every signal on labelled questions (answerable vs. unanswerable), picks the
signal and threshold on a dev split and stores both in the index (``gate.signal``,
``gate.threshold``). :data:`SHIPPED` is the result of that procedure on the SQuAD 2.0 subset
(``benchmarks/gate.py`` reproduces it), used only for an index nobody calibrated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.errors import ConfigError
from citewise.index.checks import finite_number
from citewise.text import query_terms, stem
from citewise.trace import GateTrace
from citewise.types import Hit

BASE_SIGNALS: tuple[str, ...] = ("dense_top", "coverage", "combined")
TERMS_SUFFIX = "+terms"
SIGNALS: tuple[str, ...] = (*BASE_SIGNALS, *(s + TERMS_SUFFIX for s in BASE_SIGNALS))
VETO = 2.0  # subtracted from a +terms signal when a salient term has no evidence
COVERAGE_DEPTH = 3

SHIPPED_FOR = ("sentence-transformers/all-MiniLM-L6-v2@onnx-int8",
               "sentence-transformers/all-MiniLM-L6-v2@fp32")
"""The embedders :data:`SHIPPED` was measured with (int8 and fp32 vectors agree to ≥ 0.9989
cosine). Another embedder's cosines live on another scale: its uncalibrated index declines only
when nothing is retrieved or a salient term has no evidence, and ``ask`` says so in the trace
(``source: uncalibrated``)."""

SHIPPED: tuple[str, float] = ("combined+terms", 0.4682)
"""(signal, threshold) used when neither settings nor the index name one, chosen by
``benchmarks/gate_terms.py`` on two DEV sets unlike each other, every one held to at most 10 %
false declines (one default must serve every corpus): the SQuAD 2.0 subset's dev half (706
questions, adversarial rewordings) and the ninja manual's dev set (``evals/ninja-dev.jsonl``,
54 questions in users' words, 26 about features ninja lacks), with the shipped
all-MiniLM-L6-v2 int8 embedder; the veto's term kinds are chosen in the same run
(:data:`citewise.answer.salient.ABSENT_KINDS`). Dev: abstention 0.15 (SQuAD) and 0.81 (ninja),
false declines 0.10 and 0.07. Checked, never fitted on (Wilson 95 %): SQuAD test half
abstention 0.13 [0.09, 0.20] / false declines 0.07 [0.04, 0.11]; httpx 0.73 [0.43, 0.90] /
0.16 [0.09, 0.29]; valgrind 0.41 [0.26, 0.58] / 0.06 [0.02, 0.18]; borg 0.71 [0.54, 0.83] /
0.07 [0.02, 0.19]. The previous default (``dense_top+terms`` >= 0.398, identifiers only,
chosen on SQuAD's dev half alone) had SQuAD test 0.22 but httpx 0.45, valgrind 0.16, borg 0.32:
SQuAD's unanswerable questions are written to look answerable from the paragraph, so retrieval
alone separates them poorly; questions about things a corpus does not contain are what the veto
catches. A cosine threshold belongs to its embedder: calibrate an index built with another
model (the veto still applies: an uncalibrated index declines a question whose identifiers no
passage mentions or whose names no document contains)."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def content_stems(text: str) -> set[str]:
    # a release number ("3.4.6", a BM25 phrase) is no word of a passage: the coverage the
    # shipped threshold was fitted with counts words (a review: a third of it lost)
    return {stem(t) for t in query_terms(text) if "." not in t} if text else set()


def term_coverage(question: str, passage: str) -> float:
    """Share of the question's content stems found among the passage's words."""
    wanted = content_stems(question)
    if not wanted:
        return 0.0
    have = {stem(w) for w in _WORD.findall(passage.lower())}
    return len(wanted & have) / len(wanted)


def evidence_signals(question: str, hits: Sequence[Hit],
                     missing: Sequence[str] = ()) -> dict[str, float]:
    """The gate's candidate signals for ``hits`` (already filtered for the principal);
    ``missing``: the salient terms without evidence (:mod:`citewise.answer.salient`)."""
    dense = [h.signals["dense"].score for h in hits if "dense" in h.signals]
    dense_top = max(dense) if dense else 0.0
    coverage = max((term_coverage(question, f"{h.document.title} {h.chunk.text}")
                    for h in hits[:COVERAGE_DEPTH]), default=0.0)
    base = {"dense_top": round(dense_top, 6), "coverage": round(coverage, 6),
            "combined": round((dense_top + coverage) / 2.0, 6)}
    veto = VETO if missing else 0.0
    return {**base, **{k + TERMS_SUFFIX: round(v - veto, 6) for k, v in base.items()}}


GateDecision = GateTrace
"""The gate's decision is the trace's gate part as the gate leaves it (``reader`` unset):
``passed`` is false when the answer must be declined; ``reason`` says why (``no_evidence``:
nothing the principal may read was retrieved; ``weak_evidence``: the signal is below the
threshold; ``missing_terms``: a salient term has no evidence). ``source`` tells where the
threshold came from."""


def choose_threshold(configured: float | None, stored_signal: str | None,
                     stored_threshold: str | None,
                     embedder_id: str | None = SHIPPED_FOR[0]) -> tuple[str, float, str]:
    """(signal, threshold, source): settings beat the index's calibration beat :data:`SHIPPED`
    (only for the embedders it was measured with; else 0, source ``uncalibrated``). A
    configured threshold applies to the index's calibrated signal (or the shipped one)."""
    signal = stored_signal or SHIPPED[0]
    if signal not in SIGNALS:
        raise ConfigError(f"the index names gate signal {signal!r}, which this citewise does "
                          f"not know ({', '.join(SIGNALS)}). Fix: run `citewise calibrate` again.")
    if configured is not None:
        return signal, _finite(configured, "the gate.threshold setting"), "settings"
    if stored_threshold is not None:
        return signal, _finite(stored_threshold, "the index's gate.threshold"), "index"
    if embedder_id not in SHIPPED_FOR:
        return signal, 0.0, "uncalibrated"
    return signal, SHIPPED[1], "shipped"


def _finite(value: object, what: str) -> float:
    """``value`` as a finite float (:func:`~citewise.index.checks.finite_number`), or a
    one-line :class:`ConfigError` ("abc" ended an ask in a traceback)."""
    number = finite_number(value)
    if number is None:
        raise ConfigError(f"{what} is {str(value)[:40]!r}, not a finite number. Fix: run "
                          "`citewise calibrate` again, or set gate.threshold in --config")
    return number


def decide(question: str, hits: Sequence[Hit], signal: str, threshold: float,
           source: str, missing: Sequence[str] = ()) -> GateDecision:
    signals = evidence_signals(question, hits, missing)
    score = signals[signal]
    miss = tuple(missing)
    if not hits:
        return GateTrace(False, "no_evidence", signal, 0.0, threshold, source, signals, miss)
    if score < threshold:
        why = "missing_terms" if miss and signal.endswith(TERMS_SUFFIX) and \
            signals[signal.removesuffix(TERMS_SUFFIX)] >= threshold else "weak_evidence"
        return GateTrace(False, why, signal, score, threshold, source, signals, miss)
    return GateTrace(True, None, signal, score, threshold, source, signals, miss)
