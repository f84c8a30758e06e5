"""The answer-correctness judge: an LLM reads the question, the eval set's reference answer(s)
and the engine's final answer (citations stripped) and says whether the answer is correct.

P(correct) = P(Yes) / (P(Yes) + P(No)) from the first answer token's log-probabilities
(:func:`citewise.generate.local.yes_probability`), and the verdict is P(correct) >=
``eval.judge_threshold`` (0.6, chosen on the labels' dev half). The prompt holds only the
question, the references and the answer (no passages), so one judgement costs one short prompt
evaluation plus one token.

What is judged (:meth:`AnswerJudge.judge`):

* an answerable question with a reference, answered: the model is asked;
* an answerable question the engine declined: incorrect, without asking the model;
* an unanswerable question (for the asking persona): not applicable (abstention is measured
  by ``abstention_accuracy``); an answerable question without a reference: not applicable.

A judge is only as good as its agreement with people: ``citewise eval judge-check --labels
evals/httpx.judge-labels.jsonl`` measures accuracy and Cohen's kappa against hand labels
(:mod:`citewise.eval.judge_labels`), and ``evals/httpx.judge-agreement.json`` records the
figures with the model and :func:`prompt_hash` they were measured for (a test fails when
either changes without a re-measurement).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from citewise.errors import CitewiseError
from citewise.eval.answer_metrics import strip_citations
from citewise.eval.judge_models import JudgeModel
from citewise.eval.record import EvalRun

SYSTEM = "You check whether an answer gives an expected fact."
TEMPLATE = ("Question: {question}\n"
            "Proposed answer: {answer}\n\n"
            "Expected answer: {references}\n\n"
            "Does the proposed answer state the expected answer (the same value, option or "
            "API, in any wording)? Reply with one word: Yes or No.")
"""The second of two prompts tried (``evals/README.md``): the expected answer right before the
question. Chosen with :data:`THRESHOLD` on the ``dev`` half of ``evals/httpx.judge-labels.jsonl``
(dev kappa 0.67 vs 0.39 for the first prompt at its best threshold); on the test half, kappa
0.52 [0.19, 0.87], accuracy 0.75 (16 answers)."""
MAX_ANSWER_CHARS = 1200
"""Longer answers are cut here (with "…"): the judge's prompt stays short on a CPU."""
THRESHOLD = 0.6


def prompt_hash() -> str:
    """A hash of everything that shapes the judge's prompt: change it and the agreement
    measured in ``evals/*.judge-agreement.json`` no longer applies."""
    text = "\x00".join((SYSTEM, TEMPLATE, str(MAX_ANSWER_CHARS)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def judge_messages(question: str, references: Sequence[str], answer: str
                   ) -> list[dict[str, str]]:
    """The judge's chat messages for one answer (citations stripped, long answers cut)."""
    text = strip_citations(answer)
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS].rstrip() + " …"
    refs = " | ".join(" ".join(r.split()) for r in references)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": TEMPLATE.format(
                question=" ".join(question.split()), references=refs, answer=text)}]


@dataclass(frozen=True)
class Verdict:
    """One judgement: ``correct`` is None when the judge does not apply (``reason`` says why)
    or failed (``reason`` starts with ``judge failed``); ``p_correct`` is None when no model
    was asked."""

    correct: bool | None
    p_correct: float | None
    reason: str
    model: str
    prompt_hash: str

    @property
    def applicable(self) -> bool:
        return self.correct is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AnswerJudge:
    """Judges answers with a :class:`~citewise.eval.judge_models.JudgeModel` (loaded lazily,
    on the first answer that needs it)."""

    def __init__(self, model: JudgeModel, threshold: float = THRESHOLD) -> None:
        self.model = model
        self.threshold = threshold
        self.prompt_hash = prompt_hash()

    @property
    def model_id(self) -> str:
        return self.model.model_id

    def p_correct(self, question: str, references: Sequence[str], answer: str) -> float:
        return float(self.model.p_yes(judge_messages(question, references, answer)))

    def _verdict(self, correct: bool | None, p: float | None, reason: str) -> Verdict:
        return Verdict(correct, p, reason, self.model_id, self.prompt_hash)

    def judge(self, question: str, references: Sequence[str], answer: str, *,
              declined: bool = False, answerable: bool = True) -> Verdict:
        """See the module docstring for what is judged and what is not applicable."""
        if not answerable:
            return self._verdict(None, None, "unanswerable: abstention is scored instead")
        if not references:
            return self._verdict(None, None, "no reference answer in the eval set")
        if declined:
            return self._verdict(False, None, "declined an answerable question")
        try:
            p = self.p_correct(question, references, answer)
        except (CitewiseError, OSError) as exc:
            return self._verdict(None, None, "judge failed: " + " ".join(str(exc).split())[:160])
        return self._verdict(p >= self.threshold, round(p, 6), "judged")


def judge_run(run: EvalRun, judge: AnswerJudge,
              on_progress: Callable[[int], None] | None = None) -> int:
    """Judge every answered record of ``run`` in place (``record.judge``); returns how many
    asked the model. Failures are kept as verdicts and listed in ``run.warnings``."""
    asked = 0
    for record in run.records:
        if record.answer is None:
            continue
        a, q = record.answer, record.question
        verdict = judge.judge(q.question, q.answers, a.get("answer") or "",
                              declined=bool(a.get("declined")), answerable=record.answerable)
        asked += verdict.p_correct is not None
        record.judge = verdict.to_dict()
        if verdict.reason.startswith("judge failed"):
            run.warnings.append(f"question {record.id}: {verdict.reason} (not scored)")
        if on_progress is not None:
            on_progress(1)
    return asked
