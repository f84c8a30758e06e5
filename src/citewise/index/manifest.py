"""The identity of an index: which embedder and chunker built it.

A query or an ingest with another embedder (or other chunking) is refused with
:class:`IndexMismatchError`, which says what differs and how to fix it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from citewise import __version__
from citewise.errors import IndexMismatchError, StoreError
from citewise.types import Manifest

IDENTITY_FIELDS = ("embedder_id", "embedder_dim", "chunker_hash")
"""The fields that must match between the configured pipeline and a stored index."""
QUERY_FIELDS = ("embedder_id", "embedder_dim")
"""What a query must match: chunking only matters when writing."""


def make_manifest(embedder_id: str, dim: int, chunk_params: Mapping[str, Any],
                  chunker_hash: str) -> Manifest:
    """A manifest for a new index built with this embedder and chunker (created now, UTC)."""
    # Imported here: citewise.index.sqlite imports this module (check_manifest & co).
    from citewise.index.sqlite.migrations import SCHEMA_VERSION

    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
        raise StoreError(f"embedder dim must be a positive integer, got {dim!r}. Fix: check "
                         "the embedder's `dim` attribute.")
    return Manifest(
        schema_version=SCHEMA_VERSION, embedder_id=embedder_id, embedder_dim=dim,
        chunker_hash=chunker_hash, chunker_params=dict(chunk_params),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        package_version=__version__)


def manifest_to_rows(manifest: Manifest) -> list[tuple[str, str]]:
    """``(key, JSON value)`` rows, one per field."""
    return [(key, json.dumps(value, sort_keys=True)) for key, value in asdict(manifest).items()]


def manifest_from_rows(rows: Mapping[str, str]) -> Manifest | None:
    """The manifest stored as rows, or ``None`` for an index without one."""
    if not rows:
        return None
    values = {key: json.loads(value) for key, value in rows.items()}
    try:
        return Manifest(**values)
    except TypeError as exc:
        raise StoreError(f"the index manifest is incomplete or unknown ({exc}). Fix: re-create "
                         "the index with `citewise ingest --db NEW.db`.") from exc


def check_manifest(stored: Manifest, wanted: Manifest, where: str = "this index",
                   fields: tuple[str, ...] = IDENTITY_FIELDS) -> None:
    """Raise :class:`IndexMismatchError` when ``wanted`` differs from ``stored`` in ``fields``."""
    diffs = [f"{name}: index has {getattr(stored, name)!r}, configured {getattr(wanted, name)!r}"
             for name in fields if getattr(stored, name) != getattr(wanted, name)]
    if not diffs:
        return
    fix = f"configure embedder {stored.embedder_id!r} (dim {stored.embedder_dim})"
    if stored.chunker_hash != wanted.chunker_hash:
        fix += f" and the chunk settings it was built with {dict(stored.chunker_params)!r}"
    raise IndexMismatchError(
        f"{where} was built with a different pipeline ({'; '.join(diffs)}). Fix: re-create "
        f"the index with `citewise ingest --db NEW.db`, or {fix}.")
