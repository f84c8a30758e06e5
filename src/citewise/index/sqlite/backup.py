"""``citewise backup``: a consistent copy of a SQLite index taken while it serves.

A ``cp`` of a live index is not a backup: a commit still in the WAL is not in the ``.db`` (an
operator's trial lost one), and the version files ``PATH.vN`` beside it are left out. This
copies the home file (catalog, version 1, request log) and every version's file with SQLite's
online backup API, each in one step (one read snapshot, so a request-log write meanwhile does
not tear it), while holding the index's write gate: no ingest, delete, ACL change or
promotion lands between two files. Readers go on meanwhile.

The copy is an index of its own at ``DEST`` (``DEST.vN`` beside it: the catalog derives
locations from the home path), created owner-only, never over an existing file. A shadow (a
reindex still building) is not copied and leaves the copy's catalog; the copy then applies
the change log to every version it holds, so a version opened there directly shows no
document deleted before the backup.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from citewise.errors import ConfigError
from citewise.index import gate
from citewise.index.sqlite.catalog import (
    SQLiteCatalog,
    live_version,
    version_home,
    version_path,
)
from citewise.index.sqlite.migrations import sqlite3
from citewise.index.versions import purge_versions
from citewise.private import create_private


@dataclass(frozen=True)
class CopiedVersion:
    number: int
    state: str
    path: str
    size: int  # bytes of the copy


def backup(home: str, dest: str, *, timeout: float = gate.TIMEOUT_S) -> list[CopiedVersion]:
    """Copy the index at ``home`` (and its versions but shadows) to ``dest``; the copies
    made, in version order. Refuses (:class:`ConfigError`) a missing index, a ``dest`` that
    exists (or one of its version files), and one in a missing folder."""
    source = os.path.abspath(home)
    if not os.path.isfile(source):
        raise ConfigError(f"no index at {home}. Fix: pass the index with --db PATH.")
    target = os.path.abspath(dest)
    if not os.path.isdir(os.path.dirname(target)):
        raise ConfigError(f"the folder of {dest} does not exist. Fix: create it first.")
    parent = version_home(source)
    if parent is not None:  # its gate is its home's: a copy of one version is no index
        raise ConfigError(f"{source} is version {parent[1]} of the index {parent[0]}. Fix: "
                          f"back up the index: --db {parent[0]}")
    with SQLiteCatalog(source) as catalog, catalog.gate(timeout):
        every = catalog.versions()
        rows = [(v.number, v.state) for v in every if v.state != "shadow"]
        rows = rows or [(live_version(source)[1], "live")]  # an index made before versions
        _refuse_existing(target, [v.number for v in every])  # the shadows' too: their rows
        # are dropped from the copy, which removes files of their names
        copied = [_copy(version_path(source, n), version_path(target, n), n, state)
                  for n, state in rows if n == 1 or os.path.isfile(version_path(source, n))]
    _settle(target)
    return copied


def _refuse_existing(target: str, numbers: list[int]) -> None:
    if os.path.islink(f"{target}.lock"):  # the copy's gate, opened as it is settled
        raise ConfigError(f"{target}.lock is a symbolic link. Fix: remove it first.")
    names = []
    for number in [1, *numbers]:
        path = version_path(target, number)
        names += [path, f"{path}-wal", f"{path}-shm", f"{path}-journal"]  # SQLite removes
    for name in names:  # a journal it finds (a review)
        if os.path.lexists(name):
            raise ConfigError(f"{name} exists; a backup never writes over a file. Fix: "
                              "choose a new path, or remove it first.")


def _copy(path: str, to: str, number: int, state: str) -> CopiedVersion:
    """``path`` copied to a new owner-only file ``to`` in one backup step."""
    create_private(to)
    src = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        dst = sqlite3.connect(to)
        try:
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            dst.close()
    finally:
        src.close()
    return CopiedVersion(number, state, to, os.path.getsize(to))


def _settle(target: str) -> None:
    """Drop the shadows the copy's catalog lists (their files were not copied) and apply the
    change log to the versions it holds (:func:`~citewise.index.versions.purge_versions`)."""
    with SQLiteCatalog(target) as catalog:
        for version in catalog.versions():
            if version.state == "shadow":
                catalog.drop(version.number)
        purge_versions(catalog)

