"""Concurrent load: readers search while an ingest stream and a delete stream write.

    .venv/bin/python benchmarks/load.py [--duration 120] [--readers 16] [--docs 300]
                                        [--mode hybrid] [--real-model] [--server-deletes]

Two rounds, each with an idle phase (readers alone, a quarter of ``--duration``) and a write
phase (``--duration``, readers + writers):

* ``threads``: ``--readers`` threads searching through ONE shared Engine (a server);
* ``processes``: ``--readers`` processes, each with its own Engine (CLI users).

Writers, the same in both rounds: a process ingesting batches of new files (a fresh Engine per
batch, as the CLI), and a thread deleting documents of the initial corpus one at a time. When
a delete returns, the document's unique word is searched at once, through a fresh Engine in
every mode and (threads round) through the readers' shared Engine: it must not be found.
``--server-deletes``: in the threads round, delete (and check) through the readers' shared
Engine, as ``citewise serve``'s DELETE route does, instead of opening a fresh Engine per delete
inside the readers' process (which a server never does: its GIL and the fresh Engine's first
full matrix load then count against the readers).

Prints per round: queries, errors (any exception in a reader or writer), p50/p95 ms idle and
during writes and the p95 ratio, deletes checked and deletes still retrievable. Exits 1 on any
error or retrievable delete. The embedder is the deterministic FakeEmbedder unless
``--real-model`` (the shipped MiniLM; much more CPU per query).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from citewise.config import Settings
from citewise.engine import Engine
from citewise.types import Principal

WORDS = ["policy", "travel", "leave", "budget", "audit", "expense", "approval", "receipt",
         "manager", "contract", "laptop", "security", "password", "vacation", "payroll",
         "invoice", "vendor", "training", "onboarding", "incident"]
READER = Principal.of("staff")


def token(kind: str, n: int) -> str:
    return kind + "".join("abcdefghij"[int(d)] for d in str(n))


def write_doc(folder: Path, name: str, word: str, rng: random.Random) -> None:
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 160)))
    (folder / name).write_text(f"# {name}\n\n{word} {body}.\n\n## Details\n\n{body} {word}.\n")


def make_engine(home: Path, real: bool) -> Engine:
    if real:
        return Engine(home, Settings())
    from citewise.testing.fakes import FakeEmbedder

    return Engine(home, Settings(), FakeEmbedder())


def build(home: Path, work: Path, docs: int, real: bool) -> list[str]:
    rng = random.Random(0)
    folder = work / "corpus"
    folder.mkdir()
    names = [f"doc{i}.md" for i in range(docs)]
    for i, name in enumerate(names):
        write_doc(folder, name, token("del", i), rng)
    with make_engine(home, real) as engine:
        engine.ingest_paths([folder], {"groups": ["staff"]})
    return names


def query(rng: random.Random) -> str:
    return " ".join(rng.sample(WORDS, 3))


def search_loop(engine: Engine, mode: str, stop: threading.Event | Any, seed: int,
                out: list[tuple[float, float]], errors: list[str]) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            engine.search(query(rng), READER, mode=mode)
        except Exception as exc:  # every exception is an error of the run
            errors.append(f"{type(exc).__name__}: {exc}")
            continue
        out.append((time.time(), (time.perf_counter() - t0) * 1000))


def reader_process(home: str, mode: str, real: bool, stop: Any, seed: int, results: Any,
                   ready: Any) -> None:
    out: list[tuple[float, float]] = []
    errors: list[str] = []
    with make_engine(Path(home), real) as engine:
        engine.search("warm up", READER, mode=mode)
        ready.put(seed)
        search_loop(engine, mode, stop, seed, out, errors)
    results.put((out, errors))


def ingest_process(home: str, work: str, real: bool, stop: Any, results: Any, ready: Any,
                   go: Any) -> None:
    rng, batches, errors = random.Random(1), 0, []
    make_engine(Path(home), real).close()
    ready.put("ingest")
    go.wait()
    while not stop.is_set():
        folder = Path(work) / f"new{batches}"
        folder.mkdir()
        for i in range(rng.randint(1, 4)):
            write_doc(folder, f"new{batches}-{i}.md", token("new", batches), rng)
        try:
            with make_engine(Path(home), real) as engine:
                engine.ingest_paths([folder], {"groups": ["staff"]})
        except Exception as exc:
            errors.append(f"ingest: {type(exc).__name__}: {exc}")
        batches += 1
    results.put((batches, errors))


class Deleter(threading.Thread):
    """Deletes corpus documents one by one; after each, checks it cannot be found."""

    def __init__(self, home: Path, real: bool, names: list[str], shared: Engine | None,
                 stop: threading.Event, via_shared: bool = False) -> None:
        super().__init__(daemon=True)
        self.home, self.real, self.names, self.shared, self.stop = home, real, names, shared, stop
        self.via_shared = via_shared and shared is not None
        self.deleted = 0
        self.retrievable: list[str] = []
        self.errors: list[str] = []

    def run(self) -> None:
        while self.names and not self.stop.is_set():
            name = self.names.pop()
            word = token("del", int(name[3:-3]))
            try:
                with (nullcontext(self.shared) if self.via_shared
                      else make_engine(self.home, self.real)) as engine:
                    engine.delete([name])
                    self.deleted += 1
                    engines = [engine] + ([self.shared] if self.shared is not None
                                          and not self.via_shared else [])
                    for e in engines:
                        for mode in ("bm25", "dense", "hybrid"):
                            hits = e.search(word, READER, mode=mode, top_k=50).hits
                            if any(h.document.doc_id == name for h in hits):
                                self.retrievable.append(f"{name} ({mode})")
            except Exception as exc:
                self.errors.append(f"delete: {type(exc).__name__}: {exc}")
            time.sleep(0.2)


def pct(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def run_round(kind: str, home: Path, work: Path, names: list[str], args: Any) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    idle_s, write_s = args.duration / 4, args.duration
    lat: list[tuple[float, float]] = []
    errors: list[str] = []
    shared = make_engine(home, args.real_model) if kind == "threads" else None
    ready, go, wstop, wresults = ctx.Queue(), ctx.Event(), ctx.Event(), ctx.Queue()
    ingester = ctx.Process(target=ingest_process, args=(str(home), str(work), args.real_model,
                                                        wstop, wresults, ready, go),
                           daemon=True)  # a crash of this round must not leave it waiting
    ingester.start()
    ready.get()
    if kind == "threads":
        stop: Any = threading.Event()
        shared.search("warm up", READER, mode=args.mode)
        readers = [threading.Thread(target=search_loop, daemon=True,
                                    args=(shared, args.mode, stop, s, lat, errors))
                   for s in range(args.readers)]
        for r in readers:
            r.start()
    else:
        stop, results = ctx.Event(), ctx.Queue()
        readers = [ctx.Process(target=reader_process, args=(str(home), args.mode,
                                                            args.real_model, stop, s, results,
                                                            ready))
                   for s in range(args.readers)]
        for r in readers:
            r.start()
        for _ in readers:  # each has imported, opened the index and searched once
            ready.get()
    t_idle = time.time()
    time.sleep(idle_s)
    t_write = time.time()
    go.set()
    dstop = threading.Event()
    deleter = Deleter(home, args.real_model, names, shared, dstop, args.server_deletes)
    deleter.start()
    time.sleep(write_s)
    t_end = time.time()
    wstop.set()
    dstop.set()
    deleter.join()
    batches, ingest_errors = wresults.get()
    ingester.join()
    stop.set()
    if kind == "threads":
        for r in readers:
            r.join()
        shared.close()
    else:
        for _ in readers:
            out, errs = results.get()
            lat.extend(out)
            errors.extend(errs)
        for r in readers:
            r.join()
    idle = [ms for t, ms in lat if t_idle <= t < t_write]
    busy = [ms for t, ms in lat if t_write <= t < t_end]
    errors += ingest_errors + deleter.errors
    return {"round": kind, "queries": len(idle) + len(busy), "errors": errors,
            "idle_p50": pct(idle, 50), "idle_p95": pct(idle, 95), "write_p50": pct(busy, 50),
            "write_p95": pct(busy, 95), "ingest_batches": batches, "deleted": deleter.deleted,
            "retrievable": deleter.retrievable}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=120.0,
                        help="Seconds of the write phase of each round (idle: a quarter).")
    parser.add_argument("--readers", type=int, default=16)
    parser.add_argument("--docs", type=int, default=600,
                        help="Initial corpus size (the delete stream takes ~4 per second).")
    parser.add_argument("--mode", default="hybrid", choices=("bm25", "dense", "hybrid"))
    parser.add_argument("--rounds", default="threads,processes")
    parser.add_argument("--server-deletes", action="store_true",
                        help="threads round: delete through the readers' shared Engine (as "
                             "the HTTP API does) instead of a fresh Engine per delete in the "
                             "readers' process")
    parser.add_argument("--real-model", action="store_true",
                        help="Use the shipped embedding model instead of the FakeEmbedder.")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        home = work / "index.db"
        names = build(home, work, args.docs, args.real_model)
        kinds = args.rounds.split(",")
        for i, kind in enumerate(kinds):
            (work / kind).mkdir()
            r = run_round(kind, home, work / kind, names[i::len(kinds)], args)
            ratio = r["write_p95"] / r["idle_p95"] if r["idle_p95"] else float("nan")
            print(f"{kind:>9}: {args.readers} readers, {r['queries']} queries, "
                  f"{len(r['errors'])} errors; p50/p95 ms idle {r['idle_p50']:.1f}/"
                  f"{r['idle_p95']:.1f}, during writes {r['write_p50']:.1f}/"
                  f"{r['write_p95']:.1f} (p95 ratio {ratio:.2f}); {r['ingest_batches']} ingest "
                  f"batches, {r['deleted']} deletes checked, {len(r['retrievable'])} still "
                  "retrievable")
            for line in (r["errors"][:5] + r["retrievable"][:5]):
                print(f"    {line}")
            failed = failed or bool(r["errors"] or r["retrievable"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
