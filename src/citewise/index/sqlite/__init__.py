"""citewise.index.sqlite: the embedded backend (one SQLite file, FTS5 BM25, exact dense)."""

from citewise.index.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
