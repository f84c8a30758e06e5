"""Structure-aware chunking: sections first, then whole blocks, then token windows.

The pipeline, each step in its own module:

1. Drop empty/whitespace-only blocks and count every remaining block once.
2. :mod:`~citewise.chunk.sections`: split into sections at headings; heading-only sections
   merge forward; sections under ``min_tokens`` may absorb their next sibling.
3. :mod:`~citewise.chunk.pack`: pack each section's whole blocks greedily up to
   ``chunk_tokens``; a block alone over the limit is split by
   :mod:`~citewise.chunk.split` (prose: sentence windows with overlap; code: between lines;
   tables: between rows with the header repeated).
4. :mod:`~citewise.chunk.fields`: ids, hashes and the embedding text.

Every chunk satisfies ``parsed.text[chunk.start:chunk.end] == chunk.text`` except continued
table chunks, whose text is the repeated header plus their rows (``start``/``end`` span the
rows). A chunk never spans two sections.

Counting: ``count_tokens`` is called at most once per distinct string (memoised for the call);
blocks are counted first, in one batch when the counter has ``count_many``. Sentence, line and
row counts are taken only inside blocks that must be split. ``token_count`` is
``count_tokens(chunk.text)``; when the counter declares ``additive = True`` (its count of
``a + whitespace + b`` is always ``count(a) + count(b)``, as for WordPiece/whitespace
tokenizers, see :attr:`~citewise.chunk.tokens.TokenCounter.additive`) it is computed as the
sum of the chunk's pieces instead of tokenizing the chunk text again.
"""

from __future__ import annotations

from collections.abc import Callable

from citewise.chunk.draft import Counted
from citewise.chunk.fields import make_chunk
from citewise.chunk.pack import pack_section
from citewise.chunk.sections import build_sections
from citewise.chunk.tokens import bounded
from citewise.config import ChunkSettings
from citewise.errors import LimitExceededError
from citewise.types import Chunk, ParsedDocument

DEFAULT_MAX_CHUNKS = 50_000


def chunk_document(parsed: ParsedDocument, doc_id: str, settings: ChunkSettings,
                   count_tokens: Callable[[str], int],
                   max_chunks: int = DEFAULT_MAX_CHUNKS) -> list[Chunk]:
    """Chunks of ``parsed``, in document order, ``ordinal`` 0..n-1. Pure and deterministic:
    the same input gives the same chunks (and ids); no blocks give ``[]``. Raises
    :class:`~citewise.errors.LimitExceededError` for more than ``max_chunks`` chunks."""
    count = _Memo(count_tokens)
    blocks = [b for b in parsed.blocks if b.text.strip()]
    counts = count.prime([b.text for b in blocks])
    counted = [Counted(b, n) for b, n in zip(blocks, counts, strict=True)]
    sections = build_sections(counted, settings.chunk_tokens, settings.min_tokens,
                              boxed_labels=parsed.format == "html")
    drafts = []
    for section in sections:  # stops once over the limit: an upload's 2,000 passages were
        drafts += pack_section(parsed.text, section, settings.chunk_tokens,  # known only
                               settings.overlap_tokens, count)  # after all 8,214 were made
        if len(drafts) > max_chunks:
            raise LimitExceededError(
                f"the document makes more than {max_chunks:,} chunks ({len(drafts):,} so "
                f"far), over limits.max_chunks; split the document or raise "
                "limits.max_chunks")
    if getattr(count_tokens, "additive", False):
        totals = [d.tokens for d in drafts]
    else:
        totals = count.prime([d.text for d in drafts])
    return [make_chunk(d, doc_id, i, parsed.title, n)
            for i, (d, n) in enumerate(zip(drafts, totals, strict=True))]


class _Memo:
    """``count_tokens`` memoised for one call, never below the character floor
    (:func:`~citewise.chunk.tokens.bounded`); :meth:`prime` counts many texts in one batch
    when the counter offers ``count_many`` (as :class:`~citewise.chunk.tokens.TokenCounter`
    does)."""

    def __init__(self, count_tokens: Callable[[str], int]) -> None:
        self._count = count_tokens
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = self._cache[text] = bounded(self._count(text), text)
        return n

    def prime(self, texts: list[str]) -> list[int]:
        many = getattr(self._count, "count_many", None)
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if many is not None and todo:
            self._cache.update((t, bounded(n, t)) for t, n in zip(todo, many(todo), strict=True))
        return [self(t) for t in texts]
