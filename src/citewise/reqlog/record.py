"""``LogRecord``: what one search/ask leaves in the request log, and how it is built from a
:class:`~citewise.types.SearchResult` or an :class:`~citewise.types.Answer`.

Only ids, scores, versions, timings and counts are kept: no passage text, ever. The query is
stored as asked, redacted (emails, phone numbers, key-like strings masked) or only hashed
(``log.query``).
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from citewise.text import mask_personal, without_bodies
from citewise.trace import IndexInfo, ModelsTrace
from citewise.types import Answer, Principal, SearchResult


def redact_query(query: str, mode: str) -> tuple[str | None, str]:
    """``(query as logged, sha256 of it)`` for ``mode`` store | redact | hash. Under
    ``redact`` the hash is of the redacted query: an audit recovered a masked email by
    hashing guesses against the hash of the query as asked (the mask shows where it was)."""
    if mode == "hash":
        return None, hashlib.sha256(query.encode()).hexdigest()
    if mode == "redact":
        query = mask_personal(query)
    return query, hashlib.sha256(query.encode()).hexdigest()


def new_request_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class LogRecord:
    request_id: str
    at: float  # unix seconds
    principal: str
    tenant: str
    kind: str  # "search" | "ask"
    query: str | None
    query_hash: str
    retrieved: tuple[tuple[str, str, float], ...] = ()  # (chunk_id, doc_id, score)
    index_version: int | None = None
    versions: Mapping[str, Any] = field(default_factory=dict)
    latencies_ms: Mapping[str, float] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    cited: tuple[str, ...] = ()  # doc_id of each citation, in order
    validation: str | None = None  # ok | fabricated | unsupported | uncited (asks only)
    declined: bool = False
    reason: str | None = None
    gate_passed: bool | None = None
    rerank_status: str | None = None
    cached: bool = False
    feedback: int | None = None  # +1 / -1
    feedback_note: str | None = None
    trace: Mapping[str, Any] = field(default_factory=dict)  # ids and scores only

    @property
    def empty(self) -> bool:
        return not self.retrieved

    @property
    def iso_time(self) -> str:
        return datetime.fromtimestamp(self.at, UTC).isoformat(timespec="milliseconds")

    def with_feedback(self, rating: int, note: str | None) -> LogRecord:
        return replace(self, feedback=rating, feedback_note=note)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["time"] = self.iso_time
        out["retrieved"] = [{"chunk_id": c, "doc_id": d, "score": s}
                            for c, d, s in self.retrieved]
        out["cited"] = list(self.cited)
        out["empty"] = self.empty
        return out


def _versions(index: IndexInfo | None, models: ModelsTrace | None = None) -> dict[str, Any]:
    from citewise.answer.prompt import SYSTEM_PROMPT

    return {"embedder": (index.embedder if index else None) or (
                models.embedder if models else None),
            "chunker": index.chunker if index else None,
            "prompt": hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()[:12],
            "generator": models.generator if models else None,
            "reranker": models.reranker if models else None}


def search_record(request_id: str, principal: Principal, query: str, mode: str,
                  result: SearchResult, index_info: IndexInfo, *,
                  cached: bool = False, latency_ms: float = 0.0) -> LogRecord:
    logged, digest = redact_query(query, mode)
    return LogRecord(
        request_id, time.time(), principal.name or "", principal.tenant, "search", logged,
        digest, tuple((h.chunk.chunk_id, h.document.doc_id, round(h.score, 6))
                      for h in result.hits),
        index_info.version, _versions(index_info),
        {**dict(result.timings_ms), "total": round(latency_ms, 3)}, cached=cached,
        trace={"mode": result.mode, "candidates": dict(result.candidates)})


def _validation(answer: Answer) -> str | None:
    if answer.declined and not answer.validation.cited:
        return None
    v = answer.validation
    for name in ("fabricated", "unsupported", "uncited"):
        if getattr(v, name):
            return name
    return "ok"


def ask_record(request_id: str, principal: Principal, question: str, mode: str,
               answer: Answer, *, cached: bool = False, latency_ms: float = 0.0,
               said: Sequence[str] = ()) -> LogRecord:
    """The log record of an ask; ``said``: the earlier questions of its conversation (the
    words a rewritten follow-up may keep, :func:`loggable_trace`)."""
    logged, digest = redact_query(question, mode)
    t = answer.trace
    timings = t.timings_ms.to_dict() if t.timings_ms else {}
    timings["request"] = round(latency_ms, 3)
    hits, gen = t.retrieval.hits if t.retrieval else (), t.generation
    return LogRecord(
        request_id, time.time(), principal.name or "", principal.tenant, "ask", logged,
        digest, tuple((h.chunk_id, h.doc_id, h.score) for h in hits),
        t.index.version if t.index else None, _versions(t.index, t.models), timings,
        gen.tokens_in if gen else 0, gen.tokens_out if gen else 0,
        tuple(c.doc_id for c in answer.citations), _validation(answer), answer.declined,
        answer.reason, t.gate.passed if t.gate else None,
        t.rerank.status if t.rerank else None, cached,
        trace=loggable_trace(t.to_dict(), mode, logged, (question, *said)))


def loggable_trace(trace: Mapping[str, Any], mode: str, logged: str | None,
                   said: Sequence[str] = ()) -> dict[str, Any]:
    """The answer trace as the log keeps it. The log outlives the request and tenant admins
    read every record, so: sentences validation removed from the model's output keep their
    verdict, not their text (they may quote passages the admin may not read); a rewritten
    follow-up keeps only words its asker said (``said``: the question and the conversation's
    earlier questions), since the model rewrote it from the earlier answers too, and notes
    no upstream error body (an endpoint may echo the prompt, earlier answers included); the
    question's words in the trace (the rewritten follow-up, the gate's missing terms) are kept
    only as ``log.query`` keeps the query itself (``logged``: the query as logged), and a
    missing term only when the asker said it (a review's ``store`` mode kept the rewrite's
    ``canaryhr7731``, a word of a passage hidden from the admin reading the log)."""
    out = dict(trace)
    if isinstance(out.get("enforce"), Mapping):
        removed = out["enforce"].get("removed") or []
        out["enforce"] = {**out["enforce"], "removed": [
            {"why": r.get("why"), "status": r.get("status")} for r in removed]}
    if "generation" in out:
        out["generation"] = _noted(out["generation"])
    if isinstance(out.get("escalated"), Mapping):  # the first read's generation too
        out["escalated"] = {**out["escalated"], "first_generation": _noted(
            out["escalated"].get("first_generation"))}
    conversation = out.get("conversation")
    if isinstance(conversation, Mapping):
        conversation = {**conversation, "note": without_bodies(str(conversation.get("note")
                                                                   or ""))}
        if conversation.get("query"):
            conversation["query"] = own_words(str(conversation["query"]), said)
        conversation.update({k: redact_query(str(conversation[k]), mode)[0]
                             for k in ("original", "query") if k in conversation})
        out["conversation"] = conversation
    if isinstance(out.get("gate"), Mapping) and out["gate"].get("missing"):
        conv = conversation or {}
        kept = " ".join(t for t in (logged, conv.get("original"), conv.get("query")) if t)
        kept = kept.casefold()
        out["gate"] = {**out["gate"], "missing": [
            t for t in out["gate"]["missing"] if mode != "hash" and str(t).casefold() in kept]}
    return out


def _noted(generation: Any) -> Any:
    """A generation's trace with its notes free of upstream error bodies."""
    if not isinstance(generation, Mapping) or not generation.get("notes"):
        return generation
    return {**generation, "notes": [without_bodies(str(n)) for n in generation["notes"]]}


_WORD = re.compile(r"\w+")


def own_words(text: str, said: Sequence[str]) -> str:
    """``text`` with every word that no text of ``said`` holds (in any case) replaced by
    ``…``, a run of them by one: a security review's tenant admin, not in the document's
    groups, read a salary band in the log's rewritten follow-up ("who approved it?" became
    "…the senior engineer salary band is CANARYHR7731 dollars…", from the earlier answer)."""
    words = {w.casefold() for t in said for w in _WORD.findall(t)}
    masked = _WORD.sub(lambda m: m.group() if m.group().casefold() in words else "\0", text)
    return re.sub(r"\0(?:\W*\0)*", "…", masked)
