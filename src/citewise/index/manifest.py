"""The identity of an index: which embedder and chunker built it.

A query or an ingest with another embedder (or other chunking) is refused with
:class:`IndexMismatchError`, which says what differs and how to fix it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import Any

from citewise import __version__
from citewise.errors import IndexMismatchError, StoreError
from citewise.types import Manifest

IDENTITY_FIELDS = ("embedder_id", "embedder_dim", "chunker_hash")
"""The fields that must match between the configured pipeline and a stored index."""
QUERY_FIELDS = ("embedder_id", "embedder_dim")
"""What a query must match: chunking only matters when writing."""


TENANCIES = ("shared", "isolated")


def make_manifest(embedder_id: str, dim: int, chunk_params: Mapping[str, Any],
                  chunker_hash: str, tenancy: str | None = "shared") -> Manifest:
    """A manifest for a new index built with this embedder and chunker (created now, UTC).
    ``tenancy=None`` asks for whatever an existing index has (``shared`` for a new one)."""
    # Imported here: citewise.index.sqlite imports this module (check_manifest & co).
    from citewise.index.sqlite.migrations import SCHEMA_VERSION

    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
        raise StoreError(f"embedder dim must be a positive integer, got {dim!r}. Fix: check "
                         "the embedder's `dim` attribute.")
    if tenancy is not None and tenancy not in TENANCIES:
        raise StoreError(f"unknown tenancy {tenancy!r}. Fix: set index.tenancy to one of "
                         f"{list(TENANCIES)}.")
    return Manifest(
        schema_version=SCHEMA_VERSION, embedder_id=embedder_id, embedder_dim=dim,
        chunker_hash=chunker_hash, chunker_params=dict(chunk_params),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        package_version=__version__, tenancy=tenancy)


def to_record(manifest: Manifest) -> Manifest:
    """The manifest an index records: an unspecified tenancy becomes ``shared``."""
    return manifest if manifest.tenancy else replace(manifest, tenancy="shared")


def tenancy_of(manifest: Manifest | None) -> str:
    """The tenancy of an index with ``manifest`` (``shared`` without one)."""
    return (manifest.tenancy if manifest is not None else None) or "shared"


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
    """Raise :class:`IndexMismatchError` when ``wanted`` differs from ``stored`` in ``fields``
    or asks for another tenancy (a wanted tenancy of ``None`` accepts the stored one)."""
    check_tenancy(stored, wanted, where)
    diffs = [f"{name}: index has {getattr(stored, name)!r}, configured {getattr(wanted, name)!r}"
             for name in fields if getattr(stored, name) != getattr(wanted, name)]
    if not diffs:
        return
    if "chunker_hash" in fields and _chunker_of(stored) != _chunker_of(wanted):
        raise IndexMismatchError(
            f"{where} was chunked by another citewise release ({_chunker_of(stored)}; this one "
            f"chunks with {_chunker_of(wanted)}), so it takes no new documents; searches still "
            "work. Fix: rebuild it from its stored documents with `citewise reindex --force` (same "
            "--db or --config; or `--questions FILE` to compare the versions before the swap).")
    fix = f"configure embedder {stored.embedder_id!r} (dim {stored.embedder_dim})"
    if stored.chunker_hash != wanted.chunker_hash:
        fix += f" and the chunk settings it was built with {dict(stored.chunker_params)!r}"
    raise IndexMismatchError(
        f"{where} was built with a different pipeline ({'; '.join(diffs)}). Fix: re-create "
        f"the index with `citewise ingest --db NEW.db`, or {fix}.")


def _chunker_of(manifest: Manifest) -> object:
    return dict(manifest.chunker_params).get("chunker")


def check_tenancy(stored: Manifest, wanted: Manifest, where: str = "this index") -> None:
    """Tenancy is decided when an index is created: refuse another one, naming the fix."""
    if wanted.tenancy is None or tenancy_of(stored) == wanted.tenancy:
        return
    raise IndexMismatchError(
        f"{where} was created with index.tenancy {tenancy_of(stored)!r}, configured "
        f"{wanted.tenancy!r}; tenancy is fixed when an index is created. Fix: unset "
        "index.tenancy, or rebuild the index with the new tenancy as a new version: "
        "`citewise reindex --config FILE --force` (FILE sets index.tenancy).")
