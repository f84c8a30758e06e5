"""What ``cite.policy: strict`` (the default) shows of a generated answer: its supported
sentences; with none left, the source example its code was copied from
(:mod:`citewise.generate.quoted_example`), the source sentences that say what it claimed
(:mod:`citewise.generate.claim_quotes`), the extractive answer, or a decline; conflicting
sources shown both (:mod:`citewise.answer.conflicts`). Every step is a note."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from citewise.answer.citations import build_citations
from citewise.trace import EnforceTrace, RemovedSentence, TraceDraft
from citewise.types import Answer, Generation, Prompt

if TYPE_CHECKING:
    from citewise.answer.context import Context
    from citewise.cite.enforce import Enforced


def declined(question: str, reason: str, notes: tuple[str, ...] = ()) -> Answer:
    """A decline (``ask`` sets its trace)."""
    from citewise.answer.prompt import INSUFFICIENT_EVIDENCE

    return Answer(question, INSUFFICIENT_EVIDENCE, True, reason, outcome="declined",
                  notes=notes)


def supported_answer(question: str, prompt: Prompt, out: Generation, context: Context,
                     draft: TraceDraft, notes: list[str],
                     chosen_extractive: bool = False, whole: Context | None = None) -> Answer:
    """``cite.policy: strict``: keep the supported sentences; with none left, quote the
    sources of the answer's claims, answer extractively (both checked the same way) or
    decline (:func:`~citewise.generate.claim_quotes.replacement`). Every step is a note.
    ``whole``: the whole context when ``context`` is a first read; a quote shows a passage
    the first read cut as ``whole`` holds it (:func:`~citewise.answer.progressive.
    whole_texts`)."""
    from citewise.answer.progressive import whole_texts
    from citewise.cite.enforce import enforce
    from citewise.cite.validate import validate
    from citewise.generate.extractive import ExtractiveGenerator

    passages = list(context.passages)
    extractive_id = ExtractiveGenerator.model_id
    quoted = out.model_id == extractive_id  # quoted sentences are the sources' own words
    kept = enforce(out.text, passages, question=None if quoted else question)
    removed = tuple(RemovedSentence(r.text, r.why, r.status) for r in kept.removed)
    outcome = "extractive" if quoted and not chosen_extractive else "answered"
    if kept.answered and kept.removed:
        outcome = "pruned" if outcome == "answered" else outcome
        notes.append(f"removed {len(kept.removed)} sentence(s) of the answer that its sources "
                     f"do not support ({_whys(kept)}); see --explain")
    claimed = False
    doubt = None if kept.answered or quoted else _reader_doubts(draft)
    if doubt is not None:
        notes.append(f"the answer of {out.model_id} had no sentence supported by its sources "
                     f"({_whys(kept)}), and the reader's {doubt}: no quote of the sources "
                     "stands in for it; declined")
        draft.set(enforce=EnforceTrace("strict", removed, "declined"))
        return declined(question, "unsupported", tuple(notes))
    if not kept.answered and not quoted:
        shown = whole_texts(context.passages, whole)
        passages = list(shown)
        kept, claimed = _replaced(kept, replace(prompt, passages=shown), out.model_id, notes)
        outcome = "extractive"
        draft.set(generation=replace(draft.trace.generation,
                                     model=f"{out.model_id} -> {extractive_id}"))
    draft.set(enforce=EnforceTrace("strict", removed,
                                   outcome if kept.answered else "declined"))
    if not kept.answered:
        notes.append("no source sentence says what the answer claimed; declined" if claimed
                     else "no source sentence answers the question either; declined")
        return declined(question, "unsupported", tuple(notes))
    final = _with_conflict(question, kept.text, passages, notes)
    report = validate(final, passages)
    text, citations = build_citations(final, passages, report)
    return Answer(question, text, False, None, citations, report, outcome=outcome,
                  notes=tuple(notes))


FALLBACK_MARGIN = 0.1
"""How far above its threshold the answerability reader's score must be for a quote of the
sources to stand in for a model answer none of whose sentences held. The model failing to
answer from the passages is itself evidence they do not answer; at stops 44-46, on the ninja
manual's dev set (the set this was chosen on), the quotes that stood in for unanswerable
questions came at P(yes) 0.27 and 0.39, those for answerable ones at 0.38 and over; on the
httpx set (checked after), 0.31-0.33 and one at 0.50, against 0.32 (one question) and 0.40
and over. At +0.1 over the shipped 0.254: ninja dev declines one more unanswerable question
and no answerable one; httpx two more unanswerable and one answerable."""


def _reader_doubts(draft: TraceDraft) -> str | None:
    """Why the reader's verdict is too weak for a quote to stand in for a failed model
    answer (:data:`FALLBACK_MARGIN`), or None (it did not read, or reads with no threshold:
    another model's uncalibrated reader)."""
    gate = draft.trace.gate
    reader = gate.reader if gate is not None else None
    if reader is None or reader.score is None or reader.threshold <= 0:
        return None
    bar = round(reader.threshold + FALLBACK_MARGIN, 6)  # 0.2 + 0.1 is 0.30000000000000004
    if reader.score >= bar:
        return None
    return (f"answerability {reader.score:.3f} is under {bar:.3f} (its threshold + "
            f"{FALLBACK_MARGIN})")


def _replaced(kept: Enforced, prompt: Prompt, model_id: str,
              notes: list[str]) -> tuple[Enforced, bool]:
    """(the checked replacement, from the claims) of an answer none of whose sentences was
    kept: the source example its code was quoted from
    (:mod:`citewise.generate.quoted_example`) when it passes the check, else
    :func:`~citewise.generate.claim_quotes.replacement`. Says which in ``notes``."""
    from citewise.cite.enforce import enforce
    from citewise.generate.claim_quotes import replacement
    from citewise.generate.quoted_example import example_answer

    lead = f"the answer of {model_id} had no sentence supported by its sources ({_whys(kept)})"
    code = [v.segment.text for v in kept.verdicts
            if v.segment.kind == "code" and v.status == "supported"]
    example = example_answer(code, prompt) if code else None
    shown = enforce(example, prompt.passages) if example is not None else None
    if shown is not None and shown.answered:
        notes.append(lead + "; answered extractively instead, showing the source's example "
                     "that its code was quoted from")
        return shown, True
    text, claimed = replacement([(r.text, r.status) for r in kept.removed], prompt)
    checked = enforce(text, prompt.passages)
    if checked.answered:  # else the caller's decline note says why
        lead += "; answered extractively instead" + (
            ", quoting the source sentences that say what it claimed" if claimed else "")
    notes.append(lead)
    return checked, claimed


def _with_conflict(question: str, text: str, passages: list[Any], notes: list[str]) -> str:
    """Conflicting evidence is shown, not resolved: an answer citing one side of a conflict
    gets both sides quoted (:mod:`citewise.answer.conflicts`)."""
    from citewise.answer.conflicts import (
        CONFLICT_LEAD,
        conflict_text,
        find_conflicts,
        unresolved,
    )
    from citewise.cite.parse import citation_ids

    if CONFLICT_LEAD in text:  # the extractive answer shows one already: a review's answer
        return text  # over near-identical sentences said "The sources disagree:" twice
    conflict = unresolved(find_conflicts(question, passages), citation_ids(text))
    if conflict is None:
        return text
    notes.append(f"the sources disagree ({conflict.a.sid} vs {conflict.b.sid}); both are shown")
    return f"{text}\n\n{conflict_text(conflict)}"


def _whys(kept: Any) -> str:
    counts: dict[str, int] = {}
    for r in kept.removed:
        counts[r.why] = counts.get(r.why, 0) + 1
    return ", ".join(f"{n} {why}" for why, n in counts.items()) or "nothing to check"
