"""citewise.chunk: structure-aware chunking and token counting."""

from citewise.chunk.structure import chunk_document
from citewise.chunk.tokens import TokenCounter, word_count

__all__ = ["TokenCounter", "chunk_document", "word_count"]
