"""citewise.index: where documents, chunks, ACLs and vectors are stored and searched.

:func:`open_store` picks the backend from a URL or path; :func:`make_manifest` describes the
pipeline that builds an index.
"""

from __future__ import annotations

from pathlib import Path

from citewise.errors import BackendUnavailable, ConfigError
from citewise.index.location import is_postgres, redact
from citewise.index.manifest import make_manifest
from citewise.index.sqlite import SQLiteStore
from citewise.protocols import Store

__all__ = ["SQLiteStore", "make_manifest", "open_store"]



def open_store(url_or_path: str | Path) -> Store:
    """Open (lazily) the index at ``url_or_path``.

    * ``path/to/index.db`` or ``sqlite:///path/to/index.db`` (relative), ``sqlite:////abs.db``
      (absolute, the SQLAlchemy convention); ``:memory:`` or ``sqlite://`` for a private
      in-memory index. A SQLite path serves its LIVE version (``citewise versions``): the
      file itself, or the sibling ``PATH.vN`` promoted by ``citewise reindex``.
    * ``postgresql://user@host:5432/db``: the live index version of that database
      (``?schema=citewise_v2`` opens that one version,
      :class:`~citewise.index.postgres.PostgresStore`). Needs psycopg 3
      (``pip install 'citewise[postgres]'``) and pgvector >= 0.8.

    The live version is followed, not fixed at opening: the store returned
    (:class:`~citewise.index.follow.LiveStore`) re-resolves it on every call and logs its
    deletes and ACL changes so every version made live later honours them.
    """
    target = str(url_or_path)
    if isinstance(url_or_path, Path):
        return _sqlite_live(str(url_or_path))
    if is_postgres(target):
        return _postgres_store(target)
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
    return _sqlite_live(target)


def _sqlite_live(path: str) -> Store:
    from citewise.index.follow import LiveStore
    from citewise.index.sqlite.catalog import SQLiteCatalog, VersionView, version_home

    if path == ":memory:":
        return SQLiteStore(path)
    home = version_home(path)
    if home is not None:  # PATH.vN: that one version, read only
        return VersionView(path, *home)
    return LiveStore(SQLiteCatalog(path), name=path)


def _postgres_store(url: str) -> Store:
    try:
        from citewise.index.postgres import PostgresStore
    except ImportError as exc:  # psycopg is an optional dependency
        raise BackendUnavailable(f"the PostgreSQL backend needs psycopg 3 ({exc}). Fix: pip "
                                 "install 'citewise[postgres]', or use a SQLite path.") from exc
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    from citewise.index.postgres.connection import split_url

    if split_url(url)[1] is not None:  # ?schema=...: that one version, read only if listed
        from citewise.index.postgres.catalog import version_of_schema

        number = version_of_schema(url)
        if number is None:
            return PostgresStore(url)
        from citewise.index.postgres.version_view import VersionView

        return VersionView(url, redact(split_url(url)[0]), number)
    from citewise.index.follow import LiveStore
    from citewise.index.postgres import PostgresCatalog

    return LiveStore(PostgresCatalog(url), name=redact(split_url(url)[0]))
