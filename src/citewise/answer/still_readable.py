"""Whether the passages an answer was written from may still be read by its asker.

A model takes seconds to minutes to answer; a delete, an ACL change or a re-ingest may land
in between. A security review narrowed a document with ``citewise acl`` while a streamed
answer was being written, and 30 s after the command returned the stream sent the
document's restricted text. So the checked stream asks before it relays each sentence, and
``ask`` before it returns an answer: is every passage's document still there, still
readable by this principal, and still the text the model read? If not, the stream stops and
the answer is a decline (:data:`REVOKED`), "ask again" in its note.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.index.follow import pinned
from citewise.protocols import Store
from citewise.types import ContextPassage, Principal

REVOKED = "sources_changed"
"""The decline reason when a passage became unreadable while the answer was written."""

NOTE = ("a source of this answer was deleted, changed or made unreadable to you while it was "
        "written; nothing from it is shown. Ask again to answer from what you may read now")


def still_readable(store: Store, principal: Principal,
                   passages: Sequence[ContextPassage]) -> bool:
    """Whether ``principal`` may still read every passage's document, as the text it was
    read in (the same content hash)."""
    read = {p.hit.document.doc_id: p.hit.document.content_hash for p in passages}
    with pinned(store) as one:  # one version for every read, resolved once
        for doc_id, content_hash in read.items():
            now = one.get_document(doc_id)
            if now is None or not principal.may_read(now) or now.content_hash != content_hash:
                return False
    return True


__all__ = ["NOTE", "REVOKED", "still_readable"]
