"""Set numpy's BLAS thread count at run time (what threadpoolctl does, for OpenBLAS only).

numpy wheels bundle OpenBLAS under ``numpy.libs`` (Linux) or ``numpy/.dylibs`` (macOS) with
prefixed symbols such as ``scipy_openblas_set_num_threads64_``. When no OpenBLAS is found
(e.g. numpy on Accelerate or MKL) :func:`blas_threads` does nothing.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

_PREFIXES = ("scipy_openblas", "openblas")
_SUFFIXES = ("64_", "_64_", "")
_LOCK = threading.Lock()
_CONTROLS: tuple[Callable[[], int], Callable[[int], None]] | None | bool = False


def _find_controls() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    root = Path(np.__file__).resolve().parent
    candidates = [*sorted((root.parent / "numpy.libs").glob("*openblas*")),
                  *sorted((root / ".dylibs").glob("*openblas*"))]
    for lib_path in candidates:
        try:
            lib = ctypes.CDLL(str(lib_path))
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if getter is not None and setter is not None:
                    getter.restype = ctypes.c_int
                    setter.argtypes = [ctypes.c_int]
                    return getter, setter
    return None


def _controls() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    global _CONTROLS
    if _CONTROLS is False:
        _CONTROLS = _find_controls()
    return _CONTROLS  # type: ignore[return-value]


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` BLAS threads, then restore the previous count.

    The setting is process-wide, so concurrent blocks are serialised by a lock.
    """
    controls = _controls()
    if controls is None:
        yield
        return
    get, set_ = controls
    with _LOCK:
        before = get()
        set_(threads)
        try:
            yield
        finally:
            set_(before)
