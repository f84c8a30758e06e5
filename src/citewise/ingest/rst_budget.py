"""Bounds on what docutils is given to parse, beyond size: nested body elements.

docutils opens a nested state machine for each list item, enumerator or field whose body is
another one: a security review's 2.4 KB ``.rst.gz`` (45,000 lines of "- - - - - - - - - - x",
990 KB inflated, under every other guard) parsed for 12 minutes on 2 cores, ~230 s of CPU and
700 MB, holding the one upload slot and the parse lock (each nested marker ~0.5 ms; a flat
list's item ~0.1 ms). :func:`nested_markers` counts those chains before the parse; and
:func:`cpu_budget` stops any parse that runs past its CPU time (structures no count foresees,
such as lists nested by indentation, ~0.7 ms an item; a transform adding nodes), so the
file is read as plain text; and :func:`expanded_too_far` refuses a parse that produced far
more text than its source holds.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from docutils import nodes
from docutils.statemachine import StateMachine

_MARKER = (r"(?:[-*+\u2022\u2023\u2043]|#\.|\(?(?:\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)]"
           r"|:[^:\s`][^:`]{0,80}:)")
_CHAIN = re.compile(rf"^[ \t]*((?:{_MARKER}[ \t]+){{2,}})", re.MULTILINE)
_ONE = re.compile(rf"{_MARKER}[ \t]+")

MAX_NESTED_MARKERS = 1_000
"""The most :func:`nested_markers` docutils is given (about 0.5 s). The 8,101 ``.rst`` files
on this machine hold at most 1."""


def nested_markers(text: str) -> int:
    """How many list, enumerator and field markers of ``text`` follow another on the same
    line ("- - x": 1), each the start of a nested parse."""
    return sum(len(_ONE.findall(m[1])) - 1 for m in _CHAIN.finditer(text))


BASE_CPU_S = 2.0
CPU_S_PER_MB = 20.0
"""A parse's CPU time: :data:`BASE_CPU_S` plus this per MB of text. The 40 largest ``.rst``
files on this machine parse at 11 s per MB at most (CMake's ``cpack_gen/deb.rst``, 22 KB
in 0.23 s of CPU); lists nested by indentation, ~0.7 ms an item, would take 50 s per MB."""


class ParseTooSlow(Exception):
    """A parse ran past its :func:`cpu_budget`."""


class ExpandsTooFar(Exception):
    """A parse added more text to its tree than its :func:`cpu_budget` allows."""

    def __init__(self, chars: int) -> None:
        super().__init__(chars)
        self.chars = chars


_STATE = threading.local()
_CHECK_EVERY = 64  # lines between two reads of the thread's CPU clock


CPU_S_PER_LINE = 0.0005
"""And this per line: docutils' cost follows lines too. A review's outlines of short nested
items, 49,000 lines in 0.25 MB (under :data:`~citewise.ingest.rst.MAX_LINES`), parse in
9-10 s (~0.2 ms a line) and were read as plain text under a budget by size alone."""


def parse_cpu_s(text: str) -> float:
    """The CPU seconds a parse of ``text`` may take."""
    return BASE_CPU_S + CPU_S_PER_MB * len(text) / 1_000_000 + \
        CPU_S_PER_LINE * text.count("\n")


@contextmanager
def cpu_budget(seconds: float, max_chars: float = float("inf")) -> Iterator[None]:
    """Raise :class:`ParseTooSlow` from docutils' line loop once this thread has spent
    ``seconds`` of CPU time in the block (checked every :data:`_CHECK_EVERY` lines), and
    :class:`ExpandsTooFar` once the text it added to trees passes ``max_chars``."""
    _STATE.deadline, _STATE.count = time.thread_time() + seconds, 0
    _STATE.chars, _STATE.max_chars = 0, max_chars
    try:
        yield
    finally:
        _STATE.deadline = None


def _tick() -> None:
    deadline = getattr(_STATE, "deadline", None)
    if deadline is not None:
        _STATE.count += 1
        if _STATE.count % _CHECK_EVERY == 0 and time.thread_time() > deadline:
            raise ParseTooSlow


_next_line = StateMachine.next_line
_setup_child = nodes.Node.setup_child


def _checked_next_line(self: StateMachine, n: int = 1) -> str:
    _tick()
    return _next_line(self, n)


def _checked_setup_child(self: nodes.Node, child: nodes.Node) -> None:
    """Each node docutils adds to a tree counts as a line does: a review's 251-byte upload
    of substitutions doubling 16 deep, referenced 24 times, spent 70 s of CPU and 1.5 GB in
    docutils' substitution transform, after the line loop had ended and with it every
    check (copying a definition adds each of its 65,536 words to the tree). Its text counts
    too: a review's substitution of one 0.9 MB text, referenced 8,000 times (7.6 KB
    gzipped), is one node a copy, and reached 3 GB before :func:`expanded_too_far` could
    read the tree."""
    _tick()
    if isinstance(child, nodes.Text) and getattr(_STATE, "deadline", None) is not None:
        _STATE.chars += len(child)
        if _STATE.chars > _STATE.max_chars:
            raise ExpandsTooFar(_STATE.chars)
    _setup_child(self, child)


StateMachine.next_line = _checked_next_line  # type: ignore[method-assign]
nodes.Node.setup_child = _checked_setup_child  # type: ignore[method-assign]


MAX_EXPANSION = 4
EXPANSION_SLACK = 100_000
"""A parsed text may hold :data:`MAX_EXPANSION` times its source's characters plus this
many. Of the 7,479 ``.rst`` files on this machine docutils parses, none holds more (at most
4.9 times a 758-character CMake page, 3,740 characters); a review's 682-byte ``.rst.gz`` of
24,000 auto-symbol footnotes (each label the symbol repeated one more time per ten) parsed
into 57.6 MB, which chunking then counted for minutes."""


def expansion_cap(source_chars: int) -> int:
    """The most characters of text a parse of ``source_chars`` may produce: checked while
    the tree grows (:func:`cpu_budget`'s ``max_chars``, counting each text added to a tree;
    at most 2.4 times the source on the 7,843 ``.rst`` files here) and on the tree built."""
    return MAX_EXPANSION * source_chars + EXPANSION_SLACK


def expanded_too_far(source_chars: int, tree: nodes.document) -> int | None:
    """The characters of text in ``tree`` when they are more than a parse of
    ``source_chars`` may produce (:func:`expansion_cap`), else None."""
    produced = sum(len(t) for t in tree.findall(nodes.Text))
    return produced if produced > expansion_cap(source_chars) else None
