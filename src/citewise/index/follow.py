"""``LiveStore``: a :class:`~citewise.protocols.Store` that always serves the LIVE version.

What :func:`citewise.index.open_store` returns for an index with versions (a SQLite file, a
PostgreSQL database). A server holds one for days while ``reindex`` and ``rollback`` flip the
live version under it, so:

* every call first reads the catalog's live state (one small query) and reopens the store
  when another version went live;
* every write (``write``, ``delete``, ``set_acl``) holds the index's write gate
  (:mod:`citewise.index.gate`) while it resolves the live version, logs the change
  (:mod:`citewise.index.changelog`) and writes it, so it can never land on a version that a
  concurrent promotion just retired, and every version made live later applies it;
* a delete or an ACL change also reaches the retired and refused versions at once
  (:func:`~citewise.index.changelog.settle_versions`);
* a live version that missed a logged change (its writer died between the log and the
  write) applies it on the next write, or on the next read that finds the gate free.

:meth:`LiveStore.pinned` gives one version for the duration of a multi-call read (a search
and its hydration), so a flip in between never mixes two versions in one answer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol, TypeVar

import numpy as np

from citewise.errors import ChangedSinceReadError
from citewise.index.changelog import (
    SETTLE_WAIT_S,
    SETTLED,
    Change,
    LiveState,
    acl_change,
    apply_changes,
    delete_change,
    put_change,
    settle_versions,
)
from citewise.index.checks import acl_groups, delete_ids
from citewise.protocols import DocumentWrite, Store, StoreCounts
from citewise.types import Chunk, Document, Manifest, ParsedDocument, Principal, ScoredId

T = TypeVar("T")


class FollowedCatalog(Protocol):
    """What a :class:`LiveStore` needs of a version catalog (SQLite's and PostgreSQL's)."""

    def live_state(self) -> LiveState: ...

    def gate(self, timeout: float = ...) -> AbstractContextManager[bool]: ...

    def record(self, logged: list[Change]) -> tuple[int, list[Change]]: ...

    def unrecord(self, logged: list[Change], previous: list[Change]) -> None: ...

    def changes_since(self, seq: int) -> list[Change]: ...

    def hand_deleted(self) -> set[str]: ...

    def hand_readers(self, doc_id: str) -> Change | None: ...

    def mark_applied(self, number: int, seq: int) -> None: ...

    def applied_seq(self, number: int) -> int: ...

    def versions(self) -> list[Any]: ...

    def open(self, number: int, wait_s: float | None = None) -> Store: ...

    def close(self) -> None: ...


def _check_undeletes(catalog: FollowedCatalog, batch: Sequence[DocumentWrite]) -> None:
    """Raise :class:`ChangedSinceReadError` for the new documents of ``batch`` that may not
    undo a delete someone asked for (``may_undelete``) and were deleted so: checked under the
    write gate, as a delete takes it too (the review of this stop: a delete made while an
    ingest ran came back when the ingest read its file after it)."""
    new = [w.document.doc_id for w in batch if not w.may_undelete and w.read_as is not None
           and w.read_as.version == 0]
    gone = catalog.hand_deleted() if new else set()
    if hit := tuple(d for d in new if d in gone):
        raise ChangedSinceReadError(hit)


class LiveStore:
    """The live version of ``catalog``'s index, re-resolved on every call (constructor does
    no I/O). Unknown attributes (``path``, ``schema``, ``build_sparse_sql``...) are those of
    the store of the version live now."""

    def __init__(self, catalog: FollowedCatalog, name: str = "") -> None:
        self.catalog = catalog
        self.name = name
        self._lock = threading.RLock()
        self._store: Store | None = None
        self._number: int | None = None
        self._retired: list[Store] = []  # stores of versions no longer live, still open
        self._readers: dict[int, int] = {}  # id(store): reads on it now
        self.unreached_versions: tuple[int, ...] = ()  # by the last write's change
        """Versions the last delete or ACL change could not reach (their data is missing);
        each applies it when made live again."""

    def __repr__(self) -> str:
        return f"LiveStore({self.name or self.catalog!r}, version={self._number})"

    def __enter__(self) -> LiveStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._current(), name)

    def close(self) -> None:
        with self._lock:
            for store in (self._store, *self._retired):
                if store is not None:
                    store.close()
            self._store, self._number, self._retired = None, None, []
        self.catalog.close()

    # -- following the live version ------------------------------------------------------------

    def _switch(self, number: int, reading: bool = False) -> Store:
        """The store of version ``number``, opened when another version was live; with
        ``reading``, counted as read until :meth:`_done`. A store no longer live is closed
        once no read is on it and a newer one has been retired since (one read ``current``
        handed out, uncounted, may still be on the last retired): closing the store of "two
        versions ago" at once closed a reader's PostgreSQL pool under it when a promotion
        and a rollback came within one read (a security review's 503s)."""
        with self._lock:
            if self._store is None or self._number != number:
                opened = self.catalog.open(number)  # (a failure retires nothing)
                if self._store is not None:
                    self._retired.append(self._store)
                self._store, self._number = opened, number
                self._close_unread()
            if reading:
                key = id(self._store)
                self._readers[key] = self._readers.get(key, 0) + 1
            return self._store

    def _done(self, store: Store) -> None:
        with self._lock:
            key = id(store)
            self._readers[key] -= 1
            if not self._readers[key]:
                del self._readers[key]
                self._close_unread()

    def _close_unread(self) -> None:
        """Close the retired stores no read is on, but the last retired (call under the
        lock)."""
        keep = []
        for store in self._retired:
            if store is self._retired[-1] or self._readers.get(id(store)):
                keep.append(store)
            else:
                store.close()
        self._retired = keep

    def _current(self, reading: bool = False) -> Store:
        state = self.catalog.live_state()
        store = self._switch(state.number, reading)
        try:
            if state.behind and self._gate_free():  # behind, no writer at work: one died
                with self.catalog.gate(timeout=0) as free:  # between logging and writing
                    if free:
                        self._apply_pending(store, self.catalog.live_state())
        except BaseException:
            if reading:
                self._done(store)
            raise
        return store

    @contextmanager
    def _reading(self) -> Iterator[Store]:
        """The store of the version live now, kept open while the block reads it."""
        store = self._current(reading=True)
        try:
            yield store
        finally:
            self._done(store)

    def _gate_free(self) -> bool:
        """A cheap look at the gate (a writer at work holds it while the live version is
        behind): the catalog's ``gate_free`` probe when it has one (PostgreSQL: on the
        connection it keeps, not a new one), else True (SQLite's try is itself cheap)."""
        probe = getattr(self.catalog, "gate_free", None)
        return bool(probe()) if callable(probe) else True

    def _apply_pending(self, store: Store, state: LiveState) -> None:
        """Apply the changes the live version missed (call under the gate)."""
        if state.number != self._number or not state.behind:
            return
        apply_changes(store, self.catalog.changes_since(state.applied_seq))
        self._mark_applied(state.number, state.last_seq)

    def _mark_applied(self, number: int, seq: int) -> None:
        """Record that version ``number`` honours the log up to ``seq``. A failure to record
        it (a full disk) is logged, not raised: the version does honour it, and the next
        write or read records it (applying a change twice writes nothing). An operator's
        full disk turned a committed delete into a 503, then every read into one, each read
        retrying the record."""
        try:
            self.catalog.mark_applied(number, seq)
        except Exception as exc:  # noqa: BLE001 - the change itself is in place
            logging.getLogger("citewise.index").warning(
                "version %s applies the change log up to %s, but that could not be "
                "recorded (%s); it is recorded with the next write", number, seq, exc)

    @property
    def version_number(self) -> int:
        """The number of the version live now (``Engine.index_info``)."""
        self._current()
        assert self._number is not None
        return self._number

    def current(self) -> Store:
        """The store of the version live now (it stays on that version)."""
        return self._current()

    def pinned(self) -> AbstractContextManager[Store]:
        """The store of the version live now, for several reads that must agree."""
        return self._reading()

    # -- writes: under the gate, logged ----------------------------------------------------------

    def _write(self, log: Callable[[Store], list[Change]], action: Callable[[Store], T],
               everywhere: bool | Callable[[], bool] = False) -> T:
        """Log and do ``action`` on the live version under the gate; ``everywhere`` (or, when
        a callable, what it says once ``log`` ran): the change reaches the retired and
        refused versions too (deletes, ACL changes)."""
        with self.catalog.gate():
            state = self.catalog.live_state()
            store = self._switch(state.number)
            self._apply_pending(store, state)
            logged = log(store)
            if not logged:
                return action(store)
            seq, previous = self.catalog.record(logged)
            try:
                result = action(store)
            except BaseException as exc:
                try:  # the write did not happen: neither may its log entry
                    self.catalog.unrecord(logged, previous)
                except Exception as undo:  # keep the write's own error; say what is left
                    exc.add_note(f"its change-log entry stays ({undo}); replaying it is "
                                 "harmless: a delete or ACL the caller asked for, or readers "
                                 "for the text this write did not store, which no document "
                                 "then holds")
                raise
            self._mark_applied(state.number, seq)
            missed: list[int] = []
            if everywhere() if callable(everywhere) else everywhere:
                settle_versions(self.catalog, skip=state.number, unreached=missed)
            self.unreached_versions = tuple(missed)
            return result

    def write(self, batch: Sequence[DocumentWrite]) -> None:
        """Write ``batch`` to the live version; a document whose tenant or groups it changes
        has them changed in the retired and refused versions too, as ``set_acl`` does (a
        re-ingest with narrower ``--groups`` left a retired version showing the document to
        the groups it no longer names; security review), and one whose text it changes is
        deleted there."""
        if not batch:
            return
        rewritten: list[str] = []

        def log(store: Store) -> list[Change]:
            _check_undeletes(self.catalog, batch)
            if any(v.state in SETTLED for v in self.catalog.versions()):  # else none to reach
                rewritten.extend(w.document.doc_id for w in batch
                                 if _rewrites(store, w.document))
            return [put_change(w.document.doc_id, w.document.tenant, w.document.acl_groups,
                               w.hand_readers, w.document.content_hash) for w in batch]

        self._write(log, lambda store: store.write(batch), everywhere=lambda: bool(rewritten))

    def delete(self, doc_ids: Sequence[str]) -> int:
        return self._delete(doc_ids, by_hand=False)

    def delete_by_hand(self, doc_ids: Sequence[str]) -> int:
        """:meth:`delete`, logged as asked for, so an ingest of its file does not index it
        again unless told to (:meth:`hand_deleted`)."""
        return self._delete(doc_ids, by_hand=True)

    def hand_deleted(self) -> set[str]:
        """The ids of the documents whose latest change is a delete someone asked for
        (:meth:`delete_by_hand`; a write since replaces it)."""
        return self.catalog.hand_deleted()

    def hand_readers(self, doc_id: str) -> tuple[str, frozenset[str]] | None:
        """The tenant and groups ``doc_id`` last had when someone set its readers by hand
        (``acl``, or an ingest that kept them since: ``DocumentWrite.hand_readers``), else
        None: an ingest of a document the live version lacks keeps them. An operator
        restricted a page by hand, reindexed, edited and re-ingested it (which removes its
        old text from version 1), rolled back to version 1 and ran the folder's routine
        ingest: the page was new to the live version, took the batch's groups, and every
        staff member read it. The change log keeps one row per document, whatever version
        was live when it was written."""
        change = self.catalog.hand_readers(doc_id)
        if change is None or change.tenant is None:
            return None
        return change.tenant, frozenset(change.groups or ())

    def kept_elsewhere(self, doc_id: str) -> tuple[int, Document] | None:
        """The newest retired or refused version holding ``doc_id`` and its record there,
        when the live version lacks it: a rollback past its ingest left it there, and a roll
        forward brings it back unless it is deleted (which reaches every version). A
        version that cannot be opened is passed over (``settle_versions`` names those)."""
        if self.get_document(doc_id) is not None:
            return None
        for version in sorted(self.catalog.versions(), key=lambda v: -v.number):
            if version.state not in SETTLED:
                continue
            try:
                store = self.catalog.open(version.number, wait_s=SETTLE_WAIT_S)
            except Exception:  # noqa: BLE001 - a version whose data is gone holds nothing
                continue
            try:
                doc = store.get_document(doc_id) if store.manifest() is not None else None
            finally:
                store.close()
            if doc is not None:
                return version.number, doc
        return None

    def _delete(self, doc_ids: Sequence[str], by_hand: bool) -> int:
        ids = delete_ids(doc_ids)
        return self._write(lambda _: [delete_change(d, by_hand) for d in dict.fromkeys(ids)],
                           lambda store: store.delete(ids), everywhere=True)

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        names = acl_groups(doc_id, groups)

        def log(store: Store) -> list[Change]:
            doc = store.get_document(doc_id)
            if doc is None:
                return []  # the store raises NotFoundError; nothing to log
            given = doc.ingest_groups  # the review: an acl to the ingest's own groups was
            by_hand = given is None or sorted(set(names)) != given  # logged by hand, and
            # a rollback's next ingest kept them over narrower ones
            return [acl_change(doc_id, doc.tenant if tenant is None else tenant, names,
                               by_hand)]

        self._write(log, lambda store: store.set_acl(doc_id, names, tenant), everywhere=True)

    def ensure_manifest(self, manifest: Manifest) -> Manifest:
        with self.catalog.gate():
            return self._current().ensure_manifest(manifest)

    def set_meta(self, key: str, value: str) -> None:
        with self.catalog.gate():
            self._current().set_meta(key, value)

    # -- reads: on the version live now ----------------------------------------------------------

    def manifest(self) -> Manifest | None:
        with self._reading() as store:
            return store.manifest()

    def get_document(self, doc_id: str) -> Document | None:
        with self._reading() as store:
            return store.get_document(doc_id)

    def get_parsed(self, doc_id: str) -> ParsedDocument | None:
        with self._reading() as store:
            return store.get_parsed(doc_id)

    def get_meta(self, key: str) -> str | None:
        with self._reading() as store:
            return store.get_meta(key)

    def list_documents(self) -> list[Document]:
        with self._reading() as store:
            return store.list_documents()

    def cached_vectors(self, embed_hashes: Sequence[str], tenant: str | None = None) -> set[str]:
        with self._reading() as store:
            return store.cached_vectors(embed_hashes, tenant)

    def count(self) -> StoreCounts:
        with self._reading() as store:
            return store.count()

    def search_sparse(self, query: str, top_k: int, principal: Principal,
                      title_weight: float = 1.0) -> list[ScoredId]:
        with self._reading() as store:
            return store.search_sparse(query, top_k, principal, title_weight)

    def search_dense(self, vector: np.ndarray, top_k: int,
                     principal: Principal) -> list[ScoredId]:
        with self._reading() as store:
            return store.search_dense(vector, top_k, principal)

    def get_chunks(self, chunk_ids: Sequence[str],
                   principal: Principal) -> dict[str, tuple[Chunk, Document]]:
        with self._reading() as store:
            return store.get_chunks(chunk_ids, principal)

    def describe_filter(self, principal: Principal) -> str:
        with self._reading() as store:
            return store.describe_filter(principal)


def pinned(store: Store) -> AbstractContextManager[Store]:
    """``store.pinned()`` for a :class:`LiveStore`, else ``store`` itself."""
    pin = getattr(store, "pinned", None)
    return pin() if callable(pin) else nullcontext(store)


def is_following(store: object) -> bool:
    return isinstance(store, LiveStore)


__all__ = ["FollowedCatalog", "LiveStore", "is_following", "pinned"]


def _rewrites(store: Store, document: Any) -> bool:
    """Whether writing ``document`` changes the tenant, groups or text ``store`` holds for
    it, or ``store`` lacks it: a retired version's copy of other text is deleted at once
    (:func:`~citewise.index.changelog.apply_changes`), so a redacted document leaves no
    unredacted copy to open directly or roll back to. A version rolled back to lacks what
    was ingested while it was retired: a security review ingested an hr-only draft, rolled
    back past it, ingested its redacted text for staff (new to the live version, so the
    other versions were left alone), rolled back and forward again, and the draft came back
    with staff's groups (another tenant's text under the same id took that tenant's)."""
    old = store.get_document(document.doc_id)
    return old is None or (old.tenant, sorted(old.acl_groups), old.content_hash) != (
        document.tenant, sorted(document.acl_groups), document.content_hash)
