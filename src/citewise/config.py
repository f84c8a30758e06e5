"""One typed settings tree. The core takes a :class:`Settings` as an argument; only the CLI
(and later the HTTP API) reads environment variables or files to build one."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel, ConfigDict, Field

from citewise.types import SearchMode


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LimitSettings(_Section):
    max_file_bytes: int = Field(20 * 1024 * 1024, gt=0, description="Largest input file accepted.")
    max_pages: int = Field(2000, gt=0, description="Most PDF pages accepted per file.")
    max_blocks: int = Field(50_000, gt=0, description="Most structural blocks per document.")


class ChunkSettings(_Section):
    chunk_tokens: int = Field(
        192, ge=16, le=8192,
        description="Most tokens per chunk, counted with the embedder's tokenizer (title/heading "
                    "prefix excluded). 192 was best of 128/192/256 on a SciFact dev split.")
    overlap_tokens: int = Field(
        32, ge=0, description="Overlap between windows when a section is split by length.")
    min_tokens: int = Field(
        24, ge=0, description="Sections shorter than this merge with the next sibling section.")

    def params(self) -> dict[str, int | str]:
        return {"chunker": "structure-v2", **self.model_dump()}  # v2: balanced windows

    def params_hash(self) -> str:
        """Part of the index identity: changing chunking means a new index."""
        blob = json.dumps(self.params(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


class EmbedSettings(_Section):
    model: str = Field(
        "all-minilm-l6-v2-int8",
        description="A shipped model name (see `citewise models`), or a path to a "
                    "sentence-transformers folder / ONNX export with its tokenizer.json.")
    threads: int = Field(0, ge=0, description="Intra-op threads; 0 = number of cores.")
    batch_size: int = Field(32, ge=1, description="Passages per model call (sorted by length).")
    max_length: int | None = Field(
        None, ge=8, description="Token limit per passage; default: the model's own.")
    query_prefix: str = Field("", description="Prepended to queries (e.g. bge's instruction).")
    passage_prefix: str = Field("", description="Prepended to passages before embedding.")


class RetrieveSettings(_Section):
    mode: SearchMode = Field("hybrid", description="Retrieval signals: bm25, dense or hybrid.")
    top_k: int = Field(10, ge=1, le=1000, description="Hits returned.")
    candidates: int = Field(
        100, ge=1, le=5000, description="Top-N taken from each signal before fusion.")
    rrf_k: int = Field(60, ge=1, description="RRF constant (Cormack et al. 2009); not top-k.")
    title_weight: float = Field(
        1.0, ge=0, description="BM25 weight of the title/heading column (body weight is 1).")


class Settings(_Section):
    limits: LimitSettings = LimitSettings()
    chunk: ChunkSettings = ChunkSettings()
    embed: EmbedSettings = EmbedSettings()
    retrieve: RetrieveSettings = RetrieveSettings()
