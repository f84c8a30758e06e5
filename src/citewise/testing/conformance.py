"""``StoreConformanceTests``: the guarantees every :class:`~citewise.protocols.Store` keeps.

The Haystack ``DocumentStoreBaseTests`` pattern: a backend's test module subclasses this class
and overrides the ``store`` fixture (an EMPTY store); optionally :meth:`reopen` (a second store
object on the same data) and :meth:`vector_fingerprint` (the raw vectors, to prove ACL changes
leave them alone)::

    class TestSQLiteStore(StoreConformanceTests):
        @pytest.fixture
        def store(self, tmp_path):
            with SQLiteStore(tmp_path / "index.db") as s:
                yield s

Every search result is checked with :func:`assert_all_visible`: each returned id's document
(read back WITHOUT a principal) is in the principal's tenant and shares a group with it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
import pytest

from citewise.errors import IndexMismatchError, NotFoundError, StoreError
from citewise.index.manifest import make_manifest
from citewise.protocols import DocumentWrite, Store, StoreCounts
from citewise.testing.fakes import FakeEmbedder
from citewise.types import (
    Block,
    Chunk,
    Document,
    ParsedDocument,
    Principal,
    ScoredId,
    SectionMark,
)

DIM = 64
QUERY = "quarterly salary bands executive compensation"
STAFF = Principal.of("staff", tenant="acme")
HR = Principal.of("hr", tenant="acme")


def make_write(embedder: FakeEmbedder, doc_id: str, texts: Sequence[str], *,
               groups: Iterable[str], tenant: str = "acme", title: str | None = None,
               version: int = 1) -> DocumentWrite:
    """A :class:`DocumentWrite` with one chunk per text and a FakeEmbedder vector per chunk."""
    title = title or doc_id.replace("-", " ").title()
    chunks, offset = [], 0
    for i, text in enumerate(texts):
        tfe = f"{title}\n{text}"
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        chunks.append(Chunk(
            chunk_id=f"{doc_id}#{i}-{digest}", doc_id=doc_id, ordinal=i, text=text,
            text_for_embedding=tfe, embed_hash=hashlib.sha256(tfe.encode()).hexdigest(),
            start=offset, end=offset + len(text), heading_path=(title, f"Part {i}"),
            anchor=f"part-{i}", section_id=f"{doc_id}/s{i}", token_count=len(text.split()),
            kind="text", page=i + 1))
        offset += len(text) + 2
    vectors = dict(zip([c.embed_hash for c in chunks],
                       embedder.embed_batch([c.text_for_embedding for c in chunks]), strict=True))
    content_hash = hashlib.sha256("".join(texts).encode()).hexdigest()
    document = Document(
        doc_id=doc_id, title=title, content_hash=content_hash,
        tenant=tenant, acl_groups=frozenset(groups), version=version,
        source_url=f"https://docs.example/{doc_id}", owner="owner@example", metadata={"n": 1})
    return DocumentWrite(document=document, chunks=tuple(chunks), vectors=vectors)


def ids_of(results: Iterable[ScoredId | str]) -> list[str]:
    return [r.chunk_id if isinstance(r, ScoredId) else r for r in results]


def assert_ranked(results: Sequence[ScoredId]) -> None:
    """Ranks are 1..n, scores never increase, ids are unique."""
    assert [r.rank for r in results] == list(range(1, len(results) + 1))
    assert all(a.score >= b.score for a, b in zip(results, results[1:], strict=False))
    assert len({r.chunk_id for r in results}) == len(results)


def assert_all_visible(store: Store, ids: Iterable[ScoredId | str], principal: Principal) -> None:
    """Every id belongs to a document in ``principal.tenant`` sharing a group with it.

    The owning document is found through an all-groups principal of each tenant and then read
    with ``get_document`` (no principal), so the check does not trust the path under test.
    """
    wanted = ids_of(ids)
    owners: dict[str, str] = {}
    docs = store.list_documents()
    for tenant in {d.tenant for d in docs}:
        groups = frozenset().union(*(d.acl_groups for d in docs if d.tenant == tenant))
        if groups:
            for cid, (chunk, _) in store.get_chunks(wanted, Principal(tenant, groups)).items():
                owners[cid] = chunk.doc_id
    for cid in wanted:
        assert cid in owners, f"{cid!r} was returned but belongs to no readable document"
        doc = store.get_document(owners[cid])
        assert doc is not None
        assert doc.tenant == principal.tenant, f"{cid!r} is in tenant {doc.tenant!r}"
        assert doc.acl_groups & principal.groups, (
            f"{cid!r} (groups {sorted(doc.acl_groups)}) leaked to {sorted(principal.groups)}")


CORPUS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("handbook", ("Vacation policy: employees accrue twenty days of leave.",
                  "Salary is paid monthly; see the compensation FAQ."), ("staff",), "acme"),
    ("salaries", (QUERY + " for every grade.",), ("hr",), "acme"),  # the canary
    ("reviews", ("Performance review calibration for managers.",), ("hr-managers",), "acme"),
    ("draft", (QUERY + " draft nobody may read.",), (), "acme"),
    ("globex-salaries", (QUERY + " at Globex.",), ("staff", "hr"), "globex"),
)
"""(doc_id, chunk texts, groups, tenant) of the shared test corpus."""


def corpus_writes(embedder: FakeEmbedder) -> list[DocumentWrite]:
    return [make_write(embedder, doc_id, texts, groups=groups, tenant=tenant)
            for doc_id, texts, groups, tenant in CORPUS]


class StoreConformanceTests:
    """Subclass, override ``store`` (and optionally ``reopen``/``vector_fingerprint``).
    ``TENANCY`` is the ``index.tenancy`` of the manifest the ``ready`` fixture records;
    ``LEXICAL_STATS_SHARED`` says whether, under shared tenancy, a tenant's lexical scores
    depend on other tenants' chunks (BM25's IDF and average length do; ``ts_rank`` does not)."""

    TENANCY = "shared"
    LEXICAL_STATS_SHARED = True

    @pytest.fixture
    def store(self) -> Store:
        raise NotImplementedError("override the `store` fixture with an empty backend store")

    def reopen(self, store: Store) -> Store:
        """A second store object on the same data (skip the test if the backend cannot)."""
        pytest.skip("backend does not provide reopen()")

    def vector_fingerprint(self, store: Store) -> object:
        """Something that changes when any stored vector changes (default: the count)."""
        return store.count().vectors

    @pytest.fixture
    def embedder(self) -> FakeEmbedder:
        return FakeEmbedder(dim=DIM)

    @pytest.fixture
    def ready(self, store: Store, embedder: FakeEmbedder) -> Store:
        store.ensure_manifest(make_manifest(embedder.model_id, embedder.dim,
                                            {"chunker": "test"}, "test-chunker", self.TENANCY))
        return store

    @pytest.fixture
    def corpus(self, ready: Store, embedder: FakeEmbedder) -> Store:
        """The :data:`CORPUS` documents, written in one batch."""
        ready.write(corpus_writes(embedder))
        return ready

    # -- helpers -----------------------------------------------------------------------------

    def search_all(self, store: Store, embedder: FakeEmbedder, query: str, principal: Principal,
                   top_k: int = 10) -> tuple[list[str], list[str]]:
        """(sparse ids, dense ids), each checked with assert_ranked and assert_all_visible."""
        sparse = store.search_sparse(query, top_k, principal)
        dense = store.search_dense(embedder.embed_query(query), top_k, principal)
        for results in (sparse, dense):
            assert_ranked(results)
            assert len(results) <= top_k
            assert_all_visible(store, results, principal)
        return ids_of(sparse), ids_of(dense)

    def chunk_ids(self, doc_id: str) -> list[str]:
        """The chunk ids of a :data:`CORPUS` document as first written."""
        return [c.chunk_id for w in corpus_writes(FakeEmbedder(dim=DIM))
                if w.document.doc_id == doc_id for c in w.chunks]

    # -- writes ------------------------------------------------------------------------------

    def test_implements_protocol(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert store.count() == StoreCounts(0, 0, 0) and store.list_documents() == []

    def test_write_get_document_count(self, corpus: Store) -> None:
        doc = corpus.get_document("handbook")
        assert doc is not None
        assert (doc.title, doc.tenant, doc.acl_groups) == ("Handbook", "acme", {"staff"})
        assert doc.source_url == "https://docs.example/handbook" and doc.metadata == {"n": 1}
        assert corpus.get_document("missing") is None
        counts = corpus.count()
        assert (counts.documents, counts.chunks, counts.vectors) == (5, 6, 6)
        assert [d.doc_id for d in corpus.list_documents()] == sorted(
            ["handbook", "salaries", "reviews", "draft", "globex-salaries"])

    def test_get_chunks_roundtrip(self, ready: Store, embedder: FakeEmbedder) -> None:
        item = make_write(embedder, "guide", ["First part.", "Second part. Third."],
                          groups=["staff"])
        marks = (SectionMark(0, "second", ("Guide", "Second")),
                 SectionMark(13, None, ("Guide", "Third, ünïcode")))
        item = replace(item, chunks=(item.chunks[0], replace(item.chunks[1], sections=marks)))
        ready.write([item])
        got = ready.get_chunks([c.chunk_id for c in item.chunks], STAFF)
        assert set(got) == {c.chunk_id for c in item.chunks}
        for expected in item.chunks:
            chunk, doc = got[expected.chunk_id]
            assert doc.doc_id == "guide"
            for field in ("doc_id", "ordinal", "text", "embed_hash", "start", "end",
                          "heading_path", "anchor", "section_id", "token_count", "kind", "page",
                          "sections"):
                assert getattr(chunk, field) == getattr(expected, field), field

    def test_rewrite_replaces_chunks(self, corpus: Store, embedder: FakeEmbedder) -> None:
        old = self.chunk_ids("handbook")
        new = make_write(embedder, "handbook", ["Parental leave lasts sixteen weeks."],
                         groups=["staff"], version=2)
        corpus.write([new])
        assert corpus.get_chunks(old, STAFF) == {}
        sparse, dense = self.search_all(corpus, embedder, "vacation salary parental leave", STAFF)
        assert not set(old) & set(sparse + dense)
        assert sparse == [new.chunks[0].chunk_id] and dense == [new.chunks[0].chunk_id]
        assert corpus.get_document("handbook").version == 2  # type: ignore[union-attr]
        assert corpus.count().vectors == 5  # the old text's vectors are gone

    def test_write_failure_is_atomic(self, corpus: Store, embedder: FakeEmbedder) -> None:
        before = corpus.get_document("handbook")
        good = make_write(embedder, "new-doc", ["Brand new text."], groups=["staff"])
        changed = make_write(embedder, "handbook", ["Replaced text."], groups=["staff"])
        bad = DocumentWrite(changed.document, changed.chunks,
                            {h: np.ones(DIM + 1, np.float32) for h in changed.vectors})
        with pytest.raises(StoreError):
            corpus.write([good, bad])
        assert corpus.get_document("new-doc") is None
        assert corpus.get_document("handbook") == before
        assert set(corpus.get_chunks(self.chunk_ids("handbook"), STAFF)) == set(
            self.chunk_ids("handbook"))
        assert corpus.count().documents == 5
        assert self.search_all(corpus, embedder, "brand replaced", STAFF)[0] == []

    def test_an_ingest_write_never_replaces_another_tenants_document(
            self, corpus: Store, embedder: FakeEmbedder) -> None:
        """A security review: an ingest checked the id's tenant before parsing and embedding
        its batch; another process's upload of that id to another tenant meanwhile was then
        overwritten without a word. The write checks it again, inside its transaction; a
        copy (a version catch-up, migrate) writes the record as it is."""
        globex = make_write(embedder, "globex-note", ["Globex private note."],
                            groups=["staff"], tenant="globex")
        corpus.write([globex])
        before = corpus.get_document("globex-note")
        acme = make_write(embedder, "globex-note", ["Acme's note, same id."], groups=["staff"])
        fresh = make_write(embedder, "acme-fresh", ["Fresh acme text."], groups=["staff"])
        with pytest.raises(StoreError, match="another tenant by another process"):
            corpus.write([replace(fresh, same_tenant=True), replace(acme, same_tenant=True)])
        assert corpus.get_document("globex-note") == before
        assert corpus.get_document("acme-fresh") is None  # the batch is one transaction
        g = Principal.of("staff", tenant="globex")
        assert globex.chunks[0].chunk_id in self.search_all(
            corpus, embedder, "globex private note", g)[1]
        same = make_write(embedder, "globex-note", ["Globex note, edited."], groups=["staff"],
                          tenant="globex", version=2)
        corpus.write([replace(same, same_tenant=True)])  # its own tenant: replaced
        assert corpus.get_document("globex-note").version == 2

    def test_cached_vectors(self, ready: Store, embedder: FakeEmbedder) -> None:
        item = make_write(embedder, "guide", ["Cached text."], groups=["staff"])
        h = item.chunks[0].embed_hash
        assert ready.cached_vectors([h, "unknown"], "acme") == set()
        ready.write([item])
        assert ready.cached_vectors([h, "unknown"], "acme") == {h}
        again = make_write(embedder, "guide-copy", ["Cached text."], groups=["staff"],
                           title="Guide")
        ready.write([DocumentWrite(again.document, again.chunks, {})])  # vector reused
        assert ready.count().vectors == 1

    # -- tenancy -----------------------------------------------------------------------------

    def test_tenancy_recorded_and_fixed(self, ready: Store, embedder: FakeEmbedder) -> None:
        assert ready.manifest().tenancy == self.TENANCY  # type: ignore[union-attr]
        other = "shared" if self.TENANCY == "isolated" else "isolated"
        for wanted, ok in ((self.TENANCY, True), (None, True), (other, False)):
            manifest = make_manifest(embedder.model_id, embedder.dim, {"chunker": "test"},
                                     "test-chunker", wanted)
            if ok:
                assert ready.ensure_manifest(manifest).tenancy == self.TENANCY
            else:
                with pytest.raises(IndexMismatchError, match="tenancy.*citewise reindex"):
                    ready.ensure_manifest(manifest)

    def test_tenancy_embedding_cache(self, ready: Store, embedder: FakeEmbedder) -> None:
        """Isolated: another tenant's exact text is not in this tenant's cache (it must be
        embedded again); shared: the cache confirms it (what shared tenancy reveals)."""
        acme = make_write(embedder, "acme-doc", ["Merger plan code name Falcon."],
                          groups=["staff"], title="Plan")
        h = acme.chunks[0].embed_hash
        ready.write([acme])
        assert ready.cached_vectors([h], "acme") == {h}
        isolated = self.TENANCY == "isolated"
        assert ready.cached_vectors([h], "globex") == (set() if isolated else {h})
        globex = make_write(embedder, "globex-doc", ["Merger plan code name Falcon."],
                            groups=["staff"], tenant="globex", title="Plan")
        bare = DocumentWrite(globex.document, globex.chunks, {})
        if isolated:
            with pytest.raises(StoreError, match="no vector"):
                ready.write([bare])
            ready.write([globex])
            assert ready.count().vectors == 2
        else:
            ready.write([bare])
            assert ready.count().vectors == 1
        ready.delete(["acme-doc"])
        assert ready.cached_vectors([h], "acme") == (set() if isolated else {h})
        g = Principal.of("staff", tenant="globex")
        assert self.search_all(ready, embedder, "merger falcon", g)[1] == [
            globex.chunks[0].chunk_id]

    def test_tenancy_lexical_scores(self, ready: Store, embedder: FakeEmbedder) -> None:
        """Acme's lexical score for a query is unchanged when globex adds documents, under
        isolated tenancy always; under shared tenancy only where the ranking has no
        collection statistics (``LEXICAL_STATS_SHARED = False``)."""
        ready.write([make_write(embedder, "acme-1", ["Falcon merger timeline and owners."],
                                groups=["staff"])]
                    + [make_write(embedder, f"acme-{i}", [f"Quarterly budget review {i}."],
                                  groups=["staff"]) for i in range(2, 7)])
        before = ready.search_sparse("falcon merger", 5, STAFF)
        ready.write([make_write(embedder, f"globex-{i}", [f"Falcon merger memo {i}."],
                                groups=["staff"], tenant="globex") for i in range(20)])
        after = ready.search_sparse("falcon merger", 5, STAFF)
        assert ids_of(after) == ids_of(before)
        same = abs(after[0].score - before[0].score) < 1e-9
        assert same == (self.TENANCY == "isolated" or not self.LEXICAL_STATS_SHARED)

    def test_explain_does_not_reveal_names(self, corpus: Store) -> None:
        """The filter description is the same for names the index holds and names it does
        not (with the names themselves swapped)."""
        def text(tenant: str, groups: str) -> str:
            return corpus.describe_filter(Principal.of(groups, tenant=tenant)).replace(
                tenant, "T").replace(groups.split(",")[-1], "G")

        assert text("globex", "staff,hr") == text("initech", "staff,ghost")
        assert text("acme", "hr") == text("acme", "nogroup")

    # -- ACL ---------------------------------------------------------------------------------

    def test_acl_canary(self, corpus: Store, embedder: FakeEmbedder) -> None:
        canary = self.chunk_ids("salaries")
        sparse, dense = self.search_all(corpus, embedder, QUERY, STAFF)
        assert sparse and dense  # the staff principal does get results...
        assert not set(canary) & set(sparse + dense)  # ...never the restricted best match
        assert corpus.get_chunks(canary, STAFF) == {}
        sparse, dense = self.search_all(corpus, embedder, QUERY, HR)
        assert sparse[0] == canary[0] and dense[0] == canary[0]
        assert set(corpus.get_chunks(canary, HR)) == set(canary)

    def test_tenant_isolation(self, corpus: Store, embedder: FakeEmbedder) -> None:
        other = self.chunk_ids("globex-salaries")
        for principal in (STAFF, HR, Principal.of("staff,hr", tenant="acme")):
            sparse, dense = self.search_all(corpus, embedder, QUERY, principal)
            assert not set(other) & set(sparse + dense)
            assert corpus.get_chunks(other, principal) == {}
        nowhere = Principal.of("staff,hr", tenant="initech")
        assert self.search_all(corpus, embedder, QUERY, nowhere) == ([], [])
        globex = Principal.of("hr", tenant="globex")
        assert self.search_all(corpus, embedder, QUERY, globex) == (other, other)

    def test_no_groups_sees_nothing(self, corpus: Store, embedder: FakeEmbedder) -> None:
        everything = self.chunk_ids("handbook") + self.chunk_ids("salaries")
        nobody = Principal(tenant="acme", groups=frozenset())
        assert self.search_all(corpus, embedder, QUERY, nobody) == ([], [])
        assert corpus.get_chunks(everything, nobody) == {}
        assert self.search_all(corpus, embedder, "draft", Principal.of("x,y")) == ([], [])

    def test_group_name_is_not_tokenized(self, corpus: Store, embedder: FakeEmbedder) -> None:
        reviews = self.chunk_ids("reviews")
        query = "performance review calibration managers"
        for groups in ("hr", "managers", "hr,managers", "hr managers", "hr-manager"):
            principal = Principal.of(groups, tenant="acme")
            sparse, dense = self.search_all(corpus, embedder, query, principal)
            assert not set(reviews) & set(sparse + dense), groups
            assert corpus.get_chunks(reviews, principal) == {}
        sparse, dense = self.search_all(corpus, embedder, query,
                                        Principal.of("hr-managers", tenant="acme"))
        assert sparse == reviews and dense == reviews

    def test_a_release_number_is_searched_whole(self, ready: Store,
                                                embedder: FakeEmbedder) -> None:
        """"When was Python 3.4.6 released?" searched for "python" and "released" (one-digit
        parts are no words) and ranked 3.6.4's section first (a new user's)."""
        notes = {"r346": "Python 3.4.6 final was released on 2017-01-17 after 3.4.6rc1.",
                 "r364": "Python 3.6.4 final was released on 2017-12-19, as was 3.6.4rc1.",
                 "r30": "Python 3.0 final was released on 2008-12-03.",
                 "r31": "Python 3.1 final was released, a year after 3.0.1 and 3.0.2."}
        ready.write([make_write(embedder, doc_id, [text], groups=["staff"])
                     for doc_id, text in notes.items()])
        for query, doc_id in (("When was Python 3.4.6 released?", "r346"),
                              ("When was Python 3.6.4 released?", "r364"),
                              ("When did Python 3.0 final come out?", "r30")):
            hits = ready.search_sparse(query, 4, STAFF)
            assert hits and hits[0].chunk_id.startswith(f"{doc_id}#"), (query, hits)

    def test_set_acl_changes_visibility(self, corpus: Store, embedder: FakeEmbedder) -> None:
        canary = self.chunk_ids("salaries")
        before = (self.vector_fingerprint(corpus), corpus.count())
        corpus.set_acl("salaries", ["staff"])
        sparse, dense = self.search_all(corpus, embedder, QUERY, STAFF)
        assert sparse[0] == canary[0] and dense[0] == canary[0]
        assert set(corpus.get_chunks(canary, STAFF)) == set(canary)
        assert self.search_all(corpus, embedder, QUERY, HR) == ([], [])
        assert corpus.get_chunks(canary, HR) == {}
        assert corpus.get_document("salaries").acl_groups == {"staff"}  # type: ignore[union-attr]
        corpus.set_acl("salaries", ["hr"], tenant="globex")
        assert corpus.get_chunks(canary, HR) == {}
        globex = Principal.of("hr", tenant="globex")
        assert set(canary) <= set(self.search_all(corpus, embedder, QUERY, globex)[1])
        assert (self.vector_fingerprint(corpus), corpus.count()) == before

    def test_set_acl_unknown_document(self, corpus: Store) -> None:
        with pytest.raises(NotFoundError):
            corpus.set_acl("missing", ["staff"])

    def test_selective_filter_returns_full_top_k(self, ready: Store,
                                                 embedder: FakeEmbedder) -> None:
        rare = Principal.of("rare", tenant="acme")
        batch = [make_write(embedder, f"doc-{i:03d}", [f"Common report number {i} part {j}."
                                                       for j in range(3)],
                            groups=["rare"] if i in (17, 101, 188) else ["common"])
                 for i in range(200)]
        ready.write(batch)
        sparse, dense = self.search_all(ready, embedder, "common report", rare, top_k=5)
        assert len(sparse) == 5 and len(dense) == 5
        sparse, dense = self.search_all(ready, embedder, "common report", rare, top_k=50)
        assert len(sparse) == 9 and len(dense) == 9

    # -- deletes -----------------------------------------------------------------------------

    def test_delete(self, corpus: Store, embedder: FakeEmbedder) -> None:
        canary = self.chunk_ids("salaries")
        vectors = corpus.count().vectors
        assert corpus.delete(["salaries", "missing"]) == 1
        assert corpus.get_document("salaries") is None
        assert corpus.get_chunks(canary, HR) == {}
        assert self.search_all(corpus, embedder, QUERY, HR) == ([], [])
        assert corpus.count().vectors == vectors - 1
        assert corpus.delete(["salaries"]) == 0

    def test_delete_keeps_shared_vectors(self, ready: Store, embedder: FakeEmbedder) -> None:
        a = make_write(embedder, "a", ["Shared text."], groups=["staff"], title="Same")
        b = make_write(embedder, "b", ["Shared text."], groups=["staff"], title="Same")
        ready.write([a, b])
        assert ready.count().vectors == 1
        ready.delete(["a"])
        assert ready.count().vectors == 1
        assert self.search_all(ready, embedder, "shared", STAFF)[1] == [b.chunks[0].chunk_id]
        ready.delete(["b"])
        assert ready.count().vectors == 0

    # -- manifest, filters, other store objects ----------------------------------------------

    def test_manifest(self, store: Store, embedder: FakeEmbedder) -> None:
        assert store.manifest() is None
        mine = make_manifest(embedder.model_id, DIM, {"chunk_tokens": 256}, "c1")
        assert store.ensure_manifest(mine) == mine
        assert store.manifest() == mine
        assert store.ensure_manifest(make_manifest(embedder.model_id, DIM, {}, "c1")) == mine
        for other in (make_manifest("other-model", DIM, {}, "c1"),
                      make_manifest(embedder.model_id, DIM * 2, {}, "c1"),
                      make_manifest(embedder.model_id, DIM, {}, "c2")):
            with pytest.raises(IndexMismatchError, match="ingest --db"):
                store.ensure_manifest(other)

    def test_dense_query_dimension_checked(self, corpus: Store) -> None:
        with pytest.raises(StoreError, match="64"):
            corpus.search_dense(np.ones(DIM + 1, np.float32), 5, STAFF)
        with pytest.raises(StoreError):
            corpus.search_dense(np.full(DIM, np.nan, np.float32), 5, STAFF)

    def test_describe_filter(self, corpus: Store) -> None:
        text = corpus.describe_filter(Principal.of("staff,hr", tenant="acme"))
        assert "acme" in text and "hr" in text and "staff" in text

    def test_second_store_sees_writes(self, corpus: Store, embedder: FakeEmbedder) -> None:
        other = self.reopen(corpus)
        try:
            assert self.search_all(other, embedder, QUERY, HR)[1]  # loads its matrix
            corpus.write([make_write(embedder, "memo", ["Holiday memo for staff."],
                                     groups=["staff"])])
            sparse, dense = self.search_all(other, embedder, "holiday memo", STAFF)
            assert sparse[0].startswith("memo#") and dense[0].startswith("memo#")
            corpus.delete(["salaries"])
            assert self.search_all(other, embedder, QUERY, HR) == ([], [])
            corpus.set_acl("memo", ["hr"])
            assert not any(c.startswith("memo#")
                           for c in self.search_all(other, embedder, "holiday memo", STAFF)[1])
        finally:
            other.close()

    def test_generation_moves_with_every_write(self, corpus: Store,
                                               embedder: FakeEmbedder) -> None:
        """Reads leave it; ingest, ACL change and delete move it to a new number, the same
        for a second store object on the same data."""
        other = self.reopen(corpus)
        try:
            seen = [corpus.generation()]
            self.search_all(corpus, embedder, QUERY, HR)
            corpus.list_documents()
            assert corpus.generation() == seen[-1] == other.generation()
            for write in (
                lambda: corpus.write([make_write(embedder, "memo", ["Memo."], groups=["staff"])]),
                lambda: corpus.set_acl("memo", ["hr"]),
                lambda: corpus.delete(["memo"]),
            ):
                write()
                now = other.generation()
                assert now != seen[-1] and now not in seen
                assert corpus.generation() == now
                seen.append(now)
        finally:
            other.close()

    def test_dense_follows_interleaved_writes(self, corpus: Store,
                                              embedder: FakeEmbedder) -> None:
        """A long-lived store answers dense searches exactly as a fresh store on the same
        data does, while writes, rewrites, deletes, ACL changes and tenant moves interleave
        with the searches (the in-memory matrix catches up incrementally)."""
        rng = random.Random(7)
        words = ["salary", "leave", "review", "budget", "merger", "holiday", "policy",
                 "travel", "audit", "plan"]
        principals = [STAFF, HR, Principal.of("staff,hr", tenant="globex"),
                      Principal.of("hr-managers,staff", tenant="acme")]
        live = {doc_id: tenant for doc_id, _, _, tenant in CORPUS}
        for step in range(40):
            doc_id = f"d{rng.randrange(12)}"
            op = rng.choice(["write", "write", "delete", "acl", "move"])
            if op == "write" or doc_id not in live:
                tenant = rng.choice(["acme", "globex"])
                texts = [" ".join(rng.choices(words, k=6)) for _ in range(rng.randint(1, 3))]
                corpus.write([make_write(embedder, doc_id, texts, tenant=tenant,
                                         groups=rng.sample(["staff", "hr"], rng.randint(1, 2)))])
                live[doc_id] = tenant
            elif op == "delete":
                assert corpus.delete([doc_id]) == 1
                del live[doc_id]
            elif op == "acl":
                corpus.set_acl(doc_id, rng.sample(["staff", "hr", "hr-managers"], 1))
            else:
                live[doc_id] = "globex" if live[doc_id] == "acme" else "acme"
                corpus.set_acl(doc_id, ["staff"], live[doc_id])
            fresh = self.reopen(corpus)
            try:
                for principal in principals:
                    query = embedder.embed_query(rng.choice(words) + " " + rng.choice(words))
                    got = corpus.search_dense(query, 8, principal)
                    want = fresh.search_dense(query, 8, principal)
                    assert [(r.chunk_id, round(r.score, 5)) for r in got] == \
                        [(r.chunk_id, round(r.score, 5)) for r in want], (step, op, principal)
            finally:
                fresh.close()

    # -- parsed bodies and index metadata --------------------------------------------------

    def test_parsed_body_roundtrip(self, ready: Store, embedder: FakeEmbedder) -> None:
        text = "Policy\n\nStaff may work remotely two days a week."
        parsed = ParsedDocument(
            title="Policy", text=text, format="markdown", metadata={"owner": "ops"},
            blocks=(Block("heading", "Policy", 0, 6, ("Policy",), "policy", 1),
                    Block("text", text[8:], 8, len(text), ("Policy",), "policy")))
        item = make_write(embedder, "policy", [text[8:]], groups=["staff"])
        ready.write([replace(item, parsed=parsed)])
        assert ready.get_parsed("policy") == parsed
        assert ready.get_parsed("missing") is None
        ready.write([item])  # rewritten without a body: the old one must not linger
        assert ready.get_parsed("policy") is None
        ready.write([replace(item, parsed=parsed)])
        ready.delete(["policy"])
        assert ready.get_parsed("policy") is None

    def test_meta(self, ready: Store) -> None:
        assert ready.get_meta("gate.threshold") is None
        before = ready.generation()
        ready.set_meta("gate.threshold", "0.42")
        assert ready.generation() > before  # caches keyed by it drop the old gate's answers
        ready.set_meta("gate.threshold", "0.5")
        assert ready.get_meta("gate.threshold") == "0.5"
