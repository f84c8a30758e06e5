"""The pages beside a page named on its own, read only to find its site's boilerplate.

A site's chrome (its title suffix, "Skip to content", a menu) is found by repetition across
the pages of one ingest (:mod:`citewise.ingest.boilerplate`). A page re-ingested alone after
an edit had no pages to compare with: its title became "OS | Node.js v20.20.2
Documentation" again, the chrome came back into its chunks, and every chunk was embedded
again although its text had not changed. A page named on its own is therefore compared with
the HTML pages of its folder too (not indexed, not walked into subfolders, at most
:data:`MAX_NEIGHBOURS` of at most :data:`MAX_NEIGHBOUR_BYTES`), for its chrome only
(:func:`chrome_only`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from citewise.ingest.boilerplate import SiteProfile
from citewise.ingest.registry import format_of, inner_path

#: At most this many neighbours are read (spread over the folder's sorted pages), so a page
#: beside thousands of others is still ingested in seconds.
MAX_NEIGHBOURS = 12
#: Pages larger than this are not read as neighbours (a review's 40 pages of 13.7 MB each
#: took a one-page ingest from 1.3 s to 37 s and 1.8 GB).
MAX_NEIGHBOUR_BYTES = 1_000_000
#: What the neighbours may find: repeated blocks of at most this many words (a title, "Skip
#: to content", "Stability: 2 - Stable"), and title prefixes and suffixes. A folder of
#: yearly versions of one policy repeats whole paragraphs: those stay in the page named.
MAX_CHROME_WORDS = 12


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


def is_page(path: Path) -> bool:
    """Whether ``path`` is an HTML page (also gzipped)."""
    return format_of(inner_path(path)) == "html"


def chrome_only(site: SiteProfile) -> SiteProfile:
    """``site`` as found with neighbours: its repeated blocks of at most
    :data:`MAX_CHROME_WORDS` words, its title prefix and suffix."""
    return replace(site, blocks=frozenset(b for b in site.blocks
                                          if len(b.split()) <= MAX_CHROME_WORDS))


def _page(path: Path) -> bool:
    if path.name.startswith(".") or path.is_symlink() or not is_page(path):
        return False
    try:
        return path.is_file() and path.stat().st_size <= MAX_NEIGHBOUR_BYTES
    except OSError:
        return False
