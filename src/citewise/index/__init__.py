"""citewise.index: where documents, chunks, ACLs and vectors are stored and searched.

:func:`open_store` picks the backend from a URL or path; :func:`make_manifest` describes the
pipeline that builds an index.
"""

from __future__ import annotations

from pathlib import Path

from citewise.errors import BackendUnavailable, ConfigError
from citewise.index.manifest import make_manifest
from citewise.index.sqlite import SQLiteStore
from citewise.protocols import Store

__all__ = ["SQLiteStore", "make_manifest", "open_store"]

_POSTGRES = ("postgresql://", "postgresql+psycopg://", "postgres://")


def open_store(url_or_path: str | Path) -> Store:
    """Open (lazily) the index at ``url_or_path``.

    * ``path/to/index.db`` or ``sqlite:///path/to/index.db`` (relative), ``sqlite:////abs.db``
      (absolute, the SQLAlchemy convention); ``:memory:`` or ``sqlite://`` for a private
      in-memory index.
    * ``postgresql://...``: not available yet (raises :class:`BackendUnavailable`).
    """
    target = str(url_or_path)
    if isinstance(url_or_path, Path):
        return SQLiteStore(url_or_path)
    if target.startswith(_POSTGRES):
        raise BackendUnavailable("PostgreSQL backend is not available yet; use a SQLite path "
                                 "(e.g. --db index.db).")
    if target in ("sqlite://", "sqlite:///:memory:"):
        return SQLiteStore(":memory:")
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    elif "://" in target:
        scheme = target.split("://", 1)[0]
        raise ConfigError(f"unknown index URL scheme {scheme!r}. Fix: use a file path, "
                          "`sqlite:///path/to/index.db`, or `postgresql://...`.")
    if not target:
        raise ConfigError("empty index path. Fix: pass --db PATH (e.g. index.db).")
    return SQLiteStore(target)
