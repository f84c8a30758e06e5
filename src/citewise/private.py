"""Files that may hold document text (index, WAL, version files, eval outputs) are created
owner-only: mode 0600, narrowed further by the umask, never widened by it.

SQLite creates an index's ``-wal``/``-shm`` files with the mode of the database file, so
creating the database file 0600 before SQLite opens it covers all three.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from pathlib import Path
from typing import IO

from citewise.errors import ConfigError, StoreError

PRIVATE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def create_private(path: str | Path, *, exclusive: bool = False) -> None:
    """Create ``path`` as an empty owner-only file if it does not exist (an existing file
    keeps its mode: the operator may have chosen it). ``exclusive``: a name that exists, a
    symlink included, is :class:`FileExistsError` (a backup's copy: never into another's
    file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | (os.O_NOFOLLOW if exclusive else 0)
    try:
        fd = os.open(path, flags, PRIVATE_MODE)
    except FileExistsError:
        if exclusive:
            raise
        return
    os.close(fd)


def foreign(path: str | Path) -> str | None:
    """Why an index's file at ``path`` (the database, its ``-wal``/``-shm``/``-journal``, a
    lock), if it exists, is not to be used, or None: it, or a symbolic link at ``path``,
    belongs to a user this process may not trust (:func:`_trusted`), or it is no regular
    file. A security review's user planted an empty ``citewise.db`` in a team folder, and the
    operator's ingest wrote every tenant's text into a file the planter owned and read; a
    planted ``-wal`` or ``-journal`` built from the planter's own index replaced every
    document of the operator's at its next open; a planted link made SQLite create the index
    in the planter's folder; a planted ``.lock``, held, stopped every write."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat_module.S_ISLNK(info.st_mode):
        if not _trusted(info, path):
            return f"is a symbolic link of another user (uid {info.st_uid}), who chose where " \
                   "it leads"
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return None  # a link of this user's to a file not made yet
    if not stat_module.S_ISREG(info.st_mode):
        return "is not a regular file"
    if not _trusted(info, os.path.realpath(path)):
        return f"belongs to another user (uid {info.st_uid}), who could read or replace it"
    return None


def _trusted(info: os.stat_result, path: str | Path) -> bool:
    """Whether a file's owner is this user or root; or, when this process is root, a user
    who owns the file's folder and every folder above it is theirs or root's and written by
    no one else (root serving or backing up a service user's index in ``/srv/citewise``).
    A folder a user made for themselves in ``/tmp`` or a team folder is not enough: a review
    planted an index in one and root's ingest wrote every tenant's text into it."""
    if info.st_uid in (os.geteuid(), 0):
        return True
    if os.geteuid() != 0:
        return False
    folder = os.path.dirname(os.path.abspath(path)) or "/"
    while True:
        try:
            held = os.stat(folder)
        except OSError:
            return False
        if held.st_uid not in (info.st_uid, 0) or held.st_mode & (stat_module.S_IWGRP
                                                                   | stat_module.S_IWOTH):
            return False
        above = os.path.dirname(folder)
        if above == folder:
            return True
        folder = above


def open_lock(path: str | Path) -> int:
    """A descriptor on the lock file ``path`` (created 0600 if missing), never through a
    symbolic link nor on a file :func:`foreign` refuses (raises :class:`StoreError`
    naming the fix): a planted link made root create any file it names, a planted lock
    held by its planter stopped every write."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_MODE)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        problem: str | None = "is a symbolic link"
    else:
        problem = foreign(path)
        if problem:
            os.close(fd)
    if problem:
        raise StoreError(f"the index's lock file {path} {problem}. Fix: remove it (or have "
                          "its owner do so), or pass a --db in a folder only you may write")
    return fd


def open_private(path: str | Path, *, binary: bool = False, own: bool = True) -> IO:
    """Open ``path`` for writing (truncated) as an owner-only file. A file that exists with a
    wider mode is narrowed to at most 0600. Not through a symlink to a file, nor into a file
    another user owns (:class:`~citewise.errors.ConfigError`; ``own=False``: a lock file, that
    holds nothing, may be another's): a security review planted an empty file in a shared
    folder, and ``citewise log export --out`` there wrote every tenant's questions into a
    file its planter owned and read (a symlink: any file the exporter may write). What is no
    regular file (``/dev/null``, a pipe, ``/dev/stdout``) is written as it is: neither
    truncated nor narrowed (a review's root run set ``/dev/null`` to 0600 for every user);
    but not a pipe another user made (a review's ``mkfifo`` at the ``--out`` path read a
    whole request-log export), and not a pipe with no reader (a planted ``keys.json.lock``
    hung ``keys add``)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
                     PRIVATE_MODE)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ConfigError(f"{path} is a pipe no one reads; not written. Fix: write to a "
                              "new path") from exc
        if not os.path.islink(path):
            raise
        if not _stream(path):
            raise ConfigError(f"{path} is a symbolic link; not written through. Fix: write "
                              "to the file it names, or to a new path") from exc
        try:  # /dev/stdout, /dev/fd/N: a stream, as asked (never waiting for a reader)
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as inner:
            if inner.errno == errno.ENXIO:
                raise ConfigError(f"{path} leads to a pipe no one reads; not written. Fix: "
                                  "write to a new path") from inner
            raise
    try:
        stat = os.fstat(fd)
        if stat_module.S_ISREG(stat.st_mode):
            _narrow(fd, stat, path, own)
        elif stat_module.S_ISFIFO(stat.st_mode) and stat.st_uid != os.geteuid() \
                and not _handed(path):
            raise ConfigError(f"{path} is a pipe another user made, who could read what is "
                              "written; not written. Fix: remove it first, or write to a "
                              "new path")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8")


def _handed(path: str | Path) -> bool:
    """Whether ``path`` names a stream the caller handed in (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``): ``sudo citewise … --out /dev/stdout | less`` writes to the user's
    pipe (the review of this stop)."""
    return str(path).startswith(("/dev/", "/proc/"))


def _stream(path: str | Path) -> bool:
    """Whether the symlink ``path`` leads to something that is no regular file."""
    try:
        return not stat_module.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # dangling: writing would create a file where the link points


def _narrow(fd: int, stat: os.stat_result, path: str | Path, own: bool) -> None:
    """Check a regular file's owner, narrow its mode to 0600 at most, then truncate it (only
    then: another user's file is left as it was)."""
    if own and stat.st_uid != os.geteuid():
        raise ConfigError(f"{path} belongs to another user, who could read what is written; "
                          "not written. Fix: remove it first, or write to a new path")
    mode = stat.st_mode & 0o777
    if mode & ~PRIVATE_MODE:
        os.fchmod(fd, mode & PRIVATE_MODE)
    os.ftruncate(fd, 0)


def write_private_text(path: str | Path, text: str) -> None:
    """``Path.write_text`` for an owner-only file (see :func:`open_private`)."""
    with open_private(path) as fh:
        fh.write(text)


def make_private_dir(path: str | Path) -> None:
    """``mkdir -p`` whose new folders are owner-only (0700)."""
    Path(path).mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
