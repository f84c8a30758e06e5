"""citewise: answers from governed documents, with citations anyone can check.

``citewise.connect(db_or_url, settings=...)`` returns the :class:`Engine` (imported lazily,
so ``import citewise`` stays cheap)."""

from typing import Any

from citewise.config import Settings
from citewise.errors import CitewiseError
from citewise.types import Chunk, Document, Hit, Principal, SearchResult

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "CitewiseError",
    "Document",
    "Engine",
    "Hit",
    "Principal",
    "SearchResult",
    "Settings",
    "__version__",
    "connect",
]


def __getattr__(name: str) -> Any:
    if name == "connect":
        from citewise.facade import connect

        return connect
    if name == "Engine":
        from citewise.engine import Engine

        return Engine
    raise AttributeError(f"module 'citewise' has no attribute {name!r}")
