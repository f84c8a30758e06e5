"""Index versions, backend-neutral: open a target's catalog, describe its versions, pick the
version ``citewise rollback`` returns to.

The catalogs themselves are :class:`~citewise.protocols.VersionCatalog` implementations:
:class:`~citewise.index.sqlite.catalog.SQLiteCatalog` (version 1 in the ``--db`` file, version
N in the sibling ``PATH.vN``) and the PostgreSQL one (a schema per version).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import BackendUnavailable, ConfigError, StoreError, VersionError
from citewise.index.changelog import settle_versions
from citewise.index.location import is_postgres
from citewise.protocols import VersionCatalog
from citewise.types import IndexVersion


def open_catalog(url_or_path: str | Path) -> VersionCatalog:
    """The version catalog of the index at ``url_or_path`` (same forms as
    :func:`~citewise.index.open_store`; an in-memory index has no versions)."""
    target = str(url_or_path)
    if is_postgres(target):
        return _postgres_catalog(target)
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    elif "://" in target:
        raise ConfigError(f"unknown index URL scheme {target.split('://', 1)[0]!r}. Fix: use "
                          "a file path or `sqlite:///path/to/index.db`.")
    if target in ("", ":memory:"):
        raise VersionError("an in-memory index has no versions. Fix: pass --db PATH.")
    from citewise.index.sqlite.catalog import SQLiteCatalog

    return SQLiteCatalog(target)


def _postgres_catalog(url: str) -> VersionCatalog:
    try:
        from citewise.index.postgres import PostgresCatalog
    except ImportError as exc:
        raise BackendUnavailable("index versions on PostgreSQL need the postgres backend. "
                                 "Fix: `pip install 'citewise[postgres]'`, or use a SQLite "
                                 "path.") from exc
    return PostgresCatalog(url)


def rollback_target(versions: list[IndexVersion], replaced: int | None = None) -> IndexVersion:
    """The version ``citewise rollback`` returns to by default: the one the live version
    replaced (``replaced``, from the catalog) while it is retired; else the newest retired
    version older than the live one, else the newest retired version. By number alone, a
    reliability review's rollback after "rollback to 1, reindex 3 from it" went to 2, the
    version rolled away from, not to 1."""
    live = [v.number for v in versions if v.state == "live"]
    retired = sorted((v for v in versions if v.state == "retired"), key=lambda v: v.number)
    if not retired:
        raise VersionError("there is no retired version to roll back to. Fix: list versions "
                           "with `citewise versions`; only a version that was live before can "
                           "be restored.")
    before = [v for v in retired if v.number == replaced]
    older = [v for v in retired if live and v.number < live[0]]
    return (before or older or retired)[-1]


def rollback(catalog: VersionCatalog, number: int | None = None) -> tuple[int, int]:
    """Make retired version ``number`` (default: :func:`rollback_target`) live again; returns
    ``(previous live, now live)``. Only a retired version qualifies: a shadow may be half
    built, and a refused one failed its evaluation."""
    versions = catalog.versions()
    before = catalog.live().number
    if number is None:
        target = rollback_target(versions, catalog.replaced())
    else:
        found = [v for v in versions if v.number == number]
        if not found:
            raise VersionError(f"there is no version {number}. Fix: list them with "
                               "`citewise versions`.")
        target = found[0]
        if target.state != "retired":
            raise VersionError(
                f"version {number} is {target.state}"
                + (f" ({target.note})" if target.state == "refused" and target.note else "")
                + "; only a retired version (one that was live before) can be rolled back "
                "to. Fix: pick a retired version from `citewise versions`, or build a new one "
                "with `citewise reindex`.")
    catalog.promote(target.number, note=f"rolled back to, from version {before}")
    return before, target.number


GRACE_S = 2.0
"""A shadow younger than this is never called abandoned: its builder registers it a moment
before it takes the build lock."""


def is_abandoned(catalog: VersionCatalog, version: IndexVersion,
                 grace_s: float = GRACE_S) -> bool:
    """A ``shadow`` whose builder is gone: no process holds its build lock (a reindex killed
    mid-build, even by ``kill -9``, leaves one behind)."""
    if version.state != "shadow":
        return False
    try:
        age = (datetime.now(UTC) - datetime.fromisoformat(version.created_at)).total_seconds()
    except (TypeError, ValueError):
        age = grace_s
    return age >= grace_s and not catalog.is_building(version.number)


def gc_versions(catalog: VersionCatalog, *, refused: bool = True, retired: bool = False,
                grace_s: float = GRACE_S) -> list[IndexVersion]:
    """Remove abandoned shadows, ``refused`` versions and (on request) ``retired`` ones: their
    files or schemas, so the text of deleted documents does not outlive them there. The live
    version and shadows being built are never touched. Returns what was removed."""
    removed = []
    for version in catalog.versions():
        if (is_abandoned(catalog, version, grace_s)
                or (refused and version.state == "refused")
                or (retired and version.state == "retired")):
            catalog.drop(version.number)
            removed.append(version)
    return removed


def purge_versions(catalog: VersionCatalog) -> list[int]:
    """Apply the change log to every retired and refused version (deletes and ACL changes
    made before versions reached them at once: :func:`~citewise.index.changelog.
    settle_versions`), then remove deleted documents' leftovers from every remaining version
    where the backend keeps some (SQLite: FTS segments and the WAL); the numbers purged."""
    if hasattr(catalog, "changes_since"):
        with catalog.gate():
            settle_versions(catalog)
    purge = getattr(catalog, "purge", None)
    if purge is None:
        return []
    numbers = [v.number for v in catalog.versions() if v.state != "shadow"]
    for number in numbers:
        purge(number)
    return numbers


def describe_version(catalog: VersionCatalog, version: IndexVersion) -> dict[str, Any]:
    """A version as data: its catalog row plus its manifest summary (embedder, chunker) and
    counts, or ``error`` when its data cannot be read."""
    out: dict[str, Any] = asdict(version)
    if is_abandoned(catalog, version):  # an operator's trial: a reindex killed mid-build was
        out["note"] = (f"abandoned ({version.note}: no process builds it now); "  # listed
                       "remove it with `citewise versions --gc`")  # as still "building"
    try:
        store = catalog.open(version.number)
        try:
            manifest = store.manifest()
            counts = store.count()
        finally:
            store.close()
    except StoreError as exc:  # VersionError included: e.g. a missing file
        out["error"] = " ".join(str(exc).split())
        return out
    out.update(asdict(counts))
    out["embedder"] = manifest.embedder_id if manifest else None
    out["dim"] = manifest.embedder_dim if manifest else None
    out["chunker"] = dict(manifest.chunker_params) if manifest else None
    out["chunker_hash"] = manifest.chunker_hash if manifest else None
    return out
