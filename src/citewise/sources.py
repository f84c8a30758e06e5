"""Where documents come from: files on disk (with sidecar metadata) and BEIR corpora.

Metadata precedence, most specific last: batch defaults (CLI flags) < the file's own
metadata (front matter, ``<meta>``) < the sidecar line for that file; except the ACL, which
the operator decides (:mod:`citewise.ingest.precedence`: the tenant never comes from the file,
its groups only narrow the operator's unless ``trust_file_acl``).

A sidecar line names a file by its path relative to the ingest root or to the current
directory (exact, case-sensitive), or a document by its ``doc_id`` (matched after front matter
is read); :class:`~citewise.ingest.sidecar.SidecarMatch` reports every line that matched
no document, or several.
Which files a folder holds is :mod:`citewise.ingest.walk`'s (:func:`discover`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from citewise.config import LimitSettings
from citewise.errors import ConfigError
from citewise.indexing import Pending
from citewise.ingest import inner_path, load_bytes, load_file
from citewise.ingest.boilerplate import SiteProfile, strip
from citewise.ingest.editions import exposed_note
from citewise.ingest.hand_readers import READERS_FROM, WIDER_READERS
from citewise.ingest.ids import from_common, id_prefixes, link_prefixes
from citewise.ingest.info_parts import changed_at, without_info_parts
from citewise.ingest.neighbours import chrome_only, is_page, neighbours
from citewise.ingest.precedence import merge_metadata
from citewise.ingest.sidecar import SidecarMatch
from citewise.ingest.source_copies import is_fragment, source_copies
from citewise.ingest.survey import survey
from citewise.ingest.walk import discover
from citewise.ingest_report import OWN_LINK
from citewise.source_claims import UNDELETE
from citewise.types import Block, ParsedDocument


def _mtime_iso(path: Path) -> str:
    """When ``path`` last changed (a split Info manual: it or a part, :func:`changed_at`)."""
    return datetime.fromtimestamp(changed_at(path), tz=UTC).isoformat(timespec="seconds")


def file_sources(paths: Sequence[str | Path], limits: LimitSettings,
                 defaults: Mapping[str, Any] | None = None,
                 sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                 base_url: str | None = None, **options: Any) -> list[Pending]:
    """One :class:`Pending` per file; the doc_id is the path relative to its root (POSIX)
    unless the sidecar or front matter names one. See :func:`file_batch` (``options``)."""
    return file_batch(paths, limits, defaults, sidecar, base_url, **options).items


@dataclass
class FileBatch:
    """The files of one ingest: ``items`` to index, ``redirects`` (``(path, target)``: redirect
    stub pages, not indexed), ``copies`` (``(path, page)``: a page's source copy, not indexed,
    :mod:`citewise.ingest.source_copies`), ``noindex`` (pages marked so, and 404 pages, not
    indexed: :class:`Survey`), ``duplicates`` (``(path, page)``: a page with the same text as
    ``page``, not indexed: :mod:`citewise.ingest.duplicates`), the boilerplate found per root
    and readers (``sites``: :class:`Survey`)."""

    items: list[Pending]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    copies: list[tuple[str, str]] = field(default_factory=list)
    noindex: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    sites: dict[tuple[str, str], SiteProfile] = field(default_factory=dict)
    languages: dict[str, str] = field(default_factory=dict)  # page id: its <html lang>
    parts: list[tuple[str, str]] = field(default_factory=list)
    """``(part id, manual id)``: parts of split Info manuals, read with their manual, which
    is in the batch and lists them (:func:`~citewise.ingest.info_parts.without_info_parts`)."""
    part_files: dict[str, Path] = field(default_factory=dict)  # part id: its file


def link_for(base_url: str | None, path: Path, rel: str) -> str:
    """The link a citation opens: ``base_url`` + the path relative to the ingested folder, or
    ``base_url`` as a template with ``{path}`` (``guide/a.md``) / ``{stem}`` (``guide/a``);
    without a base URL, the file's absolute ``file://`` URI. The path is percent-encoded
    (setuptools' ``python 2 sunset.rst`` links as ``python%202%20sunset.html``: a space ends
    a link in a terminal; a ``#`` or ``?`` in a file name would start its fragment or query)."""
    if not base_url:
        return path.resolve().as_uri()
    if "{path}" in base_url or "{stem}" in base_url:
        plain = inner_path(Path(rel)).as_posix()  # "guide.md.gz" links as "guide"
        stem = plain.rsplit(".", 1)[0] if "." in plain.rsplit("/", 1)[-1] else plain
        return base_url.replace("{path}", quote(rel)).replace("{stem}", quote(stem))
    if inner_path(Path(rel)).suffix.lower() in (".html", ".htm"):  # a page Debian gzipped
        rel = inner_path(Path(rel)).as_posix()  # is published as a page: a new user's 23
    return f"{base_url.rstrip('/')}/{quote(rel)}"  # links to BIND's changelog.html.gz 404'd


def file_batch(paths: Sequence[str | Path], limits: LimitSettings,
               defaults: Mapping[str, Any] | None = None,
               sidecar: Mapping[str, Mapping[str, Any]] | None = None,
               base_url: str | None = None, *, trust_file_acl: bool = False,
               wider_readers: bool = False, undelete: bool = False,
               follow_symlinks: bool = False, notes: list[str] | None = None,
               match: SidecarMatch | None = None,
               skipped: list[Path] | None = None, id_prefix: str = "",
               exclude: Sequence[str] = ()) -> FileBatch:
    """The :class:`FileBatch` of ``paths``: HTML pages are read once ahead to find each
    root's boilerplate, its redirect stubs and its pages marked noindex (:func:`survey`); a
    page's source copy (Sphinx's ``_sources``) is left out when the page is listed too. Pass
    ``match`` (a :class:`SidecarMatch` on ``sidecar``) to learn which sidecar lines matched;
    ``trust_file_acl``/``follow_symlinks``: see :mod:`citewise.ingest.precedence` and
    :func:`discover` (``skipped``: unsupported files of a folder). ``id_prefix`` goes before
    each doc_id taken from a path (``borg/`` + ``index.html``), so two folders' files with
    the same relative path are two documents; a batch of several folders puts each
    folder's path before its files' ids (after ``id_prefix``: :func:`id_prefixes`), and
    before their paths under ``base_url`` (:func:`link_prefixes`): a new user's ``ingest
    rustc edition-guide --base-url https://doc.rust-lang.org/`` linked every citation
    without its book's folder (``…/codegen-options/index.html``, a 404). The paths in
    ``batch``'s lists are the ids' paths."""
    match = match or SidecarMatch(sidecar or {})
    found = discover(paths, follow_symlinks=follow_symlinks, notes=notes,
                     skipped=skipped, exclude=exclude)
    batch = FileBatch(items=[])
    named = {Path(p) for p in paths if Path(p).is_file()}
    prefixes, links = id_prefixes(paths, id_prefix), link_prefixes(paths)
    cwd = Path.cwd()
    roots_of: dict[Path, list[Path]] = {}
    for root, path in found:
        roots_of.setdefault(path, []).append(root)
    found = [(root, path) for root, path in dict.fromkeys(found)  # a file under two roots:
             if root == max(roots_of[path], key=lambda r: len(r.parts))]  # once, innermost
    found, parts, part_files = without_info_parts(found, prefixes, notes)
    batch.parts.extend(parts)
    batch.part_files.update(part_files)
    where = {(root, path): (path.relative_to(root).as_posix(),
                            Path(os.path.relpath(path.absolute(), cwd)).as_posix(),
                            tuple(path.relative_to(r).as_posix() for r in roots_of[path]
                                  if r != root)  # a sidecar line may name it from any root
                            + from_common(root, path, links))  # (the reviews: one listing
             for root, path in found}  # lost the other's line)
    readers = {key: match.readers(*at, prefixes[key[0]] + at[0])
               for key, at in where.items()}
    stubs, twins = _left_out(found, named, limits, batch, prefixes, readers, notes)
    listed = []
    for root, path in found:
        if path in stubs:
            continue
        rel, from_cwd, others = where[root, path]
        side = match.for_file(rel, from_cwd, others)
        doc_id = str(side.get("doc_id") or prefixes[root] + rel)
        side.update(match.by_doc_id.get(doc_id) or {})
        listed.append((root, path, rel, doc_id, side))
    entries = {entry[1]: entry for entry in listed}
    listed = [entry for entry in listed
              if not _twin(entry, twins, entries, batch, prefixes)]
    known = {doc_id for *_, doc_id, _ in listed}
    floating = {k: v for k, v in match.by_doc_id.items() if k not in known}
    for root, path, rel, doc_id, side in listed:
        site = batch.sites.get((root.as_posix(), readers[root, path]))
        batch.items.append(Pending(label=str(path), doc_id=doc_id, load=FileLoad(
            path, limits, dict(defaults or {}), side, by_doc_id=floating,
            trust_file_acl=trust_file_acl, wider_readers=wider_readers, undelete=undelete,
            rel=rel,
            url=link_for(base_url, path, links[root] + rel),
            site=None if site is None or site.empty else site, url_wins=bool(base_url),
            within=None if follow_symlinks or path in named else root.resolve(),
            follow_symlinks=follow_symlinks)))
    return batch


def _twin(entry: tuple[Any, ...], twins: Mapping[Path, Path],
          entries: Mapping[Path, tuple[Any, ...]], batch: FileBatch,
          prefixes: Mapping[Path, str]) -> bool:
    """Whether the listed ``entry`` (root, path, rel, doc_id, sidecar metadata) is a
    duplicate page to leave out (listed in ``batch.duplicates``): one whose sidecar lines
    say the same as its kept page's, so no reader loses a page."""
    _, path, rel, _, side = entry
    kept = entries.get(twins[path]) if path in twins else None
    if kept is None or _readers(side) != _readers(kept[4]):
        return False
    batch.duplicates.append((prefixes[entry[0]] + rel, prefixes[kept[0]] + kept[2]))
    return True


def _readers(side: Mapping[str, Any]) -> dict[str, Any]:
    """A file's sidecar metadata without its doc_id: what two copies must agree on."""
    return {k: v for k, v in side.items() if k != "doc_id"}


def _left_out(found: Sequence[tuple[Path, Path]], named: set[Path], limits: LimitSettings,
              batch: FileBatch, prefixes: Mapping[Path, str],
              readers: Mapping[tuple[Path, Path], str], notes: list[str] | None = None
              ) -> tuple[set[Path], dict[Path, Path]]:
    """The files not to index, each listed in ``batch`` (``copies``, ``redirects``,
    ``noindex``), and each root's boilerplate in ``batch.sites``. A page marked noindex is
    indexed when it was named on its own (``named``), not found in a folder. Also returned:
    pages of a folder with the same text as another (``{page: kept}``), left to the caller,
    which knows their sidecar lines."""
    twins: dict[Path, Path] = {}
    roots = {path: root for root, path in found}
    copies = {copy: page for copy, page in source_copies(roots, named).items()
              if not is_fragment(copy, page) or not readers[roots[copy], copy]  # a fragment
              or readers[roots[copy], copy] == readers[roots[page], page]}  # a sidecar line
    # gives readers other than its page's is read; one with no line is its page's (a review)
    batch.copies = [(_rel(copy, roots, prefixes), _rel(page, roots, prefixes))
                    for copy, page in copies.items()]
    out: set[Path] = set(copies)
    for root in dict.fromkeys(r for r, _ in found):
        files = [f for r, f in found if r == root]
        pages = [f for f in files if is_page(f)]  # no folder of the batch walked this root:
        also = neighbours(pages) if pages and all(f in named for f in files) else []
        seen = survey(files, limits, also=also,
                      readers={f: readers[root, f] for f in files})
        for who, site in seen.sites.items():
            batch.sites[root.as_posix(), who] = chrome_only(site) if also else site
        for path, target in seen.redirects:
            out.add(path)
            batch.redirects.append((_rel(path, roots, prefixes), target))
        for path in seen.noindex:
            if path not in named:
                out.add(path)
                batch.noindex.append(_rel(path, roots, prefixes))
        for path, page in seen.copies.items():
            if path not in named and path not in out:  # (a .txt beside its .html: above)
                out.add(path)
                batch.copies.append((_rel(path, roots, prefixes), _rel(page, roots, prefixes)))
        for path, pages in seen.exposed.items():
            if path not in out and notes is not None:
                notes.append(exposed_note(_rel(path, roots, prefixes),
                                          [_rel(p, roots, prefixes) for p in pages]))
        twins.update({p: k for p, k in seen.duplicates.items() if p not in named})
        batch.languages.update({_rel(p, roots, prefixes): lang
                                for p, lang in seen.languages.items()})
    return out, twins


def _rel(path: Path, roots: Mapping[Path, Path], prefixes: Mapping[Path, str]) -> str:
    return prefixes.get(roots[path], "") + path.relative_to(roots[path]).as_posix()


@dataclass(frozen=True)
class FileLoad:
    """Load and parse one file, merging metadata (:mod:`citewise.ingest.precedence`:
    batch defaults < the file's own metadata < its sidecar line, the ACL decided by the
    operator; an explicit ``--base-url`` link beats the page's own canonical URL), and remove
    its site's boilerplate. ``by_doc_id``: sidecar lines keyed by a doc_id that only front
    matter may name. A picklable value, so a worker process can run it
    (:mod:`citewise.parallel`)."""

    path: Path
    limits: LimitSettings
    defaults: Mapping[str, Any] = field(default_factory=dict)
    side: Mapping[str, Any] = field(default_factory=dict)
    by_doc_id: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    trust_file_acl: bool = False
    wider_readers: bool = False  # may let more groups read it than now (hand_readers)
    undelete: bool = False  # may index it again after a `citewise delete` (source_claims)
    rel: str = ""
    url: str | None = None
    site: SiteProfile | None = None
    url_wins: bool = False
    local: bool = True
    """The file is the document's home: its path is recorded (``_file_path``) so that another
    file ingested under the same id while this one exists is refused. An upload's temporary
    copy is no home: the editor replaces the id on purpose."""
    within: Path | None = None
    """The real path of the folder the file was found in when symlinks out of it are not
    followed: the file opened must be inside it (it may have become such a symlink since)."""
    follow_symlinks: bool = False  # a split Info manual's parts may be symlinks out
    data: bytes | None = None
    """An upload's bytes, read as the file ``path`` names (never written to disk: a temporary
    copy of a restricted upload outlived a server killed while it embedded, a security
    review found, and nothing removed it)."""

    def __call__(self) -> ParsedDocument:
        parsed = load_file(self.path, self.limits, self.within,
                           follow_symlinks=self.follow_symlinks) if self.data is None \
            else load_bytes(self.data, self.path, self.limits)
        if self.site is not None:
            parsed = strip(parsed, self.site)
        side = dict(self.side)
        own_id = parsed.metadata.get("doc_id")
        if not side.get("doc_id") and own_id:
            side.update(self.by_doc_id.get(str(own_id)) or {})
        merged, notes = merge_metadata(self.defaults, parsed.metadata, side,
                                       trust_file_acl=self.trust_file_acl,
                                       label=self.rel or self.path.name)
        url = self.url or self.path.as_posix()
        changed = _mtime_iso(self.path) if self.data is None else \
            datetime.now(UTC).isoformat(timespec="seconds")
        meta = {"_file_mtime": changed, "source_url": url, **merged}
        if self.local:
            meta["_file_path"] = str(self.path.resolve())
        else:
            meta["_uploaded"] = True  # no path names it (ownership.file_of)
        if own_id and not self.side.get("doc_id"):
            meta["_own_doc_id"] = True  # the file chose its id: the operator did not
        if self.url_wins and "source_url" not in side:
            meta["source_url"] = url
        elif "source_url" not in side and parsed.metadata.get("source_url") and \
                meta.get("source_url") != url:
            meta[OWN_LINK] = str(meta["source_url"])  # the file's own (front matter, canonical)
        if notes:
            meta["_notes"] = notes
        if self.wider_readers:
            meta[WIDER_READERS] = True
        if self.undelete:
            meta[UNDELETE] = True
        meta[READERS_FROM] = "sidecar" if "groups" in side else \
            "file" if "groups" in parsed.metadata else "batch"
        return ParsedDocument(title=parsed.title, text=parsed.text, blocks=parsed.blocks,
                              metadata=meta, pages=parsed.pages, format=parsed.format)


def beir_sources(corpus: Path, meta: Mapping[str, Any]) -> Iterator[Pending]:
    """Documents of a BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text``) as one text block
    each (the chunker windows long ones)."""
    with corpus.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                doc_id, title, text = str(row["_id"]), row.get("title") or "", row["text"]
            except (json.JSONDecodeError, KeyError) as exc:
                raise ConfigError(f"{corpus} line {lineno}: not a BEIR corpus row ({exc})") from exc
            parsed = _single_block(title, text, meta)
            yield Pending(label=doc_id, doc_id=doc_id, load=lambda p=parsed: p)


def _single_block(title: str, text: str, meta: Mapping[str, Any]) -> ParsedDocument:
    text = " ".join(text.split())
    blocks = (Block(kind="text", text=text, start=0, end=len(text)),) if text else ()
    return ParsedDocument(title=title, text=text, blocks=blocks, metadata=meta, format="text")
