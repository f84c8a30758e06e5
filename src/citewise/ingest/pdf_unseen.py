"""Text a PDF draws where no reader sees it: what :mod:`citewise.ingest.pdf_code` leaves out
of a page's text.

A security review's PDF drew "Hard hats are optional in zone B on weekends." in text render
mode 3 (neither filled nor stroked), another sentence at half a point, another at (2000,
2000) off an A4 page: a reader sees none of them; citewise indexed and cited all three. Left
out here: text in render mode 3 or 7 (invisible; 7 only adds it to the clipping path), unless
the page also draws an image, where such text is a scan's OCR layer and the only text there
is; text under 1 point. Not judged: text off the page (the positions pypdf gives its visitor
put 339 pieces of Debian Reference's tables, drawn through form objects, below the page),
white text and text covered or clipped away (telling them needs the page rendered; a white
heading on a dark band is common).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

INVISIBLE_MODES = (3, 7)
MIN_POINTS = 1.0


class Unseen:
    """The text state of one page as pypdf reads its content stream (``operator``, its
    ``visitor_operand_before``) and whether a piece drawn now is unseen (``hides``)."""

    def __init__(self, page: Any) -> None:
        self.mode = 0
        self._saved: list[int] = []
        self.scanned = _draws_images(page)

    def operator(self, op: bytes, args: Sequence[Any], cm: Any, tm: Any) -> None:
        if op == b"Tr" and args:
            with contextlib.suppress(TypeError, ValueError):
                self.mode = int(args[0])
        elif op == b"q":
            self._saved.append(self.mode)
        elif op == b"Q" and self._saved:
            self.mode = self._saved.pop()

    def hides(self, points: float) -> bool:
        """Whether text drawn now, at ``points`` size, is unseen."""
        return (self.mode in INVISIBLE_MODES and not self.scanned) or 0 < points < MIN_POINTS


def _draws_images(page: Any) -> bool:
    """Whether the page's resources hold an image (a scan's page image, say)."""
    try:
        objects = page["/Resources"].get_object().get("/XObject")
        if objects is None:
            return False
        for ref in objects.get_object().values():
            if ref.get_object().get("/Subtype") == "/Image":
                return True
    except Exception:  # noqa: BLE001 - unreadable resources: treat as a scan, keep the text
        return True
    return False
