"""Where a tenant's lexical statistics and embedding cache live in a SQLite index.

``index.tenancy`` is decided when the index is created and recorded in its manifest:

* ``shared`` (the default, and every index made before tenancy existed): one FTS5 table
  ``chunks_fts`` for all tenants, so BM25's statistics (rows N, rows per term n(q), average
  length) count every tenant's chunks; and one embedding cache (``vectors`` rows with
  ``scope = 0``), so a text any tenant already indexed is not embedded again.
* ``isolated``: one FTS5 table per tenant, ``chunks_fts_t<tenant id>`` (created with the
  tenant's first chunk), so a tenant's BM25 scores depend on its own chunks only; and the
  embedding cache keyed by tenant (``vectors.scope`` = tenant id), so the cache never
  confirms another tenant's text. The dense matrix is loaded per tenant too
  (:class:`~citewise.index.sqlite.vectors.DenseIndex`).

Table names are built from integer ids only, never from names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SHARED_FTS = "chunks_fts"
FTS_COLUMNS = """title, body, acl, tenant,
        tokenize = 'porter unicode61 remove_diacritics 2',
        content = '', contentless_delete = 1"""
TENANCY_SQL = "SELECT value FROM manifest WHERE key = 'tenancy'"


@dataclass(frozen=True)
class Layout:
    """The index's tenancy as table names and cache scopes."""

    isolated: bool = False

    def fts_table(self, tenant_id: int) -> str:
        """The FTS5 table holding the chunks of tenant ``tenant_id``."""
        return f"chunks_fts_t{int(tenant_id)}" if self.isolated else SHARED_FTS

    def scope(self, tenant_id: int) -> int:
        """The embedding-cache scope (``vectors.scope``) of tenant ``tenant_id``."""
        return int(tenant_id) if self.isolated else 0

    @property
    def name(self) -> str:
        return "isolated" if self.isolated else "shared"


def layout_of(conn: Any) -> Layout:
    """The layout recorded in the index's manifest (``shared`` without one)."""
    row = conn.execute(TENANCY_SQL).fetchone()
    return Layout(isolated=row is not None and row[0] == '"isolated"')


def ensure_fts_table(conn: Any, table: str) -> None:
    """Create a tenant's FTS5 table if it does not exist yet (inside the write)."""
    if table != SHARED_FTS:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5({FTS_COLUMNS})")


def fts_tables(conn: Any) -> list[str]:
    """Every FTS5 table of the file (the shared one and each isolated tenant's)."""
    return [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL "
        "TABLE%USING fts5(%' ORDER BY name")]  # not an fts5vocab table on one of them


def fts_table_exists(conn: Any, table: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (table,)).fetchone() is not None
