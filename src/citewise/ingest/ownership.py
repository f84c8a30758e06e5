"""Which file a document belongs to: a file may replace only a document read from it.

A doc_id comes from a path relative to the folder ingested, a sidecar line, or the file's own
front matter / ``<meta>``. Two folders' ``index.html`` silently replaced each other, and a
security review's staff file whose front matter named an hr document's id replaced it and
took over its ACL. Each document therefore records the file it is read from (:data:`HOME`,
never shown to readers), and an ingest that would replace it from another file is refused
(:func:`another_file`, :func:`takes_over`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citewise.ingest.metadata import file_url_path
from citewise.types import Document

#: The metadata key of the file a document is read from.
HOME = "_home"
#: The metadata key marking a document uploaded through the API: no file of its own.
UPLOADED = "_uploaded"
UPLOAD_OVER_FILE = (
    "doc_id {doc_id!r} is a document `citewise ingest` read from a file; an upload does not "
    "replace it (that file's next ingest would overwrite it, or be refused).")
UPLOAD_OVER_FILE_FIX = "upload under another doc_id"
"""An upload naming a document read from a file (a security review's: replaced silently, then
overwritten by the file's next ingest, or that ingest refused). Not an access boundary: an
editor may change that document's groups or delete it; this keeps upload and ingest apart.
A document known by its ``file://`` link only (an index made before :data:`HOME`) counts as
read from that file (:func:`file_of`)."""


def file_of(doc: Document) -> str | None:
    """The local file ``doc`` was read from (:data:`HOME`; in an index made before that was
    recorded, the path of its ``file://`` link), or None: an upload, whose ``source_url`` is
    whatever its editor wrote (a security review's decoy linked to "corpus/leave-policy.md"
    took an operator's `citewise acl corpus/leave-policy.md`), or a document known only by a
    web link."""
    home = doc.metadata.get(HOME)
    if home:
        return str(home)
    if doc.metadata.get(UPLOADED):
        return None
    return file_url_path(doc.source_url or "")


def another_file(previous: Document | None, meta: Mapping[str, Any]) -> str | None:
    """The file ``previous`` was read from, when this document (``meta``: its merged
    metadata, ``_file_path`` the file read) comes from another file and that one still
    exists. Without a recorded :data:`HOME` (an index made before it was recorded), the path
    of its ``file://`` link stands for it, unless this file claims the same link and chose no
    id of its own (a sidecar's ``source_url`` naming the original ``.docx`` of a ``.md``
    export). A folder moved elsewhere (the old file gone) and an upload (no file of its own)
    replace as before; :func:`takes_over` guards those."""
    here = meta.get("_file_path")
    if not here or previous is None:
        return None
    home = previous.metadata.get(HOME)
    if home is None and previous.source_url and (
            previous.source_url != meta.get("source_url") or meta.get("_own_doc_id")):
        home = file_url_path(previous.source_url)
    if not home:
        return None
    there = Path(str(home))
    if not there.is_file() or there.resolve() == Path(str(here)):
        return None
    return str(there)


def takes_over(previous: Document | None, meta: Mapping[str, Any],
               groups: frozenset[str]) -> bool:
    """Whether a file that chose its own doc_id would give ``previous``, a document not read
    from it (its file gone or unknown: a share not mounted, an upload, an older index), other
    readers (``groups``): a review's front-matter id took over an uploaded hr document, and
    one whose folder was away, and locked its owner out after."""
    if previous is None or not meta.get("_own_doc_id"):
        return False
    home = previous.metadata.get(HOME)
    if home is not None and Path(str(home)) == Path(str(meta.get("_file_path"))):
        return False
    return previous.acl_groups != groups


def moved_out_problem(doc_id: str, previous: Document | None,
                      logged: tuple[str, frozenset[str]] | None, tenant: str) -> str | None:
    """Why a document the live version lacks may not be ingested into ``tenant``, or None:
    its readers were last set by hand in another tenant (``logged``: that tenant and those
    groups, in any version), and ids are one namespace, as :func:`replace_problem` refuses
    another tenant's id in the live version. A security review moved a page from acme to
    globex by hand, rolled back to a version before it, and the folder's routine ingest
    put it in acme again, read by its staff. The refusal names neither the tenant nor its
    groups."""
    if previous is not None or logged is None or logged[0] == tenant:
        return None
    quoted = shlex.quote(doc_id)
    return (f"doc_id {doc_id!r} is another tenant's document in another version of this "
            "index; not ingested (ids are shared by all tenants). Fix: ingest this folder "
            "under ids of its own (--id-prefix NAME/), or give this file its own doc_id (its "
            "--meta sidecar line or front matter), or, if it belongs here, `citewise delete "
            f"-- {quoted}` (from every version and tenant), then ingest it with --undelete")


def replace_problem(doc_id: str, previous: Document | None, meta: Mapping[str, Any],
                     tenant: str, groups: frozenset[str]) -> str | None:
    """Why a document read with ``meta`` (its merged metadata) may not replace ``previous``,
    the stored document of its id, or None."""
    quoted = shlex.quote(doc_id)
    if previous is not None and previous.tenant != tenant:
        home = previous.metadata.get(HOME)
        same = home is not None and Path(str(home)) == Path(str(meta.get("_file_path")))
        move = (f", or, since it was read from this very file, move it first with `citewise "
                f"acl {quoted} --groups GROUPS --tenant {shlex.quote(tenant)}`") if same else ""
        return (f"doc_id {doc_id!r} is another tenant's document; not replaced (ids are shared "
                "by all tenants). Fix: ingest this folder under ids of its own (--id-prefix "
                "NAME/), or give this file its own doc_id (its --meta sidecar line or front "
                f"matter){move}")  # moving another file's document would show it (a new user)
    if takes_over(previous, meta, groups):
        return (f"doc_id {doc_id!r}, named by this file's own metadata, is a document not read "
                "from this file, and this ingest would change who may read it; not replaced. "
                "Fix: remove the doc_id line from this file's front matter (or <meta>), or set "
                f"that document's groups first with `citewise acl {quoted} --groups ...`")
    if meta.get("_file_path") and not meta.get("_uploaded") and previous is not None \
            and previous.metadata.get(UPLOADED):  # a security review: a file replaced an
        named = "named by this file's own metadata, " if meta.get("_own_doc_id") else ""
        fix = ("remove the doc_id line from this file's front matter (or <meta>), or "
               if named else "ingest this folder under ids of its own (--id-prefix NAME/), or ")
        return (f"doc_id {doc_id!r}, {named}is a document uploaded through the API; a file "
                f"does not replace it. Fix: {fix}delete the upload first with `citewise "
                f"delete -- {quoted}`")  # upload's text, title and link, its readers kept
    other = another_file(previous, meta)
    if other is not None and meta.get("_own_doc_id"):
        return (f"doc_id {doc_id!r}, named by this file's own metadata, is already indexed "
                f"from {other}, another file that still exists; not replaced. Fix: remove the "
                "doc_id line from this file's front matter (or <meta>), or remove the other "
                f"first with `citewise delete {quoted}`")
    if other is not None:
        return (f"doc_id {doc_id!r} is already indexed from {other}, another file that still "
                "exists; not replaced. Fix: ingest this folder with its own ids (--id-prefix "
                "NAME/), or its own index (--db), or remove the other first with `citewise "
                f"delete {quoted}`")
    if meta.get("_uploaded") and previous is not None and file_of(previous) is not None:
        return f"{UPLOAD_OVER_FILE.format(doc_id=doc_id)} Fix: {UPLOAD_OVER_FILE_FIX}"
    return None
