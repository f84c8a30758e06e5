"""``citewise migrate`` writes nothing into a target holding documents the source does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.errors import StoreError
from citewise.index import make_manifest
from citewise.index.migrate import migrate_index
from citewise.index.sqlite import SQLiteStore
from citewise.testing.conformance import DIM, make_write
from citewise.testing.fakes import FakeEmbedder


def test_migrate_never_replaces_another_tenants_document(tmp_path: Path) -> None:
    """A review migrated into a target holding another tenant's document of the same id: it
    was replaced, and the migration reported its counts verified. (Any Store is a target:
    SQLite here; ``tests/cli/test_migrate.py`` does the same on PostgreSQL.)"""
    embedder = FakeEmbedder(dim=DIM)
    with SQLiteStore(tmp_path / "a.db") as src, SQLiteStore(tmp_path / "b.db") as dst:
        src.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
        src.write([make_write(embedder, "shared/x.md", ["Acme's copy."], groups=["staff"])])
        dst.ensure_manifest(src.manifest())  # type: ignore[arg-type]
        dst.write([make_write(embedder, "shared/x.md", ["Globex's copy."], groups=["staff"],
                              tenant="globex")])
        with pytest.raises(StoreError, match="another tenant.*shared/x.md"):
            migrate_index(src, dst)
        assert [d.tenant for d in dst.list_documents()] == ["globex"]
        migrate_index(src, src_copy := SQLiteStore(tmp_path / "c.db"))  # an empty target
        migrate_index(src, src_copy)  # a rerun into its own copy
        src_copy.close()
