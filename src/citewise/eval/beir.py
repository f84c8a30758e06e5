"""``citewise eval beir DIR``: index a BEIR corpus and score retrieval against its qrels.

Rankings are made at chunk level by the same code as ``citewise search`` and collapsed to
documents by first occurrence (a document ranks where its best chunk ranks).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.eval.metrics import (
    mean_over_queries,
    mrr_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
)
from citewise.eval.runs import read_qrels, write_trec_run
from citewise.indexing import IngestReport
from citewise.retrieve import rank
from citewise.sources import beir_sources
from citewise.types import Principal

BEIR_GROUP = "beir"
DOC_DEPTH = 100


@dataclass
class BeirReport:
    dataset: str
    mode: str
    queries: int
    metrics: dict[str, float]
    latency_ms: dict[str, float]
    ingest: dict[str, object] = field(default_factory=dict)
    runs: dict[str, list[tuple[str, float]]] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, object]:
        return {"dataset": self.dataset, "mode": self.mode, "queries": self.queries,
                "metrics": self.metrics, "latency_ms": self.latency_ms, "ingest": self.ingest}


def load_queries(path: Path) -> dict[str, str]:
    queries = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    row = json.loads(line)
                    queries[str(row["_id"])] = row["text"]
                except (json.JSONDecodeError, KeyError) as exc:
                    raise ConfigError(f"{path} line {lineno}: not a BEIR query row ({exc})") \
                        from exc
    return queries


def _require(directory: Path, split: str) -> tuple[Path, Path, Path]:
    paths = (directory / "corpus.jsonl", directory / "queries.jsonl",
             directory / "qrels" / f"{split}.tsv")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ConfigError(f"not a BEIR directory, missing: {', '.join(missing)} "
                          f"(expected corpus.jsonl, queries.jsonl, qrels/{split}.tsv)")
    return paths


def doc_ranking(engine: Engine, query: str, principal: Principal, mode: str,
                depth: int = DOC_DEPTH) -> list[tuple[str, float]]:
    """The top ``depth`` documents for ``query``: chunk ranking collapsed by first occurrence."""
    settings = engine.settings.retrieve
    embedder = None if mode == "bm25" else engine.query_embedder()[0]
    ranked = rank(engine.store, embedder, query, principal, settings, mode,
                  candidates=max(settings.candidates, depth * 2))
    docs: dict[str, float] = {}
    page = depth * 2
    for offset in range(0, len(ranked.fused), page):
        window = ranked.fused[offset: offset + page]
        rows = engine.store.get_chunks([cid for cid, _ in window], principal)
        for cid, score in window:
            if cid in rows:
                docs.setdefault(rows[cid][1].doc_id, score)
        if len(docs) >= depth:
            break
    return list(docs.items())[:depth]


def evaluate_beir(directory: str | Path, engine: Engine, mode: str = "hybrid",
                  split: str = "test", run_file: str | Path | None = None,
                  on_progress: Callable[[int], None] | None = None) -> BeirReport:
    """Ingest the corpus into ``engine`` (incremental: a kept index embeds nothing again),
    run every judged query as a principal of the corpus group, and compute nDCG@10,
    Recall@10/100 and MRR@10 at document level."""
    directory = Path(directory)
    corpus, queries_path, qrels_path = _require(directory, split)
    qrels = read_qrels(qrels_path)
    queries = {q: t for q, t in load_queries(queries_path).items() if q in qrels}
    ingest: IngestReport = engine.ingest(
        beir_sources(corpus, {"groups": [BEIR_GROUP], "tenant": "default"}),
        on_progress=on_progress)
    return _score(engine, directory.name, mode, queries, qrels, ingest, run_file)


def _score(engine: Engine, name: str, mode: str, queries: Mapping[str, str],
           qrels: Mapping[str, Mapping[str, int]], ingest: IngestReport,
           run_file: str | Path | None) -> BeirReport:
    principal = Principal.of([BEIR_GROUP])
    if mode != "bm25":
        engine.query_embedder()  # checks the index's model and loads it outside the timing
    runs: dict[str, list[tuple[str, float]]] = {}
    latencies: list[float] = []
    for qid, text in queries.items():
        t0 = time.perf_counter()
        runs[qid] = doc_ranking(engine, text, principal, mode)
        latencies.append((time.perf_counter() - t0) * 1000.0)
    ranked_ids = {q: [d for d, _ in r] for q, r in runs.items()}
    metrics = {
        "ndcg@10": mean_over_queries(ndcg_at_k, ranked_ids, qrels, 10),
        "recall@10": mean_over_queries(recall_at_k, ranked_ids, qrels, 10),
        "recall@100": mean_over_queries(recall_at_k, ranked_ids, qrels, 100),
        "mrr@10": mean_over_queries(mrr_at_k, ranked_ids, qrels, 10),
    }
    if run_file:
        write_trec_run(run_file, runs, tag=f"citewise-{mode}")
    return BeirReport(
        dataset=name, mode=mode, queries=len(queries),
        metrics={k: round(v, 4) for k, v in metrics.items()},
        latency_ms={"p50": round(percentile(latencies, 50), 2),
                    "p95": round(percentile(latencies, 95), 2)},
        ingest=ingest.summary(), runs=runs)
