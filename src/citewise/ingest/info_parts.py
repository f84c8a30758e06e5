"""Split GNU Info manuals: one document read from the index file and its parts.

``makeinfo`` splits a large manual: ``find.info`` holds the preamble, an ``Indirect:`` table
naming ``find.info-1`` and ``find.info-2`` and the tag table; the nodes are in the parts.
Read as three documents, a new user's ``ingest find.info.gz --groups ops`` indexed only the
copyright lines (exit 0, no warning), and with the parts named too, a sidecar line for
``find.info.gz`` restricted only the header: the parts took the batch's groups and every
staff member was quoted the restricted manual. So the manual is one document: its index
file is read with its parts (:func:`indirect_parts`, :func:`join_parts`; the reading is
:func:`citewise.ingest.registry.load_file`'s), and a folder walk or a named path leaves a
part out when its index file is beside it (:func:`manual_of`). A part's name must be the
index file's name and ``-N`` (an ``Indirect:`` table is the file's own text: it names no
other file).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from citewise.text import first_few

_INDIRECT = re.compile(rb"\x1f\r?\nIndirect:\r?\n((?:[^\x1f\n]{1,300}: \d{1,12}\r?\n){1,1000})")
_PART_LINE = re.compile(rb"([^\x1f\n:]{1,255}): \d{1,12}")
PART_SUFFIX = re.compile(r"\.info-\d{1,4}")
"""The suffix of a part of a split manual (``.info-2``)."""


def indirect_parts(text: bytes) -> list[str]:
    """The part names an Info index file's ``Indirect:`` table lists, in order; ``[]`` for
    a manual that is not split (or a part)."""
    table = _INDIRECT.search(text)
    if table is None:
        return []
    return [m.group(1).decode("utf-8", "replace").strip()
            for m in _PART_LINE.finditer(table.group(1))]


def is_part_name(manual: str, name: str) -> bool:
    """Whether ``name`` is a part of the manual whose index file is named ``manual``
    (``find.info`` -> ``find.info-1``); never a path."""
    return re.fullmatch(re.escape(manual) + r"-\d{1,4}", name) is not None


def join_parts(index: bytes, parts: list[bytes]) -> bytes:
    """The index file's bytes, then each part's nodes (its own preamble, the copyright
    lines each part repeats, left out)."""
    return index + b"".join(part[part.find(b"\x1f"):] for part in parts if b"\x1f" in part)


def listed_parts(manual: Path, max_bytes: int = 1 << 20) -> set[str]:
    """The part names ``manual``'s ``Indirect:`` table lists, read from at most the first
    ``max_bytes`` of the file (gzipped or not: the table follows the preamble); an empty set
    when it cannot be read or lists none."""
    import gzip

    try:
        with (gzip.open(manual, "rb") if manual.name.lower().endswith(".gz")
              else manual.open("rb")) as handle:
            return set(indirect_parts(handle.read(max_bytes)))
    except (OSError, EOFError, ValueError):
        return set()


def manual_of(path: Path) -> Path | None:
    """The index file beside ``path`` when ``path`` is a part of a split manual
    (``find.info-1.gz`` -> ``find.info.gz`` or ``find.info``); None otherwise."""
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    suffix = Path(name).suffix
    if not PART_SUFFIX.fullmatch(suffix):
        return None
    manual = name[: len(name) - len(suffix)] + suffix.split("-", 1)[0]
    for candidate in (path.with_name(manual), path.with_name(manual + ".gz")):
        if candidate.is_file():
            return candidate
    return None


def changed_at(path: Path) -> float:
    """When ``path`` last changed (its mtime); for a split Info manual's index file, the
    latest of it and the parts it lists (a new user edited only ``gnupg.info-2.gz``: the
    manual's new version kept the index file's older date)."""
    times = [path.stat().st_mtime]
    if ".info" in path.name:
        own = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        for name in (n for n in listed_parts(path) if is_part_name(own, n)):
            for part in (path.with_name(name), path.with_name(name + ".gz")):
                if part.is_file():
                    times.append(part.stat().st_mtime)
    return max(times)


def without_info_parts(found: list[tuple[Path, Path]], prefixes: Mapping[Path, str],
                       notes: list[str] | None
                       ) -> tuple[list[tuple[Path, Path]], list[tuple[str, str]],
                                  dict[str, Path]]:
    """``(found less the parts of split Info manuals whose index file is beside them, the
    parts a manual of the batch reads as (part id, manual id), each such part's file)``:
    ``found`` is a folder walk's (root, path) pairs, ``prefixes`` each root's id prefix. A
    part named without its manual (alone, or its manual excluded) is
    left out with a note: read as a document of its own, it took the batch's readers, and
    a new user's ``ingest gnupg.info-2.gz --groups eng`` (re-reading the one part that
    changed) opened a part of the crypto-only GnuPG manual to eng. A part with no manual
    beside it is read as a document of its own, as before."""
    ids = {path.resolve(): prefixes[root] + path.relative_to(root).as_posix()
           for root, path in found}
    listed: dict[Path, set[str]] = {}  # each manual's table, read once
    kept, alone, parts = [], [], []
    part_files: dict[str, Path] = {}
    for root, path in found:
        manual = manual_of(path) if ".info-" in path.name else None
        manual_id = ids.get(manual.resolve()) if manual is not None else None
        bare = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        if manual is not None and manual not in listed:
            listed[manual] = listed_parts(manual)
        if manual is None or bare not in listed[manual]:  # a file the manual does not
            kept.append((root, path))  # list is no part of it (the second review)
        elif manual_id is None:
            alone.append(f"{path.name} (of {manual.name})")
        else:
            parts.append((ids[path.resolve()], manual_id))
            part_files[ids[path.resolve()]] = path.resolve()
    if alone and notes is not None:
        notes.append(f"left out {len(alone)} part(s) of split Info manuals ingested without "
                     f"their manual: {', '.join(alone[:3])}{', …' if len(alone) > 3 else ''}"
                     "; the manual reads its parts, with its own readers. Fix: ingest the "
                     "manual's file (or its folder)")
    if parts and notes is not None:
        shown = first_few([f"{p} (in {m})" for p, m in parts], more=", …")
        notes.append(f"{len(parts)} part(s) of split Info manuals are read with the manual "
                     f"that lists them, not as documents of their own: {shown}")
    return kept, parts, part_files
