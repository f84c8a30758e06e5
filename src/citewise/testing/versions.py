"""``VersionCatalogConformanceTests``: the guarantees every
:class:`~citewise.protocols.VersionCatalog` keeps.

A backend's test module subclasses this class and overrides the ``catalog`` fixture: an EMPTY
catalog on a fresh target (only version 1 exists, live, with no documents). Override
:meth:`open_live` to open the index the way users do (``open_store(target)``) and
:meth:`reopen` to return a second catalog object on the same target::

    class TestSQLiteCatalog(VersionCatalogConformanceTests):
        @pytest.fixture
        def catalog(self, tmp_path):
            with SQLiteCatalog(tmp_path / "index.db") as c:
                yield c

        def open_live(self, catalog):
            return open_store(catalog.path)

        def reopen(self, catalog):
            return SQLiteCatalog(catalog.path)

Each version is filled with its own documents (version 1: ``A_DOCS``, the shadow: ``B_DOCS``,
written with another embedder id), so a search tells which version answered.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import pytest

from citewise.errors import VersionError
from citewise.index.changelog import delete_change, put_change
from citewise.index.follow import pinned
from citewise.index.manifest import make_manifest
from citewise.index.versions import (
    gc_versions,
    is_abandoned,
    purge_versions,
    rollback,
    rollback_target,
)
from citewise.protocols import Store, VersionCatalog
from citewise.testing.conformance import make_write
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Principal

READER = Principal.of("staff", tenant="acme")
QUERY = "travel expenses reimbursement"
A_DOCS = ("travel-a", "expenses-a")
B_DOCS = ("travel-b", "expenses-b", "mileage-b")


class NoiseEmbedder:
    """A deliberately useless embedder for gate tests: each text's vector is random noise
    seeded by the text's hash (deterministic, unrelated to its words)."""

    def __init__(self, dim: int = 64, model_id: str = "noise-64") -> None:
        self.dim, self.model_id = dim, model_id

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        vec = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return vec / np.linalg.norm(vec)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros(
            (0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def fill(store: Store, embedder: FakeEmbedder, doc_ids: Sequence[str]) -> None:
    """Record ``embedder``'s manifest and write one readable document per id, each about
    :data:`QUERY`, so every version answers the query with its own documents."""
    store.ensure_manifest(make_manifest(embedder.model_id, embedder.dim, {"chunker": "test"},
                                        f"chunker-{embedder.model_id}"))
    store.write([make_write(embedder, doc_id, [f"{QUERY} rules for {doc_id}.",
                                               f"Receipts and approvals of {doc_id}."],
                            groups=["staff"]) for doc_id in doc_ids])


def fill_version(catalog: VersionCatalog, number: int, embedder: FakeEmbedder,
                 doc_ids: Sequence[str]) -> None:
    """:func:`fill` version ``number`` of ``catalog``."""
    store = catalog.open(number)
    try:
        fill(store, embedder, doc_ids)
    finally:
        store.close()


def fill_two_versions(catalog: VersionCatalog, embedder_a: FakeEmbedder | None = None,
                      embedder_b: FakeEmbedder | None = None,
                      note: str = "") -> VersionCatalog:
    """Version 1 (live) of an empty ``catalog`` filled with A_DOCS (``fake-a-32``), and a new
    shadow, version 2, with B_DOCS (``fake-b-48``)."""
    fill_version(catalog, 1, embedder_a or FakeEmbedder(dim=32, model_id="fake-a-32"),
                 A_DOCS)
    shadow = catalog.create(note=note)
    fill_version(catalog, shadow.number,
                 embedder_b or FakeEmbedder(dim=48, model_id="fake-b-48"), B_DOCS)
    return catalog


def answering_docs(store: Store) -> set[str]:
    """The documents whose chunks a BM25 search for :data:`QUERY` returns (search and
    hydration on one version, as ``Engine.search`` does)."""
    with pinned(store) as one:
        hits = one.search_sparse(QUERY, 20, READER)
        chunks = one.get_chunks([h.chunk_id for h in hits], READER)
    return {doc.doc_id for _, doc in chunks.values()}


class VersionCatalogConformanceTests:
    """Subclass, override ``catalog`` (and preferably :meth:`open_live`, :meth:`reopen`)."""

    @pytest.fixture
    def catalog(self) -> VersionCatalog:
        raise NotImplementedError("override the `catalog` fixture with an empty catalog")

    def open_live(self, catalog: VersionCatalog) -> Store:
        """A store on the live version, opened as users open the index (default: through
        the catalog; backends should override with ``open_store(target)``)."""
        return catalog.open(catalog.live().number)

    def reopen(self, catalog: VersionCatalog) -> VersionCatalog:
        """A second catalog object on the same target (skip the test if not possible)."""
        pytest.skip("backend does not provide reopen()")

    def open_location(self, catalog: VersionCatalog, number: int) -> Store:
        """Version ``number`` opened by its own location as a user would (``--db PATH.v2``,
        ``?schema=citewise_v2``); backends override it."""
        pytest.skip("backend does not provide open_location()")

    @pytest.fixture
    def embedder_a(self) -> FakeEmbedder:
        return FakeEmbedder(dim=32, model_id="fake-a-32")

    @pytest.fixture
    def embedder_b(self) -> FakeEmbedder:
        return FakeEmbedder(dim=48, model_id="fake-b-48")

    @pytest.fixture
    def two_versions(self, catalog: VersionCatalog, embedder_a: FakeEmbedder,
                     embedder_b: FakeEmbedder) -> VersionCatalog:
        """Version 1 (live) holds A_DOCS; version 2 (shadow) holds B_DOCS."""
        return fill_two_versions(catalog, embedder_a, embedder_b, note="built for the test")

    def _docs_of(self, catalog: VersionCatalog, number: int | None = None) -> set[str]:
        store = self.open_live(catalog) if number is None else catalog.open(number)
        try:
            return answering_docs(store)
        finally:
            store.close()

    def _delete_and_narrow(self, catalog: VersionCatalog, gone: str, narrowed: str) -> None:
        """Through the live store, as users write: delete ``gone``, give ``narrowed`` to
        group hr only."""
        live = self.open_live(catalog)
        try:
            live.delete([gone])
            live.set_acl(narrowed, ["hr"])
        finally:
            live.close()

    def _states(self, catalog: VersionCatalog) -> dict[int, str]:
        return {v.number: v.state for v in catalog.versions()}

    # -- registering -------------------------------------------------------------------------

    def test_implements_protocol(self, catalog: VersionCatalog) -> None:
        assert isinstance(catalog, VersionCatalog)

    def test_fresh_target_has_version_1_live(self, catalog: VersionCatalog) -> None:
        assert self._states(catalog) == {1: "live"}
        live = catalog.live()
        assert live.number == 1 and live.state == "live" and live.location
        datetime.fromisoformat(live.created_at)

    def test_create_registers_an_empty_shadow(self, catalog: VersionCatalog) -> None:
        made = catalog.create(note="chunk_tokens=128")
        assert (made.number, made.state, made.note) == (2, "shadow", "chunk_tokens=128")
        assert made.location != catalog.live().location
        datetime.fromisoformat(made.created_at)
        assert catalog.versions()[-1] == made
        assert catalog.live().number == 1
        store = catalog.open(made.number)
        try:
            assert store.manifest() is None and store.count().documents == 0
        finally:
            store.close()
        assert catalog.create().number == 3

    def test_versions_are_independent_stores(self, two_versions: VersionCatalog) -> None:
        assert self._docs_of(two_versions, 1) == set(A_DOCS)
        assert self._docs_of(two_versions, 2) == set(B_DOCS)
        assert self._docs_of(two_versions) == set(A_DOCS)  # the shadow is not live
        manifests = []
        for number in (1, 2):
            store = two_versions.open(number)
            try:
                manifests.append(store.manifest())
            finally:
                store.close()
        assert [m.embedder_id for m in manifests] == ["fake-a-32", "fake-b-48"]

    # -- promoting ---------------------------------------------------------------------------

    def test_promote_flips_live_and_retires_the_previous(self,
                                                         two_versions: VersionCatalog) -> None:
        two_versions.promote(2, note="nDCG@10 0.61 -> 0.64")
        assert self._states(two_versions) == {1: "retired", 2: "live"}
        assert two_versions.live().note == "nDCG@10 0.61 -> 0.64"
        assert self._docs_of(two_versions) == set(B_DOCS)

    def test_version_store_keeps_its_version(self, two_versions: VersionCatalog) -> None:
        before = two_versions.open(1)  # one version, on purpose (reindex reads it so)
        try:
            first = answering_docs(before)
            two_versions.promote(2)
            assert answering_docs(before) == first == set(A_DOCS)
            assert self._docs_of(two_versions) == set(B_DOCS)  # opened after: the new one
        finally:
            before.close()

    def test_live_store_follows_promotions(self, two_versions: VersionCatalog) -> None:
        """A store opened as users open the index, before a promotion, serves the new live
        version after it (and the old one again after a rollback)."""
        before = self.open_live(two_versions)
        try:
            assert answering_docs(before) == set(A_DOCS)
            two_versions.promote(2)
            assert answering_docs(before) == set(B_DOCS)
            two_versions.promote(1)
            assert answering_docs(before) == set(A_DOCS)
        finally:
            before.close()

    def test_deletes_and_acl_changes_survive_rollback(
            self, two_versions: VersionCatalog) -> None:
        """A delete or ACL change made while one version is live holds in every version made
        live later, both ways (issue 10, item 1)."""
        live = self.open_live(two_versions)
        try:
            live.delete(["travel-a"])
            two_versions.promote(2)
            live.set_acl("expenses-b", ["hr"])
            live.delete(["mileage-b"])
            assert answering_docs(live) == {"travel-b"}
            two_versions.promote(1)  # rollback: version 1 never saw these writes
            assert answering_docs(live) == {"expenses-a"}
            two_versions.promote(2)
            assert answering_docs(live) == {"travel-b"}
            assert live.get_document("mileage-b") is None
            assert live.get_document("expenses-b").acl_groups == {"hr"}  # type: ignore[union-attr]
        finally:
            live.close()

    def test_deletes_and_acl_changes_reach_retired_versions_at_once(
            self, two_versions: VersionCatalog, embedder_a: FakeEmbedder,
            embedder_b: FakeEmbedder) -> None:
        """A retired version opened directly (``--db PATH.v1``, ``?schema=citewise_v1``, a
        server pinned to it) shows neither a deleted document nor an old ACL once the
        command returns, before any rollback: its rows are gone, not merely hidden."""
        fill_version(two_versions, 1, embedder_a, ["shared"])
        fill_version(two_versions, 2, embedder_b, ["shared"])
        two_versions.promote(2)  # version 1 retired
        self._delete_and_narrow(two_versions, "travel-a", "shared")  # travel-a: retired only
        retired = two_versions.open(1)
        try:
            assert retired.get_document("travel-a") is None
            assert retired.get_document("shared").acl_groups == {"hr"}  # type: ignore[union-attr]
            assert answering_docs(retired) == {"expenses-a"}
        finally:
            retired.close()

    def test_a_wider_acl_never_reaches_older_text(self, two_versions: VersionCatalog,
                                                  embedder_a: FakeEmbedder,
                                                  embedder_b: FakeEmbedder) -> None:
        """A security review: a draft readable by hr only was re-ingested redacted for hr
        and staff (or redacted, then widened with ``acl``); the retired version's copy of
        the draft got staff too, and ``rollback`` showed it to them. A copy of other text
        than the live version's is deleted instead, at once and on rollback."""
        for number, embedder in ((1, embedder_a), (2, embedder_b)):
            store = two_versions.open(number)
            try:
                store.write([make_write(embedder, "memo", ["DRAFT: close the Leeds office."],
                                        groups=["hr"])])
                store.write([make_write(embedder, "note", ["DRAFT: cut 40 roles."],
                                        groups=["hr"])])
            finally:
                store.close()
        two_versions.promote(2)  # version 1 retired, holding both drafts
        live = self.open_live(two_versions)
        try:
            live.write([make_write(embedder_b, "memo", ["The reorg is announced."],
                                   groups=["hr", "staff"])])
            retired = two_versions.open(1)
            try:  # at once: a version opened directly holds no draft for staff
                assert retired.get_document("memo") is None
            finally:
                retired.close()
            direct = two_versions.open(2)  # changed text the change log never saw
            try:
                direct.write([make_write(embedder_b, "note", ["Teams are regrouped."],
                                         groups=["hr"])])
            finally:
                direct.close()
            live.set_acl("note", ["hr", "staff"])
            retired = two_versions.open(1)
            try:
                assert retired.get_document("note") is None
            finally:
                retired.close()
            two_versions.promote(1)  # rollback
            assert live.get_document("memo") is None and live.get_document("note") is None
            assert answering_docs(live) == set(A_DOCS)
        finally:
            live.close()

    def test_a_write_logged_but_never_done_gives_its_readers_to_no_other_text(
            self, two_versions: VersionCatalog, embedder_b: FakeEmbedder) -> None:
        """A security review: a redacted memo re-ingested for hr and staff over its hr-only
        draft, the process killed (or its PostgreSQL connection dropped) after the change
        was logged and before the text was written; the next read replayed the change and
        gave the draft to staff. A logged write sets readers on the text it wrote alone."""
        two_versions.promote(2)
        redacted = make_write(embedder_b, "memo", ["The reorg is announced."],
                              groups=["hr", "staff"])
        live = self.open_live(two_versions)
        try:
            live.write([make_write(embedder_b, "memo", ["DRAFT: codename BLUEHERON."],
                                   groups=["hr"])])
        finally:
            live.close()
        two_versions.record([put_change(  # type: ignore[attr-defined]
            "memo", "acme", ["hr", "staff"], content_hash=redacted.document.content_hash)])
        live = self.open_live(two_versions)  # another process: it replays the log
        try:
            draft = live.get_document("memo")
            assert draft is not None and draft.acl_groups == {"hr"}
            assert not live.get_chunks([c.chunk_id for c in live.search_sparse(
                "codename BLUEHERON", 5, READER)], READER)
            live.write([redacted])  # the ingest run again
            done = live.get_document("memo")
            assert done is not None and done.acl_groups == {"hr", "staff"}
        finally:
            live.close()

    def test_a_version_opened_by_its_location_is_read_only(
            self, two_versions: VersionCatalog, embedder_b: FakeEmbedder) -> None:
        """A security review: an ACL narrowed through the live version's own location was
        undone by ``rollback`` (the write bypassed the change log), and a delete through a
        retired version's location said "deleted" while the index still served it."""
        two_versions.promote(2)
        direct = self.open_location(two_versions, 2)
        try:
            assert answering_docs(direct) == set(B_DOCS)  # reading is fine
            for write in (lambda: direct.delete(["travel-b"]),
                          lambda: direct.set_acl("travel-b", ["hr"]),
                          lambda: direct.write([make_write(embedder_b, "new", ["x y z"],
                                                           groups=["staff"])]),
                          lambda: direct.set_meta("gate.threshold", "0.1")):
                with pytest.raises(VersionError, match="Fix: pass --db"):
                    write()
        finally:
            direct.close()
        assert self._docs_of(two_versions) == set(B_DOCS)

    def test_deletes_and_acl_changes_reach_a_shadow_at_once(
            self, two_versions: VersionCatalog, embedder_a: FakeEmbedder,
            embedder_b: FakeEmbedder) -> None:
        """A security review read a deleted document in the shadow of a build that was
        killed (``--db PATH.v4``) until the next ``versions --gc``."""
        fill_version(two_versions, 1, embedder_a, ["shared", "other"])
        fill_version(two_versions, 2, embedder_b, ["shared", "other"])  # the shadow's copies
        self._delete_and_narrow(two_versions, "shared", "other")
        shadow = two_versions.open(2)
        try:
            assert shadow.get_document("shared") is None
            assert shadow.get_document("other").acl_groups == {"hr"}  # type: ignore[union-attr]
        finally:
            shadow.close()
        two_versions.promote(2)
        assert self._docs_of(two_versions) == set(B_DOCS)

    def test_gc_applies_changes_a_retired_version_missed(
            self, two_versions: VersionCatalog) -> None:
        """``citewise versions --gc`` brings every remaining version up to date with the
        change log before it purges leftovers (a change logged before versions were settled
        at once, or by a writer that died between its two steps)."""
        two_versions.promote(2)
        with two_versions.gate():  # type: ignore[attr-defined]
            two_versions.record([delete_change("expenses-a")])  # type: ignore[attr-defined]
        assert self._docs_of(two_versions, 1) == set(A_DOCS)
        purge_versions(two_versions)
        assert self._docs_of(two_versions, 1) == {"travel-a"}

    def test_readers_never_see_a_mix_during_promotions(self,
                                                       two_versions: VersionCatalog) -> None:
        seen: list[set[str]] = []
        errors: list[BaseException] = []
        stop = threading.Event()

        def read() -> None:
            try:
                while not stop.is_set():
                    seen.append(self._docs_of(two_versions))
            except BaseException as exc:  # reported below, not lost in the thread
                errors.append(exc)

        reader = threading.Thread(target=read)
        reader.start()
        try:
            for number in (2, 1, 2, 1, 2, 1):
                two_versions.promote(number)
        finally:
            stop.set()
            reader.join()
        assert not errors, errors
        assert seen and all(s in (set(A_DOCS), set(B_DOCS)) for s in seen)
        assert sum(1 for v in two_versions.versions() if v.state == "live") == 1

    def test_a_read_outlives_a_promotion_and_a_rollback(self,
                                                        two_versions: VersionCatalog) -> None:
        """A security review's reads on a PostgreSQL server failed ("the pool is closed")
        when a promotion and a rollback came within one read: the store of "two versions
        ago" was closed, the read's still on it."""
        live = self.open_live(two_versions)
        closed: list[Store] = []
        try:
            with pinned(live) as store:
                assert answering_docs(store) == set(A_DOCS)
                close = store.close
                store.close = lambda: (closed.append(store), close())  # type: ignore[method-assign]
                for number in (2, 1, 2):
                    two_versions.promote(number)
                    answering_docs(live)  # the live store follows each flip
                assert closed == []  # (a PostgreSQL store reopens its pool on its next use:
                # closed under a read, the read's query failed)
                assert answering_docs(store) == set(A_DOCS)
            assert closed == [store]  # closed once the read is done, not left open
            assert answering_docs(live) == set(B_DOCS)
        finally:
            live.close()

    def test_writes_through_the_live_store_reach_the_live_version(
            self, two_versions: VersionCatalog, embedder_b: FakeEmbedder) -> None:
        two_versions.promote(2)
        store = self.open_live(two_versions)
        try:
            store.write([make_write(embedder_b, "per-diem-b", [f"{QUERY} per diem."],
                                    groups=["staff"])])
        finally:
            store.close()
        assert self._docs_of(two_versions, 2) == set(B_DOCS) | {"per-diem-b"}
        assert self._docs_of(two_versions, 1) == set(A_DOCS)

    def test_promote_unknown_version_is_refused(self, two_versions: VersionCatalog) -> None:
        with pytest.raises(VersionError, match="Fix:"):
            two_versions.promote(99)
        assert self._states(two_versions) == {1: "live", 2: "shadow"}

    def test_promote_refused_version_is_refused(self, two_versions: VersionCatalog) -> None:
        two_versions.set_state(2, "refused", note="nDCG@10 dropped 0.64 -> 0.51")
        with pytest.raises(VersionError, match="Fix:") as info:
            two_versions.promote(2)
        assert "refused" in str(info.value)
        assert self._states(two_versions) == {1: "live", 2: "refused"}
        assert two_versions.versions()[1].note == "nDCG@10 dropped 0.64 -> 0.51"
        assert self._docs_of(two_versions) == set(A_DOCS)

    def test_promote_live_or_empty_version_is_refused(self, two_versions: VersionCatalog) -> None:
        try:  # promoting the live version: an error or a no-op, never a state change
            two_versions.promote(1)
        except VersionError as exc:
            assert "Fix:" in str(exc)
        assert self._states(two_versions) == {1: "live", 2: "shadow"}
        empty = two_versions.create(note="never built")
        with pytest.raises(VersionError, match="Fix:"):
            two_versions.promote(empty.number)
        assert two_versions.live().number == 1

    # -- rolling back and states -------------------------------------------------------------

    def test_rollback_to_a_retired_version(self, two_versions: VersionCatalog) -> None:
        two_versions.promote(2)
        target = rollback_target(two_versions.versions())
        assert target.number == 1
        two_versions.promote(target.number, note="rollback")
        assert self._states(two_versions) == {1: "live", 2: "retired"}
        assert self._docs_of(two_versions) == set(A_DOCS)
        two_versions.promote(2)  # and forward again: retired versions stay usable
        assert self._docs_of(two_versions) == set(B_DOCS)

    def test_rollback_returns_to_the_version_the_live_one_replaced(
            self, two_versions: VersionCatalog, embedder_a: FakeEmbedder) -> None:
        """A reliability review: live 2, roll back to 1, build 3 from it and promote it;
        `rollback` went to 2 (the newest retired below 3), the version rolled away from."""
        two_versions.promote(2)
        rollback(two_versions)  # back to 1; 2 retired
        third = two_versions.create(note="built from 1")
        fill_version(two_versions, third.number, embedder_a, A_DOCS)
        two_versions.promote(third.number)
        assert two_versions.replaced() == 1
        assert rollback(two_versions) == (third.number, 1)
        assert self._states(two_versions) == {1: "live", 2: "retired", third.number: "retired"}

    def test_set_state_rules(self, two_versions: VersionCatalog) -> None:
        for number, state in ((1, "refused"), (2, "live"), (2, "deleted"), (99, "refused")):
            with pytest.raises(VersionError, match="Fix:"):
                two_versions.set_state(number, state, note="x")
        two_versions.set_state(2, "retired", note="kept for later")
        assert two_versions.versions()[1].state == "retired"
        assert two_versions.versions()[1].note == "kept for later"
        two_versions.set_state(2, "refused")  # no note: the previous one stays
        assert two_versions.versions()[1].note == "kept for later"

    def test_states_and_notes_persist(self, two_versions: VersionCatalog) -> None:
        two_versions.promote(2, note="passed: nDCG@10 +0.03")
        refused = two_versions.create(note="trial")
        two_versions.set_state(refused.number, "refused", note="recall@10 -0.2")
        again = self.reopen(two_versions)
        assert again.versions() == two_versions.versions()
        assert [(v.state, v.note) for v in again.versions()[1:]] == [
            ("live", "passed: nDCG@10 +0.03"), ("refused", "recall@10 -0.2")]
        assert again.versions()[0].state == "retired"

    def test_numbers_are_never_reused(self, two_versions: VersionCatalog) -> None:
        two_versions.set_state(2, "refused", note="worse")
        assert two_versions.create().number == 3

    # -- removing versions (citewise versions --gc) -------------------------------------------

    def test_gc_removes_refused_and_abandoned_keeps_live_retired_and_building(
            self, two_versions: VersionCatalog) -> None:
        two_versions.promote(2)                          # 1 retired, 2 live
        abandoned = two_versions.create(note="builder died")
        building = two_versions.create(note="being built")
        refused = two_versions.create(note="trial")
        two_versions.set_state(refused.number, "refused", note="worse")
        with two_versions.building(building.number):
            assert two_versions.is_building(building.number)
            assert not two_versions.is_building(abandoned.number)
            assert not is_abandoned(two_versions, two_versions.versions()[-2])  # too young
            removed = gc_versions(two_versions, grace_s=0)
        assert sorted(v.number for v in removed) == [abandoned.number, refused.number]
        assert self._states(two_versions) == {1: "retired", 2: "live",
                                              building.number: "shadow"}
        assert not two_versions.is_building(building.number)  # released on exit
        assert self._docs_of(two_versions) == set(B_DOCS)

    def test_gc_retired_on_request_and_numbers_stay_unique(
            self, two_versions: VersionCatalog) -> None:
        two_versions.promote(2)
        assert gc_versions(two_versions, grace_s=0) == []      # retired kept by default
        removed = gc_versions(two_versions, retired=True, grace_s=0)
        assert [v.number for v in removed] == [1]
        assert self._states(two_versions) == {2: "live"}
        assert self._docs_of(two_versions) == set(B_DOCS)
        trial = two_versions.create()
        two_versions.set_state(trial.number, "refused")
        assert [v.number for v in gc_versions(two_versions)] == [trial.number]
        assert two_versions.create().number == trial.number + 1  # a removed number stays used
        with pytest.raises(VersionError, match="Fix:"):
            two_versions.drop(2)                                # the live one never goes
