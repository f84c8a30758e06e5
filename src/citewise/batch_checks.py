"""What an ingest checks and tidies around its write: sidecar lines whose ACL would be lost
stop it before anything is read (:func:`check_sidecar`), documents an earlier ingest made
of a split Info manual's parts go once the manual holds their text (:func:`delete_read_parts`),
and documents whose files left the folders it walked are named, or deleted (:func:`gone`).
"""

from __future__ import annotations

import gzip
import os
import shlex
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError, IngestError
from citewise.indexing import IngestReport
from citewise.ingest.content import decode_text
from citewise.ingest.hand_readers import INDEX_OPTION
from citewise.ingest.ids import common_parent, id_prefixes
from citewise.ingest.metadata import MAX_FRONT_MATTER_CHARS, split_front_matter
from citewise.ingest.ownership import file_of
from citewise.ingest.registry import GZIP_SUFFIX, format_of, inner_path
from citewise.ingest.sidecar import SidecarMatch
from citewise.ingest.walk import excluded
from citewise.protocols import Store
from citewise.sources import FileBatch, FileLoad
from citewise.text import first_few


def check_sidecar(match: SidecarMatch, batch: FileBatch, unread: Callable[[str], bool],
                  strict: bool, indexed: Callable[[str], bool] = lambda doc_id: False) -> None:
    """Stop the batch before anything is read (:class:`ConfigError`) on a path line that
    matches no file, under ``strict``; on one that sets who may read and names no file
    this ingest leaves alone (``unread``: :func:`not_read`; :meth:`SidecarMatch.lost_acl`);
    and on a ``doc_id`` line that
    sets who may read and names no document of the batch nor one ``indexed`` already
    (:meth:`SidecarMatch.lost_doc_acl`)."""
    if strict and (problems := match.path_problems(unread)):
        raise ConfigError(" | ".join(problems) + " (--strict: nothing was ingested)")
    if lost := match.lost_acl(unread):
        part = ("; a part of a split Info manual is read with its manual: give the line to "
                "the manual" if batch.part_files else "")
        raise ConfigError(" | ".join(lost) + " (a line that sets groups or tenant must match "
                          f"a file: nothing was ingested{part})")
    if match.floating_acl():
        ids = batch_ids(batch)
        if lost := match.lost_doc_acl(lambda key: key in ids or indexed(key)
                                      or unread(key)):
            raise ConfigError(" | ".join(lost) + " (a line that sets groups or tenant must "
                              "match a document of this ingest or one already indexed: "
                              "nothing was ingested; a document of another folder is "
                              "matched when that folder is ingested in the same command)")


def batch_ids(batch: FileBatch) -> set[str]:
    """The ids of the batch's documents (from their paths, the sidecar, or the front matter
    of its Markdown files: :func:`front_matter_id`) and of the pages it leaves out."""
    ids = {item.doc_id for item in batch.items}
    ids |= {i for item in batch.items if isinstance(item.load, FileLoad)
            and (i := front_matter_id(item.load.path, item.load.within))}
    left_out = [p for p, _ in batch.copies + batch.redirects + batch.duplicates + batch.parts]
    return ids | set(left_out) | set(batch.noindex)


def front_matter_id(path: Path, within: Path | None = None) -> str | None:
    """The ``doc_id`` the YAML front matter of a Markdown file sets (plain or gzipped),
    read from its head only; None for any other file, one outside ``within`` (its load
    refuses it) or one whose head does not parse (its load says why)."""
    if format_of(inner_path(path)) != "markdown" or (
            within is not None and not path.resolve().is_relative_to(within)):
        return None
    size = 4 * MAX_FRONT_MATTER_CHARS
    try:
        with (gzip.open(path) if path.suffix.lower() == GZIP_SUFFIX else path.open("rb")) as f:
            head = f.read(size)
        if len(head) == size and head[:2] not in (b"\xff\xfe", b"\xfe\xff"):
            head = head[: head.rfind(b"\n") + 1] or head  # no UTF-8 character cut in two
            # (UTF-16 is cut at an even size: a newline byte there splits a code unit)
        meta, _, _ = split_front_matter(decode_text(head, "Markdown"))
    except (OSError, EOFError, gzip.BadGzipFile, IngestError):
        return None
    doc_id = meta.get("doc_id")
    return str(doc_id) if doc_id else None


def not_read(batch: FileBatch, paths: Sequence[str | Path]) -> Callable[[str], bool]:
    """Whether a sidecar path line's key names a file this ingest does not read
    (:func:`names_a_file`)."""
    read = {i.load.path.resolve() for i in batch.items if isinstance(i.load, FileLoad)}
    read |= set(batch.part_files.values())
    return lambda key: names_a_file(key, paths, read)


def names_a_file(key: str, paths: Sequence[str | Path], read: set[Path]) -> bool:
    """Whether a sidecar path line's ``key`` names a file (or a folder, none of whose files
    it reads) from the current folder, a folder of ``paths``, a named file's folder or the
    folders' common parent that this ingest does not ``read``: a file it does not take
    (another folder's, an excluded one) loses no ACL; one it reads under another name (a
    split Info manual's part, a path through a symlink) does (the second review)."""
    bases = [Path.cwd(), *(Path(p) if Path(p).is_dir() else Path(p).parent for p in paths)]
    if (common := common_parent(paths)) is not None:
        bases.append(common)
    for base in bases:
        try:
            if (base / key).is_file() and (base / key).resolve() not in read:
                return True
            if (base / key).is_dir() and not any(f.is_relative_to((base / key).resolve())
                                                 for f in read):
                return True  # a folder line for a folder this ingest reads nothing of
        except OSError:  # a name too long for the file system names no file
            continue
    return False


def delete_read_parts(store: Store, batch: FileBatch, report: IngestReport) -> list[str]:
    """Delete the documents an earlier ingest made of split Info manual parts once their
    manual, which now holds their text, is indexed: left, they kept their own readers (a
    review: staff still read the parts of a manual restricted to ops). Only a document
    read from that very part file, in the manual's tenant: another tenant's document of
    the same id, or an upload, is named for `citewise delete` instead (the second
    review)."""
    indexed = {o.doc_id for o in report.outcomes if o.indexed}
    ours, others = [], []
    for part, manual in batch.parts:
        old, held = store.get_document(part), store.get_document(manual)
        if manual not in indexed or old is None or held is None:
            continue
        same = old.tenant == held.tenant and file_of(old) == str(batch.part_files[part])
        (ours if same else others).append(part)
    if ours:
        store.delete(ours)
    said = [f"deleted {len(ours)} document(s) an earlier ingest made of split Info manual "
            f"parts ({', '.join(ours[:3])}{', …' if len(ours) > 3 else ''}): their text "
            "is in their manual's document now, read by its readers"] if ours else []
    return said + ([f"{len(others)} document(s) with the id of a split Info manual's part "
                    "are not read from it (another tenant's, an upload); left as they "
                    "are. Fix, if they are stale: `citewise delete "
                    f"{' '.join(shlex.quote(d) for d in others)} {INDEX_OPTION}`"]
                   if others else [])


def gone(store: Store, paths: Sequence[str | Path], prune: bool,
         exclude: Sequence[str] = (), *, id_prefix: str = "", tenant: str = "default",
         keep: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """``(doc ids, warning lines)``: the documents read from a file under a folder this
    ingest walked that is no longer there, or that its ``exclude`` globs leave out now,
    deleted under ``prune`` (and indexed again if the file comes back). An operator's trial:
    a page moved out of the folder, or renamed, was still answered from after the re-ingest
    ("0 new … 255 unchanged"), its link a missing file, and nothing said so; a new user who
    found the Debian Reference's PDF and text copies indexed beside its pages (restricted
    chapters readable through them) re-ran the ingest with ``--exclude '*.pdf' --prune``
    and both copies stayed, readable, with no word. An excluded file's document is one
    this walk would have made (its id from this root and ``id_prefix``, this ``tenant``),
    not one this ingest wrote (``keep``): a review's ``--exclude internal --prune`` deleted
    the documents a separate ingest of ``internal/`` had made for hr (another tenant's
    too), and a folder named beside its excluded subfolder lost what it had just indexed."""
    folders = {Path(p) for p in paths if Path(p).is_dir()}  # not a named file's folder
    prefixes = {str(p.resolve()) + os.sep: part  # (a review: `ingest docs/a.md --prune`
                for p, part in id_prefixes(paths, id_prefix).items() if p in folders}
    if not prefixes:
        return [], []
    def walked_out(doc: Any, home: str) -> bool:  # this walk would have made it, from a
        return doc.tenant == tenant and doc.doc_id not in keep and any(  # root excluding it
            home.startswith(r) and _excluded(home[len(r):], exclude)
            and doc.doc_id == part + Path(home[len(r):]).as_posix()
            for r, part in prefixes.items())

    ids = [doc.doc_id for doc in store.list_documents()
           if (home := file_of(doc)) and any(home.startswith(r) for r in prefixes)
           and (not Path(home).exists() or walked_out(doc, home))]
    if not ids:
        return [], []
    shown = first_few(ids, more=", …")
    if prune:
        store.delete(ids)
        return ids, [f"deleted {len(ids)} document(s) whose files are no longer in the "
                     f"folder or are --exclude'd ({shown}): --prune"]
    delete = " ".join(shlex.quote(d) for d in ids[:3])
    return ids, [f"{len(ids)} document(s) read from files no longer in the folder, or "
                 f"--exclude'd now, are still indexed and answered from ({shown}). Fix: "
                 f"ingest the folder again with --prune to delete them, or `citewise delete "
                 f"{delete} {INDEX_OPTION}`"]


def _excluded(rel: str, exclude: Sequence[str]) -> bool:
    """Whether a file at ``rel`` (under a walked folder) or a folder on its way matches a
    glob of ``exclude`` (:func:`citewise.ingest.walk.excluded`)."""
    if not exclude:
        return False
    parts = Path(rel).parts
    return any(excluded("/".join(parts[:n]), exclude) for n in range(1, len(parts) + 1))
