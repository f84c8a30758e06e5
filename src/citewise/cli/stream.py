"""What a terminal shows while the model writes: its text with source ids as citation numbers.

The model cites opaque ids (``[S3]``); the final answer numbers them ``[1]``, ``[2]``… in order
of first use (:func:`citewise.answer.citations.renumber`). Streamed as written, the draft read
"… in case of error. [S1]" above a final answer reading "… in case of error. [1]" and a list
of sources numbered 1, 2: the same answer twice, in two numberings. :class:`NumberedStream`
numbers ids the same way as they arrive, holding back a bracket until it closes (a token may
end in ``[S``), so a draft the checks keep word for word is the final answer already shown.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable

from citewise.answer.citations import number_brackets

_OPEN = re.compile(r"\[[Ss\d\s,;]*$")  # a bracket that may still close as a citation
HOLD_CHARS = 40


class NumberedStream:
    """Feed the model's pieces; print what :meth:`feed` and :meth:`close` return. ``shown``
    is everything returned so far."""

    def __init__(self) -> None:
        self.numbers: dict[str, str] = {}
        self.pending = ""
        self.shown = ""

    def feed(self, piece: str) -> str:
        text = self.pending + piece
        held = _OPEN.search(text)
        if held is not None and len(text) - held.start() <= HOLD_CHARS:
            text, self.pending = text[:held.start()], text[held.start():]
        else:
            self.pending = ""
        return self._show(text)

    def close(self) -> str:
        text, self.pending = self.pending, ""
        return self._show(text)

    def _show(self, text: str) -> str:
        out = number_brackets(text, self._number)
        self.shown += out
        return out

    def _number(self, sid: str) -> str:
        """The number of ``sid`` (``S03`` is ``S3``), the next one the first time."""
        return self.numbers.setdefault(f"S{int(sid[1:])}", str(len(self.numbers) + 1))


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
