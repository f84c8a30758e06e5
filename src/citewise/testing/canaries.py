"""ACL canaries: documents carrying a secret word, personas, and every read path a user has,
checked for a secret the persona may not read (``tests/security``, ``benchmarks/canaries.py``).

Each :class:`CanaryDoc` has a *bait* (a word queries use) and a *secret* (a word only its text
and title hold, never typed in a query): a secret or a doc_id in the output of a persona that
may not read the document is a leak, whatever the path (JSON, explain, SQL, an answer and its
trace, eval run.json/report.html, an error message). The expected ACL of each document is kept
here (:attr:`CanaryIndex.acl`), independent of the index, and updated by the scenario steps
(delete, acl change), so a step that fails to hold (a rollback that resurrects, a write on a
retired version) shows up as a leak on the next sweep.

Everything runs through the CLI in-process (``click.testing.CliRunner``), as a user runs it;
the embedder is :class:`~citewise.testing.fakes.FakeEmbedder` (see :func:`fake_models`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.types import Principal


@dataclass(frozen=True)
class CanaryDoc:
    name: str  # file name = doc_id
    tenant: str  # what the operator grants (the expected ACL)
    groups: tuple[str, ...]
    topic: str
    front_matter: str = ""  # hostile content: it must not change the ACL

    @property
    def key(self) -> str:
        return self.name.removesuffix(".md").replace("-", "")

    @property
    def bait(self) -> str:
        return f"zqbait{self.key}"

    @property
    def secret(self) -> str:
        return f"zqsecret{self.key}"

    def text(self) -> str:
        fm = f"---\n{self.front_matter}\n---\n" if self.front_matter else ""
        para = (f"The {self.topic} notes mention {self.bait} and the code word {self.secret}. "
                f"Everything about {self.topic} is decided by the committee.")
        return (f"{fm}# {self.topic.title()} {self.secret}\n\n{para}\n\n## Details\n\n{para}\n\n"
                f"## More\n\n{para}\n")


ACME = (
    CanaryDoc("handbook.md", "acme", ("staff",), "travel expenses reimbursement"),
    CanaryDoc("salary.md", "acme", ("hr",), "salary band compensation review"),
    CanaryDoc("merger.md", "acme", ("exec",), "merger acquisition board"),
    CanaryDoc("hr-managers.md", "acme", ("hr-managers",), "manager calibration ratings"),
    # hostile front matter: tries to move itself to globex and open itself to public/staff
    CanaryDoc("hostile.md", "acme", (), "hostile front matter escalation",
              front_matter="tenant: globex\ngroups: [public, staff]"),
    # the operator grants staff and hr; the file narrows itself to hr
    CanaryDoc("narrowed.md", "acme", ("hr",), "narrowed disciplinary cases",
              front_matter="groups: [hr]"),
    CanaryDoc("todelete.md", "acme", ("staff",), "obsolete pricing sheet"),
    CanaryDoc("totighten.md", "acme", ("staff",), "layoff planning draft"),
)
GLOBEX = (CanaryDoc("globex-plan.md", "globex", ("staff",), "travel expenses reimbursement"),)
DOCS = ACME + GLOBEX
# what the operator passes: --tenant acme --groups staff, and these sidecar lines
ACME_SIDECAR = {"salary.md": ["hr"], "merger.md": ["exec"], "hr-managers.md": ["hr-managers"],
                "hostile.md": ["hr"], "narrowed.md": ["staff", "hr"]}

PERSONAS: dict[str, Principal] = {
    "acme-staff": Principal.of("staff", tenant="acme"),
    "acme-hr": Principal.of("staff,hr", tenant="acme"),
    "acme-exec": Principal.of("exec", tenant="acme"),
    "acme-managers": Principal.of("managers", tenant="acme"),  # not hr-managers, not hr
    "acme-public": Principal.of("public", tenant="acme"),
    "acme-nobody": Principal.of("", tenant="acme"),
    "globex-staff": Principal.of("staff", tenant="globex"),
    "globex-all": Principal.of("staff,hr,exec,public,hr-managers", tenant="globex"),
    "initech-staff": Principal.of("staff,hr", tenant="initech"),
}


def write_corpus(root: Path) -> tuple[Path, Path, Path]:
    """The acme folder, its sidecar and the globex folder, under ``root``."""
    acme, globex = root / "acme", root / "globex"
    acme.mkdir(parents=True)
    globex.mkdir(parents=True)
    for folder, docs in ((acme, ACME), (globex, GLOBEX)):
        for doc in docs:
            (folder / doc.name).write_text(doc.text(), encoding="utf-8")
    sidecar = root / "acme.meta.jsonl"
    sidecar.write_text("".join(json.dumps({"path": p, "groups": g}) + "\n"
                               for p, g in ACME_SIDECAR.items()), encoding="utf-8")
    return acme, sidecar, globex


@contextmanager
def fake_models() -> Iterator[None]:
    """Every Engine the CLI makes embeds with :class:`FakeEmbedder` (no model is loaded)."""
    import citewise.embed as embed
    from citewise.testing.fakes import FakeEmbedder

    original = embed.load_embedder
    embed.load_embedder = lambda settings=None: FakeEmbedder()  # type: ignore[assignment]
    try:
        yield
    finally:
        embed.load_embedder = original  # type: ignore[assignment]


def cli(*args: str) -> tuple[int, str]:
    """Run the citewise command line with ``args`` in-process; ``(exit code, stdout + stderr)``."""
    from click.testing import CliRunner

    from citewise.cli.main import cli as main

    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output  # stdout and stderr, as a terminal shows them


@dataclass
class Leak:
    persona: str
    path: str
    query: str
    found: str

    def __str__(self) -> str:
        return f"{self.persona} via {self.path} ({self.query!r}): {self.found}"


@dataclass
class CanaryIndex:
    """One canary index (``db``: a SQLite path or a PostgreSQL URL) and the ACL it must
    enforce now: ``acl[name] = (tenant, groups)``, ``None`` once deleted."""

    db: str
    acl: dict[str, tuple[str, frozenset[str]] | None] = field(default_factory=lambda: {
        d.name: (d.tenant, frozenset(d.groups)) for d in DOCS})
    queries: int = 0
    leaks: list[Leak] = field(default_factory=list)

    def ingest(self, root: Path) -> None:
        acme, sidecar, globex = write_corpus(root)
        for args in ((str(acme), "--tenant", "acme", "--groups", "staff", "--meta", str(sidecar)),
                     (str(globex), "--tenant", "globex", "--groups", "staff")):
            code, out = cli("ingest", *args, "--db", self.db, "--no-progress")
            if code != 0:
                raise AssertionError(f"ingest failed: {out}")

    def may_read(self, persona: Principal, doc: CanaryDoc) -> bool:
        acl = self.acl[doc.name]
        return acl is not None and acl[0] == persona.tenant and bool(acl[1] & persona.groups)

    def forbidden(self, persona: Principal) -> list[CanaryDoc]:
        return [d for d in DOCS if not self.may_read(persona, d)]

    def check(self, persona_name: str, path: str, query: str, output: str,
              doc_ids: bool = True) -> None:
        """Count one canary query and record every forbidden secret (or doc_id) in
        ``output``."""
        self.queries += 1
        text = output.lower()
        for doc in self.forbidden(PERSONAS[persona_name]):
            if doc.secret in text:
                self.leaks.append(Leak(persona_name, path, query, doc.secret))
            elif doc_ids and re.search(rf"(?<![\w.-]){re.escape(doc.name)}", text):
                self.leaks.append(Leak(persona_name, path, query, doc.name))

    def queries_for(self, persona: Principal, limit: int | None = None) -> list[str]:
        """The baits and topics of the documents the persona may NOT read (the ones a leak
        would answer), then of the others."""
        bad = self.forbidden(persona)
        order = bad + [d for d in DOCS if d not in bad]
        out = [q for d in order for q in (d.bait, f"{d.topic} {d.bait}")]
        return out[:limit] if limit else out


READ_PATHS: dict[str, Callable[[str], list[str]]] = {
    "search bm25 --json": lambda q: ["search", q, "--mode", "bm25", "--json", "--top-k", "50"],
    "search dense --json": lambda q: ["search", q, "--mode", "dense", "--json", "--top-k", "50"],
    "search hybrid --json": lambda q: ["search", q, "--mode", "hybrid", "--json"],
    "search hybrid --explain": lambda q: ["search", q, "--mode", "hybrid", "--explain"],
    "search bm25 --explain --json": lambda q: ["search", q, "--mode", "bm25", "--explain",
                                              "--json"],
    "search --sql": lambda q: ["search", q, "--sql"],
    "search dense (text)": lambda q: ["search", q, "--mode", "dense"],
    "ask --json": lambda q: ["ask", q, "--generator", "extractive", "--json"],
    "ask --dry-run --json": lambda q: ["ask", q, "--generator", "extractive", "--dry-run",
                                       "--json"],
    "ask --explain": lambda q: ["ask", q, "--generator", "extractive", "--explain"],
}
ERROR_PATHS: dict[str, Callable[[str], list[str]]] = {
    "search bad --top-k": lambda q: ["search", q, "--top-k", "0"],
    "ask bad --mode": lambda q: ["ask", q, "--mode", "nonsense", "--json"],
    "search --config missing": lambda q: ["search", q, "--config", "/nonexistent/c.json"],
    "search bad --mode": lambda q: ["search", q, "--mode", "nonsense"],
}


def _who(persona: Principal) -> list[str]:
    return ["--tenant", persona.tenant, "--groups", ",".join(sorted(persona.groups))]


def sweep(index: CanaryIndex, *, queries_per_persona: int | None = 4,
          paths: Sequence[str] | None = None, errors: bool = True) -> None:
    """Every persona × its queries × every read path (and the error paths, once per
    persona), through the CLI; leaks are recorded on ``index``."""
    chosen = {p: READ_PATHS[p] for p in (paths or READ_PATHS)}
    for name, persona in PERSONAS.items():
        queries = index.queries_for(persona, queries_per_persona)
        for query in queries:
            for path, argv in chosen.items():
                _, out = cli(*argv(query), *_who(persona), "--db", index.db)
                index.check(name, path, query, out)
        if errors:
            for path, argv in ERROR_PATHS.items():
                _, out = cli(*argv(queries[0]), *_who(persona), "--db", index.db)
                index.check(name, path, queries[0], out)


def controls(index: CanaryIndex) -> list[str]:
    """The positive controls that keep :func:`sweep` honest: each persona finds (BM25, by
    its bait) every document it may read. Returns what it did not find."""
    missed = []
    for name, persona in PERSONAS.items():
        for doc in DOCS:
            if index.may_read(persona, doc):
                _, out = cli("search", doc.bait, "--mode", "bm25", "--json", *_who(persona),
                             "--db", index.db)
                if doc.secret not in out.lower():
                    missed.append(f"{name} cannot find {doc.name}")
    return missed


def sweep_eval(index: CanaryIndex, out_dir: Path) -> None:
    """``citewise eval run`` with every persona asking for the documents it may not read;
    run.json and report.html are checked (doc ids appear there as labels from the question
    file, so only secrets count)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    personas = {n: {"groups": sorted(p.groups), "tenant": p.tenant} for n, p in PERSONAS.items()}
    (out_dir / "personas.json").write_text(json.dumps(personas), encoding="utf-8")
    lines = []
    for name, persona in PERSONAS.items():
        for i, doc in enumerate(index.forbidden(persona)):
            lines.append({"id": f"{name}-{i}", "question": f"{doc.topic} {doc.bait}",
                          "relevant": [{"doc": doc.name}], "persona": name})
    (out_dir / "set.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines),
                                       encoding="utf-8")
    for mode in ("bm25", "hybrid"):
        target = out_dir / mode
        code, out = cli("eval", "run", "--questions", str(out_dir / "set.jsonl"), "--personas",
                        str(out_dir / "personas.json"), "--db", index.db, "--mode", mode,
                        "--out", str(target), "--json")
        if code != 0:
            raise AssertionError(f"eval run failed: {out}")
        records = {r["question"]["id"]: r for r in _records(target / "run.json")}
        for line in lines:
            record = records.get(line["id"], {})
            index.check(line["persona"], f"eval run {mode} run.json", line["question"],
                        json.dumps(record), doc_ids=False)
        report = (target / "report.html").read_text(encoding="utf-8")
        for line in lines:  # one page for all personas: see _report_secrets
            index.check(line["persona"], f"eval run {mode} report.html",
                        line["question"], _report_secrets(report, index), doc_ids=False)


def _records(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data.get("records", []))


def _report_secrets(report: str, index: CanaryIndex) -> str:
    """The secrets in the shared report (one page for every persona) of documents that no
    persona may read: those must never appear."""
    readable_by_someone = {d.secret for d in DOCS for p in PERSONAS.values()
                           if index.may_read(p, d)}
    return " ".join(s for s in (d.secret for d in DOCS)
                    if s in report.lower() and s not in readable_by_someone)


def summary(indexes: Sequence[CanaryIndex]) -> str:
    queries = sum(i.queries for i in indexes)
    leaks = [str(leak) for i in indexes for leak in i.leaks]
    return f"canary queries: {queries}, leaks: {len(leaks)}" + "".join(
        f"\n  LEAK {x}" for x in leaks[:20])


__all__ = ["ACME", "DOCS", "GLOBEX", "PERSONAS", "READ_PATHS", "CanaryDoc", "CanaryIndex",
           "Leak", "cli", "controls", "fake_models", "summary", "sweep", "sweep_eval",
           "write_corpus"]
