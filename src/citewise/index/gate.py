"""The write gate of an index: one holder at a time, across threads and processes.

Every write through a store that follows the live version (:mod:`citewise.index.follow`), and
every promotion (``reindex``'s final catch-up and flip, ``rollback``), holds the gate, so no
write can land on a version between "it was live when I looked" and "it is retired now".

:func:`hold` is reentrant within a thread (a promotion inside a held gate does not deadlock)
and exclusive between threads (a process-wide lock per gate) and between processes (the
backend's own lock: ``flock`` on ``PATH.lock`` for SQLite, a session advisory lock on
PostgreSQL).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from citewise.errors import StoreError
from citewise.private import open_lock

TIMEOUT_S = 120.0
"""How long a writer waits for the gate before it reports the index busy (a promotion holds it
while it applies the last changes; a writer, while it writes one batch)."""
POLL_S = 0.01

Acquire = Callable[[float], Any]
"""``acquire(deadline)`` -> a handle, or ``None`` when the deadline (time.monotonic) passed."""
Release = Callable[[Any], None]


class _Entry:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.depth = 0
        self.handle: Any = None


_ENTRIES: dict[str, _Entry] = {}
_ENTRIES_LOCK = threading.Lock()


def _forget_in_child() -> None:
    """A forked child holds none of its parent's gates (the parent unlocks what it holds)."""
    global _ENTRIES_LOCK
    _ENTRIES.clear()
    _ENTRIES_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)


def _entry(key: str) -> _Entry:
    with _ENTRIES_LOCK:
        return _ENTRIES.setdefault(key, _Entry())


@contextmanager
def hold(key: str, acquire: Acquire, release: Release, *, timeout: float = TIMEOUT_S,
         busy: str = "") -> Iterator[bool]:
    """Hold the gate ``key``; yields ``True``. With ``timeout=0`` it only tries, and yields
    ``False`` (holding nothing) when another holder has it; else a wait past ``timeout``
    raises :class:`StoreError` with ``busy`` as its message."""
    entry = _entry(key)
    deadline = time.monotonic() + max(timeout, 0.0)
    if not (entry.lock.acquire(blocking=False) if timeout <= 0
            else entry.lock.acquire(timeout=timeout)):
        if timeout <= 0:
            yield False
            return
        raise StoreError(busy or f"{key} is busy. Fix: retry when the other writer finishes.")
    try:
        if entry.depth == 0:
            entry.handle = acquire(deadline)
            if entry.handle is None:
                if timeout <= 0:
                    yield False
                    return
                raise StoreError(busy or f"{key} is busy. Fix: retry when the other writer "
                                 "finishes.")
        entry.depth += 1
        failed = True
        try:
            yield True
            failed = False
        finally:
            entry.depth -= 1
            if entry.depth == 0:
                handle, entry.handle = entry.handle, None
                _release(release, handle, failed)
    finally:
        entry.lock.release()


def _release(release: Release, handle: Any, failed: bool) -> None:
    """Release the gate; when the block failed, a failing release is no news (PostgreSQL's
    unlock on the connection a restart closed printed a 99-line traceback in place of the
    write's one-line error: the server drops a dead session's locks itself)."""
    try:
        release(handle)
    except Exception:
        if not failed:
            raise


def held_here(key: str) -> bool:
    """Whether this thread holds the gate ``key`` now."""
    entry = _entry(key)
    if not entry.lock.acquire(blocking=False):
        return False
    try:
        return entry.depth > 0
    finally:
        entry.lock.release()


# -- SQLite: flock on a sibling file ------------------------------------------------------------


def lock_file(home: str) -> str:
    """The file a SQLite index's gate locks: ``HOME.lock`` (created 0600, empty)."""
    return f"{home}.lock"


def flock_acquire(path: str) -> Acquire:
    def acquire(deadline: float) -> Any:
        fd = open_lock(path)  # not a planted one (a security review)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return None
                time.sleep(POLL_S)
    return acquire


def flock_release(fd: Any) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def file_gate(home: str, timeout: float = TIMEOUT_S) -> Iterator[bool]:
    """The gate of the SQLite index whose home file is ``home``."""
    path = lock_file(os.path.abspath(home))
    busy = (f"index {home} is busy: another writer or a promotion (reindex, rollback) held "
            f"its write gate for over {timeout:.0f} s. Fix: retry when it finishes.")
    with hold(path, flock_acquire(path), flock_release, timeout=timeout, busy=busy) as got:
        yield got
