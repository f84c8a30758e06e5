"""Picklable work units: what a worker process (or Ray actor) needs to load one document.

:func:`citewise.sources.file_sources` builds ``Pending`` items around closures, which cannot
cross a process boundary. :func:`file_units` builds the same items (same labels, doc ids and
metadata precedence) with a picklable ``load``: a :class:`FileLoad` holding the path, limits
and metadata, so the worker reads and parses the file itself. Any other ``Pending`` whose
``load`` does not pickle (e.g. a BEIR row's lambda) is loaded in the main process first and
shipped as parsed text (:func:`shippable`).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.config import LimitSettings
from citewise.indexing import Outcome, Pending
from citewise.sources import _file_loader, discover
from citewise.types import ParsedDocument


@dataclass(frozen=True)
class FileLoad:
    """Load and parse one file, merging metadata as :mod:`citewise.sources` does
    (batch defaults < the file's own metadata < its sidecar line)."""

    path: Path
    limits: LimitSettings
    defaults: Mapping[str, Any] = field(default_factory=dict)
    side: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self) -> ParsedDocument:
        return _file_loader(self.path, self.limits, self.defaults, self.side)()


@dataclass(frozen=True)
class Loaded:
    """A document the main process already loaded (its source could not be pickled)."""

    parsed: ParsedDocument

    def __call__(self) -> ParsedDocument:
        return self.parsed


def file_units(paths: Sequence[str | Path], limits: LimitSettings,
               defaults: Mapping[str, Any] | None = None,
               sidecar: Mapping[str, Mapping[str, Any]] | None = None) -> list[Pending]:
    """Like :func:`citewise.sources.file_sources`, with picklable ``load`` callables."""
    sidecar = sidecar or {}
    items = []
    for root, path in discover(paths):
        rel = path.relative_to(root).as_posix()
        side = dict(sidecar.get(rel) or {})
        doc_id = str(side.get("doc_id") or rel)
        side.update(sidecar.get(doc_id) or {})
        items.append(Pending(label=str(path), doc_id=doc_id,
                             load=FileLoad(path, limits, dict(defaults or {}), side)))
    return items


def shippable(item: Pending) -> Pending | Outcome:
    """``item`` itself when it pickles; else loaded here and wrapped in :class:`Loaded`
    (a load failure becomes the same ``failed`` outcome the serial path reports)."""
    if isinstance(item.load, FileLoad | Loaded):
        return item
    try:
        pickle.dumps(item.load)
        return item
    except Exception:  # lambdas, closures, open handles: load here instead
        pass
    from citewise.parallel.worker import load_failure

    try:
        parsed = item.load()
    except Exception as exc:
        return load_failure(item, exc)
    return Pending(item.label, item.doc_id, Loaded(parsed))
