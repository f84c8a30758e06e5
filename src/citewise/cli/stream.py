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
