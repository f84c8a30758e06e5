"""Whose request is being served, for the in-process caches a query passes through.

The query-embedding cache (:mod:`citewise.embed.query_cache`) and the llm-judge score cache
(:mod:`citewise.rerank.cache`) answer a repeated input faster than a new one, so a cache
shared by two tenants would tell one of them, by timing, what the other asked (or that the
other holds a passage with the same text). Both caches therefore add the current scope (the
asking principal's tenant, set by :class:`~citewise.engine.Engine` around ``search`` and
``ask``) to their keys, under either ``index.tenancy``. Threads a request starts copy the
scope with ``contextvars.copy_context()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_SCOPE: ContextVar[str] = ContextVar("citewise_cache_scope", default="")


def current_scope() -> str:
    """The scope of the request running in this context ("" outside any)."""
    return _SCOPE.get()


@contextmanager
def cache_scope(tenant: str) -> Iterator[None]:
    """Run the block with the caches scoped to ``tenant``."""
    token = _SCOPE.set(tenant)
    try:
        yield
    finally:
        _SCOPE.reset(token)
