"""Which files an ingest reads: a folder's supported files, walked once.

Hidden entries are skipped; symlinks that lead outside the folder are skipped with a note
unless ``follow_symlinks``, and symlinks to files or folders inside it that the walk reads
at their own paths always are (with their own readers and excludes: a new user of Exim's manual,
whose ``ch33.html`` links to a chapter restricted by the sidecar, followed the note's advice
to pass ``--follow-symlinks``, and the chapter was indexed again as ``ch33.html`` with the
readers of the folder the link sits in); folders deeper than :data:`MAX_DEPTH`, pipes,
sockets and devices, names that are not UTF-8 and unreadable folders get a note each;
``--exclude`` globs leave out files and subfolders (:func:`excluded`). A file named on its
own is its own entry.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from citewise.errors import ConfigError
from citewise.ingest.doc_names import is_named_licence, is_requirements
from citewise.ingest.registry import is_supported
from citewise.text import first_few

TEMPLATE_DIRS = frozenset({"_templates", "_themes"})
"""Folders of a Sphinx source tree that hold its theme's Jinja templates: a new user's
requests docs had ``_templates/sidebarintro.html`` cited as "Useful Links" for which
packages are recommended. Named on its own, such a folder is read."""


def discover(paths: Sequence[str | Path], *, follow_symlinks: bool = False,
             notes: list[str] | None = None,
             skipped: list[Path] | None = None,
             exclude: Sequence[str] = ()) -> list[tuple[Path, Path]]:
    """``(root, file)`` pairs: a directory yields its supported files (recursively, hidden
    ones skipped, sorted); a file is its own entry with its parent as root. A symlink in a
    directory that leads outside it is skipped, with a line in ``notes``, unless
    ``follow_symlinks`` (symlinked folders are then walked too, each real folder once).
    Files of a directory with an unsupported suffix are appended to ``skipped`` (when given).
    ``exclude``: glob patterns (:func:`excluded`); a folder's files and subfolders that match
    are not walked (a note counts them)."""
    found: list[tuple[Path, Path]] = []
    left: list[Path] = []
    aliases: list[tuple[Path, Path, bool]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend((path, f) for f in sorted(_walk(path, follow_symlinks, notes,
                                                          skipped, exclude, left, aliases)))
        elif path.is_file():
            if (shown := _not_utf8(path)) is not None:  # its id could not be stored
                raise ConfigError(f"{shown}: its name is not valid UTF-8. Fix: `mv` it to a "
                                  "name in UTF-8")
            found.append((path.parent, path))
        elif path.exists():  # a FIFO, socket or device: reading it could block for ever
            raise ConfigError(f"{raw}: not a regular file or folder (a pipe, socket or "
                              "device); give the files or folders to index")
        else:
            raise ConfigError(f"{raw}: no such file or directory; check the path")
    if left and notes is not None:
        notes.append(f"--exclude left out {len(left)} file(s) and folder(s): "
                     + first_few([str(p) for p in left], more=", …"))
    if notes is not None:
        notes.extend(_alias_notes(aliases))
    return found


def _alias_notes(aliases: Sequence[tuple[Path, Path, bool]]) -> list[str]:
    """The notes on symlinks to files inside the folder: those whose file the walk reads at
    its own path, and those whose file it leaves out (in a hidden folder, under an
    ``--exclude``, or of a type not read): a review's ``CONTRIBUTING.md ->
    .github/CONTRIBUTING.md`` was said to be read at its own path, and was read nowhere."""
    read = [(a, t) for a, t, walked in aliases if walked]
    unread = [(a, t) for a, t, walked in aliases if not walked]
    out = []
    if read:
        out.append(f"skipped {len(read)} symlink(s) to files inside the folder, each file "
                   f"read at its own path with its own readers (e.g. {read[0][0]} -> "
                   f"{read[0][1]})")
    if unread:
        out.append(f"skipped {len(unread)} symlink(s) to files inside the folder that this "
                   "ingest leaves out (hidden, --exclude'd or of a type not read), so they "
                   f"are not indexed (e.g. {unread[0][0]} -> {unread[0][1]}). Fix: name such "
                   "a file on its own to index it, with the readers of its own folder")
    return out


def _walked(rel: Path, exclude: Sequence[str], *, folder: bool = False) -> bool:
    """Whether the walk reads the file (or walks the ``folder``) at ``rel``, relative to
    the folder ingested: no hidden part nor theme template folder on its way, no
    ``--exclude`` glob matches, a type it reads. With ``--follow-symlinks`` a link to what
    it leaves out is followed (a review's ``latest -> .versions/3.2``)."""
    parts = rel.parts
    if not parts:
        return True  # the folder itself
    ways = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]  # each folder on its way
    return not any(p.startswith(".") or p in TEMPLATE_DIRS for p in parts) and \
        not any(excluded(w, exclude) for w in ways) and (folder or is_supported(rel))


def excluded(rel: str, patterns: Sequence[str]) -> bool:
    """Whether the path ``rel`` (relative to the folder ingested, ``/``-separated) matches a
    glob of ``patterns``: the whole path (``es/*``, ``*/legacy/*.html``) or its last part
    (``es``, ``*.txt``). Rust by Example ships its translations as ``es/``, ``ja/``, ``ko/``
    and ``zh/`` beside the English pages: ``--exclude es --exclude ja …`` leaves them out."""
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p.strip("/")) or fnmatch.fnmatchcase(name, p.strip("/"))
               for p in patterns)


MAX_DEPTH = 128
"""Deepest folder a walk enters: a security review's chain of 2,100 folders held an ingest
past 2 minutes (each folder's path resolved again, one ``lstat`` a level)."""


def _walk(root: Path, follow: bool, notes: list[str] | None,
          skipped: list[Path] | None = None, exclude: Sequence[str] = (),
          left: list[Path] | None = None,
          aliases: list[tuple[Path, Path, bool]] | None = None) -> Iterator[Path]:
    real_root = root.resolve()
    seen = {_key(root.stat())}  # folders walked, by (device, inode)
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            if notes is not None:
                notes.append(f"{folder}: cannot list it ({exc.strerror or exc}); skipped")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if (shown := _not_utf8(path)) is not None:  # a review's name with byte 0xff
                if notes is not None:  # failed with a UnicodeEncodeError, no fix
                    notes.append(f"{shown}: its name is not valid UTF-8; skipped. Fix: `mv` it "
                                 "to a name in UTF-8")
                continue
            if exclude and excluded(path.relative_to(root).as_posix(), exclude):
                if left is not None:
                    left.append(path)
                continue
            try:  # a symlink loop or a dangling link: its own note, not a crash of the walk
                is_dir, is_file = entry.is_dir(), entry.is_file()
                target = path.resolve(strict=True) if entry.is_symlink() else None
                key = _key(entry.stat()) if is_dir else None  # (a folder it may not enter)
            except (OSError, RuntimeError) as exc:
                if notes is not None:
                    why = getattr(exc, "strerror", None) or "a symlink loop"
                    notes.append(f"{path}: cannot read it ({why}); skipped")
                continue
            if target is not None:
                inside = target == real_root or real_root in target.parents
                walked = inside and _walked(target.relative_to(real_root), exclude,
                                            folder=is_dir)
                if inside and is_file and (walked or not follow):  # a security review's
                    if aliases is not None:  # pub/notes.md -> ../hr/salary.md took pub/'s
                        aliases.append((path, target, walked))  # readers
                    continue
                if not inside and not follow:
                    if not is_dir and not is_supported(path):  # not read either way
                        if skipped is not None and is_file:
                            skipped.append(path)
                        continue
                    if notes is not None:
                        notes.append(f"{path}: a symlink to {target}, outside {root}; skipped. "
                                     "Fix: pass --follow-symlinks to index it")
                    continue
                if is_dir and (key in seen or (inside and (walked or not follow))):
                    continue  # a cycle, or a folder the walk reaches at its own path
            if is_dir and entry.name in TEMPLATE_DIRS:
                if notes is not None:
                    notes.append(f"{path}: a Sphinx theme's templates, not documentation; "
                                 "skipped. Fix: ingest the folder itself to index it")
                continue
            if is_dir and depth + 1 > MAX_DEPTH:
                if notes is not None:
                    notes.append(f"{path}: more than {MAX_DEPTH} folders deep; skipped")
                continue
            if is_dir and key is not None:
                seen.add(key)
                stack.append((path, depth + 1))
            elif is_file and is_supported(path) and not is_named_licence(entry.name) \
                    and not is_requirements(entry.name):
                yield path  # a font's OPEN-SANS-LICENSE.txt is no document (stop 51 said
                # so, but only the skipped-files message left it out: it was still read)
            elif is_file and skipped is not None:
                skipped.append(path)
            elif not is_dir and not is_file and notes is not None:
                notes.append(f"{path}: not a regular file (a pipe, socket or device); skipped")


def _key(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _not_utf8(path: Path) -> str | None:
    """``path`` shown with its bytes as ``\\xNN`` when its name (undecodable bytes come from
    the OS as surrogates) is not valid UTF-8, else None."""
    try:
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return None
