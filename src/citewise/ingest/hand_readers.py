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
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from citewise.types import INGEST_READERS, Document

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
            f"/v1/documents/{document.doc_id}/acl) and write those groups in its --meta "
            "sidecar line")


def set_by_hand(document: Document) -> bool:
    """Whether ``document``'s readers were changed since its last ingest."""
    given = document.ingest_groups
    return given is not None and sorted(document.acl_groups) != given


def with_hand_readers(document: Document, previous: Document | None,
                      logged: tuple[str, frozenset[str]] | None = None) -> Document:
    """``document`` (an ingest's record) with the groups the ingest gives recorded, and the
    ``previous`` record's readers when they were set by hand (same tenant: an ingest never
    moves a document to another). With no ``previous`` (the live version lacks it: a
    rollback to a version before it), ``logged``: the tenant and groups someone last set
    its readers to by hand in any version (:class:`~citewise.protocols.HandReaders`), kept
    the same way."""
    meta = {**document.metadata, INGEST_READERS: sorted(document.acl_groups)}
    if previous is not None and set_by_hand(previous) and previous.tenant == document.tenant:
        return replace(document, acl_groups=previous.acl_groups, metadata=meta)
    if previous is None and logged is not None and logged[0] == document.tenant:
        return replace(document, acl_groups=logged[1], metadata=meta)
    return replace(document, metadata=meta)


KEPT = ": keeps the readers set by hand since its last ingest"
"""What each :func:`kept_note` says after the document's id (the CLI counts them: a folder
with many pages restricted by hand printed a line for each on every ingest)."""


def kept_note(document: Document, index_option: str) -> str | None:
    """The note for a document whose readers an ingest kept (:func:`with_hand_readers`),
    naming the command that gives it the ingest's readers; None for any other. Never
    "give its ingest the same groups (--groups …)": a security review did, the ingest's
    groups then matched, the readers were no longer set by hand, and the next routine
    ingest of the folder gave the page its batch's readers."""
    given = document.ingest_groups
    if given is None or sorted(document.acl_groups) == given:
        return None
    ingest = ",".join(given) or "(none)"
    return (f"{document.doc_id}{KEPT} (groups "
            f"{','.join(sorted(document.acl_groups)) or '(none)'}); this ingest gives groups "
            f"{ingest}. Fix: to give it this ingest's readers, `citewise acl --groups "
            f"{shlex.quote(','.join(given))} {index_option} -- {shlex.quote(document.doc_id)}`"
            f" (or PUT /v1/documents/{document.doc_id}/acl); to keep these, nothing to do "
            "(each ingest keeps them), or write them in its --meta sidecar line")


def moved_problem(document: Document, moved: Document, index_option: str,
                  meta: Mapping[str, Any]) -> str | None:
    """Why a new document with the text of ``moved`` (whose readers were set by hand and
    whose file is gone) may not be ingested, or None: a security review moved a page
    restricted by hand to hr into a subfolder, re-ingested with ``--groups staff``, and staff
    read it under its new id. Refused when its readers add groups ``moved``'s lack (keeping
    ``moved``'s readers instead gave a review's board minutes the readers of another file
    of the same text, overriding their own sidecar line); not an upload, nor with
    ``--allow-wider-readers``."""
    if readers_chosen(meta):
        return None
    added = sorted(set(document.acl_groups) - set(moved.acl_groups))
    if not added:
        return None
    return (f"has the text of {moved.doc_id}, whose file is gone and whose readers were set "
            f"by hand (groups {','.join(sorted(moved.acl_groups)) or '(none)'}); this ingest "
            f"would let groups {','.join(added)} read it; not ingested. Fix: give it those "
            "readers (its --meta sidecar line, or --groups), or, if its readers may change, "
            f"`citewise delete {index_option} -- {shlex.quote(moved.doc_id)}` and ingest it "
            "again (or pass --allow-wider-readers)")


WIDER_READERS = "_wider_readers"
"""The metadata key a file's load sets when its ingest may change readers a sidecar line or
the file had given (``citewise ingest --allow-wider-readers``)."""
READERS_FROM = "_readers_from"
"""The metadata key of where a file's groups came from: ``sidecar`` (its --meta line),
``file`` (its front matter or ``<meta>``) or ``batch`` (``--groups``); each document records
its last ingest's."""


def readers_from(meta: Mapping[str, Any], groups: frozenset[str],
                 previous: Document | None) -> str:
    """Where a file's readers come from (:data:`READERS_FROM`); the batch's ``--groups``
    giving the same readers a sidecar line or the file gave keep that origin: a new user of
    the AWS CLI's examples followed a fix with ``--groups security-admins`` (the groups the
    sidecar had given), and the next ingest with ``--groups users`` opened all 51 KMS pages
    to users with only warnings, the sidecar's protection gone."""
    given = str(meta.get(READERS_FROM) or "batch")
    before = previous.metadata.get(READERS_FROM) if previous is not None else None
    if given == "batch" and before in ("sidecar", "file") and previous is not None and \
            set(previous.acl_groups) == set(groups):
        return str(before)
    return given


def readers_chosen(meta: Mapping[str, Any]) -> bool:
    """Whether the groups a load's merged ``meta`` gives were chosen for it on purpose, so no
    readers rule refuses them: an upload or a library caller's document (no file read), or
    a file ingested with ``--allow-wider-readers``."""
    return not meta.get("_file_path") or bool(meta.get(WIDER_READERS))


def widening_problem(previous: Document | None, document: Document,
                     meta: Mapping[str, Any]) -> str | None:
    """Why a re-ingest of a file may not change readers its sidecar line or the file itself
    gave it to the batch's ``--groups``, or None: two new users re-ran an ingest without the
    ``--meta`` sidecar that had restricted 23 pages, and staff read them at once, said in 23
    warnings, exit 0. (Which groups hold more people no index knows: restricting a page from
    staff to hr adds a group too, so the rule is where the readers come from.) Only a
    file's ingest (an upload or a library caller sets its groups on purpose), not readers
    set by hand (kept: :func:`with_hand_readers`), not with ``--allow-wider-readers``."""
    if previous is None or readers_chosen(meta) \
            or previous.metadata.get(READERS_FROM) not in ("sidecar", "file") \
            or meta.get(READERS_FROM) != "batch" \
            or set(document.acl_groups) == set(previous.acl_groups):
        return None
    given = "its --meta sidecar line" if previous.metadata[READERS_FROM] == "sidecar" else \
        "its own front matter or <meta>"
    return (f"this ingest would give {document.doc_id} the batch's groups "
            f"{','.join(sorted(document.acl_groups)) or '(none)'} instead of groups "
            f"{','.join(sorted(previous.acl_groups)) or '(none)'} from {given}; not "
            "ingested. Fix: pass the --meta sidecar its last ingest had (or give it a line), "
            "or --allow-wider-readers to give it the batch's groups")
