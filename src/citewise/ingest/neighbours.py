"""The pages beside a page named on its own, read only to find its site's boilerplate.

A site's chrome (its title suffix, "Skip to content", a menu) is found by repetition across
the pages of one ingest (:mod:`citewise.ingest.boilerplate`). A page re-ingested alone after
an edit had no pages to compare with: its title became "OS | Node.js v20.20.2
Documentation" again, the chrome came back into its chunks, and every chunk was embedded
again although its text had not changed. A page named on its own is therefore compared with
the HTML pages of its folder too (not indexed, not walked into subfolders), as a folder
ingest of that folder would have compared it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from citewise.ingest.registry import format_of, inner_path

#: At most this many neighbours are read (spread over the folder's sorted pages), so a page
#: beside thousands of others is still ingested in seconds.
MAX_NEIGHBOURS = 40


def neighbours(pages: Iterable[Path], limit: int = MAX_NEIGHBOURS) -> list[Path]:
    """The HTML files of the folders of ``pages`` that are not among them (hidden files and
    subfolders left out), at most ``limit``, taken evenly from each folder's sorted list."""
    named = {p.absolute() for p in pages}
    found: list[Path] = []
    for folder in sorted({p.parent for p in named}):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue  # an unreadable folder: the page is profiled alone, as before
        found.extend(e for e in entries if e.absolute() not in named and _page(e))
    if len(found) <= limit:
        return found
    step = len(found) / limit
    return [found[int(i * step)] for i in range(limit)]


def _page(path: Path) -> bool:
    if path.name.startswith(".") or path.is_symlink() or not path.is_file():
        return False
    return format_of(inner_path(path)) == "html"
