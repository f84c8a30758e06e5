"""A PDF or plain-text edition of the HTML pages beside it: the same book in another format.

Debian's debian-reference-en ships its book as 14 HTML chapters, as a PDF and as a
``.txt.gz``; valgrind's, zsh's, bzip2's and fontconfig's documentation folders ship their
manual as HTML and as a PDF. Ingested as a user points at the folder, the book was indexed
three times (the copies 74 % of the index), every fact competed with its copies for an
answer's context, and a sidecar that restricted two HTML chapters left their text readable in
the PDF and the text edition (a new user's trial). A PDF or text file of a folder whose text
the folder's HTML pages hold (:data:`MIN_COVERED` of its sampled passages, at least
:data:`MIN_SAMPLES` of them) is an edition of those pages: it is not indexed, and the ingest
names it, as it names a page's source copy; named on the command line, it is indexed.

Text is compared as shingles: runs of :data:`PIECES` pieces of its letters and digits, spaces
and punctuation dropped and cut after each ``e``, so the words a PDF's text extraction glues
together (dblatex's "thepackage") match the page's; a quarter of them is kept, chosen by
their hash, so both sides keep the same ones. Over /usr/share/doc the editions hold 81-99 %
of their passages in their HTML pages (the Debian Reference's text 81 %, its PDF 87 %); the
other files of those folders at most 65 % (nettle's README, which its manual's page quotes),
most none.
"""

from __future__ import annotations

import os
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from citewise.config import LimitSettings
from citewise.ingest.registry import format_of, inner_path, sample_text
from citewise.types import ParsedDocument

PIECES = 8
SAMPLE_MOD = 4
MIN_COVERED = 0.75
MIN_SAMPLES = 100
SPREAD = 0.05  # of an edition's sample on a page: the page is one it holds
SAMPLE_PAGES = 12  # pages of a PDF read to decide (its middle: not its contents or index)

_NOT_WORD = re.compile(r"[^a-z0-9]+")
_PIECE_END = re.compile(r"(?<=e)")


def shingles(text: str) -> set[int]:
    """The sampled shingles of ``text`` (see the module docstring)."""
    pieces = _PIECE_END.split(_NOT_WORD.sub("", text.lower()))
    out: set[int] = set()
    for start in range(len(pieces) - PIECES + 1):
        key = zlib.crc32("".join(pieces[start:start + PIECES]).encode())
        if key % SAMPLE_MOD == 0:
            out.add(key)
    return out


def other_editions(pages: Sequence[tuple[Path, ParsedDocument]], files: Iterable[Path],
                   limits: LimitSettings) -> dict[Path, Path]:
    """The PDF and text files among ``files`` that are an edition of ``pages``, with the page
    each opens as (:func:`format_editions`); a file that fails to read is the real pass's
    to report."""
    if not pages:
        return {}
    others = []
    for path in files:
        if format_of(inner_path(path)) in ("pdf", "text"):
            try:
                others.append((path, sample_text(path, limits, SAMPLE_PAGES)))
            except Exception:  # pypdf raises many types on damaged input
                continue
    return format_editions(pages, others) if others else {}


def format_editions(pages: Sequence[tuple[Path, ParsedDocument]],
                    others: Iterable[tuple[Path, str]]) -> dict[Path, Path]:
    """``{file: page}`` for each of ``others`` (a file and its sampled text) that is an
    edition of ``pages`` (the HTML pages that stay indexed), with the page a reader of the
    edition would open first (:func:`_first_page`). The pages are read only when a file is
    long enough to be one."""
    sampled = {path: keys for path, text in others
               if len(keys := shingles(text)) >= MIN_SAMPLES}
    if not sampled:
        return {}
    held: dict[int, Path] = {}
    for path, parsed in pages:
        for key in shingles("\n".join(block.text for block in parsed.blocks)):
            held.setdefault(key, path)
    out: dict[Path, Path] = {}
    for path, keys in sampled.items():
        found = [held[key] for key in keys if key in held]
        if len(found) >= MIN_COVERED * len(keys):
            out[path] = _first_page(Counter(found), {p: len(d.blocks) for p, d in pages})
    return out


def _first_page(found: Counter[Path], pages: Mapping[Path, int]) -> Path:
    """The page holding most of an edition's sample, or, when it spreads over several
    (:data:`SPREAD` of it or more on each), their folder's ``index`` page if there is one:
    a whole manual's PDF is the edition of the manual, not of the page that happens to hold
    most of the pages sampled. ``pages``: each page's number of blocks."""
    many = [path for path, n in found.items() if n >= SPREAD * found.total()]
    if len(many) > 1:
        folder = Path(os.path.commonpath([str(p.parent) for p in many]))
        index = [p for p in pages if p.parent == folder and p.name.lower().startswith("index.")]
        if index:
            return min(index, key=lambda p: (-found[p], -pages[p]))  # the book's contents,
            # not a chooser of languages and formats (the Debian Reference's index.html)
    return found.most_common(1)[0][0]
