"""ACL canary sweep at scale: every persona × every query × every read path, on SQLite and
PostgreSQL, at each step of the scenario that once resurrected deleted documents (ingest ->
reindex -> delete + acl -> rollback -> forward again). Prints ``canary queries: N, leaks: L``
(each leak on its own line) and exits 1 on any leak.

    .venv/bin/python benchmarks/canaries.py                       # SQLite; PostgreSQL too
    .venv/bin/python benchmarks/canaries.py --queries 2 --backend sqlite   # when
                                                    # CITEWISE_TEST_PG_URL is set

The suite in CI (tests/security) runs a smaller sweep of the same harness
(:mod:`citewise.testing.canaries`); the embedder is the deterministic fake (no model).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from citewise.testing.canaries import (
    CanaryIndex,
    cli,
    controls,
    fake_models,
    summary,
    sweep,
    sweep_eval,
)


@contextmanager
def pg_database(url: str) -> Iterator[str]:
    import psycopg

    name = f"citewise_canary_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    target = urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    try:
        yield target
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def step(*args: str) -> None:
    code, out = cli(*args)
    if code != 0:
        raise SystemExit(f"citewise {' '.join(args)} failed: {out}")


def scenario(index: CanaryIndex, work: Path, queries: int | None) -> None:
    index.ingest(work / "docs")
    missed = controls(index)
    if missed:
        raise SystemExit(f"positive controls failed (the sweep would see nothing): {missed}")

    def sweep_all(label: str) -> None:
        sweep(index, queries_per_persona=queries)
        sweep_eval(index, work / f"eval-{label}")

    sweep_all("ingest")
    step("reindex", "--chunk-tokens", "128", "--force", "--db", index.db)
    step("delete", "todelete.md", "--db", index.db)
    step("acl", "totighten.md", "--groups", "hr", "--db", index.db)
    index.acl["todelete.md"] = None
    index.acl["totighten.md"] = ("acme", frozenset({"hr"}))
    sweep_all("changed")
    step("rollback", "--db", index.db)
    sweep_all("rollback")
    step("rollback", "2", "--db", index.db)
    sweep_all("forward")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--pg-url", default=os.environ.get("CITEWISE_TEST_PG_URL", ""))
    parser.add_argument("--queries", type=int, default=None,
                        help="Queries per persona and step (default: all, 2 per document)")
    args = parser.parse_args()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    if "postgres" in backends and not args.pg_url:
        if args.backend == "postgres":
            raise SystemExit("no PostgreSQL: pass --pg-url or set CITEWISE_TEST_PG_URL")
        print("postgres: skipped (no --pg-url / CITEWISE_TEST_PG_URL)", file=sys.stderr)
        backends = ["sqlite"]
    indexes = []
    with fake_models(), tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            started = time.perf_counter()
            work = Path(tmp) / backend
            if backend == "sqlite":
                index = CanaryIndex(str(work / "canary.db"))
                scenario(index, work, args.queries)
            else:
                with pg_database(args.pg_url) as url:
                    index = CanaryIndex(url)
                    scenario(index, work, args.queries)
            indexes.append(index)
            print(f"{backend}: {summary([index])} ({time.perf_counter() - started:.0f} s)")
    print(summary(indexes))
    return 1 if any(i.leaks for i in indexes) else 0


if __name__ == "__main__":
    sys.exit(main())
