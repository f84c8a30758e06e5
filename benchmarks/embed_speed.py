"""Embedding speed: int8 ONNX vs fp32 numpy BERT (all-MiniLM-L6-v2) on SciFact passages.

Prints passages/s at each thread count for three batching modes, query latency p50/p95 for
one short query, and the int8-vs-fp32 cosine over the passages::

    .venv/bin/python benchmarks/embed_speed.py [--n 1000] [--threads 1 2]

Modes: ``sorted`` is citewise's batching (length-sorted mini-batches, each padded to its own
longest text, cut at ``max_batch_tokens``); ``unsorted`` keeps input order; ``naive`` is
input order in fixed batches of ``batch_size`` (no token cap), the usual baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from citewise.config import EmbedSettings
from citewise.embed import load_embedder

CORPUS = Path(os.environ.get("SCIFACT", Path(__file__).resolve().parents[2]
                             / "shared" / "data" / "scifact-beir")) / "corpus.jsonl"
MODELS = {"int8 onnx": "all-minilm-l6-v2-int8", "fp32 numpy": "all-minilm-l6-v2"}
QUERY = "Does aspirin lower the risk of a heart attack?"


def read_passages(path: Path, n: int) -> list[str]:
    passages = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            passages.append(f"{doc['title']} {doc['text']}")
            if len(passages) == n:
                break
    return passages


def passages_per_second(model: str, threads: int, mode: str,
                        passages: list[str]) -> tuple[float, np.ndarray]:
    embedder = load_embedder(EmbedSettings(model=model, threads=threads))
    if mode != "sorted":
        embedder.sort_by_length = False
    if mode == "naive":
        embedder.max_batch_tokens = 1 << 30
    embedder.embed_batch(passages[:4])  # load the model and warm up
    start = time.perf_counter()
    vectors = embedder.embed_batch(passages)
    return len(passages) / (time.perf_counter() - start), vectors


def query_latency_ms(model: str, threads: int, runs: int) -> tuple[float, float]:
    embedder = load_embedder(EmbedSettings(model=model, threads=threads))
    for _ in range(5):
        embedder.embed_query(QUERY)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        embedder.embed_query(QUERY)
        times.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(times, n=20)
    return statistics.median(times), cuts[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="passages to embed")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--modes", nargs="+", default=["sorted", "unsorted", "naive"])
    parser.add_argument("--query-runs", type=int, default=100)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    passages = read_passages(args.corpus, args.n)
    counter = load_embedder(EmbedSettings())
    tokens = [min(counter.count_tokens(p) + 2, counter.max_length) for p in passages]
    print(f"{len(passages)} SciFact passages, {statistics.mean(tokens):.0f} tokens mean "
          f"after truncation to {counter.max_length}; {os.cpu_count()} CPUs\n")
    print(f"{'model':<12} {'threads':>7} {'mode':<9} {'passages/s':>10}")
    vectors: dict[str, np.ndarray] = {}
    for threads in args.threads:
        for label, model in MODELS.items():
            for mode in args.modes:
                speed, vecs = passages_per_second(model, threads, mode, passages)
                vectors.setdefault(label, vecs)
                print(f"{label:<12} {threads:>7} {mode:<9} {speed:>10.1f}", flush=True)

    print(f"\n{'model':<12} {'threads':>7} {'query p50 ms':>12} {'p95 ms':>8}")
    for threads in args.threads:
        for label, model in MODELS.items():
            p50, p95 = query_latency_ms(model, threads, args.query_runs)
            print(f"{label:<12} {threads:>7} {p50:>12.1f} {p95:>8.1f}", flush=True)

    cosines = (vectors["int8 onnx"] * vectors["fp32 numpy"]).sum(axis=1)
    print(f"\nint8 vs fp32 cosine over the passages: mean {cosines.mean():.5f}, "
          f"min {cosines.min():.5f}, 1st percentile {np.percentile(cosines, 1):.5f}")


if __name__ == "__main__":
    main()
