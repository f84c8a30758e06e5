"""Picklable work units: what a worker process (or Ray actor) needs to load one document.

:func:`citewise.sources.file_sources` builds ``Pending`` items whose ``load`` is a picklable
:class:`~citewise.sources.FileLoad` (path, limits, metadata), so the worker reads and parses
the file itself. Any other ``Pending`` whose ``load`` does not pickle (e.g. a BEIR row's
lambda) is loaded in the main process first and shipped as parsed text (:func:`shippable`).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from citewise.indexing import Outcome, Pending
from citewise.sources import FileLoad
from citewise.types import ParsedDocument


@dataclass(frozen=True)
class Loaded:
    """A document the main process already loaded (its source could not be pickled)."""

    parsed: ParsedDocument

    def __call__(self) -> ParsedDocument:
        return self.parsed


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
    from citewise.indexing import load_failure

    try:
        parsed = item.load()
    except Exception as exc:
        return load_failure(item, exc)
    return Pending(item.label, item.doc_id, Loaded(parsed))
