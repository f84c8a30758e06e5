"""Sidecar metadata: a JSONL file that sets owner, groups, tenant, … for ingested files.

Each non-blank line is one JSON object with ``path`` (relative to the ingest root or to the
current directory, POSIX separators, exact case; a folder's path gives every file under it
the line's metadata, a file's own line winning) or ``doc_id`` (matched after front matter is
read), plus any metadata keys (normalised like front matter, see
:mod:`citewise.ingest.metadata`). Sidecar values are meant to override what the file
itself says. Example line::

    {"path": "compensation-bands.md", "groups": ["hr"], "owner": "people-ops@example.com"}

Which lines matched which files is :class:`SidecarMatch`'s: every line must match exactly
one document.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from citewise.errors import IngestError
from citewise.ingest.metadata import check_depth, normalize_metadata
from citewise.ingest.normalize import one_line
from citewise.ingest.precedence import ACL_KEYS
from citewise.text import json_problem


class Sidecar(dict[str, dict[str, Any]]):
    """``{path or doc_id: metadata}`` plus where each entry came from: ``lines`` (key -> line
    number), ``kinds`` (key -> ``"path"`` or ``"doc_id"``) and ``name`` (the file's name), so
    lines that match no document can be reported by number."""

    def __init__(self, name: str = "sidecar") -> None:
        super().__init__()
        self.name = name
        self.lines: dict[str, int] = {}
        self.kinds: dict[str, str] = {}


def read_sidecar(path: Path) -> Sidecar:
    """Read a JSONL sidecar into ``{path or doc_id: normalised metadata}``.

    The key is the entry's ``path`` (normalised: ``./`` dropped, POSIX separators) when it
    has one, else its ``doc_id``; ``path`` itself is not repeated in the value, ``doc_id``
    is. Raises :class:`IngestError` naming the file and line for any bad line.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(
            f"cannot read sidecar {path}: {one_line(exc.strerror or exc)}; "
            "check the --meta path", path=str(path)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"{path.name}: invalid UTF-8 at byte {exc.start}; re-save the file as UTF-8",
            path=str(path)) from None
    entries = Sidecar(path.name)
    first_line = entries.lines
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        key, meta, kind = _parse_line(line, where, path)
        if key in entries:
            raise IngestError(
                f"{where}: duplicate entry for {key!r} (first on line {first_line[key]}); "
                "merge the two lines", path=str(path))
        entries[key], first_line[key], entries.kinds[key] = meta, number, kind
    return entries


def _parse_line(line: str, where: str, path: Path) -> tuple[str, dict[str, Any], str]:
    try:
        obj = json.loads(line)
    except ValueError as exc:  # a 5,000-digit number too (not a JSONDecodeError)
        raise IngestError(f"{where}: not valid JSON: {json_problem(exc)}; write one JSON "
                          "object per line", path=str(path)) from None
    except RecursionError:
        raise IngestError(f"{where}: JSON nested too deeply; write flat values like "
                          "\"groups\": [\"hr\"]", path=str(path)) from None
    if not isinstance(obj, dict):
        raise IngestError(
            f"{where}: expected a JSON object like {{\"path\": ..., \"groups\": [...]}}, "
            f"got {type(obj).__name__}", path=str(path))
    rel = obj.pop("path", None)
    try:
        check_depth(obj)
        meta = normalize_metadata(obj, access_keys=True)
    except IngestError as exc:
        raise IngestError(f"{where}: {exc}", path=str(path)) from None
    if rel is not None:
        return _relative_key(rel, where, path), meta, "path"
    if meta.get("doc_id"):
        return str(meta["doc_id"]), meta, "doc_id"
    raise IngestError(
        f"{where}: no \"path\" or \"doc_id\"; add one to say which document it describes",
        path=str(path))


def _relative_key(rel: Any, where: str, path: Path) -> str:
    if not isinstance(rel, str) or not rel.strip():
        raise IngestError(f"{where}: \"path\" must be a non-empty string", path=str(path))
    posix = PurePosixPath(rel.strip().replace("\\", "/"))
    if posix.is_absolute() or ".." in posix.parts:
        raise IngestError(
            f"{where}: \"path\" {rel!r} must be relative to the ingest root, "
            "without '..'", path=str(path))
    return posix.as_posix()


_PATTERN = re.compile(r"[*?\[]")


class SidecarMatch:
    """Which sidecar lines matched which files: every line must match exactly one document.
    Path lines are matched when the files are listed, ``doc_id`` lines once each document's
    final id is known (after its front matter): :meth:`problems` takes those ids."""

    def __init__(self, sidecar: Mapping[str, Mapping[str, Any]]) -> None:
        self.kinds: Mapping[str, str] = getattr(sidecar, "kinds", {})
        self.lines: Mapping[str, int] = getattr(sidecar, "lines", {})
        self.name: str = getattr(sidecar, "name", "the sidecar")
        self.by_path = {k: dict(v) for k, v in sidecar.items()
                        if self.kinds.get(k, "path") == "path"}
        self.by_doc_id = {k: dict(v) for k, v in sidecar.items()
                          if self.kinds.get(k, "doc_id") == "doc_id"}
        self.path_hits: dict[str, int] = {}
        self.folder_hits: dict[str, int] = {}  # files matched by a line naming their folder

    def for_file(self, rel: str, from_cwd: str, others: Sequence[str] = ()) -> dict[str, Any]:
        """The sidecar lines naming a file by its path from the current folder, from other
        roots of the ingest that hold it (``others``) or from its root (which wins), after
        the lines naming a folder it is in (:meth:`_keys`)."""
        side: dict[str, Any] = {}
        for key, folder in self._keys((from_cwd, *others, rel)):
            hits = self.folder_hits if folder else self.path_hits
            hits[key] = hits.get(key, 0) + 1
            side.update(self.by_path[key])
        return side

    def _keys(self, paths: Sequence[str]) -> list[tuple[str, bool]]:
        """The lines that apply to a file known by ``paths``, in the order they apply:
        lines naming a folder it is in (``{"path": "development/", "groups": [...]}``:
        a new user wrote 23 lines, one per page, to restrict one folder), outer folders
        first (by the parts between the folder and the file, not by the line's own path,
        which may be from the current folder: a review's ``site/book`` line outranked the
        ``dev`` inside it), then the lines naming the file itself, which win. The same
        order every run (a set's order, by string hashes, gave a review's file to staff in
        three runs of six)."""
        paths = list(dict.fromkeys(paths))
        found: dict[str, tuple[int, int]] = {}  # folder line -> (parts below it, path's place)
        for place, path in enumerate(paths):
            parts = path.split("/")
            for n in range(1, len(parts)):
                folder = "/".join(parts[:n])
                if folder in self.by_path:  # how deep a folder is: the parts between it and
                    found.setdefault(folder, (len(parts) - n, place))  # the file, whatever
        folders = sorted(found, key=lambda f: (-found[f][0], found[f][1]))  # the path's root
        return [(f, True) for f in folders] + [(p, False) for p in paths if p in self.by_path]

    def readers(self, rel: str, from_cwd: str, others: Sequence[str], doc_id: str) -> str:
        """Who the sidecar lets read the file (its tenant and groups, as a key; "" when no
        line names them), without counting the lines as matched."""
        side: dict[str, Any] = {}
        for key, _ in self._keys((from_cwd, *others, rel)):
            side.update(self.by_path[key])
        side.update(self.by_doc_id.get(str(side.get("doc_id") or doc_id)) or {})
        acl = {k: side[k] for k in ACL_KEYS if k in side}
        return json.dumps(acl, sort_keys=True, default=str) if acl else ""

    def _where(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.name} line {line}" if line else f"{self.name} entry"

    def path_problems(self, elsewhere: Callable[[str], bool] = lambda key: False) -> list[str]:
        """Path lines that matched no file, or several (known before anything is loaded);
        not one that names a file this ingest does not read (``elsewhere``: a new user's
        ``ingest docs/tls.md --meta all.jsonl`` was told to "correct" the line of
        crypto.md; its metadata applies when that file is ingested)."""
        out = []
        for key in self.by_path:
            if self.kinds.get(key) != "path":
                continue  # a plain mapping's key may also be a doc_id: see problems()
            hits = self.path_hits.get(key, 0)
            if hits != 1 and not (hits == 0 and (self.folder_hits.get(key) or elsewhere(key))):
                out.append(self._problem(key, "path", hits))
        return out

    def lost_acl(self, exists: Callable[[str], bool]) -> list[str]:
        """Path lines that set who may read (groups, tenant), matched no file of the batch
        and name no file that ``exists`` elsewhere (one this ingest does not take, or
        leaves out): the documents they meant to restrict would take the batch's readers
        (a new user's sidecar, in a form that matched nothing, left 14 restricted pages to
        everyone)."""
        return [self._problem(key, "path", 0) for key in self.by_path
                if self.kinds.get(key) == "path" and not self.path_hits.get(key)
                and not self.folder_hits.get(key)
                and any(k in self.by_path[key] for k in ACL_KEYS) and not exists(key)]

    def floating_acl(self) -> list[str]:
        """``doc_id`` lines (and a plain mapping's keys no path matched) that set who may
        read: the ones :meth:`lost_doc_acl` checks."""
        return [key for key in self.by_doc_id if self.kinds.get(key) in ("doc_id", None)
                and not self.path_hits.get(key) and not self.folder_hits.get(key)
                and any(k in self.by_doc_id[key] for k in ACL_KEYS)]

    def lost_doc_acl(self, known: Callable[[str], bool]) -> list[str]:
        """:meth:`floating_acl` lines whose id is not ``known`` (no document of the batch,
        from its path, the sidecar or its front matter, nor one already indexed): the
        document they meant to restrict would take the batch's readers. A line
        ``{"doc_id": "hr-handbook", "groups": ["hr"]}`` for ``hr.md`` was a warning after
        the ingest had given it to staff (left open at stop 52)."""
        return [self._problem(key, self.kinds.get(key) or "path or doc_id", 0)
                for key in self.floating_acl() if not known(key)]

    def problems(self, doc_ids: Sequence[str],
                 elsewhere: Callable[[str], bool] = lambda key: False) -> list[str]:
        """Every line that matched no document or several, given the documents' final ids
        (a key of a plain mapping, without line kinds, may match either way); not a path
        line naming a file this ingest does not read (``elsewhere``: :meth:`path_problems`)."""
        counts = Counter(doc_ids)
        out = []
        for key in dict.fromkeys([*self.by_path, *self.by_doc_id]):
            kind = self.kinds.get(key)
            as_path = self.path_hits.get(key, 0)
            hits = {"path": as_path, "doc_id": counts.get(key, 0)}.get(
                kind or "", max(as_path, counts.get(key, 0)))
            if hits != 1 and not (hits == 0 and (self.folder_hits.get(key) or (
                    kind == "path" and elsewhere(key)))):
                out.append(self._problem(key, kind or "path or doc_id", hits))
        return out

    def _problem(self, key: str, kind: str, hits: int) -> str:
        if hits:
            return (f"{self._where(key)}: {kind} {key!r} matches {hits} documents; its metadata "
                    "went to each. Fix: give one doc_id per line")
        how = {"path": "relative to the ingest root, the current directory or the common "
                       "parent of folders named together, exact case",
               "doc_id": "a doc_id, from front matter, the sidecar or the file path"}.get(
                   kind, "exact case")
        fix = ("correct the line" if not _PATTERN.search(key) else "name one file or folder "
               "per line (a line is no pattern: {\"path\": \"dir/\"} gives every file under "
               "dir its metadata)")  # a new user's "unstable-book/*"
        return (f"{self._where(key)}: {kind} {key!r} matches no document ({how}); its metadata "
                f"(groups, tenant, ...) was NOT applied. Fix: {fix}")
