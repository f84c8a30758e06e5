"""Progress for every long command, one way (tqdm), on stderr.

Three modes: ``bar`` (a live tqdm bar: the default when stderr is a terminal, or
``--progress``), ``lines`` (no terminal, or ``--no-progress``: one plain line with counts and
rate at most every :data:`LINE_INTERVAL` seconds, plus a last one at the end, so a log or a
CI job shows a long run is alive; a run shorter than that prints nothing) and ``off`` (``--quiet``).

Never test a bar for truth (``if bar:``): tqdm's ``__bool__`` raises ``TypeError`` when it has
no total, which is what crashed ``citewise ingest`` in every terminal.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import click
from tqdm import tqdm

from citewise.cli.common import echo

#: Seconds between two progress lines when stderr is not a terminal.
LINE_INTERVAL = 3.0
#: Seconds after which an unchanged progress line is printed again.
HEARTBEAT = 30.0
MODES = ("bar", "lines", "off")
#: Width of a bar on a terminal that does not say how wide it is.
DEFAULT_COLUMNS = 80
#: Its height (tqdm hides a bar below the last row: with 0 rows, every bar).
DEFAULT_ROWS = 24
#: Seconds a live bar with no total yet waits for one before its first frame (a new user's
#: ingest showed "ingest: 0file [00:00, ?file/s]" until the files were listed).
OPEN_BAR_DELAY = 2.0
_LINE_FORMAT = ("{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%){postfix} in {elapsed}, "
                "{rate_fmt}")
_LINE_FORMAT_OPEN = "{desc}: {n_fmt} {unit}{postfix} in {elapsed}, {rate_fmt}"


def progress_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--progress/--no-progress`` and ``--quiet`` (parameters ``progress`` and ``quiet``)."""
    f = click.option("--quiet", "-q", "quiet", is_flag=True,
                     help="No progress output at all.")(f)
    return click.option("--progress/--no-progress", "progress", default=None,
                        help="A live progress bar on stderr (default: when stderr is a "
                             "terminal); --no-progress prints a plain line every few "
                             "seconds instead.")(f)


def progress_mode(progress: bool | None = None, quiet: bool = False,
                  stream: TextIO | None = None, as_json: bool = False) -> str:
    """``off`` with ``quiet``; else ``bar`` or ``lines`` as chosen, or by whether ``stream``
    (stderr) is a terminal. With ``--json`` and no terminal (a script reading the JSON, whose
    stderr often lands in the same log) nothing is printed unless ``--progress`` forces a bar."""
    if quiet:
        return "off"
    tty = _isatty(stream or sys.stderr)
    if as_json and not tty and progress is not True:
        return "off"
    if progress is None:
        return "bar" if tty else "lines"
    return "bar" if progress else "lines"


def _sized(stream: TextIO) -> bool:
    """Whether the terminal reports a size (a pseudo-terminal whose window size was never set
    says 0 x 0: ``docker exec -t``, ``script`` run without a terminal; tqdm drew no bar on
    it, since a bar below the last row is hidden)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return False
    return size.columns > 0 and size.lines > 0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class LineWriter:
    """A file for tqdm that turns its carriage-return refreshes into whole lines. A line whose
    counts did not move since the last one is dropped, unless :data:`HEARTBEAT` seconds
    passed (then it says the run is still alive)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last_counts = ""
        self.last_at = 0.0

    def write(self, text: str) -> int:
        line = text.replace("\r", "").strip()
        if line:
            counts, now = line.split(" in ", 1)[0], time.monotonic()
            if counts != self.last_counts or now - self.last_at >= HEARTBEAT:
                self.stream.write(line + "\n")
                self.last_counts, self.last_at = counts, now
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def make_bar(desc: str, total: int | None = None, unit: str = "doc", mode: str = "bar",
             stream: TextIO | None = None, interval: float = LINE_INTERVAL,
             **kwargs: Any) -> tqdm:
    """A tqdm bar for ``mode`` (a disabled one for ``off``); use it as a context manager and
    pass ``bar.update`` as the ``on_progress`` callback. In ``lines`` mode the first line
    comes after ``interval`` seconds, then at most one per ``interval``, and a last one at
    the end, so a run shorter than ``interval`` prints nothing."""
    stream = stream or sys.stderr
    if mode not in MODES:
        raise ValueError(f"progress mode {mode!r}: use one of {MODES}")
    if mode == "off":
        return tqdm(total=total, disable=True)
    if mode == "bar":
        sized = _sized(stream)
        unsized = {} if sized else {"ncols": DEFAULT_COLUMNS, "nrows": DEFAULT_ROWS}
        if total is None:
            kwargs.setdefault("delay", OPEN_BAR_DELAY)
        return tqdm(total=total, desc=desc, unit=unit, file=stream, dynamic_ncols=sized,
                    **unsized, **kwargs)
    fmt = _LINE_FORMAT if total else _LINE_FORMAT_OPEN
    bar = tqdm(total=total, desc=desc, unit=unit, file=LineWriter(stream), ascii=True,
               mininterval=interval, maxinterval=max(interval, 10.0), delay=interval,
               bar_format=fmt, **kwargs)
    bar.citewise_lines = True  # type: ignore[attr-defined]
    return bar


def set_total(bar: tqdm, total: int) -> None:
    """Give ``bar`` its total once it is known (e.g. after the files were listed)."""
    bar.total = total
    if getattr(bar, "citewise_lines", False):
        bar.bar_format = _LINE_FORMAT if total else _LINE_FORMAT_OPEN
    elif not bar.disable:
        bar.delay = 0  # drawn from now on, and closed with a last frame however short the run
        bar.refresh()


def counter(bar: tqdm, label: str) -> Callable[[int], None]:
    """A callback that adds its counts to a running total shown after the bar's own counts
    (``ingest: 3/129 file, 2304 chunks embedded``): work inside one step of the bar, which
    would otherwise sit still. The display follows the bar's own pace (a line mode bar still
    prints at most one line per interval)."""
    total = 0

    lines = getattr(bar, "citewise_lines", False)

    def add(n: int) -> None:
        nonlocal total
        total += n
        # a live bar redraws now: update(0) is ignored once tqdm's miniters grew, and a
        # pty showed "16277 chunks embedded" for 3 minutes while 2,900 more were embedded
        bar.set_postfix_str(f"{total} {label}", refresh=not lines and not bar.disable)
        if lines:
            bar.update(0)

    return add


def say(message: str, mode: str) -> None:
    """A one-line status message on stderr, unless progress is ``off``."""
    if mode != "off":
        echo(message, err=True)
