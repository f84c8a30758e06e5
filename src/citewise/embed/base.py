"""What every citewise embedder shares: tokenisation, length-sorted batching, pooling,
L2 normalisation and the query/passage prefixes. A runtime implements one method,
``_forward(input_ids, attention_mask, token_type_ids) -> last_hidden_state``.

Batching: texts are tokenised without padding, sorted by token count, cut into mini-batches
of ``batch_size`` and each mini-batch is padded only to its own longest text. Sorted, a batch
holds texts of similar length, so little compute is spent on padding; outputs are put back
in input order. Padded positions are masked in attention and pooling, so a text's vector does
not depend on its batch neighbours.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from citewise.config import EmbedSettings
from citewise.embed.models import ModelSpec, file_sha256, verified_path
from citewise.errors import ConfigError, ModelError

# (tokenizer.json path, max_length or None for the counting tokenizer) -> Tokenizer
_TOKENIZERS: dict[tuple[str, int | None], Tokenizer] = {}
_TOKENIZER_LOCK = threading.Lock()
COUNT_SLICE = 1 << 15  # characters a token count encodes at once


def load_tokenizer(path: Path, max_length: int | None) -> Tokenizer:
    """The tokenizer at ``path``: truncating to ``max_length`` (``None``: never), no padding.

    Any padding/truncation saved in tokenizer.json (all-MiniLM's pads to a fixed 128) is
    replaced: we pad per mini-batch ourselves.
    """
    key = (str(path), max_length)
    if not path.is_file():
        raise ModelError(f"tokenizer file not found: {path}. Point to the model's "
                         "tokenizer.json, or run `make install` to fetch the shipped model.")
    with _TOKENIZER_LOCK:
        if key not in _TOKENIZERS:
            try:
                tok = Tokenizer.from_file(str(path))
            except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
                raise ModelError(f"Cannot read the tokenizer {path}: {exc}. To fix it, "
                                 "replace it with the model's own tokenizer.json.") from exc
            tok.no_padding()
            if max_length is None:
                tok.no_truncation()
            else:
                tok.enable_truncation(max_length)
            _TOKENIZERS[key] = tok
        return _TOKENIZERS[key]


def _pad_id(tok: Tokenizer) -> int:
    for token in ("[PAD]", "<pad>"):
        token_id = tok.token_to_id(token)
        if token_id is not None:
            return token_id
    return 0


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """Pool ``(batch, seq, dim)`` token states over the attention mask to ``(batch, dim)``.

    mean: sum(h_i * m_i) / sum(m_i) (sentence-transformers' mean pooling); cls: h_0;
    max: the per-dimension max over unmasked tokens.
    """
    if hidden.ndim == 2:  # an export that already pools
        return hidden
    if pooling == "cls":
        return hidden[:, 0]
    m = mask[:, :, None].astype(hidden.dtype)
    if pooling == "max":
        return np.where(m > 0, hidden, -np.inf).max(axis=1)
    return (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class BaseEmbedder:
    """An :class:`~citewise.protocols.Embedder` over a :class:`ModelSpec`; subclasses run it.

    The constructor only stores settings: tokenizer and weights load on first use, once per
    process. ``sort_by_length=False`` keeps input order inside batches (for benchmarks).
    """

    #: Padded tokens per model call beyond which a mini-batch is cut (see ``_batches``).
    max_batch_tokens = 1024

    def __init__(self, spec: ModelSpec, settings: EmbedSettings | None = None, *,
                 sort_by_length: bool = True) -> None:
        settings = settings or EmbedSettings()
        max_length = settings.max_length or spec.max_length
        if spec.max_position is not None and max_length > spec.max_position:
            raise ConfigError(
                f"embed.max_length={max_length} is over {spec.name}'s limit of "
                f"{spec.max_position} tokens; set embed.max_length to {spec.max_position} or "
                "less (or leave it unset for the model's own).")
        self.spec = spec
        self.dim = spec.dim
        self.max_length = max_length
        self.batch_size = settings.batch_size
        self.threads = settings.threads or available_cpus()
        self.query_prefix = settings.query_prefix
        self.passage_prefix = settings.passage_prefix
        self.sort_by_length = sort_by_length
        self._model_id = spec.model_id
        self._tokenizers: dict[int | None, Tokenizer] = {}

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(model={self.spec.name!r}, max_length={self.max_length}, "
                f"threads={self.threads}, batch_size={self.batch_size})")

    @property
    def model_id(self) -> str:
        """The exact weights: the spec's id, or ``name@sha256[:12]`` of a user's weights."""
        if self._model_id is None:
            digest = file_sha256(verified_path(self.spec.weights))
            self._model_id = f"{self.spec.name}@{digest[:12]}"
        return self._model_id

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Passages -> ``(len(texts), dim)`` float32, L2-normalised, in input order."""
        return self._embed([self.passage_prefix + text for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """One query (with the query prefix) -> ``(dim,)`` float32, L2-normalised."""
        return self._embed([self.query_prefix + text])[0]

    def warm_up(self) -> None:
        """Load the model now (it otherwise loads on first use), e.g. to keep model loading
        out of a query's latency."""
        self.embed_query("warm up")

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by this model's tokenizer, without special tokens or truncation;
        a long text is counted :data:`COUNT_SLICE` characters at a time, cut at whitespace
        (the same count: the tokenizer splits words there), so its memory stays bounded (a
        4 MB run of "&" made one encoding of 4 million tokens, 2.2 GB at its peak)."""
        tokenizer = self._tokenizer(None)
        return sum(len(tokenizer.encode(piece, add_special_tokens=False).ids)
                   for piece in slices(text, COUNT_SLICE))

    def _tokenizer(self, max_length: int | None) -> Tokenizer:
        """The tokenizer, its file checked once per embedder: checking it on every call
        (a stat, a path resolve) was 95 % of chunking a 200,000-line code block, counted a
        line at a time (75 of 79 s; a security review's upload held the upload slot so)."""
        tokenizer = self._tokenizers.get(max_length)
        if tokenizer is None:
            tokenizer = load_tokenizer(verified_path(self.spec.tokenizer), max_length)
            self._tokenizers[max_length] = tokenizer
        return tokenizer

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray,
                 token_type_ids: np.ndarray) -> np.ndarray:
        """Token ids ``(batch, seq)`` int64 -> last hidden state ``(batch, seq, hidden)``."""
        raise NotImplementedError

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        tok = self._tokenizer(self.max_length)
        encodings = tok.encode_batch(list(texts))
        order = np.arange(len(encodings))
        if self.sort_by_length:
            order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        pad_id = _pad_id(tok)
        for rows in self._batches([len(encodings[i].ids) for i in order], order):
            ids, mask, types = _pad([encodings[i] for i in rows], pad_id)
            hidden = self._forward(ids, mask, types)
            pooled = pool(np.asarray(hidden, dtype=np.float32), mask, self.spec.pooling)
            if pooled.shape[1] != self.dim:
                raise ModelError(
                    f"{self.spec.name} produced {pooled.shape[1]}-dim vectors, expected "
                    f"{self.dim}; fix the model folder's config (hidden_size).")
            out[rows] = l2_normalize(pooled)
        return out

    def _batches(self, lengths: list[int], order: np.ndarray) -> list[np.ndarray]:
        """Cut ``order`` into mini-batches of at most ``batch_size`` texts and, past the first
        text, at most ``max_batch_tokens`` padded tokens (long texts go in smaller batches:
        their attention scores then stay in cache, about 1.5x faster measured)."""
        batches, start = [], 0
        while start < len(order):
            end, longest = start + 1, lengths[start]
            while end < len(order) and end - start < self.batch_size:
                longest = max(longest, lengths[end])
                if longest * (end - start + 1) > self.max_batch_tokens:
                    break
                end += 1
            batches.append(order[start:end])
            start = end
        return batches


def _pad(encodings: list, pad_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right-pad a mini-batch to its longest encoding: ids, attention mask, token types."""
    longest = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), longest), dtype=np.int64)
    types = np.zeros((len(encodings), longest), dtype=np.int64)
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = 1
        types[row, :n] = enc.type_ids
    return ids, mask, types


def slices(text: str, size: int) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, each cut after the last
    whitespace of its second half when there is one."""
    start = 0
    while len(text) - start > size:
        end = start + size
        half = start + size // 2
        space = max(text.rfind(" ", half, end), text.rfind("\n", half, end))
        end = space + 1 if space > 0 else end
        yield text[start:end]
        start = end
    yield text[start:]
