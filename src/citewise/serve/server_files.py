"""What an API request may name of the server's own files: an operator's ``POST
/v1/versions/reindex`` takes an eval set (``questions``, ``personas``) only from the folder
``serve.eval_dir``, and an embedder only by a shipped model's name.

A security review's operator key sent ``{"questions": "/etc/shadow"}`` and was answered
"shadow line 1: not valid JSON…" (the server ran as root), and "No such file or directory"
for a missing one: whether any file on the server exists, is readable and is JSON. A folder
or ``.onnx`` file as the embedder is read the same way. An operator of the index is not an
administrator of the machine; one who is sets these in the server's ``--config`` or runs
``citewise reindex`` there.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from citewise.config import Settings
from citewise.embed.models import SHIPPED_MODELS
from citewise.errors import ConfigError

EVAL_FILES = ("questions", "personas")


def reindex_arguments(settings: Settings, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a reindex request's fields) with its eval set's paths resolved inside
    ``serve.eval_dir``; a :class:`ConfigError` for a path outside it (or any path when it
    is unset) and for an embedder that is no shipped model's name."""
    embedder = body.get("embedder")
    if embedder is not None and embedder not in SHIPPED_MODELS:
        raise ConfigError(f"embedder {str(embedder)[:80]!r} is no shipped model name "
                          f"({', '.join(SHIPPED_MODELS)}). Fix: name one, or set embed.model "
                          "to a model folder in the server's --config and reindex with it")
    out = dict(body)
    for key in EVAL_FILES:
        if body.get(key):
            out[key] = str(in_eval_dir(settings.serve.eval_dir, key, str(body[key])))
    return out


def in_eval_dir(eval_dir: str | None, key: str, name: str) -> Path:
    """``name``, a path relative to ``eval_dir``, as a path inside it (symlinks resolved)."""
    if eval_dir is None:
        raise ConfigError(f"{key}: this server reads no eval set through the API "
                          "(serve.eval_dir is unset). Fix: set serve.eval_dir in the server's "
                          "--config and put the set there, or run `citewise reindex "
                          "--questions FILE` on the server")
    root = Path(eval_dir).expanduser().resolve()
    path = (root / name).resolve()
    if PurePath(name).is_absolute() or ".." in PurePath(name).parts \
            or not path.is_relative_to(root):
        raise ConfigError(f"{key}: {name[:80]!r} is no file of serve.eval_dir. Fix: name "
                          "the set by its path inside that folder (`ninja.jsonl`)")
    return path
