"""Rerank benchmark: SciFact nDCG@10 of hybrid retrieval vs hybrid + LLM judge, same queries.

Run from the repository root::

    .venv/bin/python benchmarks/rerank.py [--db /tmp/rr/scifact.db] [--queries 40]
        [--top-n 5] [--models qwen2.5-coder-0.5b-instruct,qwen2.5-coder-1.5b-instruct]
        [--threads 1] [--deadline-ms 0] [--seed 0] [--json OUT]

What is measured, and how:

* The index is the SciFact corpus (``/work/shared/data/scifact-beir``) ingested with the
  default settings into ``--db``; it is built first when empty (minutes, real model).
* A fixed sample of ``--queries`` judged test queries (``random.Random(seed).sample`` of the
  sorted query ids) is used for EVERY system, so the figures are paired.
* hybrid: ``Engine.search`` (BM25 + dense, RRF), 40 chunk hits, collapsed to documents by
  first occurrence (as ``citewise eval beir`` does), then nDCG@10 / MRR@10 against the qrels.
* hybrid + judge: the same hits through ``rerank_with_deadline`` (the engine's own path)
  rescoring the top ``--top-n`` chunks, one pair per call; ``--deadline-ms 0`` means no
  deadline in effect (600 s), to measure quality; a positive value measures the
  quality actually obtained under that deadline (timeouts counted).
* Latency is the wall time of the rerank step per query (model load excluded: one warm-up
  pair first), with ``--threads`` LLM threads; the machine is shared, so the figures are an
  upper bound of what an idle machine gives.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from citewise.engine import Engine
from citewise.eval.beir import BEIR_GROUP, load_queries
from citewise.eval.metrics import mrr_at_k, ndcg_at_k, percentile
from citewise.eval.runs import read_qrels
from citewise.rerank import rerank_with_deadline
from citewise.rerank.llm_judge import LLMJudgeReranker
from citewise.sources import beir_sources
from citewise.types import Hit, Principal

DATA = Path("/work/shared/data/scifact-beir")
HITS = 40


def doc_order(hits: tuple[Hit, ...] | list[Hit]) -> list[str]:
    """Chunk hits -> document ids by first occurrence."""
    return list(dict.fromkeys(h.document.doc_id for h in hits))


def sample_queries(data: Path, n: int, seed: int) -> tuple[dict[str, str], dict]:
    qrels = read_qrels(data / "qrels" / "test.tsv")
    queries = {q: t for q, t in load_queries(data / "queries.jsonl").items() if q in qrels}
    chosen = sorted(random.Random(seed).sample(sorted(queries), min(n, len(queries))))
    return {q: queries[q] for q in chosen}, qrels


def open_engine(db: Path, data: Path) -> Engine:
    engine = Engine(db)
    if engine.store.count().documents == 0:
        print(f"building the SciFact index in {db} (real model, several minutes)…",
              file=sys.stderr)
        engine.ingest(beir_sources(data / "corpus.jsonl",
                                   {"groups": [BEIR_GROUP], "tenant": "default"}))
    engine.query_embedder()
    return engine


def score(rankings: dict[str, list[str]], qrels: dict) -> dict[str, float]:
    n = len(rankings)
    return {"ndcg@10": round(sum(ndcg_at_k(r, qrels[q], 10) for q, r in rankings.items()) / n, 4),
            "mrr@10": round(sum(mrr_at_k(r, qrels[q], 10) for q, r in rankings.items()) / n, 4)}


def run_judge(model: str, threads: int, hits_by_q: dict[str, list[Hit]],
              queries: dict[str, str], top_n: int, deadline_s: float) -> dict[str, object]:
    judge = LLMJudgeReranker(model, threads=threads, context_tokens=2048)
    t = time.perf_counter()
    judge.judge("warm up", "load the model")
    load_s = time.perf_counter() - t
    rankings, latencies, statuses, scored = {}, [], {}, 0
    for qid, text in queries.items():
        out = rerank_with_deadline(judge, text, hits_by_q[qid], top_n, deadline_s,
                                   batch_size=1)
        rankings[qid] = doc_order(out.hits)
        latencies.append(out.ms)
        statuses[out.status] = statuses.get(out.status, 0) + 1
        scored += out.scored
        if out.error:
            print(f"  {qid}: {out.error}", file=sys.stderr)
    total_s = sum(latencies) / 1000.0
    return {"model": model, "load_s": round(load_s, 2), "rankings": rankings,
            "latency_ms": {"p50": round(percentile(latencies, 50), 1),
                           "p95": round(percentile(latencies, 95), 1)},
            "pairs_per_s": round(scored / total_s, 3) if total_s else None,
            "statuses": statuses, "scored": scored}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, default=Path("/tmp/rr/scifact.db"))
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--top-n", type=int, default=5)
    ap.add_argument("--models", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--deadline-ms", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    queries, qrels = sample_queries(args.data, args.queries, args.seed)
    engine = open_engine(args.db, args.data)
    principal = Principal.of([BEIR_GROUP])
    hits_by_q = {q: list(engine.search(t, principal, mode="hybrid", top_k=HITS).hits)
                 for q, t in queries.items()}
    base = score({q: doc_order(h) for q, h in hits_by_q.items()}, qrels)
    deadline_s = args.deadline_ms / 1000.0 if args.deadline_ms > 0 else 600.0
    print(f"SciFact test, {len(queries)} sampled queries (seed {args.seed}), rerank top "
          f"{args.top_n} chunks, {args.threads} LLM thread(s), deadline "
          f"{args.deadline_ms or 'none'} ms")
    print(f"{'system':44} {'nDCG@10':>8} {'MRR@10':>8} {'rerank p50/p95 ms':>20} {'pairs/s':>8}")
    print(f"{'hybrid':44} {base['ndcg@10']:8.4f} {base['mrr@10']:8.4f} {'-':>20} {'-':>8}")
    report: dict[str, object] = {"queries": sorted(queries), "top_n": args.top_n,
                                 "threads": args.threads, "deadline_ms": args.deadline_ms,
                                 "hybrid": base, "judges": []}
    for model in [m for m in args.models.split(",") if m]:
        res = run_judge(model, args.threads, hits_by_q, queries, args.top_n, deadline_s)
        metrics = score(res.pop("rankings"), qrels)  # type: ignore[arg-type]
        lat = res["latency_ms"]
        print(f"{'hybrid + llm-judge ' + model:44} {metrics['ndcg@10']:8.4f} "
              f"{metrics['mrr@10']:8.4f} {lat['p50']:>10.0f} / {lat['p95']:<7.0f} "  # type: ignore[index]
              f"{res['pairs_per_s']!s:>8}  {res['statuses']}")
        report["judges"].append({**res, **metrics})  # type: ignore[attr-defined]
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
