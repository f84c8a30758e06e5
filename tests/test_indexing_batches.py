"""Batches are bounded by chunks as well as documents, and embedding reports as it goes: a
folder of long pages (Node.js's API docs: 194 files, one of them 8 MB) used to embed for over
15 minutes before the first document was written or counted, the bar frozen at 0/194."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise import batch_embed
from citewise.config import Settings
from citewise.engine import Engine
from citewise.indexing import index_documents
from citewise.ingest import read_sidecar
from citewise.sources import file_batch
from citewise.testing import FakeEmbedder
from citewise.types import Principal

OPERATOR = {"groups": ["staff"]}
STAFF = Principal.of("staff")


def page(n: int, sections: int, words: int) -> str:
    body = "\n\n".join(f"## Part {n}.{i}\n\nTopic {n} detail {i}: " +
                       " ".join(f"word{n}x{i}y{k}" for k in range(words))
                       for i in range(sections))
    return f"# Page {n}\n\n{body}\n"


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for n in range(6):
        text = page(n, 12, 200) if n == 0 else page(n, 1, 5)
        (root / f"p{n}.md").write_text(text, encoding="utf-8")
    return root


def test_a_batch_is_written_once_its_chunks_reach_the_bound(tmp_path, folder, monkeypatch):
    monkeypatch.setattr(batch_embed, "EMBED_SLICE", 4)
    writes, steps, embedded = [], [], []
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        real_write = engine.store.write
        monkeypatch.setattr(engine.store, "write",
                            lambda docs: (writes.append(len(docs)), real_write(docs))[1])
        batch = file_batch([folder], Settings().limits, OPERATOR, None, None)
        engine.store.ensure_manifest(engine.expected_manifest())
        report = index_documents(engine.store, engine.embedder, batch.items, engine.settings,
                                 batch_docs=64, batch_chunks=10, on_progress=steps.append,
                                 on_embedded=embedded.append)
        assert report.count("new") == 6
        # the long page fills a batch alone; the short ones share batches
        assert len(writes) >= 2 and sum(writes) == 6 and writes[0] == 1
        assert sum(steps) == 6 and len(steps) >= len(writes)
        chunks = sum(o.embedded for o in report.outcomes)
        assert sum(embedded) == chunks and max(embedded) <= 4  # reported every slice
        hits = engine.search("word0x11y7", STAFF, mode="bm25").hits
        assert hits and hits[0].document.doc_id == "p0.md"


def test_the_engine_and_the_defaults_report_embedding_progress(tmp_path, folder):
    embedded, steps = [], []
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([folder], OPERATOR, on_progress=steps.append,
                                     on_embedded=embedded.append)
    assert sum(steps) == 6 and len(steps) == 1  # a small folder is still one batch
    assert sum(embedded) == sum(o.embedded for o in report.outcomes) > 0


def test_documents_count_as_their_texts_are_embedded(tmp_path, folder, monkeypatch):
    """New users saw "0/59 file" for over two minutes while a batch of 1,024 chunks
    embedded, then 95 %: documents counted only when their batch was written."""
    monkeypatch.setattr(batch_embed, "EMBED_SLICE", 4)
    events: list[tuple[str, int]] = []
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        real_write = engine.store.write
        monkeypatch.setattr(engine.store, "write", lambda docs: (
            events.append(("write", len(docs))), real_write(docs))[1])
        batch = file_batch([folder], Settings().limits, OPERATOR, None, None)
        engine.store.ensure_manifest(engine.expected_manifest())
        index_documents(engine.store, engine.embedder, batch.items, engine.settings,
                        batch_docs=64, batch_chunks=10_000,
                        on_progress=lambda n: events.append(("done", n)))
    assert events[-1][0] == "write" and [e for e in events if e[0] == "write"] == [("write", 6)]
    done = [n for kind, n in events if kind == "done"]
    assert sum(done) == 6 and len(done) >= 3  # the long page's 24 chunks take six slices


def test_a_crash_keeps_the_batches_written_before_it(tmp_path, folder):
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        batch = file_batch([folder], Settings().limits, OPERATOR, None, None)
        engine.store.ensure_manifest(engine.expected_manifest())
        crashing = FakeEmbedder(fail_after=26)  # p0's 24 chunks pass, the next batch fails
        with pytest.raises(RuntimeError, match="simulated failure"):
            index_documents(engine.store, crashing, batch.items, engine.settings,
                            batch_chunks=10)
        assert engine.search("word0x11y7", STAFF, mode="bm25").hits  # first batch committed
        assert not engine.search("word5x0y1", STAFF, mode="bm25").hits  # later: not written


def test_another_tenants_document_written_while_a_batch_is_prepared_is_kept(tmp_path) -> None:
    """A security review on PostgreSQL: an ingest checked an id's tenant before it parsed and
    embedded the rest of its batch; another process's upload of that id to another tenant in
    that window was overwritten (text, tenant and chunks), '61 new, 0 failed'. Here the
    second file's reading stands in for that window. The write finds the id changed since it
    was read: that file fails alone, naming the other tenant, and the rest is written."""
    from citewise.indexing import Pending
    from citewise.types import Block, ParsedDocument

    def doc(text: str, tenant: str) -> ParsedDocument:
        return ParsedDocument(title="Note", text=text,
                              blocks=(Block("paragraph", text, 0, len(text)),),
                              metadata={"tenant": tenant, "groups": ["staff"]})

    with Engine(tmp_path / "x.db", Settings.model_validate({}),
                embedder=FakeEmbedder()) as engine:
        def meanwhile() -> ParsedDocument:  # another process's upload of shared.md to acme
            engine.ingest([Pending("up", "shared.md", lambda: doc("ACME-PRIVATE text.",
                                                                   "acme"))])
            return doc("Second northwind file.", "northwind")
        items = [Pending("a", "shared.md", lambda: doc("NORTHWIND text.", "northwind")),
                 Pending("b", "b.md", meanwhile)]
        report = index_documents(engine.store, engine.embedder, items, engine.settings)
        kept = engine.store.get_document("shared.md")
        assert kept is not None and kept.tenant == "acme"
        assert engine.store.get_document("b.md") is not None  # the rest of the batch is
        failed = [o for o in report.outcomes if o.status == "failed"]  # written (it was not)
        assert [o.label for o in failed] == ["a"], report.outcomes
        assert "another tenant" in str(failed[0].error)
        acme = engine.search("private text", Principal.of("staff", tenant="acme"))
        assert [h.chunk.text for h in acme.hits] == ["ACME-PRIVATE text."]


@pytest.mark.parametrize("workers", [None, 2])
def test_a_re_ingest_that_changes_who_may_read_a_document_says_so(tmp_path, workers):
    """A new user edited a maintainers-only file and re-ingested its folder with
    ``--groups users``: it became readable by users, reported only as "metadata-only"
    for the file they had not edited. Said on the parallel path too (the second review);
    the way back names this index, not another one's document of the same id."""
    docs = tmp_path / "dev"
    docs.mkdir()
    (docs / "-authors.rst").write_text("Authors.\n")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"groups": ["maintainers"]})
        assert engine.ingest_paths([docs], {"groups": ["maintainers"]},
                                   workers=workers).warnings == []
        report = engine.ingest_paths([docs], {"groups": ["users"]}, workers=workers)
        assert report.warnings == [
            "-authors.rst: this ingest changes who may read it, from groups maintainers to "
            "users; if that was not meant, set them back on this index (`citewise acl "
            "--groups maintainers --db INDEX -- -authors.rst`, or PUT "
            "/v1/documents/-authors.rst/acl) and write those groups in its --meta sidecar "
            "line"]


def test_folders_named_together_link_under_base_url_with_their_folder(tmp_path):
    """A new user's ``ingest rustc edition-guide --base-url https://doc.rust-lang.org/``:
    ids were ``rustc/…`` but every link dropped the book's folder, a 404. With
    ``--id-prefix`` (one book, its own base URL) the link is the path in the folder."""
    for book in ("rustc", "edition-guide"):
        (tmp_path / book / "ch").mkdir(parents=True)
        (tmp_path / book / "ch" / "index.html").write_text(f"<h1>{book}</h1><p>Text.</p>")
    folders = [tmp_path / "rustc", tmp_path / "edition-guide"]
    urls = {i.doc_id: i.load.url for i in file_batch(
        folders, Settings().limits, OPERATOR, None, "https://doc.rust-lang.org/").items}
    assert urls == {"rustc/ch/index.html": "https://doc.rust-lang.org/rustc/ch/index.html",
                    "edition-guide/ch/index.html":
                        "https://doc.rust-lang.org/edition-guide/ch/index.html"}
    one = file_batch(folders[:1], Settings().limits, OPERATOR, None,
                     "https://doc.rust-lang.org/rustc/", id_prefix="rustc/").items
    assert [(i.doc_id, i.load.url) for i in one] == [
        ("rustc/ch/index.html", "https://doc.rust-lang.org/rustc/ch/index.html")]


def test_two_folders_with_an_id_prefix_and_a_file_beside_them_keep_their_paths(tmp_path):
    """``ingest a b misc/notes.md --id-prefix docs/ --base-url …``: the id prefix replaced
    the folders' paths, so b/index.md met a/index.md's id and failed; the file named beside
    the folders linked as ``notes.md``, without its folder (a 404)."""
    for name in ("a", "b", "misc"):
        (tmp_path / name).mkdir()
    (tmp_path / "a" / "index.md").write_text("# A\n\nApples.\n")
    (tmp_path / "b" / "index.md").write_text("# B\n\nBananas.\n")
    (tmp_path / "misc" / "notes.md").write_text("# N\n\nNuts.\n")
    paths = [tmp_path / "a", tmp_path / "b", tmp_path / "misc" / "notes.md"]
    items = file_batch(paths, Settings().limits, OPERATOR, None, "https://ex.org/",
                       id_prefix="docs/").items
    assert sorted((i.doc_id, i.load.url) for i in items) == [
        ("docs/a/index.md", "https://ex.org/a/index.md"),
        ("docs/b/index.md", "https://ex.org/b/index.md"),
        ("docs/notes.md", "https://ex.org/misc/notes.md")]


def test_a_sidecar_line_may_name_a_file_by_its_id_path_from_the_folders_common_parent(
        tmp_path):
    """A new user's ``ingest std/collections std/sync --groups public --meta meta.jsonl``
    with lines ``{"path": "sync/mpsc/index.html", "groups": ["sync-team"]}``: the ids'
    own paths, yet every line matched no file and the pages were indexed for everyone."""
    for page in ("collections/index.html", "sync/mpsc/index.html"):
        (tmp_path / "std" / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "std" / page).write_text(f"<h1>{page}</h1><p>Channels and maps.</p>")
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"path": "sync/mpsc/index.html", "groups": ["sync-team"]}\n')
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths(
            [tmp_path / "std" / "collections", tmp_path / "std" / "sync"],
            {"groups": ["public"]}, read_sidecar(meta))
        assert report.warnings == []
        public = engine.search("channels", Principal.of("public"), mode="bm25").hits
        assert [h.chunk.doc_id for h in public] == ["collections/index.html"]
        team = engine.search("channels", Principal.of("sync-team"), mode="bm25").hits
        assert [h.chunk.doc_id for h in team] == ["sync/mpsc/index.html"]


def test_an_index_that_fails_mid_batch_stops_it(tmp_path, folder, monkeypatch):
    """An operator's PostgreSQL restart during a folder ingest: each later file "failed"
    on the lost database and the command exited 0. The index's error stops the batch (the
    files before stay written)."""
    from citewise.errors import StoreError

    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        real = engine.store.get_document
        calls = []

        def flaky(doc_id):
            calls.append(doc_id)
            if len(calls) > 2:
                raise StoreError("cannot read index: server closed the connection")
            return real(doc_id)

        monkeypatch.setattr(engine.store, "get_document", flaky)
        with pytest.raises(StoreError, match="server closed"):
            engine.ingest_paths([folder], OPERATOR)
