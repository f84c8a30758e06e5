"""Shared CLI plumbing: the options every command takes, and building an Engine from them.
Environment variables and config files are read here, at the edge, and nowhere else."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import CitewiseError, ConfigError

DEFAULT_DB = "citewise.db"


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--db", "db", default=lambda: os.environ.get("CITEWISE_DB", DEFAULT_DB),
                        show_default=f"$CITEWISE_DB or ./{DEFAULT_DB}",
                        help="Index file (SQLite path).")(f)


def settings_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True),
                     default=None, help="JSON settings file (see `citewise config`).")(f)
    f = click.option("--model", default=None,
                     help="Embedding model: a shipped name or a model folder path.")(f)
    f = click.option("--threads", type=int, default=None,
                     help="Threads for the embedding model (0 = all cores).")(f)
    return f


def load_settings(config_path: str | None = None, **overrides: Any) -> Settings:
    """Settings from an optional JSON file, then CLI overrides as dotted keys
    (``embed.model``); unknown keys are refused with the list of valid ones."""
    data: dict[str, Any] = {}
    if config_path:
        try:
            data = json.loads(Path(config_path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{config_path}: not valid JSON ({exc})") from exc
    for dotted, value in overrides.items():
        if value is None:
            continue
        section, key = dotted.split(".", 1)
        data.setdefault(section, {})[key] = value
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"setting {where}: {first['msg']} (see `citewise config`)") from exc


def require_index(db: str) -> None:
    """Commands that read an index refuse a missing file instead of creating an empty one."""
    text = str(db)
    if "://" in text or text == ":memory:":
        return
    if not Path(text).is_file():
        raise ConfigError(f"no index at {text}: run `citewise ingest PATH --db {text}` first, "
                          "or pass the right --db")


def engine_from(db: str, config_path: str | None = None, model: str | None = None,
                threads: int | None = None, must_exist: bool = False,
                **overrides: Any) -> Engine:
    if must_exist:
        require_index(db)
    settings = load_settings(config_path, **{"embed.model": model, "embed.threads": threads},
                             **overrides)
    models_dir = os.environ.get("CITEWISE_MODELS_DIR")
    if models_dir and settings.generate.models_dir is None:  # env is read here, at the edge
        generate = settings.generate.model_copy(update={"models_dir": models_dir})
        settings = settings.model_copy(update={"generate": generate})
    return Engine(db, settings)


def friendly_errors(f: Callable[..., Any]) -> Callable[..., Any]:
    """Turn citewise errors into a one-line ``Error: …`` and exit status 1 (no traceback)."""
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except CitewiseError as exc:
            raise click.ClickException(" ".join(str(exc).split())) from exc
    return wrapper


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))
