"""What following the live version costs a long-lived Engine: search latency through the
store ``open_store`` returns (a LiveStore: one catalog query per store call) vs a store fixed
on the live version, and the catalog query alone. SQLite, and PostgreSQL with --pg-url.

    .venv/bin/python benchmarks/live_check.py --docs 300 --queries 300
    .venv/bin/python benchmarks/live_check.py --pg-url postgresql://postgres@127.0.0.1:5432/x
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from citewise.config import Settings
from citewise.engine import Engine
from citewise.index.versions import open_catalog
from citewise.indexing import Pending
from citewise.testing.fakes import FakeEmbedder
from citewise.types import Block, ParsedDocument, Principal

WORDS = ["travel", "expenses", "salary", "band", "review", "leave", "policy", "firmware",
         "release", "incident", "report", "office", "guide", "remote", "work", "security",
         "laptop", "badge"]
WHO = Principal.of("staff", tenant="acme")


def pending(i: int) -> Pending:
    text = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(60)) + f" doc{i}."
    parsed = ParsedDocument(title=f"Doc {i}", text=text,
                            blocks=(Block(kind="text", text=text, start=0, end=len(text)),),
                            metadata={"groups": ["staff"], "tenant": "acme"})
    return Pending(f"d{i}", f"d{i}", lambda: parsed)


def p50_us(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def measure(db: str, docs: int, queries: int) -> None:
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest([pending(i) for i in range(docs)])
    catalog = open_catalog(db)
    live = catalog.live().number
    with Engine(db, Settings(), embedder=FakeEmbedder()) as following, \
            Engine(db, Settings(), embedder=FakeEmbedder(), store=catalog.open(live)) as fixed:
        for engine in (following, fixed):
            engine.search("salary band", WHO, mode="bm25")  # warm
        q = [f"{WORDS[i % len(WORDS)]} {WORDS[(i * 3) % len(WORDS)]}" for i in range(queries)]
        it = iter(q * 4)
        b = p50_us(lambda: fixed.search(next(it), WHO, mode="bm25"), queries)
        a = p50_us(lambda: following.search(next(it), WHO, mode="bm25"), queries)
        b = min(b, p50_us(lambda: fixed.search(next(it), WHO, mode="bm25"), queries))
        c = p50_us(catalog.live_state, queries)  # type: ignore[attr-defined]
    catalog.close()
    print(f"{db.split('@')[-1]}: bm25 search p50 following {a:.0f} us, fixed {b:.0f} us "
          f"(+{a - b:.0f} us); one live-state query p50 {c:.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--pg-url", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure(str(Path(tmp) / "live.db"), args.docs, args.queries)
    if args.pg_url:
        import psycopg

        name = f"citewise_live_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(args.pg_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        try:
            measure(urlunsplit(urlsplit(args.pg_url)._replace(path=f"/{name}")), args.docs,
                    args.queries)
        finally:
            with psycopg.connect(args.pg_url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()
