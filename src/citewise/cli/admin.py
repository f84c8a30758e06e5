"""``citewise delete``, ``acl``, ``status``, ``config``."""

from __future__ import annotations

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    load_settings,
)
from citewise.index.location import shown
from citewise.types import Principal


@click.command()
@click.argument("doc_ids", nargs=-1, required=True, metavar="DOC_ID_OR_PATH...")
@db_option
@friendly_errors
def delete(doc_ids, db):
    """Delete documents, named by id or by the path they were ingested from: unretrievable
    the moment this returns; their vectors go too."""
    with engine_from(db, must_exist=True) as engine:
        ids = engine.resolve_documents(list(doc_ids), moved=True)
        removed = engine.delete(ids)
        unreached = engine.unreached_versions
    echo(f"deleted {removed} document(s): {', '.join(ids)}", one_line=True)
    _warn_unreached(unreached, "delete")


@click.command()
@click.argument("doc_id", metavar="DOC_ID_OR_PATH")
@click.option("--groups", required=True, help="Comma-separated groups allowed to read it.")
@click.option("--tenant", default=None, help="Move the document to this tenant.")
@db_option
@friendly_errors
def acl(doc_id, groups, tenant, db):
    """Change who may read a document (named by id or by the path it was ingested from),
    without re-embedding anything."""
    allowed = sorted(Principal.of(groups).groups)
    with engine_from(db, must_exist=True) as engine:
        doc_id = engine.resolve_documents([doc_id], moved=True)[0]
        engine.set_acl(doc_id, allowed, tenant)
        unreached = engine.unreached_versions
    echo(f"{doc_id}: groups {', '.join(allowed) or '(none: nobody can read it)'}"
         + (f", tenant {tenant}" if tenant else ""), one_line=True)
    _warn_unreached(unreached, "ACL change")


def _warn_unreached(numbers: tuple[int, ...], what: str) -> None:
    """One line per index version the change could not reach (its file or schema is
    missing, or another session holds a lock on it): a security review's delete said nothing
    of a version whose file was away."""
    for number in numbers:
        echo(f"warning: index version {number} could not be opened (its data is missing or "
             "another session holds a lock on it), so "
             f"this {what} has not reached it yet; it applies when that version is made live "
             "again. Fix: restore its data where `citewise versions` says it lives, or end "
             "the session that holds the lock",
             err=True, one_line=True)


@click.command()
@click.option("--documents", is_flag=True, help="Also list every document with its ACL.")
@click.option("--json", "as_json", is_flag=True, help="Print counts and manifest as JSON.")
@db_option
@friendly_errors
def status(documents, as_json, db):
    """Counts and the index manifest (embedder, chunker, schema)."""
    with engine_from(db, must_exist=True) as engine:
        report = engine.status(documents=documents)
    out = report.to_dict()
    if as_json:
        echo_json(out)
        return
    echo(f"index: {shown(db)} (version {report.version} live)\n"
         f"documents: {report.documents}  chunks: {report.chunks}  vectors: {report.vectors}")
    manifest = report.manifest
    if manifest:
        echo(f"embedder: {manifest.embedder_id} (dim {manifest.embedder_dim})\n"
             f"chunker: {manifest.chunker_hash} {dict(manifest.chunker_params)}\n"
             f"schema: v{manifest.schema_version}  created: {manifest.created_at}  "
             f"citewise {manifest.package_version}")
    else:
        echo("empty index (no manifest yet): run `citewise ingest PATH`")
    for d in out.get("document_list", []):
        echo(f"  {d['doc_id']}  v{d['version']}  tenant={d['tenant']}  "
             f"groups={','.join(d['groups']) or '-'}  {d['title']}", one_line=True)


@click.command("config")
@friendly_errors
def config_cmd():
    """Print the default settings as JSON (a starting point for --config FILE)."""
    echo_json(load_settings().model_dump())
