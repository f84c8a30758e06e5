"""What a terminal shows while the model writes: its text with source ids as citation numbers
(:class:`~citewise.answer.citations.NumberedStream`), and a line saying an ask is at work
until the first text shows (:class:`Waiting`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

CLEAR_LINE = "\r\x1b[2K"


class Waiting:
    """A line on a terminal saying an ask is still at work, until its first text shows.

    The stream shows a sentence only once the citation check keeps it, so a terminal stayed
    blank while the sources were read and the model wrote (14 s for a new user's answer, 125 s
    when the model timed out under load) and looked hung. From ``after_s`` on, every
    ``every_s`` this rewrites one short line in place ("… 12 s: reading the sources; each
    sentence shows once checked"); :meth:`text` clears it for the first text, and leaving the
    ``with`` block clears it too. Only for a terminal: ``enabled`` false writes nothing."""

    def __init__(self, enabled: bool, after_s: float = 2.0, every_s: float = 1.0,
                 write: Callable[[str], None] | None = None) -> None:
        self.enabled = enabled
        self.after_s, self.every_s = after_s, every_s
        self.write = write or _to_stderr
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.showing = False
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Waiting:
        if self.enabled:
            self.started = time.monotonic()
            self.thread = threading.Thread(target=self._tick, name="citewise-waiting",
                                           daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.text()
        if self.thread is not None:
            self.thread.join()

    def text(self) -> None:
        """Text is about to show: the line goes and does not come back."""
        with self.lock:
            self.done.set()
            if self.showing:
                self.write(CLEAR_LINE)
                self.showing = False

    def _tick(self) -> None:
        while not self.done.wait(self.every_s):
            elapsed = time.monotonic() - self.started
            if elapsed < self.after_s:
                continue
            with self.lock:
                if self.done.is_set():
                    return
                self.write(f"{CLEAR_LINE}… {elapsed:.0f} s: reading the sources; each "
                           "sentence shows once checked")
                self.showing = True


def _to_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
