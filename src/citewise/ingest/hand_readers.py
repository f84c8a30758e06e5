"""Who may read a document across its re-ingests: a change is said (:func:`readers_changed`),
and readers set by hand outlive a re-ingest.

`citewise acl` (or ``PUT /v1/documents/{id}/acl``) changes who may read a document without
its file; the file's next ingest gave it back the batch's readers, with a warning only: two
new users restricted a page (``citewise acl book/ch14-03-cargo-workspaces.html --groups
security``; the GnuPG manual back from eng to crypto), ran their routine ingest again, and
the page was readable by staff, exit 0, even under ``--strict``.

So each document records the groups its last ingest gave (:data:`INGEST_READERS`); when its
readers differ from them, they were set by hand since, and an ingest keeps them
(:func:`with_hand_readers`) and says so (:func:`kept_note`) with the command that gives it
the ingest's readers instead. Setting them by hand to what the ingest gives hands them back
to the ingests. A document indexed before this record existed has none: its re-ingest sets
its readers, as before, with the readers-changed warning.
"""

from __future__ import annotations

import shlex
from dataclasses import replace

from citewise.types import Document

INDEX_OPTION = "--db INDEX"
"""Where :func:`readers_changed`'s command names the index; the CLI writes its own
``--db`` there (:func:`citewise.cli.ingest.on_this_index`)."""


def readers_changed(previous: Document, document: Document) -> str:
    """The warning for a re-ingest that changes who may read a document (a re-ingest never
    moves one to another tenant: :func:`~citewise.ingest.ownership.replace_problem`): a new
    user edited a maintainers-only file, re-ingested its folder with ``--groups users`` as
    the refusal before told them to, and it was readable by users, reported only as
    "metadata-only". How to set the groups back names the CLI and the API (an upload's
    editor reads it too), on this index (the review: a command without ``--db`` acted on
    another index's document of the same id)."""
    def who(d: Document) -> str:
        return ",".join(sorted(d.acl_groups)) or "(none)"
    doc = shlex.quote(document.doc_id)
    groups = shlex.quote(",".join(sorted(previous.acl_groups)))
    return (f"{document.doc_id}: this ingest changes who may read it, from groups "
            f"{who(previous)} to {who(document)}; if that was not meant, set them back on this "
            f"index (`citewise acl --groups {groups} {INDEX_OPTION} -- {doc}`, or PUT "
            f"/v1/documents/{document.doc_id}/acl) and give the same groups to its next "
            "ingest (--groups or its --meta line)")


INGEST_READERS = "_ingest_groups"
"""The metadata key of the groups a document's last ingest (or upload) gave it, sorted."""


def _given(document: Document) -> list[str] | None:
    given = document.metadata.get(INGEST_READERS)
    return [str(g) for g in given] if isinstance(given, list) else None


def set_by_hand(document: Document) -> bool:
    """Whether ``document``'s readers were changed since its last ingest."""
    given = _given(document)
    return given is not None and sorted(document.acl_groups) != given


def with_hand_readers(document: Document, previous: Document | None) -> Document:
    """``document`` (an ingest's record) with the groups the ingest gives recorded, and the
    ``previous`` record's readers when they were set by hand (same tenant: an ingest never
    moves a document to another)."""
    meta = {**document.metadata, INGEST_READERS: sorted(document.acl_groups)}
    if previous is not None and set_by_hand(previous) and previous.tenant == document.tenant:
        return replace(document, acl_groups=previous.acl_groups, metadata=meta)
    return replace(document, metadata=meta)


def kept_note(document: Document, index_option: str) -> str | None:
    """The note for a document whose readers an ingest kept (:func:`with_hand_readers`),
    naming the command that gives it the ingest's readers; None for any other."""
    given = _given(document)
    if given is None or sorted(document.acl_groups) == given:
        return None
    ingest = ",".join(given) or "(none)"
    return (f"{document.doc_id}: keeps the readers set by hand since its last ingest (groups "
            f"{','.join(sorted(document.acl_groups)) or '(none)'}); this ingest gives groups "
            f"{ingest}. Fix: to give it this ingest's readers, `citewise acl --groups "
            f"{shlex.quote(','.join(given))} {index_option} -- {shlex.quote(document.doc_id)}`"
            f" (or PUT /v1/documents/{document.doc_id}/acl); to keep these, give its ingest "
            "the same groups (--groups or its --meta line)")


def moved_readers(document: Document, moved: Document, index_option: str) -> tuple[Document, str]:
    """``document`` (new, the text of ``moved``, whose file is gone and whose readers were
    set by hand) with ``moved``'s readers, and the note saying so: a security review moved
    a page restricted by hand to hr into a subfolder, re-ingested with ``--groups staff``,
    and staff read it under its new id, no word said. The ingest's groups stay recorded, so
    later ingests keep these readers too (:func:`with_hand_readers`)."""
    kept = replace(document, acl_groups=moved.acl_groups)
    groups = ",".join(sorted(moved.acl_groups)) or "(none)"
    given = ",".join(_given(document) or [])
    return kept, (
        f"{document.doc_id}: has the text of {moved.doc_id}, whose file is gone and whose "
        f"readers were set by hand (groups {groups}): it keeps them. Fix: to give it this "
        f"ingest's readers, `citewise acl --groups {shlex.quote(given)} {index_option} -- "
        f"{shlex.quote(document.doc_id)}`; `citewise delete {index_option} -- "
        f"{shlex.quote(moved.doc_id)}` removes the old id")
