"""``citewise ingest``."""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.cli.progress import counter, make_bar, progress_mode, progress_options, set_total
from citewise.cli.show import index_options
from citewise.ingest import SUPPORTED_SUFFIXES, inner_path, read_sidecar
from citewise.ingest.doc_names import is_left_out
from citewise.ingest.hand_readers import INDEX_OPTION, KEPT
from citewise.ingest.metadata import is_openable_link
from citewise.ingest_report import Outcome
from citewise.results import IngestResult
from citewise.text import first_few
from citewise.types import Principal


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--tenant", default=None, help="Tenant of the batch (default: 'default').")
@click.option("--groups", default=None, help="Comma-separated ACL groups for the batch.")
@click.option("--owner", default=None, help="Owner recorded on each document.")
@click.option("--meta", "meta_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="JSONL sidecar: per-file metadata (path or doc_id, groups, tenant, ...).")
@click.option("--base-url", default=None, metavar="URL",
              help="Where the files are published, so citations are links: URL + the path "
                   "relative to the folder (folders named together: to their common parent), "
                   "or a template with {path} / {stem} (e.g. "
                   "'https://docs.example.com/{stem}/'). Default: the file's file:// URI.")
@click.option("--id-prefix", default="", metavar="PREFIX",
              help="Put PREFIX before each document id taken from a path (e.g. --id-prefix "
                   "borg/ gives borg/index.html), so a second folder's index.html does not "
                   "meet the first one's.")
@click.option("--exclude", "exclude", multiple=True, metavar="GLOB",
              help="Leave out a folder's files and subfolders whose path (relative to the "
                   "folder) or name matches GLOB; repeatable (e.g. --exclude es --exclude "
                   "'*.txt').")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@progress_options
@click.option("--strict", is_flag=True,
              help="Exit with status 1 if any file failed or a --meta line matched no "
                   "document (a path line that matches no file stops the batch first).")
@click.option("--trust-file-acl", is_flag=True,
              help="Let groups in front matter / <meta> set a document's groups (default: "
                   "they may only narrow --groups / --meta; a file never sets its tenant).")
@click.option("--follow-symlinks", is_flag=True,
              help="Index symlinks that lead outside the ingest folder, and links to what "
                   "the walk leaves out (a hidden folder) under their own names (default: "
                   "skip them with a note). A link to a file read at its own path is never "
                   "followed.")
@click.option("--allow-wider-readers", "wider_readers", is_flag=True,
              help="Let this ingest give documents indexed before readers they do not have "
                   "now (by default such a document is not ingested, with the fix: a re-run "
                   "without the --meta sidecar that restricted pages would open them).")
@click.option("--prune", is_flag=True,
              help="Delete the documents read from files that are no longer in the folders "
                   "named (moved, renamed or removed); by default they are named in a "
                   "warning and stay indexed.")
@click.option("--undelete", is_flag=True,
              help="Index again files whose documents were deleted with `citewise delete` "
                   "(by default they are left out, with a note).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes that parse, chunk and embed (default 1: all in this "
                   "process; with --ray: one actor per cluster CPU). Model threads per worker: "
                   "cores / workers unless --threads is given.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Run the workers as Ray actors: auto (a running cluster), local (start one "
                   "here) or ray://host:port. Needs `pip install 'citewise[ray]'`.")
@db_option
@settings_options
@friendly_errors
def ingest(paths, tenant, groups, owner, meta_path, base_url, id_prefix, exclude, as_json,
           progress, quiet, strict, trust_file_acl, wider_readers, prune, undelete,
           follow_symlinks, workers,
           ray_address, db,
           config_path, model, threads):
    """Index files and folders (Markdown, reStructuredText, HTML, text, PDF, Word .docx,
    GNU Info; also gzipped). Unchanged files embed nothing; a file that cannot be read is
    reported and skipped."""
    if base_url is not None and ("://" not in base_url or not is_openable_link(base_url)):
        raise click.BadParameter(f"{base_url!r} is not an http(s):// or file:// URL; pass e.g. "
                                 "--base-url https://docs.example.com/", param_hint="--base-url")
    defaults = {"tenant": tenant, "owner": owner}
    if groups is not None:
        defaults["groups"] = sorted(Principal.of(groups).groups)
    defaults = {k: v for k, v in defaults.items() if v is not None}
    sidecar = read_sidecar(Path(meta_path)) if meta_path else None
    mode = progress_mode(progress, quiet, as_json=as_json)
    with engine_from(db, config_path, model, threads) as engine, \
            make_bar("ingest", unit="file", mode=mode) as bar:
        report = engine.ingest_paths(paths, defaults, sidecar, on_progress=bar.update,
                                     workers=workers, ray=ray_address, base_url=base_url,
                                     trust_file_acl=trust_file_acl,
                                     wider_readers=wider_readers, undelete=undelete,
                                     follow_symlinks=follow_symlinks, strict=strict,
                                     id_prefix=id_prefix, exclude=exclude, prune=prune,
                                     on_total=lambda n: set_total(bar, n),
                                     on_embedded=counter(bar, "chunks embedded"))
    summary = report.summary()
    failures = [o for o in report.outcomes if o.status == "failed"]
    if as_json:
        echo_json(IngestResult.of(report).to_dict())
    else:
        for line in _condensed(report.warnings):
            echo(f"warning: {on_this_index(line, db)}", err=True, one_line=True)
        for line in _failure_lines(failures):
            echo(on_this_index(line, db), err=True, one_line=True)
        if report.unreadable:
            shown = first_few(report.unreadable, 5)
            echo(f"warning: {len(report.unreadable)} document(s) have no ACL group, so "
                 f"nobody can read them ({shown}); pass --groups, set `groups` in front "
                 "matter or the --meta sidecar, or run `citewise acl`", err=True, one_line=True)
        if report.redirects:
            echo(f"skipped {len(report.redirects)} redirect page(s), e.g. "
                 f"{report.redirects[0][0]} -> {report.redirects[0][1]}", err=True, one_line=True)
        if report.copies:
            echo(f"skipped {len(report.copies)} copies of pages it indexed (Sphinx "
                 f"_sources/, a .txt beside its .html, a PDF or text edition of the HTML "
                 f"pages), e.g. {report.copies[0][0]} -> {report.copies[0][1]}; name one to "
                 "ingest it", err=True, one_line=True)
        if report.noindex:
            echo(f"skipped {len(report.noindex)} page(s) marked noindex (<meta name=robots>, "
                 f"as mdBook marks its print.html), a site's 404, search or cross-reference "
                 f"page, Sphinx's highlighted source (_modules/), or a page that repeats the "
                 f"others whole (as Node's all.html), e.g. "
                 f"{report.noindex[0]}; name one to ingest it", err=True, one_line=True)
        if report.duplicates:
            echo(f"skipped {len(report.duplicates)} page(s) with the same text as a page it "
                 f"indexed (a generator's index.html, an untranslated copy, or a placeholder "
                 f"many pages of a folder share, as a retired edition's), e.g. "
                 f"{report.duplicates[0][0]} = {report.duplicates[0][1]}; name one to ingest "
                 "it", err=True, one_line=True)
        if report.includes_only:
            first = report.includes_only[0]
            echo(f"left out {len(report.includes_only)} file(s) with no text of their own, "
                 f"e.g. {first.label}: {first.error}; the files they include are indexed "
                 "when ingested themselves", err=True, one_line=True)
        if report.own_links:
            path, link = report.own_links[0]
            echo(f"{len(report.own_links)} file(s) link their citations where their own text "
                 f"says (front matter source_url, <link rel=canonical>), e.g. {path} -> "
                 f"{link}; check them, or pass --base-url to link them to your site",
                 err=True, one_line=True)
        if report.relinked:
            doc_id, before, now = report.relinked[0]
            echo(f"warning: this ingest changed the links of {len(report.relinked)} "
                 f"document(s), e.g. {doc_id}: {before} -> {now}; if that was not meant, "
                 "ingest them again with the --base-url (and --id-prefix) that gave them",
                 err=True, one_line=True)
        if report.deleted:
            shown = first_few([o.label for o in report.deleted])
            echo(f"left out {len(report.deleted)} file(s) whose documents were deleted with "
                 f"`citewise delete` ({shown}); to index them again, ingest them with "
                 "--undelete", err=True, one_line=True)
        _print_skipped(report.skipped)
        echo("documents: {new} new, {changed} changed, {updated} metadata-only, "
             "{unchanged} unchanged, {failed} failed; chunks: {chunks} "
             "({chunks_embedded} embedded) in {seconds}s".format(**summary))
    if failures and (strict or all(o.status == "failed" for o in report.outcomes)):
        sys.exit(1)  # every file failed: nothing was done, whatever --strict says
    if strict and report.sidecar_problems:
        sys.exit(1)


KEPT_SHOWN = 3
"""Kept-readers notes an ingest prints one by one; more are counted in one line."""


def _condensed(warnings: Sequence[str]) -> list[str]:
    """``warnings`` with the notes of documents that keep readers set by hand past the
    first :data:`KEPT_SHOWN` counted in one line: a folder restricted page by page printed
    a line per page on every routine ingest."""
    kept = [w for w in warnings if KEPT in w]
    if len(kept) <= KEPT_SHOWN:
        return list(warnings)
    more = kept[KEPT_SHOWN:]
    ids = first_few([w.split(KEPT, 1)[0] for w in more], 5)
    shown = set(kept[:KEPT_SHOWN])
    return [w for w in warnings if KEPT not in w or w in shown] + [
        f"{len(more)} more document(s) keep the readers set by hand since their last ingest "
        f"({ids}); `--json` lists each with its fix, `citewise status --documents` their "
        "groups"]


def _failure_lines(failures: Sequence[Outcome]) -> list[str]:
    """A ``failed:`` line per file, but past the first :data:`KEPT_SHOWN` files failing
    for the same reason (their messages alike but for their own id) one line counts the
    rest: an ingest that forgot its ``--meta`` printed 75 such lines (Git's release notes)
    and 74 (the AWS CLI's examples) before its summary."""
    shapes: dict[str, list[Outcome]] = {}
    for o in failures:
        shape = (o.error or "").replace(o.doc_id, "\0") if o.doc_id else o.error or ""
        shapes.setdefault(shape, []).append(o)
    lines = []
    for same in shapes.values():
        lines += [f"failed: {o.label}: {o.error}" for o in same[:KEPT_SHOWN]]
        if len(same) > KEPT_SHOWN:
            more = same[KEPT_SHOWN:]
            ids = first_few([o.label for o in more])
            lines.append(f"failed: {len(more)} more file(s) for the same reason ({ids}); "
                         "`--json` lists each")
    return lines


def on_this_index(warning: str, db: str) -> str:
    """``warning`` with this ingest's index where its commands (``citewise acl``,
    ``citewise delete``) say ``--db INDEX``: a new user given ``--db`` was shown the
    placeholder to fill in. Only as each command's option (a document id may hold the words
    too: a review)."""
    given = index_options(db)
    return _COMMAND.sub(lambda m: m.group(0).replace(" " + INDEX_OPTION, given, 1), warning)


_COMMAND = re.compile("`citewise" + r" (?:acl|delete) [^`]*")  # (split: no command for
# the test that every backticked command in the source exists)


def _print_skipped(skipped: Sequence[str]) -> None:
    """The files a walk did not read: changelogs, author lists and licences on purpose
    (:func:`~citewise.ingest.doc_names.is_left_out`), the others for their type."""
    by_name = [p for p in skipped if is_left_out(Path(p).name)]
    if by_name:
        echo(f"left out {len(by_name)} changelog, author or licence file(s) (e.g. "
             f"{Path(by_name[0]).name}); name one to read it as plain text", err=True,
             one_line=True)
    others = [p for p in skipped if p not in set(by_name)]
    if others:
        echo(f"skipped {len(others)} file(s) of a type citewise does not "
             f"read ({_by_suffix(others)}); supported: "
             f"{', '.join(SUPPORTED_SUFFIXES)}, each also gzip-compressed "
             "(.md.gz), and NEWS, README and such by name"
             + ("; name a file with no suffix (changelog.gz) to read it as plain text"
                if any(_suffix(Path(p)) in ("", ".gz") for p in others) else ""),
             err=True)


def _by_suffix(paths: list[str]) -> str:
    counts = Counter(_suffix(Path(p)) or "(no suffix)" for p in paths)
    return ", ".join(f"{n} {suffix}" for suffix, n in counts.most_common())


def _suffix(path: Path) -> str:
    """``.css``, or ``.py.gz`` for a compressed file (what it holds is what was skipped)."""
    inner = inner_path(path)
    return inner.suffix.lower() + (".gz" if inner != path else "")
