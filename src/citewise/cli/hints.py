"""Notes the CLI prints when a command's result is probably not what the user meant."""

from __future__ import annotations

from collections.abc import Sequence

from citewise.cli.common import echo
from citewise.protocols import Store
from citewise.types import Document, Principal

NO_GROUPS_HINT = ("note: no --groups given: a user with no groups may read nothing, so nothing "
                  "can match. Fix: pass the asking user's groups, e.g. --groups staff "
                  "(`citewise status --documents` lists each document's groups).")


UNGROUPED_HINT = ("note: no document of this index has an ACL group, so no user may read any. "
                  "Fix: ingest them again with --groups GROUP (only their metadata changes; "
                  "nothing is embedded again), or `citewise acl DOC --groups GROUP`.")


def warn_without_groups(principal: Principal, store: Store | None = None) -> None:
    """Say on stderr why a search or question as a user without groups finds nothing (or,
    with ``store``, that no document has a group, whoever asks)."""
    if not principal.groups:
        ungrouped = store is not None and _ungrouped(store.list_documents())
        echo(UNGROUPED_HINT if ungrouped else NO_GROUPS_HINT, err=True)


def _ungrouped(docs: Sequence[Document]) -> bool:
    """Whether the index has documents and none has an ACL group: ingested without
    ``--groups``, which a new user did, then passed the groups the hint suggested and still
    found nothing."""
    return bool(docs) and not any(d.acl_groups for d in docs)


def warn_nothing_readable(store: Store, principal: Principal) -> None:
    """When a search found nothing for a user with groups: say so if the user may read no
    document at all (a wrong --tenant or --groups). It names no tenant or group the user does
    not hold (the operator lists them with `citewise status --documents`), so the hint cannot
    confirm other tenants' names (README: what `--explain`/`--sql` show)."""
    if not principal.groups:
        return  # warn_without_groups said it
    docs = store.list_documents()
    if not docs or any(principal.may_read(d) for d in docs):
        return
    if _ungrouped(docs):  # the documents just read, not a second listing
        echo(UNGROUPED_HINT, err=True)
        return
    echo(f"note: no document in tenant {principal.tenant!r} may be read by groups "
         f"{', '.join(sorted(principal.groups))}. Fix: pass the user's --tenant and --groups "
         "(`citewise status --documents` lists each document's tenant and groups).",
         err=True)
