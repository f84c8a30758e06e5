"""SQLite vs PostgreSQL + pgvector: the same synthetic workload through both Store backends.

Run from the repository root (a server: ``export CITEWISE_TEST_PG_URL=$(.ci/pg start)``)::

    .venv/bin/python benchmarks/backends.py --pg-url "$CITEWISE_TEST_PG_URL" [--chunks 100000]
        [--queries 100] [--top-k 50] [--scifact ../shared/data/scifact-beir] [--bulk]
        [--clusters 0] [--ef-search 100] [--seed 0] [--json]

Workload (as /work/shared/design/backends.md): ``--chunks`` chunks of 80 words drawn from
consecutive SciFact corpus words (realistic term statistics), 10 chunks per document, 384-d
random unit float32 vectors (``--clusters N``: grouped around N random centres instead, so
neighbourhoods exist as in real embeddings; ANN recall on independent random 384-d vectors is
a worst case); 10 tenants, one holding ~60 % of the documents; each document in 1-3 of 50
groups. Principals: *selective* = big tenant, 1 group (~2.4 % of chunks); *broad* = big
tenant, all 50 groups (~60 %).

Measured per backend, written through ``Store.write`` in batches of 100 documents:

* ingest: chunks/s over all ``write`` calls (PostgreSQL: including HNSW inserts and tsvector;
  with ``--bulk`` inside ``PostgresStore.bulk_load()``: one HNSW build at the end);
* search p50/p95 (ms), top-``--top-k``, for sparse (real SciFact queries) and dense (a stored
  vector plus noise, renormalised) x selective/broad, after 5 warm-up queries each;
* dense recall@10 of each backend against exact filtered search (numpy over the same
  vectors): SQLite is exact (1.0); PostgreSQL is exact below ``exact_max`` allowed chunks and
  HNSW + iterative scan above (which path ran is printed);
* ``--scifact DIR``: lexical quality, nDCG@10 on the SciFact test queries with one chunk per
  document (title + abstract): SQLite FTS5 BM25 vs PostgreSQL ts_rank. No model needed.

Schemas/files are temporary: the PostgreSQL schema is dropped and the SQLite file removed.
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
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from citewise.eval.beir import load_queries
from citewise.eval.metrics import ndcg_at_k, percentile
from citewise.index import make_manifest
from citewise.index.postgres import PostgresStore
from citewise.index.sqlite import SQLiteStore
from citewise.protocols import DocumentWrite, Store
from citewise.types import Chunk, Document, Principal

DIM = 384
WORDS_PER_CHUNK = 80
CHUNKS_PER_DOC = 10
N_TENANTS = 10
N_GROUPS = 50
BATCH_DOCS = 100
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact-beir"
SELECTIVE = Principal(tenant="t0", groups=frozenset({"g0"}))
BROAD = Principal(tenant="t0", groups=frozenset(f"g{i}" for i in range(N_GROUPS)))


def corpus_words(scifact: Path) -> list[str]:
    words: list[str] = []
    with (scifact / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            words.extend(f"{row['title']} {row['text']}".split())
    return words


def synthetic_batches(n_chunks: int, words: Sequence[str], rng: random.Random,
                      nprng: np.random.Generator, clusters: int = 0) -> list[list[DocumentWrite]]:
    """The workload as write batches (vectors included). ``clusters`` > 0: each vector is a
    random one of that many random unit centres plus noise (cosine ~0.86 to its centre), a
    neighbourhood structure like real embeddings have; 0: independent random vectors."""
    centres = nprng.standard_normal((clusters, DIM)).astype(np.float32) if clusters else None
    if centres is not None:
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    batches, batch = [], []
    for d in range(max(1, n_chunks // CHUNKS_PER_DOC)):
        tenant = "t0" if rng.random() < 0.6 else f"t{rng.randrange(1, N_TENANTS)}"
        groups = frozenset(f"g{g}" for g in rng.sample(range(N_GROUPS), rng.randint(1, 3)))
        doc_id = f"doc-{d:06d}"
        chunks, vectors = [], {}
        vecs = nprng.standard_normal((CHUNKS_PER_DOC, DIM)).astype(np.float32)
        if centres is not None:
            vecs = centres[nprng.integers(0, clusters, CHUNKS_PER_DOC)] + 0.6 * vecs / DIM**0.5
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        for i in range(CHUNKS_PER_DOC):
            start = rng.randrange(0, len(words) - WORDS_PER_CHUNK)
            text = " ".join(words[start:start + WORDS_PER_CHUNK])
            h = hashlib.sha256(f"{doc_id}/{i}/{text}".encode()).hexdigest()
            chunks.append(Chunk(chunk_id=f"{doc_id}#{i}", doc_id=doc_id, ordinal=i, text=text,
                                text_for_embedding="", embed_hash=h, start=0, end=len(text),
                                heading_path=(f"Section {i}",), token_count=WORDS_PER_CHUNK))
            vectors[h] = vecs[i]
        doc = Document(doc_id=doc_id, title=f"Document {d}", content_hash=doc_id, tenant=tenant,
                       acl_groups=groups)
        batch.append(DocumentWrite(doc, tuple(chunks), vectors))
        if len(batch) == BATCH_DOCS:
            batches.append(batch)
            batch = []
    return batches + ([batch] if batch else [])


def ingest(store: Store, batches: Sequence[Sequence[DocumentWrite]], bulk: bool = False) -> float:
    """Chunks per second over the write calls (``bulk``: inside ``PostgresStore.bulk_load``,
    i.e. including one HNSW index build at the end instead of row-by-row inserts)."""
    store.ensure_manifest(make_manifest("random-384", DIM, {}, "bench"))
    started = time.perf_counter()
    with store.bulk_load() if bulk else nullcontext():  # type: ignore[attr-defined]
        for batch in batches:
            store.write(batch)
    return sum(len(w.chunks) for b in batches for w in b) / (time.perf_counter() - started)


def latencies(run: Callable[[object], object], inputs: Sequence[object]) -> dict[str, float]:
    for item in inputs[:5]:
        run(item)
    times = []
    for item in inputs:
        started = time.perf_counter()
        run(item)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50": round(percentile(times, 50), 2), "p95": round(percentile(times, 95), 2)}


class Exact:
    """Exact filtered top-k over the workload's vectors (the recall reference)."""

    def __init__(self, batches: Sequence[Sequence[DocumentWrite]]) -> None:
        items = [(w.document, c, w.vectors[c.embed_hash]) for b in batches for w in b
                 for c in w.chunks]
        self.ids = [c.chunk_id for _, c, _ in items]
        self.matrix = np.stack([v for _, _, v in items])
        self.tenants = np.array([d.tenant for d, _, _ in items])
        self.groups = [d.acl_groups for d, _, _ in items]

    def allowed(self, principal: Principal) -> np.ndarray:
        return np.array([t == principal.tenant and bool(g & principal.groups)
                         for t, g in zip(self.tenants, self.groups, strict=True)])

    def top(self, vector: np.ndarray, mask: np.ndarray, k: int) -> set[str]:
        scores = np.where(mask, self.matrix @ vector, -np.inf)
        return {self.ids[i] for i in np.argsort(-scores)[:k]}


def measure(store: Store, exact: Exact, sparse_q: Sequence[str], dense_q: Sequence[np.ndarray],
            top_k: int) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, principal in (("selective", SELECTIVE), ("broad", BROAD)):
        mask = exact.allowed(principal)
        out[f"sparse_{name}"] = latencies(lambda q, p=principal: store.search_sparse(q, top_k, p),
                                          sparse_q)
        out[f"dense_{name}"] = latencies(lambda v, p=principal: store.search_dense(v, top_k, p),
                                         dense_q)
        recalls = [len({r.chunk_id for r in store.search_dense(v, 10, principal)}
                       & exact.top(v, mask, 10)) / 10 for v in dense_q[:30]]
        out[f"dense_{name}"]["recall@10"] = round(float(np.mean(recalls)), 3)  # type: ignore[index]
        out[f"dense_{name}"]["path"] = getattr(store, "last_dense_path", "exact")  # type: ignore[index]
        out[f"allowed_{name}"] = round(float(mask.mean()), 4)
    return out


def scifact_ndcg(store: Store, scifact: Path) -> float:
    """nDCG@10 of ``search_sparse`` on the SciFact test queries (one chunk per document)."""
    batch, rng = [], np.random.default_rng(0)
    with (scifact / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text, doc_id = row["text"], str(row["_id"])
            h = hashlib.sha256(doc_id.encode()).hexdigest()
            vec = rng.standard_normal(DIM).astype(np.float32)
            chunk = Chunk(chunk_id=doc_id, doc_id=doc_id, ordinal=0, text=text,
                          text_for_embedding="", embed_hash=h, start=0, end=len(text),
                          token_count=len(text.split()))
            doc = Document(doc_id=doc_id, title=row["title"], content_hash=h, tenant="default",
                           acl_groups=frozenset({"all"}))
            batch.append(DocumentWrite(doc, (chunk,), {h: vec / np.linalg.norm(vec)}))
    ingest(store, [batch[i:i + 500] for i in range(0, len(batch), 500)])
    qrels: dict[str, dict[str, int]] = {}
    for line in (scifact / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, did, grade = line.split("\t")
        qrels.setdefault(qid, {})[did] = int(grade)
    queries = load_queries(scifact / "queries.jsonl")
    everyone = Principal(tenant="default", groups=frozenset({"all"}))
    scores = [ndcg_at_k([r.chunk_id for r in store.search_sparse(queries[q], 10, everyone)],
                        rel, 10) for q, rel in qrels.items()]
    return round(float(np.mean(scores)), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pg-url", required=True, help="PostgreSQL URL (pgvector >= 0.8)")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--top-k", type=int, default=50)
    parser.add_argument("--scifact", type=Path, default=None,
                        help=f"BEIR SciFact dir for the nDCG@10 comparison (e.g. {SCIFACT})")
    parser.add_argument("--bulk", action="store_true",
                        help="PostgreSQL: load inside bulk_load() (one HNSW build at the end)")
    parser.add_argument("--clusters", type=int, default=0,
                        help="vectors around this many centres (0: independent random vectors)")
    parser.add_argument("--ef-search", type=int, default=100, help="PostgreSQL hnsw.ef_search")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng, nprng = random.Random(args.seed), np.random.default_rng(args.seed)
    words = corpus_words(args.scifact or SCIFACT)
    batches = synthetic_batches(args.chunks, words, rng, nprng, args.clusters)
    exact = Exact(batches)
    sparse_q = list(load_queries((args.scifact or SCIFACT) / "queries.jsonl").values())
    sparse_q = rng.sample(sparse_q, min(args.queries, len(sparse_q)))
    picks = nprng.choice(len(exact.ids), args.queries, replace=False)
    noise = nprng.standard_normal((args.queries, DIM)).astype(np.float32) * 0.03
    dense_q = [(v / np.linalg.norm(v)).astype(np.float32) for v in exact.matrix[picks] + noise]
    report: dict[str, object] = {"chunks": len(exact.ids), "top_k": args.top_k,
                                 "clusters": args.clusters, "ef_search": args.ef_search}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in (("sqlite", lambda s: SQLiteStore(Path(tmp) / f"{s}.db")),
                           ("postgres", lambda s: PostgresStore(args.pg_url, schema=s,
                                                                ef_search=args.ef_search))):
            schema = f"citewise_bench_{uuid.uuid4().hex[:8]}"
            store = make(schema)
            try:
                result = {"ingest_chunks_per_s": round(ingest(store, batches, args.bulk
                                                              and name == "postgres"))}
                result.update(measure(store, exact, sparse_q, dense_q, args.top_k))
                if args.scifact:
                    sci = make(schema + "_scifact")
                    result["scifact_sparse_ndcg@10"] = scifact_ndcg(sci, args.scifact)
                    _drop(sci)
                report[name] = result
            finally:
                _drop(store)
            print(json.dumps({name: result}) if not args.json else "", flush=True)
    if args.json:
        print(json.dumps(report, indent=2))


def _drop(store: Store) -> None:
    if isinstance(store, PostgresStore):
        with store._reading() as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {store.schema} CASCADE")
    store.close()


if __name__ == "__main__":
    main()
