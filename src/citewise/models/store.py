"""Finding pulled models on disk: :func:`resolve` and :func:`list_models`.

A pulled model is ``<models_dir>/<filename>``. Its full sha256 is checked when it is pulled
(:func:`citewise.models.pull.pull`); :func:`resolve` checks the cheap facts on every call (it
exists, it has the pinned size) and the hash too when asked (``verify=True``), so opening a
1 GB model does not cost a full read each time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citewise.embed.models import file_sha256
from citewise.errors import ModelError
from citewise.models.registry import LOCAL_MODELS, LocalModel, default_models_dir, get_model


@dataclass(frozen=True)
class ModelStatus:
    """One row of ``citewise models list``."""

    name: str
    size: int
    installed: bool
    path: str
    description: str


def model_path(model: LocalModel, models_dir: str | Path | None = None) -> Path:
    """Where ``model`` lives once pulled (it may not exist yet)."""
    return Path(models_dir or default_models_dir()).expanduser() / model.filename


def resolve(name_or_path: str | Path, models_dir: str | Path | None = None,
            verify: bool = False) -> Path:
    """The GGUF file for a shipped model name (pulled into ``models_dir``) or a user's path.

    Raises :class:`ModelError` with the fix when the model is not pulled, has the wrong size,
    or (``verify=True``) fails its pinned sha256.
    """
    text = str(name_or_path)
    if text in LOCAL_MODELS:
        return _check_pulled(get_model(text), models_dir, verify)
    path = Path(text).expanduser()
    if path.is_file():
        return path
    raise ModelError(f"{text!r} is neither a shipped model nor an existing file. Fix: check "
                     f"the path, or use one of {sorted(LOCAL_MODELS)} (`citewise models list`).")


def _check_pulled(model: LocalModel, models_dir: str | Path | None, verify: bool) -> Path:
    path = model_path(model, models_dir)
    fix = f"Fix: citewise models pull {model.name}"
    if not path.is_file():
        raise ModelError(f"Model {model.name} is not installed (no {path}). {fix}")
    size = path.stat().st_size
    if size != model.size:
        raise ModelError(f"Model file {path} has {size} bytes, expected {model.size}: it is "
                         f"incomplete or another file. {fix} (it replaces the file).")
    if verify:
        actual = file_sha256(path)
        if actual != model.sha256:
            raise ModelError(f"Model file {path} fails its checksum (sha256 {actual[:16]}…, "
                             f"expected {model.sha256[:16]}…). {fix} (it replaces the file).")
    return path


def is_installed(model: LocalModel, models_dir: str | Path | None = None) -> bool:
    """True when the model is pulled (exists with its pinned size)."""
    try:
        _check_pulled(model, models_dir, verify=False)
    except ModelError:
        return False
    return True


def list_models(models_dir: str | Path | None = None) -> list[ModelStatus]:
    """Every shipped local model, with whether it is pulled into ``models_dir``."""
    return [
        ModelStatus(name=m.name, size=m.size, installed=is_installed(m, models_dir),
                    path=str(model_path(m, models_dir)), description=m.description)
        for m in LOCAL_MODELS.values()
    ]
