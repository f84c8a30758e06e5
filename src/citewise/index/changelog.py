"""The change log: deletes and ACL changes that every version of an index must honour.

An index keeps several versions (``citewise versions``); any retired one can be made live again
(``citewise rollback``). A delete or an ACL change made while version 2 is live must still hold
when version 1 comes back, so each one is recorded in the version catalog, keyed by document:

* ``delete``: the document must be absent;
* ``acl``/``put``: the document, where present, must carry this tenant and these groups
  (``put`` is an ingest write: its ACL supersedes an earlier delete or ACL change).

A delete someone asked for (``citewise delete``, ``DELETE /v1/documents/…``) is logged
``by_hand`` (by id alone: ids are one namespace): an ingest of its file does not index it
again until told to (``--undelete``; :mod:`citewise.source_claims`), where a routine
re-ingest of the folder brought a deleted page back with its file still there.

Only the latest change per document is kept (one row per ``doc_id``, with a growing ``seq``), so
the log is bounded by the number of documents ever written. Each version records the ``seq`` it
has applied; making a version live (:meth:`promote`, rollback included) first applies every
change after it (:func:`apply_changes`, idempotent), all under the index's write gate, which
every writer holds while it resolves the live version, logs and writes. So a write either
lands before the flip (and is replayed onto the new version) or after it (and goes to the new
version directly); none lands on a version that is no longer live.

A delete or an ACL change also reaches the retired and refused versions at once
(:func:`settle_versions`, under the same gate): a version opened directly (``--db
PATH.v2``, ``?schema=citewise_v2``, a server pinned to it) must not show a deleted document's
text or serve an old ACL, and a deleted document's rows must not wait on disk for a rollback.
A shadow gets them at once too, and a shadow being built also catches up by itself
(``citewise reindex``) before it goes live.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from citewise.errors import BusyError, StoreError
from citewise.protocols import Store

KINDS = ("put", "acl", "delete")
SETTLE_WAIT_S = 5.0
"""How long a change reaching a retired, refused or shadow version waits for a lock another
session holds on it (:func:`settle_versions`): a review's ``LOCK TABLE`` on a retired
PostgreSQL version held every delete and ACL change, in every process, for as long as it
lasted (and on a shadow too). Past it the change reaches that version when it is made live
(a shadow: when its build catches up), and the command warns of a retired one."""
MANY = 500
"""Above this many changes, :func:`apply_changes` reads all documents once instead of one by
one."""


@dataclass(frozen=True)
class Change:
    """The latest change recorded for one document (``tenant``/``groups``: ``None`` for a
    delete)."""

    seq: int
    doc_id: str
    kind: str
    tenant: str | None = None
    groups: tuple[str, ...] | None = None
    by_hand: bool = False
    """A delete someone asked for (not an ingest's own); for ``acl``/``put``: readers set by
    hand (an ``acl`` change, or an ingest's write that kept them: :meth:`hand_readers`)."""
    content_hash: str | None = None
    """For a ``put``: the hash of the text written, whose readers ``groups`` are (None in a
    change logged before citewise recorded it)."""


@dataclass(frozen=True)
class LiveState:
    """What a store following the live version checks on every call: which version is live,
    the last change it has applied, and the last change logged."""

    number: int
    applied_seq: int
    last_seq: int

    @property
    def behind(self) -> bool:
        return self.applied_seq < self.last_seq


class ChangeLogCalls:
    """The change-log calls a followed catalog answers (:class:`citewise.index.follow.
    FollowedCatalog`), the same on every backend: each is one call of the backend's
    ``changes`` module on a connection. A catalog sets ``_changes`` (that module) and gives
    :meth:`_change_conn`; ``live`` raises the backend's error naming the fix."""

    _changes: ModuleType

    def _change_conn(self, write: bool) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _on_changes(self, write: bool, call: Callable[[Any], Any]) -> Any:
        """``call(conn)`` on a change-log connection (PostgreSQL runs a read once more on a
        new connection when the server had closed the kept one)."""
        with self._change_conn(write) as conn:
            return call(conn)

    def live(self) -> Any:
        raise NotImplementedError

    def live_state(self) -> LiveState:
        """The live version, the last change it applied and the last change logged: one
        query, run before every call of a store that follows the live version."""
        state = self._on_changes(False, self._changes.live_state)
        if state is None:
            self.live()  # raises VersionError naming the fix
        assert state is not None
        return state

    def record(self, logged: list[Change]) -> tuple[int, list[Change]]:
        """Log changes (call under the write gate); returns the last seq and what they
        replaced."""
        return self._on_changes(True, lambda conn: self._changes.record(conn, logged))

    def unrecord(self, logged: list[Change], previous: list[Change]) -> None:
        """Undo :meth:`record` when the write it describes failed."""
        self._on_changes(True, lambda conn: self._changes.restore(conn, logged, previous))

    def changes_since(self, seq: int) -> list[Change]:
        return self._on_changes(False, lambda conn: self._changes.since(conn, seq))

    def hand_deleted(self) -> set[str]:
        """The ids of the documents whose latest change is a delete someone asked for."""
        return self._on_changes(False, self._changes.hand_deleted)

    def hand_readers(self, doc_id: str) -> Change | None:
        """``doc_id``'s latest change when it set (or kept) readers by hand, else None."""
        return self._on_changes(False, lambda conn: self._changes.hand_readers(conn, doc_id))

    def mark_applied(self, number: int, seq: int) -> None:
        self._on_changes(True, lambda conn: self._changes.mark_applied(conn, number, seq))

    def applied_seq(self, number: int) -> int:
        """The last change version ``number`` has applied."""
        return self._on_changes(False, lambda conn: self._changes.applied_seq(conn, number))


def put_change(doc_id: str, tenant: str, groups: Iterable[str], by_hand: bool = False,
               content_hash: str | None = None) -> Change:
    """An ingest's or upload's write of the text ``content_hash``; ``by_hand``: the readers
    it kept were set by hand."""
    return Change(0, doc_id, "put", tenant, tuple(sorted(set(groups))), by_hand, content_hash)


def acl_change(doc_id: str, tenant: str, groups: Iterable[str], by_hand: bool = True) -> Change:
    """Readers someone set (``citewise acl``, ``PUT /v1/documents/{id}/acl``); ``by_hand``:
    they differ from the groups the document's last ingest gave (setting those hands the
    readers back to the ingests)."""
    return Change(0, doc_id, "acl", tenant, tuple(sorted(set(groups))), by_hand)


def delete_change(doc_id: str, by_hand: bool = False) -> Change:
    return Change(0, doc_id, "delete", by_hand=by_hand)


def apply_changes(store: Store, changes: Sequence[Change], live: Store | None = None, *,
                  live_unknown: bool = False) -> int:
    """Make ``store`` honour ``changes``: delete what was deleted, set the ACL of what is
    present and differs. Idempotent (a second run changes nothing); returns how many
    documents changed.

    ``live``: the live version, when ``store`` is another one. A ``put`` or ``acl`` change
    sets the groups of the text the live version holds; a copy of other text (written before
    a re-ingest changed it) is deleted instead, not given those groups: a redacted memo
    re-ingested for wider groups gave the retired version's unredacted draft to them, and
    ``rollback`` showed it (security review). A version made live again lacks that document,
    as it lacks any ingested while it was retired. ``live_unknown``: the live version could
    not be read (its file is missing), so every such copy is deleted, none is given groups
    that may not be its text's.

    A ``put`` sets readers only on the text it wrote (its ``content_hash``): a write logged
    but never done (its process killed between the two, its PostgreSQL connection dropped)
    left the live version's old text, and the replay gave that text the new readers: a
    redacted memo's wider readers read its unredacted draft (security review). Other text
    keeps the readers it has."""
    if not changes:
        return 0
    latest: dict[str, Change] = {}
    for change in sorted(changes, key=lambda c: c.seq):
        latest[change.doc_id] = change
    acls = [c for c in latest.values() if c.kind != "delete"]
    docs = _documents(store, [c.doc_id for c in acls])
    now = _documents(live, [c.doc_id for c in acls]) if live is not None else docs
    stale = [c.doc_id for c, doc, current in zip(acls, docs, now, strict=True)
             if doc is not None and (live_unknown or current is not None
                                     and doc.content_hash != current.content_hash)]
    deleted = [c.doc_id for c in latest.values() if c.kind == "delete"]
    gone = [d for d, doc in zip(deleted, _documents(store, deleted), strict=True)
            if doc is not None] + stale  # (nothing to write for what is gone already)
    changed = store.delete(gone) if gone else 0
    for change, doc in zip(acls, docs, strict=True):
        groups = frozenset(change.groups or ())
        if doc is not None and change.doc_id not in stale and not _other_text(change, doc) \
                and (doc.tenant, doc.acl_groups) != (change.tenant, groups):
            store.set_acl(change.doc_id, sorted(groups), change.tenant)
            changed += 1
    return changed


def _other_text(change: Change, doc: Any) -> bool:
    """Whether ``doc`` holds other text than the ``put`` ``change`` wrote."""
    return change.kind == "put" and change.content_hash is not None and \
        doc.content_hash != change.content_hash


@contextmanager
def live_store(catalog: Any) -> Iterator[Store | None]:
    """The live version of ``catalog`` opened for reading, or None when it cannot be (its
    file is missing: a rollback must still be possible)."""
    try:
        store = catalog.open(catalog.live().number)
    except StoreError:
        yield None
        return
    try:
        yield store
    finally:
        store.close()


def _documents(store: Store, doc_ids: Sequence[str]) -> list[Any]:
    """``store``'s record of each of ``doc_ids`` (None where absent), one read of all of them
    above :data:`MANY`."""
    if len(doc_ids) > MANY:
        present = {d.doc_id: d for d in store.list_documents()}
        return [present.get(d) for d in doc_ids]
    return [store.get_document(d) for d in doc_ids]


SETTLED = ("retired", "refused")
"""Version states :func:`settle_versions` brings up to date (the live one is written
directly). A ``shadow`` gets the changes too, at once, but keeps its own catch-up (``citewise
reindex`` compares it with the live version before the flip): a security review read a
deleted document in a shadow whose build was killed, until the next ``versions --gc``."""


def settle_versions(catalog: Any, skip: int | None = None,
                    unreached: list[int] | None = None) -> list[int]:
    """Apply the change log to every retired, refused and shadow version of ``catalog`` but
    ``skip`` (call under the write gate); the numbers changed. A version whose data cannot
    be opened (a missing file, a schema never built) or that another session keeps locked past
    the wait its store allows (:class:`~citewise.errors.BusyError`) is left as it is, its
    number added to
    ``unreached`` (a security review's delete said nothing of the version whose file was
    moved away): it applies the log when it is made live, which checks its data first,
    against the text live then (:func:`apply_changes`)."""
    todo = []
    for version in catalog.versions():
        if version.state in (*SETTLED, "shadow") and version.number != skip:
            pending = catalog.changes_since(catalog.applied_seq(version.number))
            if pending:
                todo.append((version, pending))
    if not todo:
        return []
    settled = []
    missed = unreached if unreached is not None else []
    with live_store(catalog) as live:
        for version, pending in todo:
            shadow = version.state == "shadow"  # (a shadow catches up before it goes live)
            try:
                store = catalog.open(version.number, wait_s=SETTLE_WAIT_S)
            except StoreError:
                if not shadow:
                    missed.append(version.number)
                continue
            try:
                if store.manifest() is None:
                    continue
                apply_changes(store, pending, live, live_unknown=live is None)
            except BusyError:  # another session's lock on it: applied when made live
                if not shadow:
                    missed.append(version.number)
                continue
            except Exception:  # noqa: BLE001 - a build may be writing the shadow now
                if not shadow:
                    raise
                continue  # its catch-up applies them before the flip
            finally:
                store.close()
            if not shadow:  # a shadow's promotion applies the log again (idempotent)
                catalog.mark_applied(version.number, max(c.seq for c in pending))
            settled.append(version.number)
    return settled


__all__ = ["KINDS", "Change", "LiveState", "acl_change", "apply_changes", "delete_change",
           "live_store", "put_change", "settle_versions"]
