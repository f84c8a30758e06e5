"""``citewise backup``: a consistent copy of a SQLite index taken while it serves.

A ``cp`` of a live index is not a backup: a commit still in the WAL is not in the ``.db`` (an
operator's trial lost one), and the version files ``PATH.vN`` beside it are left out. This
copies the home file (catalog, version 1, request log) and every version's file with SQLite's
online backup API, each in one step (one read snapshot, so a request-log write meanwhile does
not tear it), while holding the index's write gate: no ingest, delete, ACL change or
promotion lands between two files. Readers go on meanwhile.

The copy is an index of its own at ``DEST`` (``DEST.vN`` and ``DEST.lock`` beside it: the
catalog derives locations from the home path), created owner-only, never over an existing
file. A shadow (a reindex still building) is not copied and leaves the copy's catalog; the
copy then applies the change log to every version it holds, so a version opened there
directly shows no document deleted before the backup.

The files are built in a private folder (0700) beside ``DEST`` and hard-linked into place,
which fails on any name that exists: a security review's local user, watching a shared
folder, made ``DEST.v2`` a symlink once ``DEST`` appeared and received a world-readable copy
of the index (5 of 5 races won), or had the backup written over another index. A folder
another user owns or may write (sticky or not), or one above it they could rename, is
refused (:func:`_refuse_open_folder`): a copy there could be swapped after it is made.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Callable, Iterator
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
    exists (or one of its version or lock files), one in a missing folder or a folder any
    user may write."""
    source = os.path.abspath(home)
    if not os.path.isfile(source):
        raise ConfigError(f"no index at {home}. Fix: pass the index with --db PATH.")
    folder = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(folder):
        raise ConfigError(f"the folder of {dest} does not exist. Fix: create it first.")
    folder = os.path.realpath(folder)  # judged and written resolved: a link in the path,
    target = os.path.join(folder, os.path.basename(dest))  # re-pointed after the check,
    _refuse_open_folder(folder)  # sent a review's backup into another user's folder
    parent = version_home(source)
    if parent is not None:  # its gate is its home's: a copy of one version is no index
        raise ConfigError(f"{source} is version {parent[1]} of the index {parent[0]}. Fix: "
                          f"back up the index: --db {parent[0]}")
    staging = tempfile.mkdtemp(prefix=".citewise-backup-", dir=folder)  # 0700, ours
    try:
        staged = os.path.join(staging, os.path.basename(target))
        with SQLiteCatalog(source) as catalog, _gate(catalog, source, timeout):
            every = catalog.versions()
            rows = [(v.number, v.state) for v in every if v.state != "shadow"]
            rows = rows or [(live_version(source)[1], "live")]  # an index made before versions
            _refuse_existing(target, [v.number for v in every])  # the shadows' too: their
            # rows are dropped from the copy, which removes files of their names
            copied = [_copy(version_path(source, n), version_path(staged, n), n, state)
                      for n, state in rows if n == 1 or os.path.isfile(version_path(source, n))]
        _settle(staged)
        _publish(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [CopiedVersion(c.number, c.state, version_path(target, c.number), c.size)
            for c in copied]


@contextlib.contextmanager
def _gate(catalog: SQLiteCatalog, source: str, timeout: float) -> Iterator[None]:
    """The source's write gate; a one-line error where its lock file cannot be written (a
    security review's restore from a read-only snapshot was an ``OSError`` traceback)."""
    try:
        held = catalog.gate(timeout)
        held.__enter__()
    except OSError as exc:
        raise ConfigError(f"cannot take the write lock of {source} ({exc.strerror}): its "
                          "folder is read-only or not yours. Fix: copy the backup's files "
                          f"({os.path.basename(source)}*) to a folder you may write, and "
                          "restore from that copy") from None
    try:
        yield
    finally:
        held.__exit__(None, None, None)


def _refuse_open_folder(folder: str) -> None:
    """Refuse a backup into ``folder`` when another local user could put files beside the
    copy or swap it: a folder they own, or may write (a sticky one too: a security review
    planted ``DEST-wal`` in a 1777 folder after the backup, and the next ``citewise status``
    on it replayed the planted index into the copy), or a folder above it they could rename
    (one they may write without the sticky bit). Group write counts only where the group
    has members besides this user (a user's private group)."""
    path = folder
    first = True
    while True:
        info = os.stat(path)
        problem = _unsafe(info, last=first) or _acl_unsafe(path, info, last=first)
        if problem:
            raise ConfigError(f"{path} {problem}, who could swap or read a backup there. "
                              "Fix: back up into a folder only you (and root) own and may "
                              "write, e.g. `mkdir -m 700 ~/backups`.")
        parent = os.path.dirname(path)
        if parent == path:
            return
        path, first = parent, False


def _unsafe(info: os.stat_result, last: bool) -> str | None:
    """Why a folder (``last``: the backup's own, else one above it) lets another user at a
    backup, or None."""
    me = os.geteuid()
    if info.st_uid not in (me, 0):
        return "belongs to another user"
    sticky = bool(info.st_mode & stat.S_ISVTX)
    if info.st_mode & stat.S_IWOTH and (last or not sticky):
        return "may be written by any user"
    if info.st_mode & stat.S_IWGRP and (last or not sticky) and _shared_group(info.st_gid):
        return "may be written by other users of its group"
    return None


_ACL_USER, _ACL_GROUP, _ACL_MASK = 0x02, 0x08, 0x10  # tags of posix_acl_xattr_entry
_ACL_WRITE = 0x02


def _acl_unsafe(path: str, info: os.stat_result, last: bool) -> str | None:
    """Why a folder's POSIX ACL (``setfacl -m u:NAME:rwx``) lets another user write it, or
    None: a security review's 0700 folder with such an entry showed as ``drwxrwx---+`` of
    group root, whose write bit counted for no one, and took the backup."""
    if not last and info.st_mode & stat.S_ISVTX:
        return None
    try:
        raw = os.getxattr(path, "system.posix_acl_access")
    except OSError:
        return None  # no ACL, or a file system without them
    if acl_writers(raw, os.geteuid(), _shared_group):
        return "may be written by another user named in its access list (setfacl)"
    return None


def acl_writers(raw: bytes, me: int, shared_group: Callable[[int], bool]) -> bool:
    """Whether the ``system.posix_acl_access`` value ``raw`` lets a user other than ``me``
    write: a named user's entry, or a named group's with another member, whose write the
    mask leaves."""
    entries = [struct.unpack_from("<HHI", raw, at) for at in range(4, len(raw) - 7, 8)]
    mask = next((perm for tag, perm, _ in entries if tag == _ACL_MASK), 0x07)
    return any(perm & mask & _ACL_WRITE and (
        (tag == _ACL_USER and who != me) or (tag == _ACL_GROUP and shared_group(who)))
        for tag, perm, who in entries)


def _shared_group(gid: int) -> bool:
    """Whether group ``gid`` has a member other than this user."""
    import grp
    import pwd

    try:
        me = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        me = None
    try:
        members = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        return True  # an unknown group: assume others are in it
    members |= {user.pw_name for user in pwd.getpwall() if user.pw_gid == gid}
    return bool(members - {me})


def _refuse_existing(target: str, numbers: list[int]) -> None:
    names = [f"{target}.lock"]  # the copy's gate: a planted one held backups 124 s
    for number in [1, *numbers]:
        path = version_path(target, number)
        names += [path, f"{path}-wal", f"{path}-shm", f"{path}-journal"]  # SQLite removes
    for name in names:  # a journal it finds (a review)
        if os.path.lexists(name):
            raise ConfigError(f"{name} exists; a backup never writes over a file. Fix: "
                              "choose a new path, or remove it first.")


def _copy(path: str, to: str, number: int, state: str) -> CopiedVersion:
    """``path`` copied to a new owner-only file ``to`` in one backup step. A version file
    that is a symlink, or a file holding triggers or views (citewise makes none), is refused:
    a security review restored a tampered backup whose ``BACKUP.db.v2`` linked to an index
    its writer could not read (its text then searchable in the restored index), and one
    whose triggers re-added a group after every ACL change and ignored every delete (both
    reported done)."""
    if number != 1 and os.path.islink(path):
        raise ConfigError(f"{path} is a symlink; an index's version files are its own. "
                          "Fix: copy the file itself there, or restore from a backup "
                          "`citewise backup` made")
    create_private(to, exclusive=True)
    src = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        dst = sqlite3.connect(to)
        try:
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            foreign = dst.execute("SELECT type, name FROM sqlite_master "
                                  "WHERE type IN ('trigger', 'view')").fetchall()
        finally:
            dst.close()
    finally:
        src.close()
    if foreign:
        shown = ", ".join(f"{kind} {name}" for kind, name in foreign[:3])
        raise ConfigError(f"{path} holds schema objects citewise does not make ({shown}): "
                          "it was changed outside citewise, and is not copied. Fix: restore "
                          "from a backup `citewise backup` made and nothing changed since")
    return CopiedVersion(number, state, to, os.path.getsize(to))


NO_LINKS = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS)
"""What ``link`` fails with where a filesystem has no hard links (FAT, exFAT, some FUSE)."""


def _publish(staging: str, folder: str) -> None:
    """Hard-link every file built in ``staging`` into ``folder`` under its name; a link never
    replaces a name that exists (nor follows one), so a file planted meanwhile fails the
    backup instead of receiving it. Names linked before the failure are removed. Where the
    filesystem has no hard links (a USB drive's FAT), each file is moved in by name once
    no file of that name exists: such a filesystem has no other users' files to race with."""
    linked: list[str] = []
    names = sorted(os.listdir(staging))
    try:
        for name in names:
            to = os.path.join(folder, name)
            try:
                os.link(os.path.join(staging, name), to, follow_symlinks=False)
            except OSError as exc:
                if exc.errno not in NO_LINKS:
                    raise
                _move(staging, folder, name)
            linked.append(to)
    except FileExistsError as exc:
        _unlink(linked)
        raise ConfigError(f"{exc.filename2 or exc.filename} appeared while the backup was "
                          "made; a backup never writes over a file. Fix: choose a new "
                          "path, or remove it first.") from exc
    except OSError as exc:
        _unlink(linked)
        raise ConfigError(f"cannot put the backup's files into {folder} ({exc.strerror}). "
                          "Fix: back up into a local folder you can write, then move the "
                          "files.") from exc


def _move(staging: str, folder: str, name: str) -> None:
    to = os.path.join(folder, name)
    if os.path.lexists(to):
        raise FileExistsError(errno.EEXIST, "exists", to)
    os.rename(os.path.join(staging, name), to)


def _unlink(paths: list[str]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _settle(target: str) -> None:
    """Drop the shadows the copy's catalog lists (their files were not copied) and apply the
    change log to the versions it holds (:func:`~citewise.index.versions.purge_versions`)."""
    with SQLiteCatalog(target) as catalog:
        for version in catalog.versions():
            if version.state == "shadow":
                catalog.drop(version.number)
        purge_versions(catalog)

