"""``/v1/search``, ``/v1/ask`` (JSON or SSE), ``/v1/feedback``, ``/v1/traces/{id}``,
``/v1/log`` and the admin drift series: parse, call the Engine, log, answer."""

from __future__ import annotations

import json
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from citewise.answer.citations import NumberedStream
from citewise.errors import CitewiseError, NotFoundError
from citewise.reqlog.monitor import CUT, parse_window, rates, series
from citewise.reqlog.record import (
    LogRecord,
    ask_record,
    new_request_id,
    redact_query,
    search_record,
)
from citewise.reqlog.store import missing
from citewise.serve.keys import ApiPrincipal
from citewise.serve.problems import ApiError, split_fix, status_of
from citewise.serve.scrub import (
    for_asker,
    pseudonymous_chunks,
    store_error_text,
    without_scores,
)
from citewise.serve.state import ServerState, require_key, state_of
from citewise.types import Answer

router = APIRouter(dependencies=[Depends(require_key)])


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, description="What to search for.")
    top_k: int | None = Field(None, ge=1, le=100, description="Hits (default retrieve.top_k).")
    mode: Literal["bm25", "dense", "hybrid"] | None = None


class TurnBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=2000)
    answer: str = Field("", max_length=8000)


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)
    history: list[TurnBody] = Field(
        default_factory=list, max_length=20,
        description="Earlier turns: the question is rewritten into a standalone query first "
                    "(shown in trace.conversation).")
    stream: bool = Field(False, description="Server-sent events: tokens, then the answer.")
    dry_run: bool = Field(False, description="Stop after the grounding gate.")

    def turns(self) -> list[dict]:
        return [t.model_dump() for t in self.history]

    def said(self) -> tuple[str, ...]:
        """The asker's earlier questions: words a rewritten follow-up's log may keep."""
        return tuple(t.question for t in self.history)


class FeedbackBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    request_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="The request_id an ask or "
                            "search answered with (32 hex digits).")
    rating: Literal["up", "down"]
    comment: str | None = Field(None, max_length=2000)


def _guard(st: ServerState, request: Request, text: str) -> ApiPrincipal:
    who = _reader(st, request)
    limit = st.engine.settings.serve.max_query_chars
    if len(text) > limit:
        raise ApiError(413, f"query of {len(text)} characters; at most {limit}.",
                       "shorten it, or raise serve.max_query_chars in the --config file")
    return who


MAX_LOG_PAGE = 200
"""Most records one ``GET /v1/log`` returns (a larger ``limit`` gets this many; ``before``
pages back): a security review's reader key asked for 1,000 of its own asks (3.2 MB, 0.7 s
each) from 50 threads, and another key's search took 20 s."""


def _reader(st: ServerState, request: Request) -> ApiPrincipal:
    """The key's principal, charged one token of its rate limit: search and ask
    (:func:`_guard`), reading the request log (records, traces, drift) and rating a request
    all cost the server work."""
    who = st.authenticate(request)
    st.buckets.take(who.name)
    return who


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


@router.post("/v1/search", tags=["query"])
def search(body: SearchBody, request: Request) -> JSONResponse:
    """Hits the key's principal may read (tenant + groups filter inside the search)."""
    st = state_of(request)
    who = _guard(st, request, body.query)
    t = time.perf_counter()
    principal, engine = who.principal, st.engine
    marker = st.marker()
    key = None if marker is None else st.cache.key(
        "search", marker, principal, body.query, engine.settings, body.top_k, body.mode)
    result = st.cache.get(key) if key else None
    cached = result is not None
    if result is None:
        result = engine.search(body.query, principal, mode=body.mode, top_k=body.top_k)
        if key:
            st.cache.put(key, result)
    st.metrics.cache.labels("search", "hit" if cached else "miss").inc()
    rid = new_request_id()
    st.record(search_record(rid, principal, body.query, engine.settings.log.query, result,
                            engine.index_info(), cached=cached, latency_ms=_ms(t)))
    # JSONResponse directly: FastAPI's jsonable_encoder walk costs more than the cache hit
    return JSONResponse({"request_id": rid, "cached": cached, **result.to_dict()})


@router.post("/v1/ask", tags=["query"])
def ask(body: AskBody, request: Request):  # noqa: ANN201 (JSON or an event stream)
    """A grounded answer with checked citations, or a decline with its reason. With
    ``stream`` (or ``Accept: text/event-stream``): ``token`` events, then one ``answer``."""
    st = state_of(request)
    who = _guard(st, request, body.question)
    principal, engine = who.principal, st.engine
    marker = None if body.dry_run else st.marker()
    # keyed by the exact question too: an answer quotes it, so a principal with the same
    # permissions must never be served another's wording
    key = None if marker is None else st.cache.key(
        "ask", marker, principal, body.question, engine.settings,
        json.dumps(body.turns(), sort_keys=True), body.question)
    cached = st.cache.get(key) if key else None
    st.metrics.cache.labels("ask", "hit" if cached else "miss").inc()
    rid = new_request_id()
    streaming = body.stream or "text/event-stream" in request.headers.get("accept", "")
    release = _ask_slot(st, who)
    if streaming:  # the slot is held until the stream ends or its client goes away
        gone = threading.Event()
        response = _EventStream(_events(st, who, body, key, cached, rid, gone), gone, release,
                                rid)
        weakref.finalize(response, release)  # a response never sent gives it back too
        return response
    t = time.perf_counter()
    try:
        answer = cached or engine.converse(body.question, principal, body.turns(),
                                           dry_run=body.dry_run)
    finally:
        release()
    if key and cached is None:
        st.cache.put(key, answer)
    _log_ask(st, who, rid, body, answer, cached is not None, t)
    return JSONResponse({"request_id": rid, "cached": cached is not None,
                         **for_asker(answer.to_dict(), who)})


def _ask_slot(st: ServerState, who: ApiPrincipal) -> Callable[[], None]:
    """Hold one of the tenant's ask slots (when the keys name two tenants or more: a server
    of one tenant keeps all of ``serve.asks_total``, the review of this stop) and one of the
    key's; returns their release."""
    if len({entry.tenant for entry in st.keys.entries}) < 2:
        return st.asks.take(who.name)
    tenant = st.tenant_asks.take(who.principal.tenant)
    try:
        key = st.asks.take(who.name)
    except ApiError:
        tenant()
        raise

    def release() -> None:
        key()
        tenant()
    return release


def _log_ask(st: ServerState, who: ApiPrincipal, rid: str, body: AskBody, answer: Answer,
             cached: bool, started: float) -> None:
    st.record(ask_record(rid, who.principal, body.question, st.engine.settings.log.query,
                         answer, cached=cached, latency_ms=_ms(started),
                         said=body.said()))


def _log_left(st: ServerState, who: ApiPrincipal, rid: str, body: AskBody,
              answer: Answer | None, cached: bool, started: float) -> None:
    """The record of a streamed ask whose client left before its last event: the answer when
    it was written (its text had gone out in ``token`` events), else the ask cut short
    (``reason: client_gone``, no validation). A reliability review's clients that closed the
    stream after the text left no record: 46 of 359 answered asks, so closing the connection
    early kept an ask out of the audit log and the drift rates."""
    if answer is not None:
        _log_ask(st, who, rid, body, answer, cached, started)
        return
    cut = Answer(body.question, "", False, CUT, outcome="abandoned")
    record = ask_record(rid, who.principal, body.question, st.engine.settings.log.query,
                        cut, latency_ms=_ms(started),
                        said=body.said())
    st.record(replace(record, validation=None))


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class _EventStream(StreamingResponse):
    """An answer's event stream that, however it ends (read to the end, or its client gone
    mid-answer), stops the generation at its next token and gives back the ask's slot."""

    def __init__(self, events: Iterator[str], gone: threading.Event,
                 release: Callable[[], None], rid: str) -> None:
        super().__init__(events, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Request-Id": rid})
        self.gone, self.release = gone, release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.gone.set()
            self.release()


def _events(st: ServerState, who: ApiPrincipal, body: AskBody, key: tuple | None,
            cached: Answer | None, rid: str, gone: threading.Event) -> Iterator[str]:
    t = time.perf_counter()
    answer, logged = cached, False
    try:
        yield _sse("start", {"request_id": rid, "cached": cached is not None})
        if cached is not None:
            yield _sse("token", {"text": cached.answer})
        else:
            numbered = NumberedStream()  # [S1] as the answer's [1] (a new user saw both)
            for event in st.engine.ask_stream(body.question, who.principal, body.turns(),
                                              gone=gone, dry_run=body.dry_run):
                if event.kind == "token" and (text := numbered.feed(event.text)):
                    yield _sse("token", {"text": text})
                elif event.kind == "held":  # an SSE comment: clients ignore it, and writing
                    yield ": held\n\n"  # it lets the server notice a client that left
                elif event.kind != "token":
                    answer = event.answer
            if rest := numbered.close():
                yield _sse("token", {"text": rest})
            if key and answer is not None:
                st.cache.put(key, answer)
        assert answer is not None
        _log_ask(st, who, rid, body, answer, cached is not None, t)
        logged = True
        yield _sse("answer", {"request_id": rid, "cached": cached is not None,
                              **for_asker(answer.to_dict(), who)})
    except GeneratorExit:  # the client left: the ask that ran is still logged, off the
        if not logged:  # event loop's thread (the stream is closed there when collected)
            threading.Thread(target=_log_left, name="citewise-log-left", daemon=True,
                             args=(st, who, rid, body, answer, cached is not None, t)).start()
        raise
    except CitewiseError as exc:
        detail, fix = split_fix(store_error_text(exc, str(exc), st.engine.db))
        yield _sse("error", for_asker({"type": "about:blank", "status": status_of(exc),
                                       "detail": detail, "fix": fix}, who))


def _own_record(st: ServerState, who: ApiPrincipal, request_id: str,  # noqa: ANN202
                admin_reads: bool = True):
    """The log record of ``request_id`` when ``who`` made the request, or (``admin_reads``)
    is an admin of its tenant; else the same 404 as for a request that does not exist."""
    if st.log is None:
        raise NotFoundError("this server keeps no request log. Fix: set log.enabled "
                            "and serve a file or PostgreSQL index (--db)")
    record = st.log.get(request_id)
    if not (_mine(record, who) or (admin_reads and who.can("admin")
                                   and record.tenant == who.tenant)):
        raise missing(request_id)  # the same answer as for a request that does not exist
    return record


def _mine(record: LogRecord, who: ApiPrincipal) -> bool:
    return record.principal == who.name and record.tenant == who.tenant and \
        record.at >= (who.since() or 0.0)


def _as_seen(st: ServerState, record: LogRecord, who: ApiPrincipal) -> dict:
    """A log record as ``who`` may read it: server text scrubbed below operator; in someone
    else's record, chunk ids pseudonymous (:func:`pseudonymous_chunks`) and the scores a
    passage's text decides withheld (:func:`without_scores`)."""
    data = for_asker(record.to_dict(), who)
    if _mine(record, who) or who.can("operator"):
        return data
    return without_scores(pseudonymous_chunks(data, st.pseudonym_key))


@router.post("/v1/feedback", tags=["query"])
def feedback(body: FeedbackBody, request: Request) -> dict:
    """Thumbs up/down on one of your requests (kept in the log; `citewise feedback export`
    turns thumbs-down into eval-set candidates). Only the asker rates a request: an admin
    may read it, but a rating set by someone else would feed the eval set and the drift
    rates words its asker never said."""
    st = state_of(request)
    who = _reader(st, request)
    _own_record(st, who, body.request_id, admin_reads=False)
    rating = 1 if body.rating == "up" else -1
    comment = body.comment and redact_query(body.comment, st.engine.settings.log.query)[0]
    st.log.set_feedback(body.request_id, rating, comment)  # free text: masked like queries
    return {"request_id": body.request_id, "feedback": rating}


@router.get("/v1/traces/{request_id}", tags=["query"])
def trace(request_id: str, request: Request) -> dict:
    """The log record of a request, with the answer trace (ids, scores, gate signals,
    stage latencies; never passage text): readable by the asker or an admin."""
    st = state_of(request)
    who = _reader(st, request)
    return _as_seen(st, _own_record(st, who, request_id), who)


@router.get("/v1/log", tags=["query"])
def log(request: Request, limit: int = Query(100, ge=1),
        before: float | None = Query(None, description="Only records older than this time "
                                     "(the `next_before` of the page before).")) -> dict:
    """Recent requests: your own, or (admin) everyone's in your tenant; at most
    ``MAX_LOG_PAGE`` (200) a page, newest last, ``next_before`` pages back."""
    st = state_of(request)
    who = _reader(st, request)
    if st.log is None:
        return {"records": [], "next_before": None}
    admin = who.can("admin")
    records = st.log.records(tenant=who.tenant, limit=min(limit, MAX_LOG_PAGE),
                             since=None if admin else who.since(), until=before,
                             principal=None if admin else who.name)
    return {"records": [_as_seen(st, r, who) for r in records],
            "next_before": records[0].at if records else None}


@router.get("/v1/admin/drift", tags=["admin"])
def drift(request: Request, window: str = "7d", bucket: str = "1d") -> dict:
    """Drift rates per time bucket over the window (admin): the admin page's chart."""
    st = state_of(request)
    who = _reader(st, request)
    st.require(who, "admin")
    span, step = parse_window(window), parse_window(bucket)
    end = time.time()
    release = st.drifts.take(who.tenant)  # a review's ten at once held the log for 25 s
    try:
        records = st.log.records(since=end - span, tenant=who.tenant, light=True) \
            if st.log else []
        return {"window": window, "bucket": bucket, "total": rates(records).to_dict(),
                "series": series(records, end - span, end, step)}
    finally:
        release()


@router.get("/v1/me", tags=["query"])
def me(request: Request) -> dict:
    """The principal of your key (name, tenant, groups, role)."""
    return state_of(request).authenticate(request).to_dict()
