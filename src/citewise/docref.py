"""Which document a user means: its id, or the path it was ingested from.

A document's id is its path relative to the folder that was ingested (``commands/yank.html``
for ``citewise ingest ../manual``), but users type the path they ingested
(``../manual/commands/yank.html``) or an absolute one. :func:`resolve_refs` accepts all three:

1. an exact document id;
2. the file a document was read from, as a path from the current directory or absolute (or
   its recorded link, written out as a URL);
3. a path whose end is a document id (``../manual/commands/yank.html`` ends with
   ``commands/yank.html``) under a folder of the same name as the one the document was
   ingested from (``manual``), when exactly one document matches that way.

An upload was read from no file, so no path names it (its editor chose its link).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from citewise.errors import NotFoundError
from citewise.ingest.ownership import UPLOADED, file_of
from citewise.protocols import Store
from citewise.types import Document

_LIST_HINT = "list documents and their ids with `citewise status --documents`"


def resolve_refs(refs: Sequence[str], store: Store, cwd: Path | None = None) -> list[str]:
    """The document id of each ref (see the module docstring), in order; raises
    :class:`NotFoundError` naming every ref that matches no document (or several)."""
    cwd = cwd or Path.cwd()
    out: list[str] = []
    unknown: list[str] = []
    ambiguous: list[str] = []
    documents = store.list_documents()
    tenant = {d.doc_id: d.tenant for d in documents}
    for ref in refs:
        if store.get_document(ref) is not None:
            # an id that is also another document's file: say so rather than pick (an
            # upload's id "docs/acme/it.md" took an operator's `acl docs/acme/it.md`)
            found = [ref, *(d for d in same_source(ref, documents, cwd) if d != ref)]
        else:
            found = match_path(ref, documents, cwd)
        if len(found) == 1:
            out.append(found[0])
        elif found:
            mixed = len({tenant.get(d) for d in found}) > 1  # name tenants where they differ
            could = ", ".join(f"{d} of tenant {tenant.get(d)}" if mixed else d
                              for d in sorted(found))
            ambiguous.append(f"{ref} (could be {could})")
        else:
            unknown.append(ref)
    if unknown or ambiguous:
        parts = []
        if unknown:
            parts.append(f"not in the index: {', '.join(unknown)} (neither a document id nor "
                         "the path of a file a document was read from; an upload has no "
                         "file)")
        if ambiguous:
            parts.append(f"ambiguous: {'; '.join(ambiguous)}")
        fix = f"Fix: pass the document id; {_LIST_HINT}"
        if ambiguous:
            fix += (" (an id that is also the path of another document's file means both "
                    "from here: run the command from another folder)")
        raise NotFoundError(f"{'; '.join(parts)}. {fix}")
    return out


def match_path(ref: str, documents: Sequence[Document], cwd: Path) -> list[str]:
    """Ids of the documents ``ref`` names as a path (rules 2 and 3), best rule first."""
    same = same_source(ref, documents, cwd)
    if same:
        return same
    target = _absolute(ref, cwd)
    posix = target.as_posix()
    return [d.doc_id for d in documents if posix.endswith("/" + d.doc_id.lstrip("/"))
            and not d.metadata.get(UPLOADED) and _same_root(target, d)]


def same_source(ref: str, documents: Sequence[Document], cwd: Path) -> list[str]:
    """Ids of the documents read from the file ``ref`` names, or linked to the URL it is."""
    target = _absolute(ref, cwd)
    url = "://" in ref
    return [d.doc_id for d in documents if not d.metadata.get(UPLOADED) and (
        (url and d.source_url == ref)
        or ((home := file_of(d)) is not None and _absolute(home, cwd) == target))]


def _same_root(target: Path, doc: Document) -> bool:
    """False when the folder ``doc`` was ingested from is known (its source path names it)
    and is not the folder ``target`` names at the same place: ``other/guide.md`` is not the
    ``guide.md`` ingested from ``docs/``."""
    depth = len(Path(doc.doc_id).parts)
    source = Path(file_of(doc) or "")
    if len(source.parts) <= depth or len(target.parts) <= depth:
        return True
    root = source.parts[-depth - 1]
    return root in (".", "..") or root == target.parts[-depth - 1]


def _absolute(path: str, cwd: Path) -> Path:
    return Path(os.path.normpath(cwd / Path(path).expanduser()))
