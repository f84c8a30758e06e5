"""A PostgreSQL version opened by its own schema (``?schema=citewise_v2``): read, never
written (:mod:`citewise.index.version_view`)."""

from __future__ import annotations

from citewise.index.postgres.store import PostgresStore
from citewise.index.version_view import ReadOnlyVersion


class VersionView(ReadOnlyVersion, PostgresStore):
    def __init__(self, url: str, home: str, number: int) -> None:
        PostgresStore.__init__(self, url)
        self.home, self.number = home, number


__all__ = ["VersionView"]
