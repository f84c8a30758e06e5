"""Notes the CLI prints when a command's result is probably not what the user meant."""

from __future__ import annotations

from citewise.cli.common import echo
from citewise.protocols import Store
from citewise.types import Principal

NO_GROUPS_HINT = ("note: no --groups given: a user with no groups may read nothing, so nothing "
                  "can match. Fix: pass the asking user's groups, e.g. --groups staff "
                  "(`citewise status --documents` lists each document's groups).")


def warn_without_groups(principal: Principal) -> None:
    """Say on stderr why a search or question as a user without groups finds nothing."""
    if not principal.groups:
        echo(NO_GROUPS_HINT, err=True)


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
    echo(f"note: no document in tenant {principal.tenant!r} may be read by groups "
         f"{', '.join(sorted(principal.groups))}. Fix: pass the user's --tenant and --groups "
         "(`citewise status --documents` lists each document's tenant and groups).",
         err=True)
