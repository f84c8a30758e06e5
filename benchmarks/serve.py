"""Load benchmark of ``citewise serve`` against in-process calls (issue 11's targets).

Starts ``citewise serve`` as a subprocess on loopback (the shipped embedder, extractive
answers, rate limits lifted for the load) over the bundled corpus, then prints:

* search p50/p95 in process (``Engine.search``) vs over HTTP by one client, distinct queries
  (cache misses): the HTTP overhead;
* the cache-hit path: the same queries again, p50/p95;
* N concurrent clients (asyncio, distinct queries): errors, p50/p95, p95 vs single-client p95;
* ask (extractive) throughput with 1 and 4 concurrent clients.

    .venv/bin/python benchmarks/serve.py                      # 200 queries, 32 clients
    .venv/bin/python benchmarks/serve.py --queries 60 --clients 32 --asks 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer import DEMO_QUESTIONS, build_demo_index  # noqa: E402
from citewise import connect  # noqa: E402
from citewise.eval.metrics import percentile  # noqa: E402
from citewise.serve.keys import KeyFile  # noqa: E402
from citewise.testing.server import free_port  # noqa: E402
from citewise.types import Principal  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("policy", "office", "team", "robot", "travel", "laptop", "security", "manager",
         "contract", "holiday", "firmware", "expense", "review", "remote", "incident", "band")
SETTINGS = {"generate": {"generator": "extractive"},
            "serve": {"rate_per_minute": 1e9, "burst": 1_000_000}}


def queries(n: int, salt: str) -> list[str]:
    """``n`` distinct queries (each a demo question plus two words: no cache hits)."""
    out = []
    for i in range(n):
        q = DEMO_QUESTIONS[i % len(DEMO_QUESTIONS)].rstrip("?")
        out.append(f"{q} {WORDS[i % len(WORDS)]} {WORDS[(i // len(WORDS) + 3) % len(WORDS)]} "
                   f"{salt}{i}")
    return out


def stats(ms: list[float]) -> str:
    return f"p50 {percentile(ms, 50):7.2f} ms  p95 {percentile(ms, 95):7.2f} ms  (n={len(ms)})"


def timed(fn, items) -> list[float]:  # noqa: ANN001
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000.0)
    return out


async def concurrent(url: str, key: str, items: list[str], clients: int, path: str,
                     field: str) -> tuple[list[float], int, float]:
    todo = list(items)
    latencies: list[float] = []
    errors = 0
    headers = {"Authorization": f"Bearer {key}"}

    async def client() -> None:
        nonlocal errors
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as c:
            while todo:
                q = todo.pop()
                t = time.perf_counter()
                r = await c.post(path, json={field: q})
                latencies.append((time.perf_counter() - t) * 1000.0)
                errors += r.status_code != 200
    t = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, errors, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=200, help="Distinct queries per phase.")
    ap.add_argument("--clients", type=int, default=32, help="Concurrent clients.")
    ap.add_argument("--asks", type=int, default=30, help="Asks per throughput phase.")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="citewise-bench-serve-"))
    db, config = str(tmp / "index.db"), tmp / "config.json"
    config.write_text(json.dumps(SETTINGS))
    staff = Principal.of("staff", tenant="northwind", name="bench")
    with connect(db, SETTINGS) as engine:
        build_demo_index(engine)
        engine.search("warm up", staff)
        inproc = timed(lambda q: engine.search(q, staff), queries(args.queries, "a"))
    key = KeyFile.load(tmp / "keys.json", must_exist=False).add(
        "bench", "northwind", ["staff"], "reader")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "citewise.cli.main", "serve", "--db", db,
                             "--keys", str(tmp / "keys.json"), "--port", str(port),
                             "--config", str(config), "--log-level", "warning"], cwd=ROOT,
                            env={**os.environ})
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as c:
            c.post("/v1/search", json={"query": "warm up"})
            single_q = queries(args.queries, "b")
            single = timed(lambda q: c.post("/v1/search", json={"query": q}).raise_for_status(),
                           single_q)
            hits = timed(lambda q: c.post("/v1/search", json={"query": q}).raise_for_status(),
                         single_q)
            asks1 = timed(lambda q: c.post("/v1/ask", json={"question": q}).raise_for_status(),
                          queries(args.asks, "c"))
        load, errors, _ = asyncio.run(concurrent(url, key, queries(args.queries, "d"),
                                                 args.clients, "/v1/search", "query"))
        asks4, ask_errors, ask_s = asyncio.run(concurrent(url, key, queries(args.asks, "e"), 4,
                                                          "/v1/ask", "question"))
    finally:
        proc.terminate()
        proc.wait(30)
    overhead = percentile(single, 50) - percentile(inproc, 50)
    print(f"search in process        {stats(inproc)}")
    print(f"search HTTP, 1 client    {stats(single)}   p50 overhead {overhead:+.2f} ms "
          "(target <= 3)")
    print(f"search HTTP, cache hits  {stats(hits)}   (target p50 <= 2)")
    ratio = percentile(load, 95) / percentile(single, 95)
    print(f"search HTTP, {args.clients} clients  {stats(load)}   errors {errors}, p95 "
          f"{ratio:.1f}x single-client p95 (target <= 3x)")
    print(f"ask extractive, 1 client  {stats(asks1)}   "
          f"{len(asks1) / (sum(asks1) / 1000):.1f} asks/s")
    print(f"ask extractive, 4 clients {stats(asks4)}   {len(asks4) / ask_s:.1f} asks/s, "
          f"errors {ask_errors}")


if __name__ == "__main__":
    main()
