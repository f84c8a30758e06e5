"""The server's own connections: slow requests are closed, and past a cap new ones are.

A robustness review held the server with slowloris (10,000 connections at a time, each sending
a header line every 10 s): uvicorn never times out a request whose headers are still coming,
so at 20,000 connections the process hit its open-files limit, ``/healthz`` and every search
timed out, and asyncio logged ``socket.accept() out of system resource`` with a traceback in
a tight loop (507 MB of log in a minute).

:class:`GuardedH11` is uvicorn's h11 protocol with two limits:

* a request's line and headers must arrive within :data:`HEADER_TIMEOUT_S` of the connection
  opening, or of the previous response on a kept-alive connection, and its body within
  :data:`BODY_TIMEOUT_S` of its headers (a 25 MiB upload at 90 kB/s); else the connection is
  closed. The rest of a body the answer did not wait for (a 401) must come within
  :data:`HEADER_TIMEOUT_S` of the answer: a review's 44 such requests, trickling a byte of
  body every 5 s, held the cap;
* at most :func:`connection_cap` connections are open at once (the open-files limit less
  :data:`RESERVED_FILES` for the index, models and logs); a connection over it is closed at
  once, so the process never runs out of files, and a warning says so at most once a minute.

``citewise serve`` and :func:`citewise.testing.server.serving` run uvicorn with it
(:func:`server_config`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 15.0
BODY_TIMEOUT_S = 300.0
RESERVED_FILES = 256
"""File descriptors kept for the process itself: index files, the WAL, models, log files."""
MIN_CONNECTIONS = 32
_WARN_EVERY_S = 60.0
_log = logging.getLogger("citewise.serve")
_last_warning = [0.0]


def connection_cap() -> int:
    """The most connections held open at once: the soft open-files limit less
    :data:`RESERVED_FILES`, at least :data:`MIN_CONNECTIONS`."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1024
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(MIN_CONNECTIONS, int(soft) - RESERVED_FILES)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection cap (module docstring)."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > connection_cap():
            _warn(f"{len(self.connections) - 1} connections are open, the most this process "
                  "holds; new ones are closed until some end (a client holding connections "
                  "open?)")
            transport.abort()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        state = self.conn.their_state
        super().data_received(data)
        if self.conn.their_state is h11.SEND_BODY and state is h11.IDLE:
            self._arm(BODY_TIMEOUT_S)  # the headers are in: the body has its own deadline
        elif self.conn.their_state is not h11.IDLE and self.conn.their_state is not \
                h11.SEND_BODY:
            self._disarm()  # the whole request is in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.SEND_BODY:  # answered before its body was read (a
            self.handle_events()  # 401): drain what came, uvicorn discards it
        if self.conn.their_state is h11.SEND_BODY:  # the rest must come within the header
            self._arm()  # deadline; closing at once broke kept-alive clients' next request
        elif self.conn.their_state is h11.IDLE:
            self._arm()  # the next request on a kept-alive connection has its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float | None = None) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds or HEADER_TIMEOUT_S, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE,
                                                                         h11.SEND_BODY):
            self.transport.close()


def _warn(message: str) -> None:
    now = time.monotonic()
    if now - _last_warning[0] >= _WARN_EVERY_S:
        _last_warning[0] = now
        _log.warning(message)


def server_config(app: Any, host: str, port: int, **options: Any) -> Any:
    """A uvicorn ``Config`` for ``app`` served with :class:`GuardedH11`."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, http=GuardedH11, **options)
