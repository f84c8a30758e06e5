"""Whose request is being served, for the in-process caches a query passes through.

The query-embedding cache (:mod:`citewise.embed.query_cache`) and the llm-judge score cache
(:mod:`citewise.rerank.cache`) answer a repeated input faster than a new one, so a cache
shared by two tenants would tell one of them, by timing, what the other asked (or that the
other holds a passage with the same text). Both caches therefore add the current scope
(:func:`scope_of` the asking principal: its tenant and groups, and its name under
``serve.cache_scope: principal``, set by :class:`~citewise.engine.Engine` around ``search``
and ``ask``) to their keys, under either ``index.tenancy``: the same permissions the answer
caches are keyed by. Scoped by tenant alone, a reader saw in ``timings_ms.embed_query``
(0.01 ms against 8 ms) that a colleague with other groups had asked a question word for
word. Threads a request starts copy the scope with ``contextvars.copy_context()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from citewise.types import Principal

_SCOPE: ContextVar[str] = ContextVar("citewise_cache_scope", default="")


def current_scope() -> str:
    """The scope of the request running in this context ("" outside any)."""
    return _SCOPE.get()


def scope_of(principal: Principal, alone: bool = False) -> str:
    """The scope of ``principal``'s requests: tenant and groups, and its name when ``alone``
    (``serve.cache_scope: principal``)."""
    parts = [principal.tenant, *sorted(principal.groups)]
    if alone:
        parts.append(f"name:{principal.name or ''}")
    return "\x00".join(parts)


@contextmanager
def cache_scope(scope: str) -> Iterator[None]:
    """Run the block with the caches scoped to ``scope`` (:func:`scope_of`)."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)
