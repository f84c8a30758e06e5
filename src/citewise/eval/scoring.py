"""Per-question figures from a :class:`~citewise.eval.record.QuestionRecord`.

Names: ``recall@c``, ``hit@c``, ``mrr@c``, ``ndcg@c`` and ``context_precision`` are document
level; the same with a ``section_`` prefix are section level (see
:mod:`citewise.eval.matching`). Cutoffs c are 1, 3, 5, 10 and the run's k (a cutoff past k
sees only the k passages retrieved).
Retrieval figures exist only for answerable questions (unanswerable ones are scored by the
answer figures). ``tokens_per_request`` (sum of the retrieved passages' tokens),
``duplicate_rate``, ``latency_ms`` and ``acl_leaks`` exist for every question; answer
figures (:mod:`citewise.eval.answer_metrics`) only when the run asked for answers, each for
the questions it applies to; ``judge_correct`` (the LLM judge's verdict,
:mod:`citewise.eval.judge`) only for answerable questions of a judged run. A figure missing
from a question's dict does not apply to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from citewise.eval.answer_metrics import (
    contains_reference,
    max_token_f1,
    strip_citations,
    unsupported_claim_rate,
    unsupported_claims_shown,
)
from citewise.eval.matching import LEVELS, credit, relevant_mask
from citewise.eval.metrics import (
    context_precision,
    duplicate_rate,
    hit_at_k,
    mrr_at_k,
    ndcg_at_k,
    recall_at_k,
)
from citewise.eval.record import EvalRun, QuestionRecord

RANK_METRICS: dict[str, Callable[[Sequence[str], Mapping[str, int], int], float]] = {
    "recall": recall_at_k, "hit": hit_at_k, "mrr": mrr_at_k, "ndcg": ndcg_at_k}
HEADLINE = ("hit@5", "recall@5", "mrr@10", "ndcg@10", "section_hit@5", "section_ndcg@10",
            "context_precision", "section_context_precision", "duplicate_rate",
            "tokens_per_request", "latency_ms")
ANSWER_HEADLINE = ("abstention_accuracy", "false_decline_rate", "citation_validity",
                   "unsupported_claim_rate", "unsupported_claims_shown", "token_f1",
                   "containment", "judge_correct", "answer_latency_ms")
LOWER_IS_BETTER = frozenset({"duplicate_rate", "tokens_per_request", "latency_ms",
                             "acl_leaks", "false_decline_rate", "unsupported_claim_rate",
                             "unsupported_claims_shown",
                             "answer_latency_ms"})


def cutoffs(k: int) -> list[int]:
    return sorted({1, 3, 5, 10, k})


def retrieval_scores(record: QuestionRecord, k: int) -> dict[str, float]:
    out: dict[str, float] = {}
    hits = record.hits[:k]
    for level in LEVELS:
        prefix = "" if level == "doc" else "section_"
        ranking, qrels = credit(hits, record.pieces, level)
        for name, fn in RANK_METRICS.items():
            for c in cutoffs(k):
                out[f"{prefix}{name}@{c}"] = fn(ranking, qrels, c)
        out[f"{prefix}context_precision"] = context_precision(
            relevant_mask(hits, record.pieces, level))
    return out


def answer_scores(record: QuestionRecord) -> dict[str, float]:
    a = record.answer
    if a is None:
        return {}
    out: dict[str, float] = {}
    declined = bool(a["declined"])
    if record.answerable:
        out["false_decline_rate"] = float(declined)
        refs = record.question.answers
        if refs:
            text = "" if declined else strip_citations(a["answer"])
            out["token_f1"] = max_token_f1(text, refs)
            out["containment"] = contains_reference(text, refs)
    else:
        out["abstention_accuracy"] = float(declined)
    if not declined:
        out["citation_validity"] = float(not a.get("fabricated"))
        out["unsupported_claim_rate"] = unsupported_claim_rate(
            a["answer"], len(a.get("unsupported") or ()))
        out["unsupported_claims_shown"] = unsupported_claims_shown(a)
    if record.judge is not None and record.judge.get("correct") is not None:
        out["judge_correct"] = float(record.judge["correct"])
    if record.answer_latency_ms is not None:
        out["answer_latency_ms"] = float(record.answer_latency_ms)
    return out


def question_scores(record: QuestionRecord, k: int) -> dict[str, float]:
    hits = record.hits[:k]
    out: dict[str, float] = {
        "tokens_per_request": float(sum(int(h.get("tokens") or 0) for h in hits)),
        "duplicate_rate": duplicate_rate([(h["doc_id"], int(h["start"]), int(h["end"]),
                                           h["text_hash"]) for h in hits]),
        "latency_ms": float(record.latency_ms),
        "acl_leaks": float(record.leaks),
    }
    if record.answerable:
        out.update(retrieval_scores(record, k))
    out.update(answer_scores(record))
    return out


def score_run(run: EvalRun) -> dict[str, dict[str, float]]:
    """``{question id: {figure: value}}`` for every record of ``run``."""
    return {r.id: question_scores(r, run.k) for r in run.records}
