"""``index.tenancy`` through the Engine (the path ``citewise ingest``/``search`` take): what a
tenant can learn about another tenant's documents under ``shared`` tenancy, and that it
cannot under ``isolated``; tenancy fixed at creation; reindex keeps or changes it; an index
made before tenancy existed is migrated as shared. Store-level guarantees for both backends
are in :class:`citewise.testing.StoreConformanceTests` (``test_tenancy_*``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import IndexMismatchError
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.catalog import SQLiteCatalog
from citewise.index.sqlite.migrations import MIGRATIONS, connect
from citewise.reindex import reindex
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Principal

SECRET = "Project Falcon: acquisition of Initech closes on March 3rd for 40 million."
ACME = Principal.of("staff", tenant="acme")


def settings(tenancy: str | None = None) -> Settings:
    return Settings.model_validate({"index": {"tenancy": tenancy}, "retrieve": {"mode": "bm25"}})


def write_docs(folder: Path, docs: dict[str, str]) -> Path:
    """One Markdown file per entry, all titled "Memo" (so equal texts embed equally)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(f"# Memo\n\n{text}\n", encoding="utf-8")
    return folder


def ingest(db: Path, folder: Path, tenant: str, tenancy: str | None = None):
    with Engine(db, settings(tenancy), FakeEmbedder()) as engine:
        return engine.ingest_paths([folder], {"tenant": tenant, "groups": ["staff"]})


def bm25_scores(db: Path, query: str, principal: Principal = ACME) -> list[float]:
    with Engine(db, settings(), FakeEmbedder()) as engine:
        return [h.score for h in engine.search(query, principal, mode="bm25").hits]


@pytest.mark.parametrize("tenancy", ["shared", "isolated"])
def test_another_tenants_exact_text(tmp_path: Path, tenancy: str) -> None:
    """globex ingests a file with a text acme already indexed: shared tenancy reuses acme's
    vector and reports "0 embedded", which confirms that some tenant holds that exact text;
    isolated tenancy embeds it again."""
    db = tmp_path / "index.db"
    first = ingest(db, write_docs(tmp_path / "acme", {"falcon.md": SECRET}), "acme", tenancy)
    assert first.embedded > 0
    probe = ingest(db, write_docs(tmp_path / "globex" / "probe", {"guess.md": SECRET}),
                   "globex")
    assert probe.count("new") == 1
    if tenancy == "isolated":
        assert probe.embedded == first.embedded
    else:
        assert probe.embedded == 0  # the side channel shared tenancy documents
    again = ingest(db, write_docs(tmp_path / "globex" / "again", {"guess-2.md": SECRET}),
                   "globex")
    assert again.embedded == 0  # globex's own cache still saves it the work


@pytest.mark.parametrize("tenancy", ["shared", "isolated"])
def test_acme_bm25_scores_and_globex_documents(tmp_path: Path, tenancy: str) -> None:
    """acme's BM25 score for a query moves when globex adds documents under shared tenancy
    (IDF and average length count every tenant), and never under isolated."""
    db = tmp_path / "index.db"
    acme = {f"memo-{i}.md": f"Quarterly budget memo number {i} for the board." for i in range(6)}
    acme["falcon.md"] = SECRET
    ingest(db, write_docs(tmp_path / "acme", acme), "acme", tenancy)
    before = bm25_scores(db, "falcon acquisition")
    assert before
    globex = {f"g-{i}.md": f"Falcon acquisition notes {i}: falcon, falcon." for i in range(30)}
    ingest(db, write_docs(tmp_path / "globex", globex), "globex")
    after = bm25_scores(db, "falcon acquisition")
    if tenancy == "isolated":
        assert after == before
    else:
        assert after != before and len(after) == len(before)


def test_tenancy_is_fixed_when_the_index_is_created(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    folder = write_docs(tmp_path / "acme", {"falcon.md": SECRET})
    ingest(db, folder, "acme", "isolated")
    ingest(db, folder, "acme")  # unset: the index's own
    with SQLiteStore(db) as store:
        assert store.manifest().tenancy == "isolated"  # type: ignore[union-attr]
    with pytest.raises(IndexMismatchError) as info:
        ingest(db, folder, "acme", "shared")
    message = str(info.value)
    assert "\n" not in message and "tenancy 'isolated'" in message
    assert "Fix:" in message and "citewise reindex --config" in message
    with pytest.raises(IndexMismatchError, match="tenancy"):
        bm25_scores_with(db, "shared")


def bm25_scores_with(db: Path, tenancy: str) -> None:
    with Engine(db, settings(tenancy), FakeEmbedder()) as engine:
        engine.search("falcon", ACME, mode="dense")


def test_reindex_keeps_the_tenancy_or_changes_it_when_asked(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    ingest(db, write_docs(tmp_path / "acme", {"falcon.md": SECRET}), "acme")
    ingest(db, write_docs(tmp_path / "globex", {"falcon-copy.md": SECRET}), "globex")
    with SQLiteCatalog(db) as catalog:
        kept = reindex(catalog, settings(), None, embedder=FakeEmbedder(), force=True)
        changed = reindex(catalog, settings("isolated"), None, embedder=FakeEmbedder(),
                          force=True)
        kept_again = reindex(catalog, settings(), None, embedder=FakeEmbedder(), force=True)
    tenancies = []
    for report in (kept, changed, kept_again):
        assert report.promoted
        with SQLiteStore(f"{db}.v{report.version}") as store:
            tenancies.append(store.manifest().tenancy)  # type: ignore[union-attr]
            counts = store.count()
        assert (counts.documents, counts.vectors) == (2, 1 if tenancies[-1] == "shared" else 2)
    assert tenancies == ["shared", "isolated", "isolated"]
    assert bm25_scores(db, "falcon acquisition")  # the live (isolated) version answers
    assert bm25_scores(db, "falcon", Principal.of("staff", tenant="globex"))


def test_index_made_before_tenancy_is_shared(tmp_path: Path) -> None:
    """m004 moves an older index's vectors into the shared cache (scope 0) and its manifest,
    without a tenancy row, reads as shared."""
    db = tmp_path / "old.db"
    ingest(db, write_docs(tmp_path / "acme", {"falcon.md": SECRET}), "acme")
    conn = connect(db)  # rewind the file to the schema before m004
    rows = conn.execute("SELECT embed_hash, vec FROM vectors").fetchall()
    conn.execute("DROP TABLE vectors")
    conn.execute("CREATE TABLE vectors (embed_hash TEXT PRIMARY KEY, vec BLOB NOT NULL)")
    conn.executemany("INSERT INTO vectors VALUES (?, ?)", rows)
    conn.execute("DELETE FROM migrations WHERE name = ?", (MIGRATIONS[3].__name__,))
    conn.execute("DELETE FROM manifest WHERE key = 'tenancy'")
    conn.close()
    with SQLiteStore(db) as store:
        assert store.manifest().tenancy == "shared"  # type: ignore[union-attr]
        assert store.count().vectors == len(rows) > 0
        assert store.cached_vectors([h for h, _ in rows], "globex") == {h for h, _ in rows}
    assert bm25_scores(db, "falcon acquisition")


def test_explain_and_sql_never_say_which_names_exist(tmp_path: Path) -> None:
    """A tenant or group the index holds and one it does not give the same --explain filter
    and --sql text (names swapped), on both tenancies."""
    for tenancy in ("shared", "isolated"):
        db = tmp_path / f"{tenancy}.db"
        ingest(db, write_docs(tmp_path / "globex", {"falcon.md": SECRET}), "globex", tenancy)
        with Engine(db, settings(), FakeEmbedder()) as engine:
            def shown(tenant: str, group: str) -> str:
                who = Principal.of(group, tenant=tenant)
                result = engine.search("falcon", who, mode="bm25", explain=True)
                sql = engine.store.build_sparse_sql("falcon", 10, who)  # type: ignore[attr-defined]
                text = json.dumps([result.filter, sql])
                return text.replace(tenant, "<T>").replace(group, "<G>")

            assert shown("globex", "staff") == shown("initech", "staff")  # tenant exists / not
            assert shown("globex", "staff") == shown("globex", "ghost")  # group exists / not
            assert "<T>" in shown("globex", "staff") and "<G>" in shown("globex", "staff")


@pytest.mark.parametrize("tenancy", ["shared", "isolated"])
def test_unknown_group_runs_the_same_queries_as_another_tenants_group(tmp_path: Path,
                                                                        tenancy: str) -> None:
    """acme's principal holding group "board" (which only globex uses) and one holding
    "ghost" (which nobody uses): same statements, same (empty) results; so neither the
    result nor the --explain timings can tell whether another tenant uses a group name."""
    db = tmp_path / "index.db"
    ingest(db, write_docs(tmp_path / "acme", {"falcon.md": SECRET}), "acme", tenancy)
    with Engine(db, settings(), FakeEmbedder()) as engine:
        engine.ingest_paths([write_docs(tmp_path / "globex", {"board.md": "Board minutes."})],
                            {"tenant": "globex", "groups": ["board"]})
        store = engine.store
        conn = store.current()._db()  # type: ignore[attr-defined]

        def statements(group: str) -> list[str]:
            seen: list[str] = []
            conn.set_trace_callback(seen.append)
            try:
                who = Principal.of(group, tenant="acme")
                result = engine.search("falcon acquisition board", who, mode="hybrid")
            finally:
                conn.set_trace_callback(None)
            assert result.hits == ()
            # the ids themselves differ (g2 vs the never-assigned g0): compare the statements
            return [re.sub(r'"g\d+"', '"g?"', s) for s in seen if "json_each" not in s]

        engine.search("warm", ACME, mode="hybrid")  # load matrices and statistics first
        assert sorted(statements("board")) == sorted(statements("ghost"))  # threads interleave


def test_a_document_moved_to_another_tenant_then_deleted_leaves_no_words(tmp_path) -> None:
    """A security review under isolated tenancy: a document moved to another tenant (``acl
    --tenant``) and then deleted left its words and positions in the first tenant's
    full-text table (the move only marked its rows deleted there; the delete purged the new
    tenant's table)."""
    db = tmp_path / "index.db"
    ingest(db, write_docs(tmp_path / "acme", {"falcon.md": f"{SECRET} zqheronword"}), "acme",
           "isolated")
    with Engine(db, settings(), FakeEmbedder()) as engine:
        engine.set_acl("falcon.md", ["hr"], tenant="globex")
        assert engine.delete(["falcon.md"]) == 1
    for suffix in ("", "-wal"):
        path = Path(f"{db}{suffix}")
        assert not path.exists() or b"zqheronword" not in path.read_bytes(), suffix
