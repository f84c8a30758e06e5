"""``citewise reindex``, ``versions``, ``rollback``: index versions gated by evaluation."""

from __future__ import annotations

import sys
from typing import Any

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    require_index,
)
from citewise.cli.progress import counter, make_bar, progress_mode, progress_options
from citewise.cli.show import index_options
from citewise.text import first_few
from citewise.types import SEARCH_MODES


@click.command()
@click.option("--embedder", default=None,
              help="Embedding model of the new version: a shipped name or a model folder.")
@click.option("--chunk-tokens", type=int, default=None,
              help="Most tokens per chunk in the new version (chunk.chunk_tokens).")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default=None,
              help="Retrieval mode both versions are evaluated with (default: retrieve.mode).")
@click.option("--questions", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Eval set (JSONL) to gate on (default: the eval.questions setting).")
@click.option("--personas", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Personas JSON for the eval set (default: the eval.personas setting).")
@click.option("--tolerance", type=float, default=None,
              help="Allowed drop of a headline metric (default: the eval.tolerance setting).")
@click.option("--force", is_flag=True,
              help="Promote even when the evaluation (or the copy) fails; noted in the version.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@progress_options
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True),
              default=None, help="JSON settings of the live pipeline (see `citewise config`).")
@click.option("--threads", type=int, default=None,
              help="Threads for the embedding models (0 = all cores).")
@db_option
@friendly_errors
def reindex(embedder, chunk_tokens, mode, questions, personas, tolerance, force, as_json,
            progress, quiet, config_path, threads, db):
    """Rebuild the index as a shadow version from the stored documents (no source files
    needed) with your settings (--config, defaults) plus the options given, evaluate it
    against the live version on the eval set, and promote it only if no headline metric
    measured worse than the tolerance. Exits 1 when it is refused."""
    require_index(db)
    with engine_from(db, config_path, threads=threads) as engine, \
            make_bar("reindex", total=engine.store.count().documents, unit="doc",
                     mode=progress_mode(progress, quiet, as_json=as_json)) as bar:
        result = engine.reindex(embedder=embedder, chunk_tokens=chunk_tokens, mode=mode,
                                questions=questions, personas=personas, tolerance=tolerance,
                                force=force, on_progress=bar.update,
                                on_embedded=counter(bar, "chunks embedded"))
    report = result.report
    if as_json:
        echo_json(result.to_dict())
    else:
        _print_report(report, embedder if report.promoted and embedder else None)
    if not report.promoted:
        sys.exit(1)


def _print_report(report: Any, new_model: str | None) -> None:
    echo(f"version {report.version} built from version {report.live_version} "
         f"({report.pipeline}): {report.copied} documents, {report.chunks} chunks "
         f"({report.embedded} embedded) in {report.seconds:.1f}s")
    if report.reread:
        echo(f"re-read from their source files: {', '.join(report.reread)}")
    if report.deleted_during_build or report.rewritten_during_build:
        echo(f"changed in the live version meanwhile (applied): "
             f"{report.deleted_during_build} deleted, {report.rewritten_during_build} "
             "rewritten")
    if report.promoted:  # a refused version changes no user's gate
        _print_calibration(report)
    rows = getattr(report.comparison, "rows", None) or []
    if rows:
        # no "allowed" column: the verdict is the tolerance's (an operator read "allowed
        # 0.0692" beside a refusal "beyond the tolerance 0.0000")
        echo(f"\n{'metric':<12}{'live':>8}{'new':>8}{'delta':>9}  {'95% CI':<19}verdict")
        for r in rows:
            echo(f"{r.metric:<12}{r.base:>8.4f}{r.new:>8.4f}{r.delta:>+9.4f}  "
                 f"{f'[{r.lo:+.3f}, {r.hi:+.3f}]':<19}"
                 f"{_verdict(r, getattr(report.comparison, 'worse', []))}")
        echo("(a metric measured worse than live by more than the tolerance, eval.tolerance "
             "or --tolerance, refuses the version)\n")
    for reason in report.reasons:
        echo(f"- {reason}")
    if report.decision == "refused":
        echo(f"decision: REFUSED: version {report.version} is kept for inspection; "
             f"version {report.live_version} keeps serving.")
        return
    forced = " (FORCED: see the reasons above)" if report.decision == "forced" else ""
    echo(f"decision: PROMOTED{forced}: version {report.version} is live; undo with "
         "`citewise rollback`.")
    if new_model:
        echo(f"queries now need embed.model {new_model!r} (e.g. `citewise search "
             f"--model {new_model}`).")


def _print_calibration(report: Any) -> None:
    named = {"*": "the index-wide one"}
    if report.calibration:
        echo("gate calibration carried over (same embedder and chunking): "
             f"{', '.join(named.get(t, t) for t in report.calibration)}")
    if report.uncalibrated:
        names = ", ".join(named.get(t, t) for t in report.uncalibrated)
        tenant = next((t for t in report.uncalibrated if t != "*"), "TENANT")
        echo(f"gate calibration NOT carried over for {names}: the new embedder or chunking "
             "scores passages differently, so their users get the shipped gate. Fix: "
             f"`citewise calibrate --tenant {tenant} --questions FILE` (or --synthesize N) "
             "once it is live.")


def _verdict(row: Any, worse: list[str]) -> str:
    if row.regressed:
        return "REGRESSED"
    return "worse" if row.metric in worse else "ok"


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
@click.option("--gc", "gc", is_flag=True,
              help="Remove refused versions and abandoned shadows (their files or schemas) "
                   "and deleted documents' leftovers in the others, then list what is left.")
@click.option("--retired", is_flag=True,
              help="With --gc: remove retired versions too (they can no longer be rolled "
                   "back to).")
@db_option
@friendly_errors
def versions(as_json, gc, retired, db):
    """List the index versions: number, state (live, shadow, retired, refused), when made,
    embedder and chunking, counts, and the note saying why it is in its state. With --gc,
    remove the ones nobody can use first."""
    require_index(db)
    if retired and not gc:
        raise click.UsageError("--retired goes with --gc: `citewise versions --gc --retired`")
    with engine_from(db) as engine:
        if gc:
            for number, state in engine.collect_garbage(retired=retired):
                echo(f"removed version {number} ({state})", err=as_json)
        rows = [v.to_dict() for v in engine.versions()]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        mark = "*" if row["state"] == "live" else " "
        echo(f"{mark} v{row['number']:<3} {row['state']:<8} {row['created_at']}  "
             f"{_pipeline(row)}")
        if row.get("note"):
            echo(f"        {row['note']}")


def _pipeline(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"unreadable: {row['error']}"
    if not row.get("embedder"):
        return "empty"
    chunker = row.get("chunker") or {}
    return (f"{row['embedder']}  chunk_tokens={chunker.get('chunk_tokens', '?')}  "
            f"{row['documents']} docs, {row['chunks']} chunks")


@click.command()
@click.argument("version", type=int, required=False)
@db_option
@friendly_errors
def rollback(version, db):
    """Make a retired version live again (default: the one the live version replaced). The
    version it replaces is kept, retired, so a rollback can be undone the same way."""
    require_index(db)
    with engine_from(db) as engine:
        result = engine.rollback(version)
    echo(f"version {result.now} is live (version {result.before} is retired).")
    if result.lost:
        shown = first_few(result.lost)
        echo(f"warning: {len(result.lost)} document(s) of version {result.before} are not in "
             f"version {result.now} ({shown}), {len(result.uploads)} of them uploads; to "
             f"have them again, run `citewise rollback {result.before}{index_options(db)}`, "
             "or ingest their files again (and upload the uploads)", err=True, one_line=True)


@click.command()
@click.argument("dest", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print what was copied as JSON.")
@db_option
@friendly_errors
def backup(dest, as_json, db):
    """Copy the index (SQLite: its file and every version's but shadows) to a new index at
    DEST, consistently, while servers read it; writers wait the seconds it takes. The copy
    is an index: serve or ask it with --db DEST. Restore by stopping the servers and copying
    it back the same way: `citewise backup INDEX --db DEST` (INDEX and its .vN files
    removed first)."""
    require_index(db)
    with engine_from(db) as engine:
        result = engine.backup(dest)
    if as_json:
        echo_json(result.to_dict())
        return
    size = sum(b for _, _, _, b in result.versions)
    kept = ", ".join(f"v{n} {state}" for n, state, _, _ in result.versions)
    echo(f"backed up {result.source} to {result.dest} ({kept}): {len(result.versions)} "
         f"file(s), {size / 1e6:.1f} MB in {result.seconds:.1f}s. Check it with "
         f"`citewise status --db {result.dest}`.")
