"""The ids and links of the files of an ingest: what goes before each file's path.

Folders named together are told apart by their paths from their common parent (``book/``,
``reference/``), in ids after any ``--id-prefix`` (:func:`id_prefixes`) and in links under
``--base-url`` (:func:`link_prefixes`); a sidecar line may name a file by that path too
(:func:`from_common`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path


def id_prefixes(paths: Sequence[str | Path], id_prefix: str = "") -> dict[Path, str]:
    """What goes before the ids taken from each folder's file paths: ``id_prefix``, then,
    when ``paths`` name two or more folders, each folder's path from the folders' common
    parent (``book/``, ``reference/`` for ``…/html/book …/html/reference``): ingesting the
    Rust books in one command failed on 14 files, two books' ``destructors.html`` and every
    book's font licences, because ids were relative to each folder (and so did two folders
    with ``--id-prefix``). A file named on its own keeps its name after ``id_prefix``."""
    out = {folder: id_prefix + part for folder, part in _folder_parts(paths).items()}
    for path in (Path(p) for p in paths if Path(p).is_file()):
        out.setdefault(path.parent, id_prefix)  # a file's root is its folder (discover)
    return out


def link_prefixes(paths: Sequence[str | Path]) -> dict[Path, str]:
    """What goes before each root's file paths under ``--base-url``: each folder's path
    from the common parent of two or more folders named together (:func:`id_prefixes`
    without ``--id-prefix``), and so the path of a file named beside them, from that
    parent too (``misc/notes.md`` linked as ``notes.md`` was a 404)."""
    out = _folder_parts(paths)
    common = common_parent(paths)
    for path in (Path(p) for p in paths if Path(p).is_file()):
        parent = path.parent.absolute()
        part = ""
        if common is not None and parent.is_relative_to(common) and parent != common:
            part = parent.relative_to(common).as_posix() + "/"
        out.setdefault(path.parent, part)
    return out


def _folder_parts(paths: Sequence[str | Path]) -> dict[Path, str]:
    folders = list(dict.fromkeys(Path(p) for p in paths if Path(p).is_dir()))
    common = common_parent(paths)
    if common is None:
        return dict.fromkeys(folders, "")
    return {folder: ("" if (rel := folder.absolute().relative_to(common).as_posix()) == "."
                     else rel + "/") for folder in folders}


def common_parent(paths: Sequence[str | Path]) -> Path | None:
    """The common parent of two or more folders in ``paths``; None for fewer."""
    folders = list(dict.fromkeys(Path(p).absolute() for p in paths if Path(p).is_dir()))
    if len(folders) < 2:
        return None
    return Path(os.path.commonpath([str(f) for f in folders]))


def from_common(root: Path, path: Path, links: Mapping[Path, str]) -> tuple[str, ...]:
    """The file's path from the common parent of the folders named together, as its id has
    it (``sync/mpsc/index.html`` for ``…/std/collections …/std/sync``): a new user's sidecar
    lines in that form, the ids' own, matched no file and the pages they restricted were
    indexed for everyone."""
    return (links[root] + path.relative_to(root).as_posix(),) if links.get(root) else ()
