"""One file, one document: a file already indexed under another id is not indexed again.

Ids are paths relative to the folder ingested, so the same file has another id when its
folder is ingested on its own after an ingest of several folders (``yq/cli-doc.txt``, then
``cli-doc.txt``): a new user's second ``citewise ingest /usr/share/doc/yq`` indexed its two
files again beside the first two, every answer could cite either, and ``citewise delete
/usr/share/doc/yq/cli-doc.txt`` became ambiguous. :class:`SourceClaims` fails such a new
document, by the file each document records (not its link: two exports may name one
original as their ``source_url``, and ``--base-url`` links differ by id), naming the id it
has and the ``--id-prefix`` that updates it; nothing stored changes.

Nor is a file whose document someone deleted (``citewise delete``, the API's delete) indexed
again by a later ingest of its folder unless the ingest says so (``--undelete``): a routine
re-ingest brought a deleted page back while its file was still there
(:class:`~citewise.protocols.HandDeletes`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from citewise.ingest.hand_readers import set_by_hand
from citewise.ingest.ownership import HOME
from citewise.protocols import HandDeletes, Store
from citewise.types import Document

UNDELETE = "_undelete"
"""The metadata key of a load told to index its file again after a ``citewise delete``."""


class SourceClaims:
    """The local files the index holds, by tenant and recorded file (read once, when the
    first new document of an ingest comes)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ids: dict[tuple[str, str], str] | None = None
        self._links: dict[str, str] = {}
        self._by_hand: dict[tuple[str, str], Document] = {}
        self._deleted: set[str] | None = None

    def deleted(self, document: Document) -> bool:
        """Whether ``document``'s id was last deleted by someone's asking (read once per
        ingest, when the first new document comes; a delete made later is caught when the
        document is written: :class:`~citewise.protocols.DocumentWrite`'s
        ``may_undelete``)."""
        if self._deleted is None:
            self._deleted = hand_deleted(self.store)
        return document.doc_id in self._deleted

    def holder(self, document: Document) -> str | None:
        """The id of another stored document read from the same local file (the file each
        records as :data:`~citewise.ingest.ownership.HOME`), or None."""
        home = document.metadata.get(HOME)
        if not home:
            return None  # an upload, or a document with no file of its own
        holder = self._held().get((document.tenant, str(home)))
        return holder if holder != document.doc_id else None

    def _held(self) -> dict[tuple[str, str], str]:
        if self._ids is None:
            held = [d for d in self.store.list_documents() if d.metadata.get(HOME)]
            self._ids = {(d.tenant, str(d.metadata[HOME])): d.doc_id for d in held}
            self._links = {d.doc_id: d.source_url or "" for d in held}
            self._by_hand = {(d.tenant, d.content_hash): d for d in held if set_by_hand(d)}
        return self._ids

    def moved_from(self, document: Document) -> Document | None:
        """A stored document of ``document``'s text and tenant whose readers were set by
        hand and whose file is gone (the file moved or renamed), or None."""
        self._held()
        moved = self._by_hand.get((document.tenant, document.content_hash))
        if moved is None or moved.doc_id == document.doc_id or \
                Path(str(moved.metadata[HOME])).exists():
            return None
        return moved

    def _readers(self, holder: str) -> str:
        """`` --groups …`` (and ``--tenant``) of ``holder`` as stored: a new user who
        followed the fix with the batch's ``--groups public`` made a page restricted to
        ``nightly`` readable by everyone."""
        document = self.store.get_document(holder)
        if document is None:
            return ""
        tenant = f" --tenant {document.tenant}" if document.tenant != "default" else ""
        groups = ",".join(sorted(document.acl_groups))
        return f" --groups {groups}{tenant}" if groups else tenant

    def problem(self, doc_id: str, holder: str) -> str:
        """Why the file of ``doc_id`` is refused, and the ingest that updates ``holder``: its
        folder with the ``--id-prefix`` and, where it links under a web base, the
        ``--base-url`` that keep its id and link (a new user who followed the fix without
        the second got the link ``…/rustc/index.html#linker`` for a page of
        ``…/rustc/codegen-options/``), or the folders it was ingested with."""
        prefix = holder[:-len(doc_id)] if holder.endswith("/" + doc_id) else None
        link = self._links.get(holder, "") if self._ids is not None else ""
        base = _base_url(link, holder, doc_id, prefix)
        fix = (f"ingest its folder with --id-prefix {prefix}"
               + (f" --base-url {base}" if base else "") + self._readers(holder)
               + " to update it, or the folders it was ingested with, as then (unchanged "
               "files are not read again)" if prefix else
               f"`citewise delete {holder}` first to index it as {doc_id}")
        return (f"this file is indexed already, as {holder!r}; not indexed again as "
                f"{doc_id!r}. Fix: {fix}")


def _base_url(link: str, holder: str, doc_id: str, prefix: str | None) -> str | None:
    """The ``--base-url`` that gives ``holder``'s file, read from its folder under
    ``prefix``, the web ``link`` it has: a plain base URL, or a template with ``{stem}``
    (a new user of the AWS CLI's examples followed the fix with their
    ``'…/reference/{stem}.html'``, and every KMS page's link lost its ``kms/``)."""
    if prefix is None or not link.startswith(("http://", "https://")):
        return None
    for published in (doc_id, doc_id.removesuffix(".gz")):  # (a gzipped page links as
        if link.endswith("/" + published):  # the page: :func:`citewise.sources.link_for`)
            return link[:-len(published)]
    name = holder.rsplit("/", 1)[-1]
    stem = quote(holder.rsplit(".", 1)[0] if "." in name else holder)
    if link.count(stem) != 1:
        return None
    return shlex.quote(link.replace(stem, quote(prefix) + "{stem}"))


def hand_deleted(store: Store) -> set[str]:
    """The ids ``store`` remembers as deleted by someone's asking (none if it does not)."""
    return store.hand_deleted() if isinstance(store, HandDeletes) else set()


def may_undelete(meta: Mapping[str, Any]) -> bool:
    """Whether a load's document may undo a delete someone asked for: an upload's or a
    library caller's (no file read), or a file ingested with ``--undelete``."""
    return not meta.get("_file_path") or bool(meta.get(UNDELETE))
