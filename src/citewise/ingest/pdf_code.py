"""Code in a PDF: lines set wholly in a monospaced font, laid out again from positions.

pypdf's page text has lost what makes code code: its indentation (each line is placed by
position, not by spaces), the blank lines between its functions, the columns of a
preformatted table, and any sign that it is code at all. nettle's SHA1 example came out as
flush-left prose, so the chunker cut it as text, between sentences, and a quote of it ran
the sentence introducing it into the example.

The page is read once with pypdf's text visitor, which sees every piece of output with its
font and position; joined, the pieces are exactly the page text. A line is **monospaced**
when every piece on it that holds text is set in a fixed-pitch font (the font descriptor's
FixedPitch flag, or a name such as Courier, NimbusMonL, CMTT, DejaVu Sans Mono). It is
**code** when it is one of :data:`MIN_LINES` or more monospaced lines in a row (blank lines
between them included), or a lone monospaced line right after a line ending in ``:``
("Use this command line:"). A lone monospaced line elsewhere is left as it was: a term of a
definition list ("-k --keep" above its description) reads as text. A run ends before a line
that, after a blank line's gap, starts left of every line of the run: the page margin's, not
the example's (an option's name set right under the indented example before it). Lines
drawn out of order in whole runs (Chromium draws a page's text, then its code blocks) are put
back where they sit on the page (:func:`reading_order`).

A code line is laid out again: each piece starts at its column, ``(x - left) / width`` with
``left`` the run's leftmost start and ``width`` the font's character width (its most common
glyph width, else 0.6 em), so indentation and table columns come back; a gap between two
lines over :data:`BLANK_GAP` times the run's line spacing becomes a blank line. Code lines
start with :data:`CODE_MARK` (a private-use character removed from the page text first) so
the page-layout steps (furniture, headings, hyphenation) see them as what they are, and
:func:`split_code` turns a paragraph into its text and code blocks. A page whose pieces
cannot be placed (a visitor error, pieces that do not join to the text) keeps its plain text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from citewise.ingest.pdf_unseen import Unseen

CODE_MARK = "\ue000"
MIN_LINES = 2
BLANK_GAP = 1.6  # a line gap this many times the run's spacing is a blank line
RUN_GAP = 4  # lines of gap after which a line drawn next starts a new run (reading_order)
MAX_RUNS = 200  # more runs than this on one page are left in the order they were drawn
DEFAULT_WIDTH = 0.6  # em: Courier's and most monospaced fonts' glyph width
_MONO_NAMES = re.compile(
    r"mono|courier|nimbusmon|cmtt|cmsltt|cmitt|lmtt|consol|menlo|inconsolata|typewriter|"
    r"sourcecode|firacode|andale|lucidaconsole", re.IGNORECASE)
_FIXED_PITCH = 1  # bit 1 of a font descriptor's /Flags
_PUNCTUATION_AFTER = re.compile(r" +[’'.,;:!?)\]](?:\s|s\b|$)")


@dataclass
class _Piece:
    text: str
    x: float | None  # None: a piece's second line, whose start pypdf does not give
    mono: bool
    width: float  # one character, in the same units as x


@dataclass
class _Line:
    pieces: list[_Piece] = field(default_factory=list)
    y: float | None = None
    drawn: list[str] = field(default_factory=list)  # every piece's text, hidden ones too

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces)

    @property
    def monospaced(self) -> bool:
        filled = [p for p in self.pieces if p.text.strip()]
        return bool(filled) and all(p.mono and p.x is not None for p in filled)


class PageReader:
    """One page's text (``read``), with its code lines marked and laid out, and the text a
    reader cannot see left out (:class:`~citewise.ingest.pdf_unseen.Unseen`)."""

    def __init__(self) -> None:
        # id -> (the font, kept alive so its id is never reused; monospaced; width in em)
        self._fonts: dict[int, tuple[Any, bool, float]] = {}
        self._unseen = Unseen(None)

    def read(self, page: Any, clean: Callable[[str], str]) -> str:
        """The page's text with code lines marked; ``clean`` normalises each piece's text
        (newlines, control characters) as the plain text would be. Invisible text is kept
        when the page drew an image (a scan's OCR layer: the page is read again so)."""
        text, unseen = self._read(page, clean, scanned=False)
        if unseen.hid_invisible and unseen.drew_image:
            text, _ = self._read(page, clean, scanned=True)
        return text

    def _read(self, page: Any, clean: Callable[[str], str],
              scanned: bool) -> tuple[str, Unseen]:
        lines: list[_Line] = [_Line()]
        failed: list[BaseException] = []
        seen: list[str] = []  # every piece's text a reader sees, in drawing order

        def visit(text: str, cm: Sequence[float], tm: Sequence[float], font: Any,
                  size: float) -> None:
            text = clean(text)
            wide, tall = _scale(cm, tm)
            hidden = self._unseen.hides(size * wide, size * tall)
            if not hidden:
                seen.append(text)
            if failed:
                return
            try:
                self._add(lines, text, cm, tm, font, size, hidden)
            except Exception as exc:  # never let layout sink a page's text
                failed.append(exc)

        self._unseen = unseen = Unseen(page, scanned)
        plain = clean(page.extract_text(visitor_text=visit,
                                        visitor_operand_before=unseen.operator) or ""
                      ).replace(CODE_MARK, "")
        if failed or "\n".join("".join(line.drawn) for line in lines) != plain:
            if unseen.hid_any:  # never the plain text: it holds what no reader sees
                return "".join(seen).replace(CODE_MARK, ""), unseen
            return plain, unseen
        return "\n".join(mark_code(reading_order(lines))), unseen

    def _add(self, lines: list[_Line], text: str, cm: Sequence[float],
             tm: Sequence[float], font: Any, size: float, hidden: bool) -> None:
        mono, em = self._font(font)
        scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]) or 1.0
        for k, segment in enumerate(text.replace(CODE_MARK, "").split("\n")):
            if k:
                lines.append(_Line())
            if not segment:
                continue
            line = lines[-1]
            line.drawn.append(segment)
            if hidden:
                continue
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4] if k == 0 else None
            if line.y is None and k == 0 and segment.strip():
                line.y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            line.pieces.append(_Piece(segment, x, mono, em * size * scale))

    def _font(self, font: Any) -> tuple[bool, float]:
        """(monospaced, glyph width in em), once per font dictionary."""
        if not font:
            return False, DEFAULT_WIDTH
        if id(font) not in self._fonts:
            self._fonts[id(font)] = (font, is_monospaced(font), glyph_width(font))
        _, mono, em = self._fonts[id(font)]
        return mono, em


def _scale(cm: Sequence[float], tm: Sequence[float]) -> tuple[float, float]:
    """How much text drawn under ``cm`` and ``tm`` is scaled across and up (a review
    squashed 12-point text to 0.012 points tall with ``Tm 1 0 0 0.001``)."""
    return (math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]),
            math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]))


def is_monospaced(font: Any) -> bool:
    """A font whose descriptor says FixedPitch, or whose name is a monospaced family's."""
    if _MONO_NAMES.search(str(font.get("/BaseFont", ""))):
        return True
    for candidate in [font, *_descendants(font)]:
        descriptor = candidate.get("/FontDescriptor")
        flags = descriptor.get_object().get("/Flags") if descriptor is not None else None
        if isinstance(flags, int) and flags & _FIXED_PITCH:
            return True
    return False


def _descendants(font: Any) -> list[Any]:
    found = font.get("/DescendantFonts")
    return [f.get_object() for f in found.get_object()] if found is not None else []


def glyph_width(font: Any) -> float:
    """The font's most common glyph width in em (its ``/Widths``), else :data:`DEFAULT_WIDTH`."""
    widths = font.get("/Widths")
    values = [float(w) for w in widths.get_object()] if widths is not None else []
    common = Counter(w for w in values if w > 0).most_common(1)
    return common[0][0] / 1000 if common else DEFAULT_WIDTH


def reading_order(lines: Sequence[_Line]) -> list[_Line]:
    """``lines`` top to bottom when the page drew them out of order in whole runs: Chromium
    draws a page's text, then its code blocks, so every example came after the paragraphs
    around it and lost the sentence that leads into it. A run of lines going down the page
    that was drawn later moves to where it sits: between the two lines above and below it.
    When a run's span holds lines drawn before it (two columns, a table drawn column by
    column), the page keeps the order it was drawn in."""
    runs = _downward_runs(lines)
    if len(runs) > MAX_RUNS:  # not a page of blocks drawn out of order; and bounded work
        return list(lines)
    merged = list(runs[0]) if runs else []
    for run in runs[1:]:
        ys = [line.y for line in run if line.y is not None]
        placed = [(i, line.y) for i, line in enumerate(merged) if line.y is not None]
        if ys and any(min(ys) <= y <= max(ys) for _, y in placed):
            return list(lines)  # interleaved with what came before: not a block drawn later
        at = next((i for i, y in placed if ys and y < min(ys)), len(merged))
        merged[at:at] = run
    return merged


def _downward_runs(lines: Sequence[_Line]) -> list[list[_Line]]:
    """``lines`` cut where the next placed line is higher up the page than the last one, or
    further below it than a blank line (:data:`BLANK_GAP` times the run's line spacing, or
    :data:`RUN_GAP` lines before the run has one): two examples drawn one after the other,
    with the text between them drawn before, are two runs."""
    runs: list[list[_Line]] = []
    last: float | None = None
    spacing: float | None = None
    for line in lines:
        y = line.y
        gap = last - y if y is not None and last is not None else None
        step = 2 * line.pieces[0].width if line.pieces else 0.0  # a line is about 2 glyphs
        if not runs or (gap is not None and (gap < -1.0 or gap > (
                BLANK_GAP * spacing if spacing else RUN_GAP * step))):
            runs.append([])
            spacing = None
        elif gap is not None and gap > 1.0:
            spacing = min(spacing or gap, gap)
        runs[-1].append(line)
        last = y if y is not None else last
    return runs


def mark_code(lines: Sequence[_Line]) -> list[str]:
    """The lines' text; code lines (see the module docstring) marked and laid out."""
    out: list[str] = []
    for start, end, code in _runs(lines):
        run = lines[start:end]
        out.extend(_laid_out(run) if code else [_prose(line) for line in run])
    return out


def _prose(line: _Line) -> str:
    """A text line's text without the space pypdf puts between a code word and the
    punctuation after it ("BTreeMap ’s", "unsafe ." in a page Chromium printed)."""
    out, after_code = "", False
    for piece in line.pieces:
        text = piece.text
        if after_code and not piece.mono and _PUNCTUATION_AFTER.match(text):
            text = text.lstrip(" ")
        out += text
        if text.strip():  # a blank piece between them keeps what came before
            after_code = piece.mono
    return out


def _runs(lines: Sequence[_Line]) -> Iterator[tuple[int, int, bool]]:
    """(start, end, is_code) spans covering ``lines`` in order."""
    i = 0
    while i < len(lines):
        end = i
        while end < len(lines) and (lines[end].monospaced or _blank_inside(lines, end, i)):
            end += 1
        end = _outdented(lines, i, end) or end
        while end > i and not lines[end - 1].monospaced:
            end -= 1  # trailing blank lines are not the run's
        if end == i:
            yield i, i + 1, False
            i += 1
            continue
        filled = sum(1 for line in lines[i:end] if line.monospaced)
        yield i, end, filled >= MIN_LINES or _introduced(lines, i)
        i = end


def _outdented(lines: Sequence[_Line], start: int, end: int) -> int | None:
    """The first line of ``lines[start:end]`` that starts left of every line before it in the
    run after a gap of a blank line: not the example's, but the page margin's (the Valgrind
    manual sets an option's name there right under the example before it, and
    "--read-var-info=<yes|no>" was the last line of that example instead of the term of its
    description)."""
    placed = [(k, _start(lines[k]), lines[k].y) for k in range(start, end)
              if lines[k].monospaced and lines[k].y is not None]
    measured = _spacing([lines[k] for k, _, _ in placed]) if len(placed) > 2 else None
    left = placed[0][1] if placed else 0.0  # the leftmost start so far
    for (_, _, y0), (k, x, y) in pairwise(placed):
        width = lines[k].pieces[0].width
        # two lines have no spacing of their own: a line is 1.2 em, Courier's glyph 0.6 em
        spacing = measured or 2 * width
        if abs(y0 - y) > BLANK_GAP * spacing and x < left - width / 2:
            return k
        left = min(left, x)
    return None


def _start(line: _Line) -> float:
    return next(p.x for p in line.pieces if p.text.strip() and p.x is not None)


def _blank_inside(lines: Sequence[_Line], index: int, start: int) -> bool:
    return index > start and not lines[index].text.strip()


def _introduced(lines: Sequence[_Line], index: int) -> bool:
    """The last non-blank line before ``index`` ends in a colon. Walks back from ``index``:
    a list of every line before it, built for each run, made a review's 88 KB PDF of
    16,000 lines in two fonts (a run a line) take 60 s."""
    for i in range(index - 1, -1, -1):
        if text := lines[i].text.strip():
            return text.endswith(":")
    return False


def _laid_out(run: Sequence[_Line]) -> list[str]:
    starts = [_start(line) for line in run if line.monospaced]
    widths = [p.width for line in run for p in line.pieces if p.text.strip()]
    left, width = min(starts), sorted(widths)[len(widths) // 2] or 1.0
    spacing = _spacing(run)
    out: list[str] = []
    previous_y: float | None = None
    for line in run:
        if not line.monospaced:
            out.append(CODE_MARK)  # a blank line inside the run
            continue
        if spacing and previous_y is not None and line.y is not None \
                and abs(previous_y - line.y) > BLANK_GAP * spacing:
            out.append(CODE_MARK)
        previous_y = line.y if line.y is not None else previous_y
        out.append(CODE_MARK + _columns(line, left, width))
    return out


def _spacing(run: Sequence[_Line]) -> float | None:
    """The run's line spacing: the smallest gap between two consecutive placed lines."""
    ys = [line.y for line in run if line.monospaced and line.y is not None]
    gaps = [abs(a - b) for a, b in pairwise(ys) if abs(a - b) > 1.0]
    return min(gaps) if gaps else None


MAX_COLUMN = 400
"""The furthest column a piece is placed at: a security review's PDF set in a font 1e-5
points wide placed its pieces millions of columns apart (116 s and 3.2 GB for 1.5 KB; the
server's memory at 1e-6). A piece further out follows on."""


def _columns(line: _Line, left: float, width: float) -> str:
    """The line with each piece from its column (pieces without a place, or placed past
    :data:`MAX_COLUMN`, follow on)."""
    parts: list[str] = []
    length = 0
    for piece in line.pieces:
        body = piece.text
        if piece.x is not None and body.strip():
            column = max(0, math.ceil((piece.x - left) / width - 0.25))
            if length < column <= MAX_COLUMN or _gap_space(length, body):
                parts.append(" " * max(0, column - length))  # placed: pypdf's gap space
                length += max(0, column - length)
                body = body[1:] if body.startswith(" ") else body  # goes
        parts.append(body)
        length += len(body)
    return "".join(parts).rstrip()


def _gap_space(length: int, body: str) -> bool:
    """A line's first piece (none before it: ``length`` 0) starting with one space, which
    pypdf puts there when the line starts left or right of the one before (an indentation
    drawn as spaces is two or more)."""
    return not length and body.startswith(" ") and not body.startswith("  ")


def is_code(line: str) -> bool:
    return line.startswith(CODE_MARK)


def split_code(paragraph: str) -> list[tuple[Literal["text", "code"], str]]:
    """``paragraph`` as ``("text"|"code", text)`` runs in order; code without its marks."""
    runs: list[tuple[Literal["text", "code"], list[str]]] = []
    for line in paragraph.split("\n"):
        kind: Literal["text", "code"] = "code" if is_code(line) else "text"
        body = line[len(CODE_MARK):] if kind == "code" else line
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(body)  # joined once: a run of 10,000 lines was quadratic
        else:
            runs.append((kind, [body]))
    return [(kind, "\n".join(lines)) for kind, lines in runs]
