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
from citewise.errors import ConfigError
from citewise.indexing import Pending
from citewise.ingest import SUPPORTED_SUFFIXES, load_file
from citewise.types import Block, ParsedDocument


def discover(paths: Sequence[str | Path],
             skipped: list[Path] | None = None) -> list[tuple[Path, Path]]:
    """``(root, file)`` pairs: a directory yields its supported files (recursively, hidden
    ones skipped, sorted); a file is its own entry with its parent as root. Files of a
    directory with an unsupported suffix are appended to ``skipped`` (when given)."""
    found: list[tuple[Path, Path]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                rel = f.relative_to(path)
                if not f.is_file() or any(part.startswith(".") for part in rel.parts):
                    continue
                if f.suffix.lower() in SUPPORTED_SUFFIXES:
                    found.append((path, f))
                elif skipped is not None:
                    skipped.append(f)
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
                 skipped: list[Path] | None = None) -> list[Pending]:
    """One :class:`Pending` per file; the doc_id is the path relative to its root (POSIX)
    unless the sidecar or front matter names one. Unsupported files go to ``skipped``."""
    sidecar = sidecar or {}
    items = []
    for root, path in discover(paths, skipped):
        rel = path.relative_to(root).as_posix()
        side = dict(sidecar.get(rel) or {})
        doc_id = str(side.get("doc_id") or rel)
        side.update(sidecar.get(doc_id) or {})
        items.append(Pending(label=str(path), doc_id=doc_id,
                             load=FileLoad(path, limits, dict(defaults or {}), side)))
    return items


@dataclass(frozen=True)
class FileLoad:
    """Load and parse one file, merging metadata (batch defaults < the file's own metadata <
    its sidecar line). A picklable value, so a worker process can run it
    (:mod:`citewise.parallel`)."""

    path: Path
    limits: LimitSettings
    defaults: Mapping[str, Any] = field(default_factory=dict)
    side: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self) -> ParsedDocument:
        parsed = load_file(self.path, self.limits)
        meta = {"_file_mtime": _mtime_iso(self.path), "source_url": self.path.as_posix(),
                **self.defaults, **parsed.metadata, **self.side}
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
