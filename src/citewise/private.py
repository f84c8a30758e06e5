"""Files that may hold document text (index, WAL, version files, eval outputs) are created
owner-only: mode 0600, narrowed further by the umask, never widened by it.

SQLite creates an index's ``-wal``/``-shm`` files with the mode of the database file, so
creating the database file 0600 before SQLite opens it covers all three.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

PRIVATE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def create_private(path: str | Path) -> None:
    """Create ``path`` as an empty owner-only file if it does not exist (an existing file
    keeps its mode: the operator may have chosen it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def open_private(path: str | Path, *, binary: bool = False) -> IO:
    """Open ``path`` for writing (truncated) as an owner-only file. A file that exists with a
    wider mode is narrowed to at most 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_MODE)
    try:
        mode = os.fstat(fd).st_mode & 0o777
        if mode & ~PRIVATE_MODE:
            os.fchmod(fd, mode & PRIVATE_MODE)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8")


def write_private_text(path: str | Path, text: str) -> None:
    """``Path.write_text`` for an owner-only file (see :func:`open_private`)."""
    with open_private(path) as fh:
        fh.write(text)


def make_private_dir(path: str | Path) -> None:
    """``mkdir -p`` whose new folders are owner-only (0700)."""
    Path(path).mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
