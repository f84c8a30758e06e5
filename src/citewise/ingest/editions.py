"""A PDF or plain-text edition of the HTML pages beside it: the same book in another format.

Debian's debian-reference-en ships its book as 14 HTML chapters, as a PDF and as a
``.txt.gz``; valgrind's, zsh's, bzip2's and fontconfig's documentation folders ship their
manual as HTML and as a PDF. Ingested as a user points at the folder, the book was indexed
three times (the copies 74 % of the index), every fact competed with its copies for an
answer's context, and a sidecar that restricted two HTML chapters left their text readable in
the PDF and the text edition (a new user's trial). A PDF or text file of a folder is an
edition of its HTML pages (:func:`format_editions`) when the pages hold :data:`MIN_COVERED`
of its sampled passages (at least :data:`MIN_SAMPLES`), at most one of its :data:`SAMPLES`
samples (pages spread over a PDF, first and last included; stretches of a text) is mostly
its own, and the sidecar gives it the pages' tenant and no group they lack: it is not
indexed, and the ingest names it, as it names a page's source copy; named on the command
line, it is indexed. A file it keeps that holds text of pages the sidecar restricts is
named in a warning (the Debian Reference's ``.txt.gz``, 3 of whose 16 samples are mostly its
own: its contents and tables, laid out as text).

Text is compared as shingles: runs of :data:`PIECES` pieces of its letters and digits, spaces
and punctuation dropped and cut after each ``e``, so the words a PDF's text extraction glues
together (dblatex's "thepackage") match the page's; a quarter of them is kept, chosen by
their hash, so both sides keep the same ones. Over /usr/share/doc, the editions found: the
Debian Reference's PDF (84 % held), valgrind's, zsh's, bzip2's, nettle's and fontconfig's
manuals in PDF, fontconfig's in text, valgrind's and zsh's FAQs in text; a review's valgrind
folder without two chapters' pages keeps the manual's PDF (2 of 16 samples its own).
"""

from __future__ import annotations

import json
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
SAMPLES = 16  # pages of a PDF, stretches of a text, read to decide
MIN_SAMPLE_KEYS = 10  # shingles a sample needs to count as mostly its own or not
EXPOSED = 0.05  # of a file's passages in pages of other readers: worth a warning
OWN_SAMPLES = 0.07  # of the samples, the most that may be mostly the file's own (one of 16)

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


Editions = tuple[dict[Path, Path], dict[Path, list[Path]]]
"""``(copies, exposed)``: each edition with the page it is named after, and each other file
holding :data:`EXPOSED` or more of its passages in pages of other readers, with those pages."""


def other_editions(pages: Sequence[tuple[Path, ParsedDocument]], files: Iterable[Path],
                   limits: LimitSettings, readers: Mapping[Path, str] | None = None
                   ) -> Editions:
    """The :data:`Editions` of ``pages`` among the PDF and text files of ``files``
    (:func:`format_editions`); a file that fails to read is the real pass's to report.
    ``readers``: who the sidecar lets read each file (its key)."""
    if not pages:
        return {}, {}
    others = []
    for path in files:
        if format_of(inner_path(path)) in ("pdf", "text"):
            try:
                others.append((path, sample_text(path, limits, SAMPLES)))
            except Exception:  # pypdf raises many types on damaged input
                continue
    return format_editions(pages, others, readers) if others else ({}, {})


def format_editions(pages: Sequence[tuple[Path, ParsedDocument]],
                    others: Iterable[tuple[Path, Sequence[str]]],
                    readers: Mapping[Path, str] | None = None) -> Editions:
    """The :data:`Editions` among ``others`` (a file and its samples: pages of a PDF,
    stretches of a text) of ``pages`` (the HTML pages that stay indexed). A file is an
    edition, named after the page a reader of it would open first (:func:`_first_page`),
    when the pages hold :data:`MIN_COVERED` of its sampled passages, no more than
    :data:`OWN_SAMPLES` of its samples are mostly its own (a PDF with chapters no page has
    is no copy: a review's valgrind folder without two chapters' pages kept the manual's PDF
    from being skipped only so), and the sidecar lets it be read by no one the pages do not
    let read them (:func:`_same_readers`). The pages are read only when a file is long
    enough to be one. A file kept that holds text of pages the sidecar gives other readers
    is ``exposed``: a chapter restricted by its page may be readable in it (the ingest
    warns)."""
    sampled = {}
    for path, samples in others:
        keys = [shingles(text) for text in samples]
        if len(whole := set().union(*keys)) >= MIN_SAMPLES:
            sampled[path] = (whole, keys)
    if not sampled:
        return {}, {}
    held: dict[int, Path] = {}
    for path, parsed in pages:
        for key in shingles("\n".join(block.text for block in parsed.blocks)):
            held.setdefault(key, path)
    acl = {path: _acl((readers or {}).get(path, ""))
           for path in {*sampled, *held.values()}}  # each key parsed once, not per passage
    copies: dict[Path, Path] = {}
    exposed: dict[Path, list[Path]] = {}
    for path, (whole, keys) in sampled.items():
        found = [held[key] for key in whole if key in held]
        own = [k for k in keys if len(k) >= MIN_SAMPLE_KEYS
               and sum(key in held for key in k) < len(k) / 2]
        if len(found) >= MIN_COVERED * len(whole) and len(own) <= OWN_SAMPLES * len(keys) \
                and _same_readers(acl[path], [acl[p] for p in set(found)]):
            copies[path] = _first_page(Counter(found), {p: len(d.blocks) for p, d in pages})
        elif (other := [p for p in found if acl[p] != acl[path]]) \
                and len(other) >= EXPOSED * len(whole):
            exposed[path] = sorted(set(other))
    return copies, exposed


def exposed_note(path: str, pages: Sequence[str]) -> str:
    """The ingest's warning for a file that holds text of pages of other readers."""
    shown = ", ".join(pages[:3]) + (", …" if len(pages) > 3 else "")
    return (f"{path} holds text of pages the sidecar lets other readers read ({shown}), and "
            "is indexed for its own readers: a restricted page's text may be readable in it. "
            "Fix: restrict it in the sidecar as the pages are, or leave it out with --exclude")


def _same_readers(edition: tuple[str, frozenset[str]],
                  pages: Sequence[tuple[str, frozenset[str]]]) -> bool:
    """Whether the sidecar gives the edition (its tenant and groups) the tenant of the
    ``pages`` and no group none of them has: skipped, a copy the sidecar gave another
    tenant or wider readers would leave them without the text (a review's PDF in another
    tenant: that tenant had nothing); one restricted like its most open pages is skipped,
    so the chapters a sidecar restricted to fewer are not readable in it."""
    tenant, groups = edition
    return {t for t, _ in pages} == {tenant} and groups <= set().union(*(g for _, g in pages))


def _acl(key: str) -> tuple[str, frozenset[str]]:
    """A sidecar readers key's tenant and groups (``""`` and the batch's, when not given)."""
    acl = json.loads(key) if key else {}
    groups = acl.get("groups")
    if isinstance(groups, str):
        groups = groups.split(",")
    return str(acl.get("tenant") or ""), frozenset(map(str, groups or ["(the batch's)"]))


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
