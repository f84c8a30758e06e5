"""Set numpy's BLAS thread count for a block, with threadpoolctl.

The setting is process-wide, so concurrent blocks are serialised by a lock. The loaded BLAS
libraries are found once per process (threadpoolctl scans them); with none (or none it can
control) :func:`blas_threads` does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

_LOCK = threading.Lock()
_CONTROLLER: ThreadpoolController | None = None


def _controller() -> ThreadpoolController:
    global _CONTROLLER
    if _CONTROLLER is None:
        import numpy  # noqa: F401  (its BLAS must be loaded before the scan)

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` BLAS threads, then restore the previous count."""
    controller = _controller()
    with _LOCK, controller.limit(limits=threads, user_api="blas"):
        yield
