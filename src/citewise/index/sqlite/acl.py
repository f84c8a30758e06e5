"""Tenants and ACL groups: names -> integer ids -> FTS tokens, and the principal's predicate.

A principal sees a chunk when its document is in the principal's tenant AND shares at least one
group with the principal. Group and tenant NAMES never reach the FTS index: a name such as
``hr-managers`` would tokenize into ``hr`` + ``managers`` and match a query for group ``hr``.
The index holds opaque tokens instead: ``g<id>`` per group, ``t<id>`` per tenant.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from citewise.types import Principal

_TABLES = ("groups", "tenants")


def group_token(group_id: int) -> str:
    return f"g{group_id}"


def tenant_token(tenant_id: int) -> str:
    return f"t{tenant_id}"


@dataclass(frozen=True)
class AclTokens:
    """The principal as FTS tokens: ``tenant`` like ``t2``, ``groups`` like ``("g3", "g9")``."""

    tenant: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class ResolvedPrincipal:
    """A principal as ids (:data:`NO_ID` for names this index does not hold)."""

    tenant: str
    tenant_id: int
    group_ids: tuple[int, ...]

    @property
    def tokens(self) -> AclTokens:
        return AclTokens(tenant_token(self.tenant_id),
                         tuple(group_token(g) for g in self.group_ids))

    @property
    def group_ids_json(self) -> str:
        return json.dumps(list(self.group_ids))


def lookup_ids(conn: Any, table: str, names: Iterable[str]) -> dict[str, int]:
    """Ids of the names that exist in ``groups`` or ``tenants`` (unknown names are left out)."""
    if table not in _TABLES:
        raise ValueError(f"unknown name table {table!r}; expected one of {_TABLES}")
    wanted = json.dumps(sorted(set(names)))
    rows = conn.execute(
        f"SELECT name, id FROM {table} WHERE name IN (SELECT value FROM json_each(?))",
        (wanted,))
    return {name: row_id for name, row_id in rows}


def ensure_ids(conn: Any, table: str, names: Iterable[str]) -> dict[str, int]:
    """Ids of ``names`` in ``groups``/``tenants``, creating the missing ones (inside a write)."""
    names = sorted(set(names))
    if table not in _TABLES:
        raise ValueError(f"unknown name table {table!r}; expected one of {_TABLES}")
    conn.executemany(f"INSERT OR IGNORE INTO {table}(name) VALUES (?)", [(n,) for n in names])
    return lookup_ids(conn, table, names)


NO_ID = 0
"""An id no tenant or group ever has (SQLite ids start at 1): the stand-in for a name the
index does not hold, so such a principal's searches run the same queries (matching nothing)
as one whose names exist but hold nothing it may read; neither the result nor the work done
(``--explain`` timings) says which names exist."""


def resolve_principal(conn: Any, principal: Principal) -> ResolvedPrincipal | None:
    """The principal's ids, or ``None`` when it has no groups (searches then return ``[]``
    unqueried: a property of the principal, not of the index). Names the index does not hold
    resolve to :data:`NO_ID`."""
    if not principal.groups:
        return None
    tenants = lookup_ids(conn, "tenants", [principal.tenant])
    groups = lookup_ids(conn, "groups", principal.groups)
    return ResolvedPrincipal(tenant=principal.tenant,
                             tenant_id=tenants.get(principal.tenant, NO_ID),
                             group_ids=tuple(sorted(groups.values())) or (NO_ID,))


def describe_principal(principal: Principal, tenancy: str = "shared") -> str:
    """The predicate as applied, e.g. ``tenant = 'acme' AND groups ∩ {hr, staff} ≠ ∅ (...)``.

    Built from the principal's own names and the index's tenancy ONLY: whether a name exists
    in the index (or which token id it has) is never said, so an unknown tenant or group
    reads exactly like one that exists but holds nothing the principal may see."""
    names = ", ".join(sorted(principal.groups))
    base = f"tenant = {principal.tenant!r} AND groups ∩ {{{names}}} ≠ ∅"
    if not principal.groups:
        return f"{base} (the principal has no groups: nothing is visible)"
    stats = (f"tenant {principal.tenant!r}'s own chunks (index.tenancy isolated)"
             if tenancy == "isolated" else "all tenants' chunks (index.tenancy shared)")
    return (f"{base} (inside the FTS5 MATCH as opaque group/tenant tokens, and in the dense "
            f"search; BM25 statistics over {stats})")


def display_tokens(principal: Principal) -> AclTokens:
    """The principal's ACL tokens as ``--sql`` shows them: by name, one per group the
    principal holds, whether or not the index knows it (ids would reveal which exist)."""
    return AclTokens(tenant=f"<token of tenant {principal.tenant!r}>",
                     groups=tuple(f"<token of group {g!r}>" for g in sorted(principal.groups)))
