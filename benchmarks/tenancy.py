"""What ``index.tenancy: isolated`` costs: the same multi-tenant workload written and queried
with shared and with isolated tenancy.

Run from the repository root::

    .venv/bin/python benchmarks/tenancy.py [--docs 2000] [--tenants 20] [--queries 200]
        [--boilerplate 0.2] [--pg-url "$CITEWISE_TEST_PG_URL"] [--repeat 3] [--seed 0] [--json]

Workload: ``--docs`` documents of 5 chunks of 60 words (Zipf-distributed over a 20k-word
synthetic vocabulary, so term statistics look like text), spread over ``--tenants`` tenants
(one holds ~half the documents: the "big" tenant; the others share the rest: "small"), each
document in 1-2 of 10 groups. ``--boilerplate`` of the chunks are texts every tenant has
(disclaimers, templates): the same text in several tenants, which a shared embedding cache
embeds once and an isolated one once per tenant. Vectors are 384-d random unit vectors (the
model is not what is measured; ``texts to embed`` says how much model work each tenancy
needs: multiply by the embedder's ms per chunk, ~4-8 ms for all-MiniLM-L6-v2 on 2 cores).

Measured for each tenancy (SQLite; PostgreSQL too with ``--pg-url``), writes through
``Store.write`` in batches of 100 documents:

* ingest: chunks/s over all writes, texts to embed (vectors not in the writing tenant's
  cache), vectors stored, index size (SQLite file);
* search p50/p95 ms, top-20, BM25 and dense, for a big-tenant and a small-tenant principal
  (after 5 warm-up queries each; queries are 3 words drawn from the vocabulary), and the
  first dense query after a write (SQLite reloads its in-memory matrix: one for all tenants
  when shared, the queried tenant's alone when isolated).

Files and schemas are temporary (removed/dropped at the end).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citewise.eval.metrics import percentile
from citewise.index import make_manifest
from citewise.index.sqlite import SQLiteStore
from citewise.protocols import DocumentWrite, Store
from citewise.types import Chunk, Document, Principal

DIM = 384
WORDS = 60
CHUNKS_PER_DOC = 5
GROUPS = 10
BATCH_DOCS = 100
TOP_K = 20


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = sorted({"".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(size)})
    weights = [1.0 / (rank + 1) for rank in range(len(words))]  # Zipf, s = 1
    return words, weights


def workload(args: argparse.Namespace) -> list[list[DocumentWrite]]:
    rng = random.Random(args.seed)
    nprng = np.random.default_rng(args.seed)
    words, weights = vocabulary(rng)
    boiler = [" ".join(rng.choices(words, weights, k=WORDS)) for _ in range(20)]
    vectors: dict[str, np.ndarray] = {}
    batches: list[list[DocumentWrite]] = [[]]
    for d in range(args.docs):
        tenant = "t0" if rng.random() < 0.5 else f"t{rng.randrange(1, args.tenants)}"
        doc_id = f"{tenant}/doc-{d:06d}"
        chunks = []
        for i in range(CHUNKS_PER_DOC):
            text = (rng.choice(boiler) if rng.random() < args.boilerplate
                    else " ".join(rng.choices(words, weights, k=WORDS)))
            h = hashlib.sha256(text.encode()).hexdigest()
            if h not in vectors:
                v = nprng.standard_normal(DIM).astype(np.float32)
                vectors[h] = v / np.linalg.norm(v)
            chunks.append(Chunk(chunk_id=f"{doc_id}#{i}", doc_id=doc_id, ordinal=i, text=text,
                                text_for_embedding=text, embed_hash=h, start=0, end=len(text),
                                token_count=WORDS))
        groups = frozenset(f"g{g}" for g in rng.sample(range(GROUPS), rng.randint(1, 2)))
        doc = Document(doc_id=doc_id, title=f"Document {d}", content_hash=doc_id, tenant=tenant,
                       acl_groups=groups)
        if len(batches[-1]) == BATCH_DOCS:
            batches.append([])
        batches[-1].append(DocumentWrite(doc, tuple(chunks),
                                         {c.embed_hash: vectors[c.embed_hash] for c in chunks}))
    return batches


def ingest(store: Store, batches: Sequence[Sequence[DocumentWrite]],
           tenancy: str) -> dict[str, Any]:
    """Writes as ``citewise ingest`` does (``citewise.batch_embed.texts_to_embed``): a batch
    embeds each text some tenant's cache lacks once, and gives it to the writes that need it."""
    store.ensure_manifest(make_manifest("random-384", DIM, {}, "bench", tenancy))
    to_embed = 0
    started = time.perf_counter()
    for batch in batches:
        missing: set[str] = set()
        for tenant in sorted({w.document.tenant for w in batch}):
            hashes = {c.embed_hash for w in batch if w.document.tenant == tenant
                      for c in w.chunks}
            missing |= hashes - store.cached_vectors(sorted(hashes), tenant)
        to_embed += len(missing)
        store.write([DocumentWrite(w.document, w.chunks,
                                   {h: v for h, v in w.vectors.items() if h in missing})
                     for w in batch])
    seconds = time.perf_counter() - started
    chunks = sum(len(w.chunks) for b in batches for w in b)
    return {"chunks_per_s": round(chunks / seconds), "texts_to_embed": to_embed,
            "vectors_stored": store.count().vectors}


def latencies(run: Callable[[Any], object], inputs: Sequence[Any]) -> dict[str, float]:
    for item in inputs[:5]:
        run(item)
    times = []
    for item in inputs:
        started = time.perf_counter()
        run(item)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50": round(percentile(times, 50), 2), "p95": round(percentile(times, 95), 2)}


def searches(store: Store, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed + 1)
    words, weights = vocabulary(random.Random(args.seed))
    queries = [" ".join(rng.choices(words[:3000], k=3)) for _ in range(args.queries)]
    nprng = np.random.default_rng(args.seed + 1)
    vecs = nprng.standard_normal((args.queries, DIM)).astype(np.float32)
    everyone = frozenset(f"g{g}" for g in range(GROUPS))
    out: dict[str, Any] = {}
    for name, tenant in (("big", "t0"), ("small", "t1")):
        who = Principal(tenant=tenant, groups=everyone)
        out[f"bm25_{name}"] = latencies(lambda q, w=who: store.search_sparse(q, TOP_K, w),
                                        queries)
        out[f"dense_{name}"] = latencies(lambda v, w=who: store.search_dense(v, TOP_K, w),
                                         list(vecs))
    probe = DocumentWrite(Document(doc_id="probe", title="Probe", content_hash="p",
                                   tenant="t1", acl_groups=frozenset({"g0"})), (), {})
    store.write([probe])  # a write: the next dense query reloads its matrix
    started = time.perf_counter()
    store.search_dense(vecs[0], TOP_K, Principal(tenant="t0", groups=everyone))
    out["dense_first_after_write_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return out


def run_sqlite(batches: Sequence[Sequence[DocumentWrite]], tenancy: str,
               args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        with SQLiteStore(path) as store:
            row = ingest(store, batches, tenancy)
            row.update(searches(store, args))
            with store._reading() as conn:  # noqa: SLF001 - size of what was written
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        row["file_mb"] = round(path.stat().st_size / 2**20, 1)
    return row


def run_postgres(batches: Sequence[Sequence[DocumentWrite]], tenancy: str,
                 args: argparse.Namespace) -> dict[str, Any]:
    from citewise.index.postgres import PostgresStore

    schema = f"bench_tenancy_{uuid.uuid4().hex[:8]}"
    store = PostgresStore(args.pg_url, schema=schema)
    try:
        row = ingest(store, batches, tenancy)
        with store._reading() as conn:  # noqa: SLF001 - fresh estimates, as after autovacuum
            conn.execute("ANALYZE")
        row.update(searches(store, args))
    finally:
        with store._reading() as conn:  # noqa: SLF001
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
        store.close()
    return row


def median_row(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the runs (latency dicts: per percentile)."""
    out: dict[str, Any] = {}
    for key, value in rows[0].items():
        if isinstance(value, dict):
            out[key] = {p: round(float(np.median([r[key][p] for r in rows])), 2) for p in value}
        else:
            out[key] = round(float(np.median([r[key] for r in rows])), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--boilerplate", type=float, default=0.2)
    parser.add_argument("--pg-url", default=None)
    parser.add_argument("--repeat", type=int, default=3,
                        help="Runs per configuration, alternating; figures are medians.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    batches = workload(args)
    runs: dict[str, list[dict[str, Any]]] = {}
    for _ in range(args.repeat):  # alternate, so a busy moment on a shared host hits both
        for tenancy in ("shared", "isolated"):
            runs.setdefault(f"sqlite/{tenancy}", []).append(run_sqlite(batches, tenancy, args))
            if args.pg_url:
                runs.setdefault(f"postgres/{tenancy}", []).append(
                    run_postgres(batches, tenancy, args))
    results = {name: median_row(rows) for name, rows in runs.items()}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    chunks = sum(len(w.chunks) for b in batches for w in b)
    print(f"{args.docs} documents, {chunks} chunks, {args.tenants} tenants, "
          f"boilerplate {args.boilerplate:.0%}, top-{TOP_K}, {args.queries} queries, "
          f"median of {args.repeat} runs")
    keys = [k for k in next(iter(results.values())) if k != "file_mb"] + ["file_mb"]
    print(f"{'':34}" + "".join(f"{name:>20}" for name in results))
    for key in keys:
        cells = [results[name].get(key, "-") for name in results]
        text = [f"{c['p50']} / {c['p95']}" if isinstance(c, dict) else str(c) for c in cells]
        label = key + (" (ms p50 / p95)" if isinstance(cells[0], dict) else "")
        print(f"{label:34}" + "".join(f"{t:>20}" for t in text))


if __name__ == "__main__":
    main()
