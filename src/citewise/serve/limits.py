"""Request size limits (an ASGI middleware: Content-Length checked up front, chunked bodies
counted as they arrive; uploads may be large, every other body is a little JSON), per-key
token buckets for search, ask and reading documents, and per-key slots for running asks."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from citewise.serve.problems import PROBLEM, ApiError


class TokenBuckets:
    """``rate_per_minute`` tokens per minute per key, at most ``burst`` saved up."""

    def __init__(self, rate_per_minute: float, burst: int) -> None:
        self.rate, self.burst = rate_per_minute / 60.0, float(burst)
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> None:
        """Spend a token for ``key`` or raise a 429 :class:`ApiError` saying when to retry."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._state.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                wait = (1.0 - tokens) / self.rate
                self._state[key] = (tokens, now)
                raise ApiError(429, f"rate limit: {self.rate * 60:g} requests (search, ask, log, "
                                    f"document reads, uploads) per minute per key "
                                    f"(burst {self.burst:g}).",
                               f"retry after {wait:.1f} s, or raise serve.rate_per_minute in "
                               "the --config file of `citewise serve`",
                               {"Retry-After": str(max(1, round(wait + 0.5)))})
            self._state[key] = (tokens - 1.0, now)


class KeySlots:
    """How many requests of one kind each key has running, at most ``per_key``: a security
    review's one reader key sent 30 asks at once (each held a worker thread while it waited
    for the one model), and the server stopped answering even ``/v1/me`` for everyone; and,
    with ``total``, how many all keys have running (many keys, each within its own limit,
    could fill the same threads: a reliability review). ``what`` names them and ``fix`` says
    what to do in the 429."""

    def __init__(self, per_key: int, what: str = "ask(s)",
                 fix: str = "wait for an answer before asking again, or raise "
                            "serve.asks_per_key in the --config file of `citewise serve`",
                 total: int | None = None, holder: str = "key",
                 total_fix: str = "retry in a few seconds, or raise serve.asks_total in the "
                                  "--config file of `citewise serve`") -> None:
        self.per_key, self.what, self.fix, self.total = per_key, what, fix, total
        self.holder, self.total_fix = holder, total_fix
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> Callable[[], None]:
        """Hold a slot for ``key`` (a 429 :class:`ApiError` when all are held); returns
        the slot's release, which may be called any number of times (it acts once)."""
        with self._lock:
            if self._running.get(key, 0) >= self.per_key:
                raise ApiError(429, f"{self.per_key} {self.what} of this {self.holder} are "
                                    "still running.", self.fix, {"Retry-After": "5"})
            if self.total is not None and sum(self._running.values()) >= self.total:
                raise ApiError(429, f"the server is running {self.total} {self.what}, its "
                                    "most at once.", self.total_fix, {"Retry-After": "5"})
            self._running[key] = self._running.get(key, 0) + 1
        released = threading.Event()

        def release() -> None:
            with self._lock:
                if released.is_set():
                    return
                released.set()
                self._running[key] -= 1
                if not self._running[key]:
                    del self._running[key]
        return release


UPLOAD = ("POST", "/v1/documents")


def route_path(scope: dict) -> str:
    """The path the app routes on: the request's path less the server's ``root_path``
    (``uvicorn --root-path /api``, or a mount), which Starlette strips when it routes. A
    review's reader key uploaded through ``/api/v1/documents``, which KeyFirst did not
    recognise while the route had stopped checking the role, and an editor's upload there
    had the JSON body limit."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


class BodyLimit:
    """Refuse an upload's body over ``max_bytes``, any other body over ``json_bytes``, with a
    413 problem naming the setting to raise."""

    def __init__(self, app: Any, max_bytes: int, json_bytes: int) -> None:
        self.app, self.max_bytes, self.json_bytes = app, max_bytes, json_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = (scope.get("method"), route_path(scope)) == UPLOAD
        limit, setting = ((self.max_bytes, "serve.max_body_bytes") if upload
                          else (self.json_bytes, "serve.max_json_bytes"))
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _refuse(send, limit, setting)
            return
        seen = 0
        refused = started = False

        async def counted() -> dict:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = True
                    raise _TooLarge
            return message

        async def guarded(message: dict) -> None:
            # FastAPI turns an error while reading a body into its own 400 ("error parsing
            # the body"): once refused, whatever the app answers is replaced by the 413
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        with contextlib.suppress(_TooLarge):
            await self.app(scope, counted, guarded)
        if refused and not started:
            await _refuse(send, limit, setting)


async def _refuse(send: Any, limit: int, setting: str) -> None:
    fix = (f"send at most {limit} bytes, or raise {setting} in the --config file of "
           "`citewise serve`")
    body = json.dumps({"type": "about:blank", "title": "Content Too Large", "status": 413,
                       "detail": f"request body over {limit} bytes. Fix: {fix}",
                       "fix": fix}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", PROBLEM.encode()),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
