"""What one server process holds: ONE Engine (its writes serialised: SQLite has one writer),
the keys, the request log, metrics, caches and rate limits."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

from fastapi import Request

from citewise.engine import Engine
from citewise.errors import ConfigError, StoreError
from citewise.reqlog import RequestLog, open_log
from citewise.reqlog.record import LogRecord
from citewise.serve.cache import PermissionCache, store_generation
from citewise.serve.keys import ApiPrincipal, KeyFile
from citewise.serve.limits import KeySlots, TokenBuckets, route_path
from citewise.serve.metrics import Metrics
from citewise.serve.problems import ApiError, problem

T = TypeVar("T")
KEY_FIX = ("create a key with `citewise keys add NAME --keys keys.json --groups GROUPS` and "
           "send it as `Authorization: Bearer KEY`")


class ServerState:
    def __init__(self, engine: Engine, keys: KeyFile, log: RequestLog | None = None) -> None:
        self.engine, self.keys = engine, keys
        serve = engine.settings.serve
        if log is None and engine.settings.log.enabled:
            try:
                log = open_log(engine.db, engine.settings.log.retention_days)
            except ConfigError:
                log = None  # an in-memory index keeps no log
        self.log = log
        self.metrics = Metrics()
        self.cache = PermissionCache(serve.cache_entries)
        self.buckets = TokenBuckets(serve.rate_per_minute, serve.burst)
        self.asks = KeySlots(serve.asks_per_key, total=serve.asks_total)
        self.tenant_asks = KeySlots(serve.asks_per_tenant, holder="tenant",
                                    fix="retry in a few seconds, or raise "
                                        "serve.asks_per_tenant in the --config file of "
                                        "`citewise serve`")
        self.uploads = KeySlots(1, "upload(s)", "wait for its response before uploading "
                                                "again (uploads are parsed one at a time)")
        self.drifts = KeySlots(1, "drift request(s)", "wait for its response: a tenant's "
                               "drift rates are computed one at a time", total=2,
                               holder="tenant", total_fix="retry in a few seconds")
        self.write_lock = threading.Lock()
        self.upload_lock = threading.Lock()  # uploads parse and embed one at a time, unlocked
        self.rebuild_lock = threading.Lock()
        self.writes = 0
        self.started = time.time()
        self.pseudonym_key = secrets.token_bytes(32)  # chunk ids in others' log records

    # -- who is asking ---------------------------------------------------------------------

    def authenticate(self, request: Request) -> ApiPrincipal:
        who = getattr(request.state, "who", None)
        if who is None:
            who = request.state.who = self._authenticate(request)
        return who

    def _authenticate(self, request: Request) -> ApiPrincipal:
        key = presented_key(request)
        if not key:
            raise ApiError(401, "no API key.", KEY_FIX, {"WWW-Authenticate": "Bearer"})
        who = self._lookup(key)
        if who is None:
            raise ApiError(401, "unknown API key.", KEY_FIX, {"WWW-Authenticate": "Bearer"})
        return who

    def _lookup(self, key: str, after: str = "") -> ApiPrincipal | None:
        """The principal ``key`` names, or None; a 503 while the keys file does not parse
        (``after``: what the refusal adds to its sentence)."""
        who = self.keys.lookup(key)
        if who is None and self.keys.problem is not None:
            raise ApiError(503, "the server's keys file does not parse, so no key is "
                           f"accepted{after}.", "retry shortly; an operator sees why with "
                           "`citewise keys list --keys FILE` and fixes the file",
                           {"Retry-After": "10"})
        return who

    def still_holds(self, request: Request, who: ApiPrincipal,
                    outcome: str = "nothing was written") -> None:
        """Refuse (401) a write of ``who``'s when its key no longer names the same principal:
        removed, or given another role, tenant or groups since the request was admitted (a
        security review revoked a key 10 s into a long upload, which was written minutes
        later under the revoked name). ``outcome``: what the refusal did."""
        now = self._lookup(presented_key(request), f"; {outcome}")
        if now is None or (now.name, now.tenant, now.groups, now.role) != \
                (who.name, who.tenant, who.groups, who.role):
            raise ApiError(401, f"the key of {who.name} was removed or changed while its "
                           f"request ran; {outcome}.",
                           "send it again with a key that may (`citewise keys list`)",
                           {"WWW-Authenticate": "Bearer"})

    def admit_upload(self, who: ApiPrincipal) -> Callable[[], None]:
        """Admit ``who``'s upload before its body is read: the editor role (403), a rate-limit
        token and the key's one upload slot (429); returns the slot's release."""
        self.require(who, "editor")
        self.buckets.take(who.name)  # a bad upload spends a token too
        return self.uploads.take(who.name)  # one upload per key, its body included

    @staticmethod
    def require(who: ApiPrincipal, role: str) -> None:
        if not who.can(role):
            raise ApiError(403, f"{who.name} is a {who.role}; this needs the {role} role.",
                           f"use a key made with `citewise keys add NAME --role {role}`")

    # -- the index -------------------------------------------------------------------------

    def marker(self) -> Hashable | None:
        """What identifies the index state for the caches (None: do not cache)."""
        generation = store_generation(self.engine.store)
        if generation is None:
            return None
        return (generation, self.writes)

    def write(self, fn: Callable[[], T], request: Request, who: ApiPrincipal) -> T:
        """Run ``who``'s write under the server's one-writer lock and the index's write gate,
        once :meth:`still_holds` says the key still names ``who`` (a review held the gate
        15 s, revoked an editor's key meanwhile, and the waiting delete, ACL change and
        upload then landed); then invalidate the caches."""
        with self.write_lock:
            try:
                with self._index_gate():
                    self.still_holds(request, who)
                    return fn()
            finally:
                self._invalidate()

    def _index_gate(self) -> AbstractContextManager[Any]:
        """The index's write gate (reentrant: the write takes it again inside)."""
        catalog = getattr(self.engine.store, "catalog", None)
        return catalog.gate() if catalog is not None else nullcontext()

    def rebuild(self, fn: Callable[[], T]) -> T:
        """Run a reindex: one at a time (a second is refused with 409), and NOT under the
        one-writer lock, so deletes and ACL changes take effect at once while it builds (the
        index's write gate and change log carry them into the new version); then invalidate
        the caches."""
        if not self.rebuild_lock.acquire(blocking=False):
            raise ApiError(409, "a reindex is already running.",
                           "wait for it to finish; `GET /v1/versions` lists the version it "
                           "builds (state shadow) until it is promoted or refused")
        try:
            return fn()
        finally:
            self.rebuild_lock.release()
            self._invalidate()

    def _invalidate(self) -> None:
        """After a write: cached answers no longer hold (the marker moves on)."""
        self.writes += 1
        self.cache.clear()

    def record(self, record: LogRecord) -> None:
        """Count the request and log it. A log that cannot be written (e.g. the database is
        locked past its busy timeout) does not fail the request: it is counted in
        ``citewise_log_write_failures_total`` and reported in the server log."""
        self.metrics.observe(record)
        if self.log is not None:
            try:
                self.log.write(record)
            except StoreError as exc:
                self.metrics.log_failures.inc()
                logging.getLogger("citewise.serve").error("request %s not logged: %s",
                                                          record.request_id, exc)

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
        self.engine.close()


def state_of(request: Request) -> ServerState:
    return request.app.state.citewise


def presented_key(request: Request) -> str:
    """The API key ``request`` presents (``Authorization: Bearer KEY`` or ``X-API-Key``)."""
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else \
        request.headers.get("x-api-key", "").strip()


def require_key(request: Request) -> None:
    """Router dependency: every /v1 route authenticates (:class:`KeyFirst` did already)."""
    state_of(request).authenticate(request)


UPLOAD_PATH = "/v1/documents"  # POST: an upload, admitted before its body (KeyFirst)
ADMITTED = "citewise_upload_admitted"  # set in the request's state once KeyFirst admitted it


class KeyFirst:
    """ASGI middleware: a ``/v1`` request without a valid key is answered 401 before its body
    is read. A route's dependencies run after FastAPI has read and parsed the body, so a
    client with no key could make the server read and parse 25 MB of JSON before hearing
    401. CORS preflights (``OPTIONS``) pass on to the CORS middleware. An upload is admitted
    here too (:meth:`ServerState.admit_upload`): a security review's reader key sent ten
    24 MB bodies at once, each read into a temporary file before its 403."""

    def __init__(self, app: Any, state: ServerState) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        release: Callable[[], None] | None = None
        path = route_path(scope)
        if scope["type"] == "http" and path.startswith("/v1/") \
                and scope.get("method") != "OPTIONS":
            try:
                who = self.state.authenticate(Request(scope))  # kept in scope["state"]
                if scope.get("method") == "POST" and path == UPLOAD_PATH:
                    release = self.state.admit_upload(who)
                    scope.setdefault("state", {})[ADMITTED] = True
            except ApiError as exc:
                await problem(exc.status, f"{exc.detail} Fix: {exc.fix}", exc.fix,
                              exc.headers)(scope, receive, send)
                return
        try:
            await self.app(scope, receive, send)
        finally:
            if release is not None:
                release()
