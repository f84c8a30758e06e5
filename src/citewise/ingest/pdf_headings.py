"""Which lines of a PDF page are the headings its outline names (:func:`page_blocks`).

The outline (bookmarks, :func:`~citewise.ingest.pdf_layout.outline`) gives each section's
title, level and page; the page's text says nothing of roles. A line that is an entry's title
(punctuation aside, alone or after a section number, or wrapped onto two lines) becomes a
heading of that entry's level; lines and entries are matched in the order of both, as many
as can be (:func:`_aligned`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

from citewise.ingest.pdf_code import CODE_MARK
from citewise.ingest.pdf_layout import OutlineEntry, compact, heading_keys


def page_blocks(lines: Sequence[str], entries: Sequence[OutlineEntry],
                ) -> Iterator[tuple[str, str, int]]:
    """``(kind, text, level)`` for one page's body lines: ``heading`` blocks where an outline
    entry of the page names a line, or a line and the next (a title wrapped in two: 25 of
    the Valgrind manual's 283, chapters among them, were lost and their text filed under the
    chapter before), in order; ``text`` for the lines between them (joined; split into
    paragraphs by the caller). Lines and entries are matched in order, as many entries as
    can be (:func:`_aligned`)."""
    wanted: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        wanted.setdefault(compact(entry.title), []).append(i)
    chosen = _aligned(_heading_matches(lines, wanted), len(lines), len(entries))
    run: list[str] = []
    index = 0
    while index < len(lines):
        if index not in chosen:
            run.append(lines[index])
            index += 1
            continue
        span, entry = chosen[index]
        line = _joined(lines[index], lines[index + 1]) if span == 2 else lines[index]
        if run:
            yield "text", "\n".join(run), 0
            run = []
        yield "heading", " ".join(line.replace(CODE_MARK, " ").split()), entries[entry].level
        index += span
    if run:
        yield "text", "\n".join(run), 0


def _joined(line: str, after: str) -> str:
    glue = "" if line.rstrip().endswith("-") else " "  # "branch-" / "prediction"
    return f"{line.rstrip()}{glue}{after.lstrip()}"


def _heading_matches(lines: Sequence[str], wanted: dict[str, list[int]],
                     ) -> dict[int, tuple[int, list[int]]]:
    """For each line naming outline entries, ``(1, entries)``; for a line that names none
    and whose next line names none either, ``(2, entries)`` if the two together do."""
    out: dict[int, tuple[int, list[int]]] = {}
    for index, line in enumerate(lines):
        found = _entries_named(line, wanted, 0)
        if found:
            out[index] = (1, found)
        elif index + 1 < len(lines) and compact(line) and \
                not _entries_named(lines[index + 1], wanted, 0):  # a title in two lines
            pair = _entries_named(_joined(line, lines[index + 1]), wanted, 0)
            if pair:
                out[index] = (2, pair)
    return out


MAX_ALIGN = 200_000  # matched lines x entries above which a page is matched first come


def _aligned(matches: dict[int, tuple[int, list[int]]], n_lines: int,
             n_entries: int) -> dict[int, tuple[int, int]]:
    """``{line: (span, entry)}``: the most entries matched to lines in the order of both,
    the earliest line on a tie. Taking the first line naming an entry, as before, let a
    list item take its section's title: the Edition Guide's page 113 lists
    ``std::os::unix::process::CommandExt::before_exec`` under "Summary" before the section
    of that name, and the "Details" heading between them was lost with it. Only lines that
    name an entry are positions; a (hostile) page with more than :data:`MAX_ALIGN` of them
    times entries is matched first come, first served."""
    lines = sorted(matches)
    if len(lines) * n_entries > MAX_ALIGN:
        return _first_come(matches, lines)
    after = [bisect.bisect_left(lines, i + matches[i][0]) for i in lines]  # next position
    best = [[0] * (n_entries + 1) for _ in range(len(lines) + 1)]  # best[position][entry]
    for k in range(len(lines) - 1, -1, -1):
        found = matches[lines[k]][1]
        for e in range(n_entries - 1, -1, -1):
            best[k][e] = max([best[k + 1][e],
                              *(1 + best[after[k]][j + 1] for j in found if j >= e)])
    chosen: dict[int, tuple[int, int]] = {}
    k, e = 0, 0
    while k < len(lines) and e < n_entries:
        span, found = matches[lines[k]]
        take = sorted(j for j in found if j >= e and 1 + best[after[k]][j + 1] == best[k][e])
        if take:
            chosen[lines[k]] = (span, take[0])
            k, e = after[k], take[0] + 1
        else:
            k += 1
    return chosen


def _first_come(matches: dict[int, tuple[int, list[int]]],
                lines: list[int]) -> dict[int, tuple[int, int]]:
    chosen: dict[int, tuple[int, int]] = {}
    end, e = 0, 0  # lines before end are taken; entries before e are matched or passed
    for i in lines:
        span, found = matches[i]
        later = [j for j in found if j >= e]
        if i >= end and later:
            chosen[i] = (span, min(later))
            end, e = i + span, min(later) + 1
    return chosen


def _entries_named(line: str, wanted: dict[str, list[int]], start: int) -> list[int]:
    """The outline entries (from ``start`` on) whose title ``line`` is."""
    return [i for key in heading_keys(line) for i in wanted.get(key, ()) if i >= start]
