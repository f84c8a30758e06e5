"""Where documents come from: files on disk (with sidecar metadata) and BEIR corpora.

Metadata precedence, most specific last: batch defaults (CLI flags) < the file's own
metadata (front matter, ``<meta>``) < the sidecar line for that file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.config import LimitSettings
from citewise.errors import CitewiseError, ConfigError
from citewise.indexing import Pending
from citewise.ingest import SUPPORTED_SUFFIXES, load_file
from citewise.ingest.boilerplate import SiteProfile, profile, strip
from citewise.types import Block, ParsedDocument

HTML_SUFFIXES = (".html", ".htm")


def discover(paths: Sequence[str | Path]) -> list[tuple[Path, Path]]:
    """``(root, file)`` pairs: a directory yields its supported files (recursively, hidden
    ones skipped, sorted); a file is its own entry with its parent as root."""
    found: list[tuple[Path, Path]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                rel = f.relative_to(path)
                if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES and not any(
                        part.startswith(".") for part in rel.parts):
                    found.append((path, f))
        elif path.is_file():
            found.append((path.parent, path))
        else:
            raise ConfigError(f"{raw}: no such file or directory; check the path")
    return found


def _mtime_iso(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).isoformat(timespec="seconds")


def file_sources(paths: Sequence[str | Path], limits: LimitSettings,
                 defaults: Mapping[str, Any] | None = None,
                 sidecar: Mapping[str, Mapping[str, Any]] | None = None,
                 base_url: str | None = None) -> list[Pending]:
    """One :class:`Pending` per file; the doc_id is the path relative to its root (POSIX)
    unless the sidecar or front matter names one. See :func:`file_batch`."""
    return file_batch(paths, limits, defaults, sidecar, base_url).items


@dataclass
class FileBatch:
    """The files of one ingest: ``items`` to index, ``redirects`` (``(path, target)``: redirect
    stub pages, not indexed), the boilerplate found per root (``sites``)."""

    items: list[Pending]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    sites: dict[str, SiteProfile] = field(default_factory=dict)


def link_for(base_url: str | None, path: Path, rel: str) -> str:
    """The link a citation opens: ``base_url`` + the path relative to the ingested folder, or
    ``base_url`` as a template with ``{path}`` (``guide/a.md``) / ``{stem}`` (``guide/a``);
    without a base URL, the file's absolute ``file://`` URI."""
    if not base_url:
        return path.resolve().as_uri()
    if "{path}" in base_url or "{stem}" in base_url:
        stem = rel.rsplit(".", 1)[0] if "." in rel.rsplit("/", 1)[-1] else rel
        return base_url.replace("{path}", rel).replace("{stem}", stem)
    return f"{base_url.rstrip('/')}/{rel}"


def file_batch(paths: Sequence[str | Path], limits: LimitSettings,
               defaults: Mapping[str, Any] | None = None,
               sidecar: Mapping[str, Mapping[str, Any]] | None = None,
               base_url: str | None = None) -> FileBatch:
    """The :class:`FileBatch` of ``paths``: HTML pages are read once ahead to find each
    root's boilerplate and its redirect stubs (:mod:`citewise.ingest.boilerplate`)."""
    sidecar = sidecar or {}
    found = discover(paths)
    batch = FileBatch(items=[])
    stubs: set[Path] = set()
    for root in dict.fromkeys(r for r, _ in found):
        site, redirects = survey([f for r, f in found if r == root], limits)
        batch.sites[root.as_posix()] = site
        for path, target in redirects:
            stubs.add(path)
            batch.redirects.append((path.relative_to(root).as_posix(), target))
    for root, path in found:
        if path in stubs:
            continue
        rel = path.relative_to(root).as_posix()
        side = dict(sidecar.get(rel) or {})
        doc_id = str(side.get("doc_id") or rel)
        side.update(sidecar.get(doc_id) or {})
        site = batch.sites.get(root.as_posix())
        batch.items.append(Pending(label=str(path), doc_id=doc_id, load=FileLoad(
            path, limits, dict(defaults or {}), side, link_for(base_url, path, rel),
            None if site is None or site.empty else site, bool(base_url))))
    return batch


def survey(files: Sequence[Path], limits: LimitSettings,
           ) -> tuple[SiteProfile, list[tuple[Path, str]]]:
    """Boilerplate and redirect stubs among the HTML ``files`` of one root (files that fail
    to load are left to the real pass, which reports them)."""
    pages, redirects = [], []
    for path in files:
        if path.suffix.lower() not in HTML_SUFFIXES:
            continue
        try:
            parsed = load_file(path, limits)
        except CitewiseError:
            continue
        if "redirect_to" in parsed.metadata:
            redirects.append((path, str(parsed.metadata["redirect_to"])))
        else:
            pages.append(parsed)
    return profile(pages), redirects


@dataclass(frozen=True)
class FileLoad:
    """Load and parse one file, merging metadata (batch defaults < the file's own metadata <
    its sidecar line; an explicit ``--base-url`` link beats the page's own canonical URL),
    and remove its site's boilerplate. A picklable value, so a worker process can run it
    (:mod:`citewise.parallel`)."""

    path: Path
    limits: LimitSettings
    defaults: Mapping[str, Any] = field(default_factory=dict)
    side: Mapping[str, Any] = field(default_factory=dict)
    url: str | None = None
    site: SiteProfile | None = None
    url_wins: bool = False

    def __call__(self) -> ParsedDocument:
        parsed = load_file(self.path, self.limits)
        if self.site is not None:
            parsed = strip(parsed, self.site)
        url = self.url or self.path.as_posix()
        meta = {"_file_mtime": _mtime_iso(self.path), "source_url": url,
                **self.defaults, **parsed.metadata,
                **({"source_url": url} if self.url_wins else {}), **self.side}
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
