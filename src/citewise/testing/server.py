"""A real uvicorn server on loopback for tests and benchmarks: ``with serving(app) as url:``.

Runs in a thread of this process on a free port; stops (and runs the app's shutdown) on exit.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(app: Any, *, timeout_s: float = 30.0) -> Iterator[str]:
    import uvicorn

    from citewise.serve.guard import server_config

    port = free_port()
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, log_level="warning",
                                          lifespan="on"))
    thread = threading.Thread(target=server.run, name="citewise-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout_s)
