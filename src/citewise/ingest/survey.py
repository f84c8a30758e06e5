"""The read-ahead of one ingested folder's HTML pages, before any is indexed: its boilerplate
per set of readers, its redirect stubs, the pages not to index (marked noindex, 404s, a
single-page edition, Sphinx's highlighted source), pages with another's text, and the PDF or
text editions of its pages (:class:`Survey`, :func:`survey`; :func:`citewise.sources.
file_batch` acts on it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citewise.config import LimitSettings
from citewise.ingest.boilerplate import SiteProfile, profile
from citewise.ingest.duplicates import (
    is_highlighted_source,
    is_not_found_page,
    repeated_pages,
    single_page_editions,
)
from citewise.ingest.editions import other_editions
from citewise.ingest.registry import format_of, inner_path, load_file
from citewise.types import ParsedDocument


@dataclass
class Survey:
    """What the read-ahead of one root's HTML pages found: its boilerplate, per set of
    readers (``sites``: a security review's contractors-only notes, each repeating a
    sentence of a staff policy page, made that sentence boilerplate and removed it from the
    policy; a page's boilerplate is what pages its own readers read repeat), its
    redirect stubs (``(page, target)``), the pages that ask search engines not to index
    them (``<meta name="robots" content="noindex">``: mdBook's ``print.html``, the whole book
    again on one page, and its ``toc.html``), are the site's ``404.html`` or repeat its other
    pages whole (Node's ``all.html``: :func:`~citewise.ingest.duplicates.
    single_page_editions`) (``noindex``),
    and pages with the same text as another, or placeholders many pages of a folder share
    (``duplicates``, ``{page: kept}``: :func:`~citewise.ingest.duplicates.repeated_pages`)."""

    sites: dict[str, SiteProfile]
    redirects: list[tuple[Path, str]]
    noindex: list[Path]
    duplicates: dict[Path, Path] = field(default_factory=dict)
    languages: dict[Path, str] = field(default_factory=dict)  # pages' <html lang>
    copies: dict[Path, Path] = field(default_factory=dict)  # a PDF or text edition: its page
    exposed: dict[Path, list[Path]] = field(default_factory=dict)
    """PDF and text files, indexed, that hold text of pages the sidecar gives other readers."""


def survey(files: Sequence[Path], limits: LimitSettings, also: Sequence[Path] = (),
           readers: Mapping[Path, str] | None = None) -> Survey:
    """The :class:`Survey` of the HTML ``files`` of one root, and the redirect stubs among
    its reStructuredText files (Sphinx's "This page has moved"; files that fail to load are
    left to the real pass, which reports them). The pages ``also`` (a lone page's
    :func:`~citewise.ingest.neighbours.neighbours`) count for the boilerplate only; who
    may read them is not known (they are not ingested), so they count as the lone page's
    readers' pages: a short text (:func:`~citewise.ingest.neighbours.chrome_only`, 12 words
    at most) that files beside it on disk repeat is still removed from a page ingested
    alone (the review of this stop). ``readers``: who may read each file (its sidecar's
    tenant and groups, :meth:`SidecarMatch.readers`): a page's boilerplate is what both the
    batch and the pages its own readers read repeat (:meth:`SiteProfile.within`), so pages
    others read never remove a page's text; a set of readers with fewer pages than a
    profile needs keeps its repeated text."""
    pages, redirects, noindex = [], [], []
    for path in [*files, *also]:
        fmt = format_of(inner_path(path))
        if fmt not in ("html", "rst"):
            continue
        try:
            parsed = load_file(path, limits)
        except Exception:  # any failure is the real pass's to report, per file: a loader's
            continue  # LookupError here stopped a robustness review's whole batch
        if "redirect_to" in parsed.metadata:
            redirects.append((path, str(parsed.metadata["redirect_to"])))
        elif fmt == "rst":
            continue  # only an HTML site has chrome and copies to find
        elif parsed.metadata.get("robots") == "noindex" or is_not_found_page(path) \
                or is_highlighted_source(path, parsed):
            noindex.append(path)
        else:
            pages.append((path, parsed))
    everyone, editions = _profile(pages)
    pages = [(path, p) for path, p in pages if path not in editions]
    who = dict(readers or {})
    who.update({path: who.get(files[0], "") for path in also} if files else {})
    keys = list(dict.fromkeys(who.get(path, "") for path, _ in pages))
    sites = {key: everyone for key in keys} if len(keys) <= 1 else {
        key: _profile([(path, p) for path, p in pages if who.get(path, "") == key])[0]
        .within(everyone) for key in keys}
    extra = set(also)
    pages = [(path, p) for path, p in pages if path not in extra]
    languages = {path: str(p.metadata["lang"]) for path, p in pages if "lang" in p.metadata}
    noindex += [path for path in editions if path not in extra]
    copies, exposed = other_editions(pages, files, limits, who)
    return Survey(sites, [r for r in redirects if r[0] not in extra],
                  [n for n in noindex if n not in extra], repeated_pages(pages, who), languages,
                  copies, exposed)


def _profile(pages: list[tuple[Path, ParsedDocument]]) -> tuple[SiteProfile, list[Path]]:
    """The boilerplate of ``pages`` and the pages that repeat the others whole (an edition
    holds every page's repeated lines again: profiled without it)."""
    site = profile([p for _, p in pages], [str(path.parent) for path, _ in pages])
    editions = single_page_editions(pages, site.blocks)
    if editions:
        rest = [(path, p) for path, p in pages if path not in editions]
        site = profile([p for _, p in rest], [str(path.parent) for path, _ in rest])
    return site, list(editions)
