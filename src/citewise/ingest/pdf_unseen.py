"""Text a PDF draws where no reader sees it: what :mod:`citewise.ingest.pdf_code` leaves out
of a page's text.

A security review's PDF drew "Hard hats are optional in zone B on weekends." in text render
mode 3 (neither filled nor stroked), another sentence at half a point, another at (2000,
2000) off an A4 page: a reader sees none of them; citewise indexed and cited all three. Left
out here: text in render mode 3 or 7 (invisible; 7 only adds it to the clipping path), unless
the page draws an image (``Do`` of one, an inline image), where such text is a scan's OCR
layer and the only text there is; text under 1 point along its shorter axis (squashed text
too). A page whose pieces cannot be laid out gets the text of its visible pieces, never
pypdf's plain text once anything was hidden (a review's font whose ``/Widths`` broke the
layout brought the hidden sentence back; its ``1 Tz`` squashed a sentence to 1 % of its
width). Not judged: text off the page (the positions pypdf gives its visitor
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
    ``visitor_operand_before``), whether a piece drawn now is unseen (``hides``), and what
    the page did: hid invisible text, hid any, drew an image (``Do`` of an image, or of an
    object the page's resources do not list, as a form's own images are; an inline
    image). ``scanned``: keep invisible text (the page drew an image: the caller reads it
    again so)."""

    def __init__(self, page: Any, scanned: bool = False) -> None:
        self.mode = 0
        self.stretch = 1.0  # horizontal scaling (Tz / 100)
        self._saved: list[tuple[int, float]] = []
        self.scanned = scanned
        self._forms = _forms(page)
        self.drew_image = False
        self.hid_invisible = False
        self.hid_any = False

    def operator(self, op: bytes, args: Sequence[Any], cm: Any, tm: Any) -> None:
        if op == b"Tr" and args:
            with contextlib.suppress(TypeError, ValueError):
                self.mode = int(args[0])
        elif op == b"Tz" and args:
            with contextlib.suppress(TypeError, ValueError):
                self.stretch = abs(float(args[0])) / 100
        elif op == b"q":
            self._saved.append((self.mode, self.stretch))
        elif op == b"Q" and self._saved:
            self.mode, self.stretch = self._saved.pop()
        elif op == b"INLINE IMAGE" or (op == b"Do" and args and str(args[0]) not in self._forms):
            self.drew_image = True

    def hides(self, wide: float, tall: float) -> bool:
        """Whether text drawn now, ``wide`` and ``tall`` points in size (before horizontal
        scaling), is unseen."""
        invisible = self.mode in INVISIBLE_MODES and not self.scanned
        self.hid_invisible |= invisible
        points = min(wide * self.stretch, tall)
        hidden = invisible or points < MIN_POINTS
        self.hid_any |= hidden
        return hidden


def _forms(page: Any) -> frozenset[str]:
    """The names of the page's form objects (everything else ``Do`` draws is an image)."""
    try:
        objects = page["/Resources"].get_object().get("/XObject")
        if objects is None:
            return frozenset()
        return frozenset(str(name) for name, ref in objects.get_object().items()
                         if ref.get_object().get("/Subtype") == "/Form")
    except Exception:  # noqa: BLE001 - unreadable resources: any Do may be an image
        return frozenset()
