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


def _source(tmp_path: Path, name: str = "a.db") -> SQLiteStore:
    embedder = FakeEmbedder(dim=DIM)
    src = SQLiteStore(tmp_path / name)
    src.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c"))
    src.write([make_write(embedder, "pay.md", ["Salary bands."], groups=["hr"]),
               make_write(embedder, "memo.md", ["Office memo."], groups=["staff"])])
    src.set_meta("gate.threshold", "0.42")
    src.set_meta("gate.threshold@acme", "0.5")  # a tenant's calibration (meta_keys)
    return src


def test_migrate_refuses_a_hostile_source_before_writing(tmp_path: Path) -> None:
    """A security review's hand-edited index files: an ACL JSON naming staff on an hr
    document (whose group rows the source's searches filter by) was copied, so staff could
    read it in the target; a ``gate.threshold`` of NaN (no score is below it) and a key of
    its own were copied as they were."""
    import sqlite3

    edits = {"acl.db": """UPDATE documents SET acl = '["staff"]' WHERE doc_id = 'pay.md'""",
             "nan.db": "UPDATE index_meta SET value = 'nan' WHERE key = 'gate.threshold'",
             "nan2.db": "UPDATE index_meta SET value = 'nan' WHERE key LIKE '%@acme'",
             "nul.db": "INSERT INTO index_meta VALUES ('gate.signal@ev' || char(0) || 'l', "
                       "'dense_top')",  # the review of this stop: PostgreSQL failed after
                                        # every document was copied
             "key.db": "INSERT INTO index_meta VALUES ('anything.evil', 'x')"}
    for name, sql in edits.items():  # each file edited before citewise opens it again
        _source(tmp_path, name).close()
        with sqlite3.connect(tmp_path / name) as con:
            con.execute(sql)
    for name, refused in (("acl.db", "'pay.md' has an ACL that disagrees.*nothing was"),
                          ("nan.db", "gate.threshold is 'nan', not a finite"),
                          ("nan2.db", "gate.threshold@acme is 'nan', not a finite"),
                          ("nul.db", "holds a NUL character")):
        with SQLiteStore(tmp_path / name) as src, SQLiteStore(tmp_path / f"t-{name}") as dst:
            with pytest.raises(StoreError, match=refused):
                migrate_index(src, dst)
            assert dst.list_documents() == [] and dst.manifest() is None
    with SQLiteStore(tmp_path / "key.db") as src, SQLiteStore(tmp_path / "t.db") as dst:
        report = migrate_index(src, dst)
        assert report.meta_keys == 2 and dst.get_meta("anything.evil") is None
        assert dst.get_meta("gate.threshold") == "0.42"
        assert dst.get_meta("gate.threshold@acme") == "0.5"


def test_a_stored_body_that_inflates_too_far_or_has_the_wrong_shape_is_damaged() -> None:
    import json
    import zlib

    from citewise.index.serialize import MAX_BODY_BYTES, parsed_from_bytes

    for body in (zlib.compress(b"{" + b" " * (MAX_BODY_BYTES + 10) + b"}", 9),
                 zlib.compress(json.dumps({"v": 1}).encode()),
                 zlib.compress(b'{"v": 1}')[:-4],  # its checksum cut off (review)
                 zlib.compress(b"[1, 2]")):
        with pytest.raises(StoreError, match="stored document body is damaged"):
            parsed_from_bytes(body)
