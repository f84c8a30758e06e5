"""Crash harness: ``kill -9`` a process writing to an index at random moments, then check the
index (``tests/crash``, ``benchmarks/crash.py``).

The child (:func:`child`) runs an endless random mix of the write paths a user takes, each
through a fresh :class:`~citewise.engine.Engine` as the CLI does: ingest a batch of new files,
delete a document, narrow a document's ACL to ``hr``, rebuild the index with ``reindex
--force`` (each child mostly repeats one kind, so kills land in every kind). A command
journals ``start`` before it opens the index, ``begin`` right before the write call and
``done`` after it returns (appended and fsynced), so the journal says what the index
promised and what was in flight. The parent kills it after a random delay and checks
(:func:`check_index`):

* the index opens and answers a search; ``PRAGMA integrity_check`` is ``ok`` on every file;
* FTS rows = chunks, every chunk has its vector, every document has chunks ``0..n-1`` and its
  stored body (no half document), no chunk or FTS row without its document;
* every ingest batch journaled ``done`` is present (minus documents whose delete began);
* no document whose delete was journaled ``done`` is retrievable (BM25 or dense), and no
  document whose ACL change to ``hr`` was ``done`` is retrievable by ``staff``.

After the last kill, one more reindex must remove the shadows the killed builds abandoned.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.config import Settings
from citewise.types import Principal

STAFF = Principal.of("staff")
HR = Principal.of("hr")
EVERYONE = Principal.of("staff,hr")
OPS = ("ingest", "ingest", "delete", "acl", "reindex")


def token(doc_id: str) -> str:
    """The word only ``doc_id`` contains (letters only: the tokenizers keep it whole)."""
    digits = "".join(ch for ch in doc_id if ch.isdigit())
    return "tok" + "".join("abcdefghij"[int(d)] for d in digits)


def _settings() -> Settings:
    return Settings.model_validate({"chunk": {"chunk_tokens": 32, "min_tokens": 4}})


def _engine(home: Path) -> Any:
    from citewise.engine import Engine
    from citewise.testing.fakes import FakeEmbedder

    return Engine(home, _settings(), FakeEmbedder())


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, **entry: Any) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by the kill
                continue
        return out


def _op(home: Path, work: Path, journal: Journal, rng: random.Random, run: int, n: int) -> None:
    focus = ("ingest", "delete", "acl", "reindex")[run % 4]  # kills land in every kind
    kind = focus if rng.random() < 0.9 else rng.choice(OPS)
    journal.write(op=kind, phase="start")  # the command has started (it opens the index)
    with _engine(home) as engine:
        docs = [d.doc_id for d in engine.store.list_documents()] if kind != "ingest" else []
        if kind in ("delete", "acl") and len(docs) < 5:  # keep a corpus to work on
            kind = "ingest"
        if kind == "ingest":
            folder = work / f"r{run}b{n}"
            folder.mkdir(parents=True, exist_ok=True)
            ids = [f"r{run}b{n}d{i}.md" for i in range(rng.randint(1, 5))]
            for doc_id in ids:
                words = " ".join(rng.choice(("policy", "travel", "leave", "budget", "audit"))
                                 for _ in range(rng.randint(20, 120)))
                (folder / doc_id).write_text(f"# {doc_id}\n\n{token(doc_id)} {words}.\n\n"
                                             f"## More\n\n{words} {token(doc_id)}.\n")
            journal.write(op="ingest", phase="begin", docs=ids)
            engine.ingest_paths([folder], {"groups": ["staff"]})
            journal.write(op="ingest", phase="done", docs=ids)
        elif kind == "delete":
            doc = rng.choice(docs)
            journal.write(op="delete", phase="begin", doc=doc)
            engine.delete([doc])
            journal.write(op="delete", phase="done", doc=doc)
        elif kind == "acl":
            doc = rng.choice(docs)
            journal.write(op="acl", phase="begin", doc=doc)
            engine.set_acl(doc, ["hr"])
            journal.write(op="acl", phase="done", doc=doc)
    if kind == "reindex":
        from citewise.index.sqlite.catalog import SQLiteCatalog
        from citewise.reindex import reindex
        from citewise.testing.fakes import FakeEmbedder

        journal.write(op="reindex", phase="begin")
        with SQLiteCatalog(home) as catalog:
            report = reindex(catalog, _settings(), None, embedder=FakeEmbedder(), force=True)
        journal.write(op="reindex", phase="done", version=report.version, removed=report.removed)


def child(home: str, work: str, journal: str, run: int, seed: int) -> None:
    """The workload (see the module docstring); prints ``ready`` once imports are done."""
    rng = random.Random(seed)
    log = Journal(Path(journal))
    _engine(Path(home)).close()
    print("ready", flush=True)
    for n in range(10**9):
        _op(Path(home), Path(work), log, rng, run, n)


# -- checks ----------------------------------------------------------------------------------

def check_index(home: Path, journal: Journal) -> list[str]:
    """Every broken promise found in the index at ``home`` (see the module docstring)."""
    from citewise.index.sqlite.catalog import SQLiteCatalog
    from citewise.index.sqlite.migrations import connect

    problems: list[str] = []
    with SQLiteCatalog(home) as catalog:
        versions = catalog.versions()
    for version in versions:
        if os.path.exists(version.location):
            conn = connect(version.location)
            try:
                result = conn.execute("PRAGMA integrity_check").fetchone()[0]
                if result != "ok":
                    problems.append(f"v{version.number}: integrity_check: {result}")
                if version.state == "live":
                    problems += _structure(conn)
            finally:
                conn.close()
    problems += _promises(home, journal)
    return problems


def _structure(conn: Any) -> list[str]:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    problems = []
    fts, chunks = one("SELECT count(*) FROM chunks_fts"), one("SELECT count(*) FROM chunks")
    if fts != chunks:
        problems.append(f"FTS rows {fts} != chunks {chunks}")
    checks = {
        "chunks without a vector": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                                   "(SELECT 1 FROM vectors v WHERE v.embed_hash = c.embed_hash)",
        "FTS rows without a chunk": "SELECT count(*) FROM chunks_fts f WHERE NOT EXISTS "
                                    "(SELECT 1 FROM chunks c WHERE c.id = f.rowid)",
        "documents without chunks": "SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                    "(SELECT 1 FROM chunks c WHERE c.doc_rowid = d.id)",
        "documents without their body": "SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                        "(SELECT 1 FROM doc_sources s WHERE s.doc_rowid = d.id)",
        "documents with a gap in chunk ordinals": "SELECT count(*) FROM (SELECT doc_rowid FROM "
                                                  "chunks GROUP BY doc_rowid HAVING "
                                                  "max(ordinal) + 1 != count(*))",
        "chunks without a document": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                                     "(SELECT 1 FROM documents d WHERE d.id = c.doc_rowid)",
    }
    for what, sql in checks.items():
        n = one(sql)
        if n:
            problems.append(f"{n} {what}")
    return problems


def _promises(home: Path, journal: Journal) -> list[str]:
    entries = journal.entries()
    begun_delete = {e["doc"] for e in entries if e["op"] == "delete" and "doc" in e}
    done = [e for e in entries if e["phase"] == "done"]
    committed = {d for e in done if e["op"] == "ingest" for d in e["docs"]} - begun_delete
    deleted = {e["doc"] for e in done if e["op"] == "delete"}
    tightened = {e["doc"] for e in done if e["op"] == "acl"}
    problems = []
    with _engine(home) as engine:
        present = {d.doc_id for d in engine.store.list_documents()}
        for doc in sorted(committed - present):
            problems.append(f"committed {doc} is missing")
        for doc in sorted(deleted | tightened):
            for mode in ("bm25", "dense"):
                who = EVERYONE if doc in deleted else STAFF
                hits = engine.search(token(doc), who, mode=mode, top_k=50).hits
                if any(h.document.doc_id == doc for h in hits):
                    what = "deleted" if doc in deleted else "hr-only"
                    problems.append(f"{what} {doc} retrievable ({mode})")
    return problems


# -- the parent ------------------------------------------------------------------------------

@dataclass
class CrashReport:
    kills: int = 0
    inconsistencies: list[str] = field(default_factory=list)
    ops: dict[str, int] = field(default_factory=dict)
    killed_in: dict[str, int] = field(default_factory=dict)
    abandoned_removed: list[int] = field(default_factory=list)
    shadows_left: int = 0


def run_kills(home: Path, work: Path, kills: int, seed: int = 0,
              max_delay_s: float = 1.5) -> CrashReport:
    """``kills`` rounds of: start the child, wait a random time after it is ready, SIGKILL it,
    check the index. Then one clean reindex, which must leave no shadow behind."""
    rng = random.Random(seed)
    journal = Journal(work / "journal.jsonl")
    report = CrashReport()
    for run in range(kills):
        argv = [sys.executable, "-m", "citewise.testing.crash", str(home), str(work),
                str(journal.path), str(run), str(rng.randrange(1 << 30))]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            proc.wait()
            report.inconsistencies.append(f"run {run}: the child did not start (exit "
                                          f"{proc.returncode})")
            continue
        time.sleep(rng.uniform(0.0, max_delay_s))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        report.kills += 1
        entries = journal.entries()
        if entries and entries[-1]["phase"] in ("start", "begin"):
            kind = entries[-1]["op"]
            report.killed_in[kind] = report.killed_in.get(kind, 0) + 1
        report.inconsistencies += [f"after kill {run + 1}: {p}"
                                   for p in check_index(home, journal)]
    for e in journal.entries():
        if e["phase"] == "done":
            report.ops[e["op"]] = report.ops.get(e["op"], 0) + 1
    _final_reindex(home, report)
    return report


def _final_reindex(home: Path, report: CrashReport) -> None:
    from citewise.errors import VersionError
    from citewise.index.sqlite.catalog import SQLiteCatalog
    from citewise.index.versions import GRACE_S
    from citewise.reindex import reindex
    from citewise.testing.fakes import FakeEmbedder

    time.sleep(GRACE_S)  # a shadow killed a moment ago is past the grace period now
    with SQLiteCatalog(home) as catalog:
        try:
            result = reindex(catalog, _settings(), None, embedder=FakeEmbedder(), force=True)
        except VersionError:  # nothing was ever committed: nothing to rebuild
            return
        shadows = [v for v in catalog.versions() if v.state == "shadow"]
        report.abandoned_removed = sorted({h["number"] for h in catalog.history()
                                           if h["state"] == "removed"})
        assert set(result.removed) <= set(report.abandoned_removed)
    report.shadows_left = len(shadows)
    if shadows:
        report.inconsistencies.append(f"shadows left after a clean reindex: "
                                      f"{[v.number for v in shadows]}")


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
