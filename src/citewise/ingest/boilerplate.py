"""Site boilerplate: what a generated documentation site repeats on every page.

A documentation generator wraps each page in the same chrome: the site title, a menu, a
footer, "Edit this page", a title suffix ("Timeouts - HTTPX"). The HTML loader drops the chrome
it can recognise by tag, role or class (:mod:`citewise.ingest.html`); what is left is found by
repetition across the pages of one ingest batch (:func:`profile`):

* a block (text, list, table or top-level heading; not prose under a heading,
  :func:`is_prose`) whose exact text occurs on at least
  :data:`MIN_SHARE` of the batch's pages, and on at least :data:`MIN_PAGES` of them, is
  boilerplate: it is removed from every page and from heading paths (:func:`strip`), unless
  two pages or more (:data:`MIN_TWICE_PAGES`) hold it twice or more. Chrome is drawn once
  per page; Node's API pages repeat
  "Stability: 2 - Stable", "Stability: 1 - Experimental" and "History" under each function
  that has them, and all three were dropped (from 43, 34 and 55 of its 65 pages: "Is
  node:test stable?" was answered from another page's table). Section headings of level 2
  and deeper are kept even when repeated ("Parameters", "Examples" are content), unless
  their section is left empty (mdBook's "Keyboard shortcuts" popup);
* a menu repeated on the pages of one folder only (libxslt's old site has one menu for its
  top pages, another for its ``html/`` API pages, neither on half the batch): a list or
  table whose exact text occurs on at least :data:`MIN_SHARE` of the pages of its folder,
  and on at least :data:`MIN_PAGES`, is boilerplate too, unless two pages hold it twice
  (Node's "- <string>", the type under each function). So is a banner above the first
  heading of those pages (SQLite's "SQLite C Interface", a link to the API's introduction
  atop its 350 C API pages: each was a chunk of its own). Other text repeated within a
  folder is kept: a sentence every page of an API reference repeats ("Returns 0 on
  success") is content, and so is an admonition's "Warning";
* a title prefix or suffix after a separator (`` - ``, `` — ``, `` | ``…), or a suffix in
  parentheses (Texinfo's "Simple Example (libffi: the portable foreign function interface
  library)"), shared by as many titles is cut from them.

Pages that only redirect (``redirect_to`` in their metadata) are not indexed; the ingest
report lists them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citewise.ingest.builder import SEPARATOR, TITLE_SEPARATORS
from citewise.types import Block, ParsedDocument

MIN_PAGES = 3
MIN_SHARE = 0.5
MIN_TWICE_PAGES = 2
"""Pages that must hold a repeated text twice for it to be content: one page with its footer
drawn twice (a review) kept the footer on every page."""
_PAREN_SUFFIX = re.compile(r"\s+\([^()]+\)$")


@dataclass(frozen=True)
class SiteProfile:
    """What :func:`strip` removes: ``blocks`` (exact texts), a title ``prefix``/``suffix``
    (with its separator), out of ``pages`` pages."""

    blocks: frozenset[str] = frozenset()
    headings: frozenset[str] = frozenset()  # repeated section headings (level >= 2)
    prefix: str | None = None
    suffix: str | None = None
    pages: int = 0
    notes: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.blocks or self.prefix or self.suffix)

    def within(self, whole: SiteProfile) -> SiteProfile:
        """What this profile (of the pages one set of readers reads) and ``whole`` (of the
        whole batch) both find: a text is boilerplate of a page when pages its own readers
        read repeat it, and the batch does too (:func:`citewise.ingest.survey.survey`). A title's
        prefix or suffix is the batch's, the site's name rather than a page's text: a new
        user's page restricted to a group of its own (one page: no affix of its own) was
        retitled "Unstable features - The rustdoc book" and all its chunks embedded again."""
        return replace(self, blocks=self.blocks & whole.blocks,
                       headings=self.headings & whole.headings,
                       prefix=whole.prefix, suffix=whole.suffix)


PROSE_WORDS = 12
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+(?=[A-Z0-9\"'(])")


def is_prose(text: str) -> bool:
    """Whether a text block says something: :data:`PROSE_WORDS` words or more, or two
    sentences or more of 8 words in all. Site chrome is short lines (a title, a copyright, a
    breadcrumb, "Small. Fast. Reliable. Choose any three."); a paragraph many pages repeat
    under their headings is content. A security review added three pages repeating a
    policy's "Employees must rotate their VPN password every 90 days using the self-service
    portal." and it was removed from the policy page; Knot DNS's man pages lost "Exit status
    of 0 means successful operation. Any other exit status indicates an error."."""
    if _NOTICE.search(text) is not None:  # a footer's copyright or licence, however long
        return False
    words = len(_WORD.findall(text))
    return words >= PROSE_WORDS or (words >= 8 and _SENTENCE_END.search(text) is not None)


_NOTICE = re.compile(r"^\s*(?:copyright\b|©|\(c\)\s)|\ball rights reserved\b|"
                     r"\blicensed under\b", re.IGNORECASE)
"""A copyright or licence notice: the Apache manual's footer "Copyright 2026 The Apache
Software Foundation. Licensed under the Apache License, Version 2.0." is two sentences, and
was kept on 238 of its 244 pages when prose first became content (the review of this
stop)."""


def _first_heading(parsed: ParsedDocument) -> int:
    return next((i for i, b in enumerate(parsed.blocks) if b.kind == "heading"),
                len(parsed.blocks))


def _content(block: Block, at: int, first: int) -> bool:
    """Whether ``block`` (the ``at``-th of its page, whose first heading is the ``first``-th)
    is prose under a heading: never boilerplate (:func:`is_prose`). Prose above a page's
    first heading may be a banner (the Rust book's 2018 edition's "If you came here via a
    link or web search, you may want to check out the current version …" atop each page)."""
    return block.kind == "text" and at > first and is_prose(block.text)


def _candidates(parsed: ParsedDocument) -> set[str]:
    first = _first_heading(parsed)
    return {b.text for i, b in enumerate(parsed.blocks) if b.kind != "code"
            and not (b.kind == "heading" and b.level > 1) and not _content(b, i, first)}


def _section_headings(parsed: ParsedDocument) -> set[str]:
    return {b.text for b in parsed.blocks if b.kind == "heading" and b.level > 1}


def _threshold(pages: int) -> float:
    return max(MIN_PAGES, MIN_SHARE * pages)


def _affix(titles: Sequence[str], pages: int) -> tuple[str | None, str | None]:
    suffixes: Counter[str] = Counter()
    prefixes: Counter[str] = Counter()
    for title in titles:
        seps = list(TITLE_SEPARATORS.finditer(title))
        if seps:
            suffixes[title[seps[-1].start():]] += 1
            prefixes[title[:seps[0].end()]] += 1
        paren = _PAREN_SUFFIX.search(title)
        if paren:
            suffixes[title[paren.start():]] += 1
    need = _threshold(pages)
    suffix = next((s for s, n in suffixes.most_common(1) if n >= need), None)
    prefix = next((p for p, n in prefixes.most_common(1) if n >= need), None)
    return prefix, suffix


def profile(pages: Sequence[ParsedDocument],
            folders: Sequence[str] | None = None) -> SiteProfile:
    """The boilerplate of a batch of pages (module docstring); empty below MIN_PAGES pages.
    ``folders``: each page's folder (relative to the batch's root), for the menus a folder
    repeats; without it the batch is one folder."""
    where = list(folders) if folders is not None else [""] * len(pages)
    kept = [(page, folder) for page, folder in zip(pages, where, strict=True)
            if "redirect_to" not in page.metadata]
    pages = [page for page, _ in kept]
    if len(pages) < MIN_PAGES:
        return SiteProfile(pages=len(pages))
    counts: Counter[str] = Counter()
    heads: Counter[str] = Counter()
    twice: Counter[str] = Counter()  # texts: the pages that hold them twice or more
    for page in pages:
        candidates = _candidates(page)
        counts.update(candidates)
        heads.update(_section_headings(page))
        twice.update(_twice(page, candidates))
    within = {text for text, n in twice.items() if n >= MIN_TWICE_PAGES}
    need = _threshold(len(pages))
    repeated = {text for text, n in counts.items() if n >= need and text not in within}
    for folder in set(where):
        repeated |= _folder_menus([page for page, f in kept if f == folder]) - within
    headings = frozenset(text for text, n in heads.items() if n >= need)
    prefix, suffix = _affix([p.title for p in pages], len(pages))
    return SiteProfile(frozenset(repeated), headings, prefix, suffix, len(pages))


def _twice(page: ParsedDocument, candidates: set[str]) -> set[str]:
    """The candidate texts ``page`` holds more than once."""
    seen = Counter(b.text for b in page.blocks if b.text in candidates)
    return {text for text, n in seen.items() if n > 1}


def _folder_menus(pages: Sequence[ParsedDocument]) -> set[str]:
    """The lists and tables, and the banners above the first heading, repeated on enough of
    one folder's pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update({b.text for b in page.blocks if b.kind in ("list", "table")})
        counts.update(_banners(page))
    need = _threshold(len(pages))
    return {text for text, n in counts.items() if n >= need} if len(pages) >= MIN_PAGES else set()


def _banners(page: ParsedDocument) -> set[str]:
    """The text blocks above the page's first heading (none when it has no heading)."""
    first = next((i for i, b in enumerate(page.blocks) if b.kind == "heading"), 0)
    return {b.text for b in page.blocks[:first] if b.kind == "text"}


def strip(parsed: ParsedDocument, site: SiteProfile) -> ParsedDocument:
    """``parsed`` without the boilerplate of ``site``; offsets rebuilt so that
    ``text[start:end] == block.text`` still holds. A page that would be left empty is kept
    whole (its content is what repeats, e.g. a one-page site)."""
    if site.empty:
        return parsed
    first = _first_heading(parsed)
    keep = [b.text not in site.blocks or _content(b, i, first)
            for i, b in enumerate(parsed.blocks)]
    _drop_orphan_labels(parsed.blocks, keep)
    kept = _without_empty_sections([b for b, k in zip(parsed.blocks, keep, strict=True) if k],
                                   site.headings)
    if not kept:
        return replace(parsed, title=_title(parsed.title, site))
    gone = {b.text for b in parsed.blocks if b.kind == "heading"} - {
        b.text for b in kept if b.kind == "heading"}
    blocks, parts, length = [], [], 0  # rebuilt as DocumentBuilder joins them
    for block in kept:
        if parts:
            parts.append(SEPARATOR)
            length += len(SEPARATOR)
        path = tuple(h for h in block.heading_path if h not in site.blocks and h not in gone)
        blocks.append(replace(block, start=length, end=length + len(block.text),
                              heading_path=path))
        parts.append(block.text)
        length += len(block.text)
    return replace(parsed, title=_title(parsed.title, site), text="".join(parts),
                   blocks=tuple(blocks))


_LABEL = re.compile(r"[A-Z]?[a-z]+(?: [A-Z]?[a-z]+){0,2}:?")


def _drop_orphan_labels(blocks: Sequence[Block], keep: list[bool]) -> None:
    """Mark in ``keep`` the short labels left with nothing under them: a text of at most
    three plain words (no code name, no acronym; a colon after them at most) whose next
    block was boilerplate and which the next kept block (a heading, another such label,
    the page's end) does not continue.
    rsyslog's pages end in two "See also" boxes (the site's help and contributing links):
    their contents went as boilerplate, their titles stayed (each page holds two), and 315
    of a new user's chunks ended "See also See also", 20 of them nothing else."""
    repeated = [not k for k in keep]  # boilerplate, before any label is dropped
    after: Block | None = None  # the next kept block, walking back from the page's end
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if keep[i] and block.kind == "text" and i + 1 < len(blocks) and repeated[i + 1] \
                and _LABEL.fullmatch(block.text) and (after is None or after.kind == "heading"):
            keep[i] = False
            continue
        if keep[i]:
            after = block


def _without_empty_sections(blocks: list[Block], repeated: frozenset[str]) -> list[Block]:
    """Drop repeated section headings left with no content before the next heading of the
    same or a higher level."""
    out = []
    for i, block in enumerate(blocks):
        if block.kind == "heading" and block.text in repeated:
            rest = blocks[i + 1:]
            nxt = next((b for b in rest if b.kind != "heading" or b.level <= block.level),
                       None)
            if nxt is None or nxt.kind == "heading":
                continue
        out.append(block)
    return out


def _title(title: str, site: SiteProfile) -> str:
    out = title
    if site.suffix and out.endswith(site.suffix) and len(out) > len(site.suffix):
        out = out[: -len(site.suffix)]
    if site.prefix and out.startswith(site.prefix) and len(out) > len(site.prefix):
        out = out[len(site.prefix):]
    return out.strip() or title
