"""citewise: answers from governed documents, with citations anyone can check."""

from citewise.config import Settings
from citewise.errors import CitewiseError
from citewise.types import Chunk, Document, Hit, Principal, SearchResult

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "CitewiseError",
    "Document",
    "Hit",
    "Principal",
    "SearchResult",
    "Settings",
    "__version__",
]
