"""``citewise migrate``: copy a SQLite index into PostgreSQL (no re-embedding), then verify."""

from __future__ import annotations

from pathlib import Path

import click

from citewise.cli.common import echo, echo_json, friendly_errors, require_index
from citewise.cli.progress import make_bar, progress_mode, progress_options
from citewise.engine import Engine
from citewise.errors import ConfigError


@click.command()
@click.option("--from", "source", required=True,
              help="Source index: a SQLite path, or sqlite:///relative/index.db, "
                   "sqlite:////absolute/index.db.")
@click.option("--to", "target", required=True,
              help="Target index URL, e.g. postgresql://user@host:5432/db (its live version).")
@click.option("--batch-docs", type=int, default=200, show_default=True,
              help="Documents per atomic write batch.")
@click.option("--sample", type=int, default=20, show_default=True,
              help="Dense searches compared between source and target after copying.")
@click.option("--json", "as_json", is_flag=True, help="Print the migration report as JSON.")
@progress_options
@friendly_errors
def migrate(source, target, batch_docs, sample, as_json, progress, quiet):
    """Copy documents, chunks, ACLs, vectors, parsed bodies, metadata and the manifest from a
    SQLite index into another store (PostgreSQL), then verify counts and sample searches."""
    path = source.removeprefix("sqlite:///")
    if path != source and not Path(path).is_file() and Path("/" + path).is_file():
        raise ConfigError(f"no index at {path}: after sqlite:/// comes a path relative to "
                          f"here. Fix: --from sqlite:////{path} (or --from /{path})")
    require_index(path)
    mode = progress_mode(progress, quiet, as_json=as_json)
    with Engine(source) as engine, make_bar("migrate", total=engine.store.count().documents,
                                            unit="doc", mode=mode) as bar:
        result = engine.migrate(target, batch_docs=batch_docs, sample=sample,
                                on_progress=bar.update)
    report = result.report
    if as_json:
        echo_json(result.to_dict())
        return
    echo(f"migrated {report.documents} documents, {report.chunks} chunks, "
         f"{report.vectors} vectors, {report.meta_keys} metadata keys in "
         f"{report.batches} batches ({report.seconds:.1f} s); verified counts and "
         f"{report.checked_searches} searches (mean top-10 overlap "
         f"{report.mean_overlap:.2f})")
