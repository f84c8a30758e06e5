"""``run_eval``: run an eval set against an :class:`~citewise.engine.Engine`, question by
question, as each question's principal, and record what came back (:class:`EvalRun`).

Who asks: ``as_persona`` (every question) > the question's ``persona`` > ``principal`` >
the persona named ``default`` in the personas file; with none of these the run is refused.
Relevant pieces in documents the principal may not read are dropped from the question
(all dropped: it is unanswerable for that principal, which is what a persona case without
access expects); a hit from such a document is counted as an ACL leak.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.eval.questions import Question, as_personas, as_questions
from citewise.eval.record import EvalRun, QuestionRecord
from citewise.trace import AnswerTrace
from citewise.types import (
    Answer,
    Citation,
    Document,
    Hit,
    Principal,
    SentenceIssue,
    ValidationReport,
)

SNIPPET_CHARS = 200


@dataclass(frozen=True)
class EvalHit:
    """One hit as ``run.json`` records it: where it is and a hash + snippet of its text (not
    the text itself), so a run can be scored and compared without the index."""

    rank: int
    score: float
    doc_id: str
    chunk_id: str
    anchor: str | None
    heading_path: tuple[str, ...]
    section_id: str | None
    start: int
    end: int
    tokens: int
    title: str
    text_hash: str
    snippet: str

    @classmethod
    def of(cls, hit: Hit) -> EvalHit:
        c, text = hit.chunk, " ".join(hit.chunk.text.split())
        return cls(rank=hit.rank, score=round(float(hit.score), 6), doc_id=c.doc_id,
                   chunk_id=c.chunk_id, anchor=c.anchor, heading_path=tuple(c.heading_path),
                   section_id=c.section_id, start=c.start, end=c.end, tokens=c.token_count,
                   title=hit.document.title,
                   text_hash=hashlib.sha256(text.encode()).hexdigest()[:16],
                   snippet=text[:SNIPPET_CHARS])

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "score": self.score, "doc_id": self.doc_id,
                "chunk_id": self.chunk_id, "anchor": self.anchor,
                "heading_path": list(self.heading_path), "section_id": self.section_id,
                "start": self.start, "end": self.end, "tokens": self.tokens,
                "title": self.title, "text_hash": self.text_hash, "snippet": self.snippet}


@dataclass(frozen=True)
class EvalAnswer:
    """One answer as ``run.json`` records it (what :mod:`citewise.eval.scoring` reads)."""

    answer: str
    declined: bool
    reason: str | None
    citations: tuple[Citation, ...]
    validation: ValidationReport
    trace: AnswerTrace
    outcome: str = "answered"
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, answer: Answer) -> EvalAnswer:
        return cls(answer=answer.answer, declined=answer.declined, reason=answer.reason,
                   citations=tuple(answer.citations), validation=answer.validation,
                   trace=answer.trace, outcome=answer.outcome, notes=tuple(answer.notes))

    def to_dict(self) -> dict[str, Any]:
        v = self.validation
        return {"answer": self.answer, "declined": self.declined, "reason": self.reason,
                "outcome": self.outcome, "notes": list(self.notes),
                "citations": [{"id": c.id, "doc_id": c.doc_id, "anchor": c.anchor,
                               "chunk_id": c.chunk_id} for c in self.citations],
                "cited": list(v.cited), "fabricated": list(v.fabricated),
                "unsupported": [_issue(i) for i in v.unsupported],
                "uncited": [_issue(i) for i in v.uncited],
                "trace": self.trace.to_dict()}


def _issue(issue: SentenceIssue) -> dict[str, Any]:
    return {"sentence": issue.sentence, "ids": list(issue.ids), "score": issue.score}


def hit_record(hit: Hit) -> dict[str, Any]:
    return EvalHit.of(hit).to_dict()


def answer_record(answer: Answer) -> dict[str, Any]:
    return EvalAnswer.of(answer).to_dict()


class Askers:
    """Who asks each question: ``as_persona`` (all questions) > the question's persona >
    ``principal`` > the ``default`` persona; unknown names are a :class:`ConfigError`."""

    def __init__(self, personas: Mapping[str, Principal], as_persona: str | None,
                 principal: Principal | None) -> None:
        if as_persona is not None and as_persona not in personas:
            raise ConfigError(f"--as {as_persona}: no such persona (have: "
                              f"{', '.join(sorted(personas)) or 'none'}). "
                              "Fix: add it to the personas file or pass --personas")
        self.personas, self.as_persona = personas, as_persona
        self.fallback = principal or personas.get("default")

    def __call__(self, q: Question) -> tuple[str | None, Principal]:
        name = self.as_persona or q.persona
        if name is not None:
            if name not in self.personas:
                raise ConfigError(f"question {q.id}: persona {name!r} is not in the personas "
                                  "file. Fix: add it to --personas, or run all with --as NAME")
            return name, self.personas[name]
        if self.fallback is None:
            raise ConfigError(f"question {q.id} has no persona and there is no default. "
                              "Fix: add a \"default\" persona to --personas, or pass --as NAME")
        return self.fallback.name, self.fallback


def restrict_to_readable(engine: Any, q: Question, principal: Principal,
              cache: dict[str, Document | None], warnings: list[str]) -> tuple[Question, int]:
    """Drop the pieces ``principal`` cannot read; a piece is kept if any place is readable."""
    kept = []
    for piece in q.relevant:
        for place in piece.places:
            if place.doc not in cache:
                cache[place.doc] = engine.store.get_document(place.doc)
                if cache[place.doc] is None:
                    warnings.append(f"question {q.id}: relevant doc {place.doc!r} is not in "
                                    "the index (scored as a miss); fix the label or ingest it")
        if any(cache[p.doc] is None or principal.may_read(cache[p.doc]) for p in piece.places):
            kept.append(piece)
    return replace(q, relevant=tuple(kept)), len(q.relevant) - len(kept)


def _ask(engine: Any, q: Question, principal: Principal) -> tuple[dict[str, Any], float]:
    t0 = time.perf_counter()
    answer = engine.ask(q.question, principal)
    return answer_record(answer), round((time.perf_counter() - t0) * 1000.0, 3)


def run_eval(engine: Any, questions: str | Path | Sequence[Question],
             personas: str | Path | Mapping[str, Principal] | None = None,
             as_persona: str | None = None, k: int = 10, answers: bool = False,
             principal: Principal | None = None, name: str = "run",
             on_progress: Callable[[int], None] | None = None) -> EvalRun:
    """Search (and with ``answers`` ask) every question; see the module docstring for who
    asks. ``engine`` is an :class:`~citewise.engine.Engine` (``search``, ``store``, and
    ``ask`` for answers). Latency is per search, model loading excluded. ``on_progress``
    hears 1 after each question."""
    if k < 1:
        raise ConfigError(f"k={k}: must be at least 1. Fix: pass -k 10")
    if answers and not callable(getattr(engine, "ask", None)):
        raise ConfigError("--answers needs Engine.ask, which this citewise does not have yet. "
                          "Fix: run without --answers (retrieval metrics only)")
    qs = as_questions(questions)
    who = Askers(as_personas(personas), as_persona, principal)
    mode = engine.settings.retrieve.mode
    if mode != "bm25":
        engine.query_embedder()  # model loaded and checked outside the timings
    run = EvalRun(records=[], k=k, name=name,
                  created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                  settings=_settings_shown(engine.settings))
    docs: dict[str, Document | None] = {}
    for q in qs:
        run.warnings.extend(q.warnings)
        persona, asker = who(q)
        scored_q, hidden = restrict_to_readable(engine, q, asker, docs, run.warnings)
        t0 = time.perf_counter()
        result = engine.search(q.question, asker, top_k=k)
        latency = round((time.perf_counter() - t0) * 1000.0, 3)
        leaks = sum(1 for h in result.hits if not asker.may_read(h.document))
        record = QuestionRecord(question=scored_q, persona=persona,
                                hits=[hit_record(h) for h in result.hits], latency_ms=latency,
                                hidden=hidden, leaks=leaks)
        if answers:
            record.answer, record.answer_latency_ms = _ask(engine, q, asker)
        run.records.append(record)
        if on_progress is not None:
            on_progress(1)
    return run


def _settings_shown(settings: Any) -> dict[str, Any]:
    """``settings`` as run.json keeps them: never a secret (the endpoint's key, and the user
    part of its URL: a security review's ``http://svc:pw@host/v1`` was written whole, and so
    was a token given as the user alone, ``http://sk-TOKEN@host/v1``)."""
    shown = settings.model_dump(mode="json", exclude={"generate": {"openai": {"api_key"}}})
    openai = shown.get("generate", {}).get("openai", {})
    if openai.get("base_url"):  # the query's secrets (?api-key=) and the password first
        from citewise.index.location import redact

        openai["base_url"] = _USER_PART.sub(r"\1***@", redact(str(openai["base_url"])),
                                            count=1)
    return shown


_USER_PART = re.compile(r"^([a-zA-Z][\w+.-]*://)[^/?#]*@")
"""A URL's user part, up to the last ``@`` before the path (a password may hold one)."""

