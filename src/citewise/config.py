"""One typed settings tree. The core takes a :class:`Settings` as an argument; only the CLI
(and later the HTTP API) reads environment variables or files to build one."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from citewise.types import SearchMode

MAX_THREADS = 1024
"""The most threads a model may be given: a robustness review's 100,000 grew by 60 MB/s."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LimitSettings(_Section):
    max_file_bytes: int = Field(20 * 1024 * 1024, gt=0, description="Largest input file accepted.")
    max_pages: int = Field(2000, gt=0, description="Most PDF pages accepted per file.")
    max_pdf_content_bytes: int = Field(
        128 * 1024 * 1024, gt=0,
        description="Most page content a PDF may hold (decoded, each page's streams counted "
                    "for that page): reading text tokenizes it, about 10 MiB a second.")
    max_blocks: int = Field(50_000, gt=0, description="Most structural blocks per document.")
    max_nesting: int = Field(
        256, ge=8, le=1000,
        description="Most nested levels per document (HTML elements; Markdown lists, quotes and "
                    "inline markup, two levels per list). Deeper files are refused with an error "
                    "instead of being parsed in quadratic time or cut silently.")
    max_chunks: int = Field(50_000, gt=0, description="Most chunks per document.")


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
        return {"chunker": "structure-v4", **self.model_dump()}  # v4: short lead-ins

    def params_hash(self) -> str:
        """Part of the index identity: changing chunking means a new index."""
        blob = json.dumps(self.params(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


class EmbedSettings(_Section):
    model: str = Field(
        "all-minilm-l6-v2-int8",
        description="A shipped model name (see `citewise models`), or a path to a "
                    "sentence-transformers folder / ONNX export with its tokenizer.json.")
    threads: int = Field(0, ge=0, le=MAX_THREADS,
                         description="Intra-op threads; 0 = number of cores.")
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


class RerankSettings(_Section):
    kind: Literal["none", "llm-judge", "cross-encoder"] = Field(
        "none", description="Reranker applied to the top of the fused list.")
    model: str | None = Field(
        None, description="llm-judge: a local LLM name (`citewise models list`) or GGUF path "
                          "(default: the local generator's model); cross-encoder: a folder "
                          "(sentence-transformers layout) or an .onnx file with tokenizer.json.")
    top_n: int = Field(8, ge=1, le=200, description="How many fused hits are rescored.")
    deadline_ms: int = Field(
        1500, ge=1, description="Rescoring stops here; the rest keep their fused order and the "
                                "trace says `timeout` with how many were scored.")
    threads: int = Field(0, ge=0, le=MAX_THREADS,
                         description="Model threads; 0 = number of cores.")


class ContextSettings(_Section):
    budget_tokens: int = Field(2500, ge=100, description="Most passage tokens in a prompt.")
    max_passages: int = Field(8, ge=1, le=50, description="Most passages in a prompt.")
    mmr_lambda: float = Field(
        0.7, ge=0.0, le=1.0, description="MMR trade-off: 1 = relevance only, 0 = novelty only.")
    expand_parent: bool = Field(
        False, description="Replace a passage by its whole section when the budget allows.")


class OpenAISettings(_Section):
    base_url: str = Field("https://api.openai.com/v1",
                          description="Any OpenAI-compatible chat endpoint (vLLM, Ollama, …): "
                                      "an http:// or https:// URL.")
    model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint.")
    api_key_env: str = Field("OPENAI_API_KEY",
                             description="Environment variable holding the key (read by the CLI).")
    api_key: str | None = Field(None, description="The key itself (prefer api_key_env).",
                                repr=False)
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout.")
    retries: int = Field(2, ge=0, le=10, description="Retries on 429/5xx/connection errors.")

    @field_validator("base_url")
    @classmethod
    def _http_only(cls, value: str) -> str:
        if not value.strip().lower().startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL of an OpenAI-compatible "
                             "server, e.g. http://localhost:11434/v1")
        return value.strip()


class GenerateSettings(_Section):
    generator: Literal["auto", "local", "openai", "extractive"] = Field(
        "auto", description="auto = local when its model is installed, else extractive.")
    models_dir: str | None = Field(
        None, description="Where pulled local models are kept (default: $CITEWISE_MODELS_DIR, "
                          "read by the CLI, else ~/.cache/citewise/models).")
    local_model: str = Field(
        "qwen2.5-coder-1.5b-instruct",
        description="Local GGUF model name (`citewise models list`) or path. The 1.5B is the "
                    "default: on 30 SQuAD 2.0 questions, gold + 2 other paragraphs "
                    "(benchmarks/generators.py --n 30, 2 threads) its answer contained the "
                    "reference 70 % vs 35 % for the 0.5B and cited the gold passage 70 % vs "
                    "5 %, at 8.0 vs 3.6 s per answer; neither declines reliably (1.5B 0/10 "
                    "unanswerable, 0.5B 5/10), so the grounding gate must.")
    threads: int = Field(0, ge=0, le=MAX_THREADS,
                         description="LLM threads; 0 = the physical cores this process may use "
                                     "(hyper-threads add little).")
    context_tokens: int = Field(4096, ge=512, description="LLM context window (n_ctx).")
    max_tokens: int = Field(384, ge=1, description="Most tokens generated per answer.")
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    first_token_s: float | None = Field(
        5.0, gt=0, description="For a local model: the context is cut so that the whole "
                               "prompt (passages, fences, question) is evaluated in about this "
                               "many seconds (estimated from the model file's size and the "
                               "threads, citewise.answer.budget): whole passages, at least 120 "
                               "tokens of them; the rest is read only when they do not answer. "
                               "The cut and the expected first-token time are in the trace. "
                               "null: context.budget_tokens alone.")
    timeout_s: float | None = Field(
        None, gt=0, description="Past this, the answer falls back to extractive (and says so). "
                                "Default: sized to the model file and threads, 20-300 s "
                                "(citewise.answer.budget); 120 s for an endpoint.")
    openai: OpenAISettings = OpenAISettings()


class GateSettings(_Section):
    threshold: float | None = Field(
        None, allow_inf_nan=False,  # NaN declined nothing: every comparison with it is false
        description="Decline below this evidence score; default: the value "
                          "`citewise calibrate` stored in the index, else the shipped one.")
    reader: Literal["auto", "on", "off"] = Field(
        "auto", description="Answerability reader: after the retrieval signals pass, the "
                            "generator judges (Yes/No log-probabilities) whether the built "
                            "context answers the question, and a No declines (reader_no). "
                            "auto = on when the generator is an LLM (local or openai) and "
                            "its threshold is above 0: shipped for the default local model, "
                            "set, or calibrated (another model's uncalibrated threshold is 0 "
                            "and declines nothing); on = always (what `citewise calibrate` "
                            "needs to fit it).")
    reader_threshold: float | None = Field(
        None, ge=0.0, le=1.0, description="Decline when the reader's score is below this; "
                                          "default: the index's calibration, else the "
                                          "shipped one for the reading model.")


class CiteSettings(_Section):
    policy: Literal["flag", "strict"] = Field(
        "strict", description="strict: every sentence of an answer is supported by a source it "
                              "cites or removed; an answer left with no supported sentence is "
                              "replaced by the extractive answer or a decline (the output says "
                              "which and why). flag: the model's raw output, marked unchecked, "
                              "with its validation report.")


class EvalSettings(_Section):
    questions: str | None = Field(
        None, description="Eval set (JSONL) that `citewise reindex` gates promotion on.")
    personas: str | None = Field(
        None, description="Personas JSON ({name: {groups, tenant}}) for the eval set.")
    k: int = Field(10, ge=1, le=1000, description="Hits retrieved per eval question.")
    tolerance: float = Field(
        0.0, ge=0.0, description="A headline metric may drop this much (or its paired "
                                 "bootstrap half-width, whichever is larger) before failing.")
    metrics: tuple[str, ...] = Field(
        ("ndcg@10", "recall@10"),
        description="Headline metrics a reindex may not make worse. Add section_ndcg@10 to "
                    "also catch chunking changes that still find the right document but not "
                    "the right section (needs section labels in the eval set).")
    bootstrap_samples: int = Field(1000, ge=10, description="Bootstrap resamples per interval.")
    seed: int = Field(0, description="Bootstrap random seed (results are reproducible).")
    judge: Literal["local", "openai"] = Field(
        "local", description="Who judges answer correctness for `eval run --answers --judge`: "
                             "the local GGUF model judge_model, or the generate.openai endpoint.")
    judge_model: str = Field(
        "qwen2.5-coder-1.5b-instruct",
        description="Local judge model (a `citewise models list` name or a .gguf path). Its "
                    "agreement with human labels is in evals/httpx.judge-agreement.json; "
                    "re-measure with `citewise eval judge-check` when it changes.")
    judge_threshold: float = Field(
        0.6, gt=0.0, lt=1.0,
        description="An answer is judged correct when the judge's P(correct) is at least "
                    "this. 0.6: the best kappa on the dev half of evals/httpx.judge-labels.jsonl "
                    "(the 1.5B leans to Yes), checked on its test half.")


class LogSettings(_Section):
    enabled: bool = Field(True, description="Write a request log record per search/ask.")
    retention_days: float = Field(
        30.0, gt=0, description="Log records older than this are purged automatically.")
    query: Literal["store", "redact", "hash"] = Field(
        "redact", description="How queries are logged: as asked, with emails / phone numbers "
                              "/ key-like strings masked, or only as a sha256 hash.")


class ServeSettings(_Section):
    max_body_bytes: int = Field(
        25 * 1024 * 1024, gt=0, description="Largest upload (POST /v1/documents) accepted.")
    eval_dir: str | None = Field(
        None, description="Folder an operator's POST /v1/versions/reindex reads its eval set "
        "(questions, personas) from, by a path inside it; unset: the API reads none (run "
        "`citewise reindex --questions FILE` on the server).")
    max_upload_chunks: int = Field(
        2000, gt=0, description="Most passages an upload may hold; more is a 413 before any "
        "is embedded. Uploads embed one at a time, so a long one kept every tenant's waiting "
        "(a 2 MB text, 4,405 passages, held them 9 minutes on two cores), and passages the "
        "index had vectors of were not counted (one paragraph repeated stored 19,600); a "
        "long manual is ingested on the server with `citewise ingest`.")
    max_json_bytes: int = Field(
        256 * 1024, gt=0, description="Largest body of every other request (search, ask, "
                                      "feedback, ACL, versions: JSON of a few KiB).")
    max_query_chars: int = Field(2000, ge=1, description="Longest search query or question.")
    rate_per_minute: float = Field(
        120.0, gt=0, description="Search, ask, document-read and request-log requests per key "
                                 "per minute (token bucket), so the index cannot be "
                                 "bulk-extracted through the API nor the server flooded.")
    burst: int = Field(30, ge=1, description="Token bucket size: requests allowed at once.")
    asks_per_key: int = Field(
        2, ge=1, description="Asks one key may have running at once; more get a 429. The "
                             "model answers one request at a time, and one key's burst of "
                             "asks filled every worker thread of the server.")
    asks_per_tenant: int = Field(
        8, ge=1, description="Asks all keys of one tenant may have running at once when the "
                             "keys name two tenants or more; more get a 429. Without it one "
                             "tenant's keys, each within its own limit, could hold every ask "
                             "slot of the server, and the other tenants' asks waited for the "
                             "one model behind them (a security review).")
    asks_total: int = Field(
        16, ge=1, description="Asks all keys together may have running at once; more get a "
                              "429. The server has 40 worker threads, and each running ask "
                              "holds one: 16 leave the rest to searches, uploads and health "
                              "checks.")
    cors_origins: tuple[str, ...] = Field(
        (), description="Origins allowed by CORS; empty = CORS off (same origin only).")
    cache_entries: int = Field(
        1024, ge=0, description="Retrieval/answer cache size per server (0 = off).")
    cache_scope: Literal["permissions", "principal"] = Field(
        "permissions", description="Who shares a cache entry: everyone with the same tenant "
        "and groups (a hit is fast for all of them, and so tells one that a colleague asked "
        "the same question), or each key's principal alone (nobody learns what others ask).")
    metrics_key: bool = Field(
        False, description="Require an operator key for /metrics. Its figures are index-wide "
                           "(documents and their age across tenants, traffic per endpoint): "
                           "leave it off only where the port is reachable by your scraper "
                           "alone; a scraper sends the key as a bearer token.")


class IndexSettings(_Section):
    tenancy: Literal["shared", "isolated"] | None = Field(
        None, description="Decided when an index is created and recorded in its manifest "
                          "(unset: the index's own, `shared` for a new one). `shared`: one "
                          "BM25 statistics table and one embedding cache for all tenants (a "
                          "tenant's scores and ingest reports reflect other tenants' "
                          "documents); `isolated`: per-tenant BM25 statistics and embedding "
                          "cache. Change it with `citewise reindex --config FILE`.")


class Settings(_Section):
    index: IndexSettings = IndexSettings()
    limits: LimitSettings = LimitSettings()
    chunk: ChunkSettings = ChunkSettings()
    embed: EmbedSettings = EmbedSettings()
    retrieve: RetrieveSettings = RetrieveSettings()
    rerank: RerankSettings = RerankSettings()
    context: ContextSettings = ContextSettings()
    generate: GenerateSettings = GenerateSettings()
    gate: GateSettings = GateSettings()
    cite: CiteSettings = CiteSettings()
    eval: EvalSettings = EvalSettings()
    log: LogSettings = LogSettings()
    serve: ServeSettings = ServeSettings()
