"""Pages a documentation build ships twice, and pages that are not content.

mdBook writes its first chapter twice, as ``index.html`` and as the chapter's own page
(``what-is-rustdoc.html`` in rustdoc's book; the embedded book's ``index.html`` and
``intro/index.html``); rust-by-example's ``es/`` and ``ja/`` trees hold English pages nobody has
translated yet. Indexed as they are, each fact is in the index twice, two passages of the same
text compete for one answer's context, and a citation may open the copy. Of pages with the
same title, text and file metadata, one is kept (:func:`duplicate_pages` says which); the
others are skipped and reported. Of many pages of a folder with one text under different
titles (a retired edition's placeholders: :func:`placeholder_pages`), one is kept too.

A site's not-found page (``404.html``, as mdBook, MkDocs and Sphinx's notfound extension write
it) is what a server shows for a broken link: "Document not found (404)" is not an answer to
anything (:func:`is_not_found_page`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from citewise.ingest.builder import TITLE_SEPARATORS
from citewise.ingest.registry import inner_path
from citewise.types import ParsedDocument

NOT_FOUND_PAGES = frozenset({"404.html", "404.htm", "404.xhtml"})


def is_not_found_page(path: Path) -> bool:
    """Whether ``path`` is a site's not-found page (``404.html``, gzipped or not)."""
    return inner_path(path).name.lower() in NOT_FOUND_PAGES


_VIEWCODE = ("source code for ", "all modules for which code is available")


def is_highlighted_source(path: Path, parsed: ParsedDocument) -> bool:
    """Whether ``parsed`` is a page of Sphinx's highlighted source (its ``viewcode``
    extension's ``_modules/``: "Source code for django.http.request"): a new user's index of
    Django's documentation held 153 such pages, 26 % of its chunks, and cited Django's code
    as answers, opened at the top of 15,000 characters of source."""
    heading = next((b.text for b in parsed.blocks if b.kind == "heading"), "")
    return "_modules" in path.parts[:-1] and heading.lower().startswith(_VIEWCODE)


LONG_PAGE = 1_000
"""Characters of text from which two pages with the same text and metadata are copies
whatever their titles: rustdoc writes a re-exported type's page twice, titled by each
module ("HashMap in std::collections", "… in std::collections::hash_map"), and a new user's
answer cited both (7 such pairs in std::collections). Shorter pages must share their title
too."""


def duplicate_pages(pages: Sequence[tuple[Path, ParsedDocument]]) -> dict[Path, Path]:
    """``{duplicate: kept}`` among ``pages`` with the same text and metadata but the
    language they declare, and the same title unless the text is :data:`LONG_PAGE` or
    longer (pages without text are never duplicates). The kept page of a
    group is the one a reader is sent to: not an ``index.html`` (mdBook's copy of its first
    chapter) if another is, then one named as its title, then the shallowest path
    (``std/arc.html`` before ``es/std/arc.html``), then the first (:func:`_preference`)."""
    groups: dict[tuple[str, str, str], list[Path]] = {}
    for path, parsed in pages:
        if parsed.text.strip():
            said = {k: v for k, v in parsed.metadata.items() if k != "lang"}  # an
            title = parsed.title if len(parsed.text) < LONG_PAGE else ""  # untranslated
            key = (title, parsed.text, repr(sorted(said.items())))  # copy
            groups.setdefault(key, []).append(path)
    out: dict[Path, Path] = {}
    titles = {path: parsed.title for path, parsed in pages}
    for paths in groups.values():
        kept = min(paths, key=lambda p: _preference(p, titles[p]))
        out.update({p: kept for p in paths if p != kept})
    return out


def _preference(path: Path, title: str) -> tuple[bool, bool, int, str]:
    """Not an ``index.html``, then a page named as its title or a part of it after the
    site's name (npm ships its package.json page twice, as ``package-json.html``, the page
    its site publishes, and ``npm-json.html``; every citation linked the second), then the
    shallowest, the first."""
    stem = inner_path(path).stem
    names = {_named(part) for part in (title, *TITLE_SEPARATORS.split(title))}
    return (stem.lower() == "index", _named(stem) not in names, len(path.parts),
            path.as_posix())



def _named(text: str) -> str:
    """``text`` as a file name is written from a title: "package.json" is "package-json"."""
    return re.sub(r"[\W_]+", "-", text.casefold()).strip("-")


MIN_PLACEHOLDERS = 5
"""Pages with one body text from which they may be placeholders (:func:`placeholder_pages`).
The Rust book's retired editions are groups of 57, 101 and 101; below 5, a few pages left
in cost little, and a folder's few pages with one text may be real ones (two of
rust-by-example's untranslated ``es/`` pages under Spanish titles fill their folders; the
unstable book's variables without documentation would, in a folder of their own)."""
PLACEHOLDER_SHARE = 0.9
"""Of the pages of the folders they are in, placeholders are at least this share (the
measurements: :func:`placeholder_pages`)."""


def placeholder_pages(pages: Sequence[tuple[Path, ParsedDocument]],
                      readers: Mapping[Path, str] | None = None) -> dict[Path, Path]:
    """``{placeholder: kept}``: pages whose body (the text less its headings) and metadata
    but the language are the same, :data:`MIN_PLACEHOLDERS` or more of them and at least
    :data:`PLACEHOLDER_SHARE` of ``pages`` in their folders. The Rust book ships its retired
    editions as 259 pages (of the 370 documents its folder gave), each its old chapter's
    heading over "The second edition of the book is no longer distributed with Rust's
    documentation…": a new user's first two hits for "Rc reference counted smart pointer",
    7 of the first 8 for "Are iterators lazy in Rust?". The kept page is the first in path
    order, one per set of ``readers`` (a page's sidecar tenant and groups), so no reader
    loses the text to a page they cannot read.

    A count alone would drop real pages. Measured over this machine's HTML docs (Rust's
    book, rust-by-example, reference, rustc, edition-guide, nomicon, embedded-book,
    unstable-book, error_codes, rustdoc, clippy, style-guide, std, alloc, proc_macro, test,
    std_detect, core; /usr/share/doc's borgbackup, libffi, libxslt, valgrind; docs-httpx's
    one HTML page), the groups of 3 or more with one body under several titles are the
    book's 57, 101 and 101 placeholders, each 100% of its folder, and, kept: the unstable
    book's features and variables named by their titles (66 "This feature has no tracking
    issue…", 13% of ``library-features/``; 24 "This feature is internal to the Rust
    compiler…", 3%; 16 "This environment variable has no documentation…", 73% of its
    folder; five groups of 3-4 sharing a tracking issue, 1%), valgrind's 5 manuals' title
    pages (release and copyright, 12%) and one rust-by-example page in 3 languages (13%).
    The others are pairs: a type re-exported under two module paths (488 in core, 121 in
    std, 5 in test, 1 in alloc: at most 6% of their folders), rust-by-example's untranslated
    pages (116, some filling their folders), the unstable book's (16), borg's index and
    introduction."""
    groups: dict[tuple[str, str], list[Path]] = {}
    for path, parsed in pages:
        body = "\n\n".join(b.text for b in parsed.blocks if b.kind != "heading")
        if body.strip():
            said = {k: v for k, v in parsed.metadata.items() if k != "lang"}
            groups.setdefault((body, repr(sorted(said.items()))), []).append(path)
    in_folder = Counter(path.parent for path, _ in pages)
    who = readers or {}
    out: dict[Path, Path] = {}
    for paths in groups.values():
        around = sum(in_folder[folder] for folder in {p.parent for p in paths})
        if len(paths) < MIN_PLACEHOLDERS or len(paths) < PLACEHOLDER_SHARE * around:
            continue
        kept: dict[str, Path] = {}  # readers: their first page
        for path in sorted(paths, key=Path.as_posix):
            first = kept.setdefault(who.get(path, ""), path)
            if first != path:
                out[path] = first
    return out


def repeated_pages(pages: Sequence[tuple[Path, ParsedDocument]],
                   readers: Mapping[Path, str] | None = None) -> dict[Path, Path]:
    """``{page: kept}``: :func:`duplicate_pages`, then :func:`placeholder_pages` among the
    pages that stay; a duplicate of a placeholder is mapped to the placeholder kept (the
    book's ``second-edition/index.html`` is its ``foreword.html``, a placeholder)."""
    twins = duplicate_pages(pages)
    stubs = placeholder_pages([(p, d) for p, d in pages if p not in twins], readers)
    return {**{p: stubs.get(k, k) for p, k in twins.items()}, **stubs}


MIN_EDITION_BLOCKS = 50
"""A single-page edition has at least this many passages (:func:`single_page_editions`)."""
MIN_EDITION_SOURCES = 3
MAX_OWN_SHARE = 0.02
MAX_OWN_PROSE_SHARE = 0.001
MANY_SOURCES = 20
"""A page repeating this many pages or more is a site's edition even with paragraphs of its
own above its second heading: its introduction (SQLite's ``capi3ref.html``, its 350 C API
pages again, says "This same content is also available split out into lots of small
pages": two own paragraphs of 1,322 passages kept it, 1,300 chunks copying the C API
pages). A guide's next version repeats a few versions, never this many."""
_MIN_PASSAGE = 40  # characters: shorter blocks ("Returns: <string>") repeat by chance


def single_page_editions(pages: Sequence[tuple[Path, ParsedDocument]],
                         chrome: frozenset[str] = frozenset()) -> list[Path]:
    """The pages that repeat the others whole: a single-page edition of the site (Node's API
    docs ship ``all.html``, every module page again; indexed, it was half the index, doubled
    the ingest, and took 16 of 150 search hits from the module pages, some linking into an
    8 MB page). A page is one when it has :data:`MIN_EDITION_BLOCKS` or more passages (text,
    lists, tables, code of 40 characters or more, not the site's ``chrome``), all but
    :data:`MAX_OWN_SHARE` of them on :data:`MIN_EDITION_SOURCES` or more smaller pages that
    stay indexed, and at most :data:`MAX_OWN_PROSE_SHARE` of them paragraphs of its own
    (all.html: a menu and one paragraph rendered apart of its 11,096; a page of under 1,000
    passages, none). A guide's next version adds a paragraph, an overview page its own
    words: both stay (a review's versioned guide lost its newest version's feature)."""
    passages = [{b.text: b.kind for b in parsed.blocks if b.kind != "heading"
                 and len(b.text) >= _MIN_PASSAGE and b.text not in chrome}
                for _, parsed in pages]
    intros = [_intro(parsed) for _, parsed in pages]
    kept_at: dict[str, int] = {}  # a passage: the first page that stays and holds it
    out: list[int] = []
    for index in sorted(range(len(pages)), key=lambda i: len(passages[i])):
        texts = passages[index]
        sources = {kept_at[t] for t in texts if t in kept_at
                   and len(passages[kept_at[t]]) < len(texts)}
        own = [(t, kind) for t, kind in texts.items() if t not in kept_at
               or len(passages[kept_at[t]]) >= len(texts)]
        prose = [t for t, kind in own if kind == "text"
                 and not (len(sources) >= MANY_SOURCES and t in intros[index])]
        if len(texts) >= MIN_EDITION_BLOCKS and len(sources) >= MIN_EDITION_SOURCES and \
                len(own) <= MAX_OWN_SHARE * len(texts) and \
                len(prose) <= MAX_OWN_PROSE_SHARE * len(texts):
            out.append(index)
            continue
        for text in texts:
            kept_at.setdefault(text, index)
    return [pages[index][0] for index in sorted(out)]  # in the batch's order


def _intro(parsed: ParsedDocument) -> set[str]:
    """The texts above the page's second heading (none when it has fewer than two)."""
    heads = [i for i, b in enumerate(parsed.blocks) if b.kind == "heading"][:2]
    return {b.text for b in parsed.blocks[:heads[1]]} if len(heads) == 2 else set()
