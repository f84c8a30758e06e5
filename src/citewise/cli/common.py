"""Shared CLI plumbing: the options every command takes, building an Engine from them, and
printing. Environment variables and config files are read here, at the edge, and nowhere else.

Everything the CLI prints goes through :func:`echo`, which drops what a terminal would obey
instead of show (:func:`terminal_safe`): an index holds text from documents anyone may have
written, and an older index may hold it from before ingest dropped control characters.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import CitewiseError, ConfigError
from citewise.index.location import scrub
from citewise.ingest.normalize import BIDI_CONTROLS, BREAK_CHARS, CONTROL_CHARS
from citewise.text import json_problem

DEFAULT_DB = "citewise.db"
# The bidirectional embeddings, overrides and isolates that make a terminal show text in
# another order than it is ("Trojan Source"); ingest drops them too, an older index holds them.
_BIDI = BIDI_CONTROLS
# Control characters (ingest's, line breaks included) and bidi controls.
_UNSAFE = re.compile(f"[{CONTROL_CHARS}{BREAK_CHARS}{_BIDI}]")
# In JSON: the same characters written as \uXXXX escapes (json escapes C0 itself).
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}]")


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """``text`` without control characters (ESC, BEL, CR, C1, bidi overrides); with
    ``one_line``, a line break shows as ``\\n``, so a file name cannot forge a report line."""
    if one_line:
        text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
    return _UNSAFE.sub("", text)


def echo(message: object = "", *, err: bool = False, nl: bool = True,
         one_line: bool = False) -> None:
    """``click.echo`` of :func:`terminal_safe` text: the one way the CLI prints."""
    click.echo(terminal_safe(str(message), one_line=one_line), err=err, nl=nl)


def default_db() -> str:
    """The index file a command uses without ``--db``."""
    return os.environ.get("CITEWISE_DB", DEFAULT_DB)


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--db", "db", default=default_db,
                        show_default=f"$CITEWISE_DB or ./{DEFAULT_DB}",
                        help="Index: a SQLite file path, or a postgresql:// URL.")(f)


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
    data = read_config(config_path) if config_path else {}
    for dotted, value in overrides.items():
        if value is None:
            continue
        section, key = dotted.split(".", 1)
        if not isinstance(data.get(section, {}), dict):
            raise ConfigError(f"{config_path}: setting {section!r} must be an object like "
                              f"{{\"{key}\": ...}}; fix the file (see `citewise config`)")
        data.setdefault(section, {})[key] = value
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"setting {where}: {first['msg']} (see `citewise config`)") from exc


MAX_CONFIG_BYTES = 1024 * 1024
MAX_CONFIG_DEPTH = 16  # the settings tree is 3 levels deep


def read_config(config_path: str) -> dict[str, Any]:
    """The JSON object in a ``--config`` file, or a one-line :class:`ConfigError` (unreadable,
    not UTF-8, not JSON, nested absurdly deep, or not an object)."""
    path = Path(config_path)
    try:
        raw = path.read_bytes()[:MAX_CONFIG_BYTES + 1]
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read it ({exc.strerror or exc}); check the "
                          "--config path") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{config_path}: over {MAX_CONFIG_BYTES // 1024} KiB, not a settings "
                          "file; pass the JSON settings file (see `citewise config`)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{config_path}: invalid UTF-8 at byte {exc.start}; save the file "
                          "as UTF-8 JSON (see `citewise config`)") from None
    try:
        data = json.loads(text)
    except ValueError as exc:  # a 5,000-digit number too (not a JSONDecodeError)
        raise ConfigError(f"{config_path}: not valid JSON ({json_problem(exc)}); see "
                          "`citewise config` for the format") from None
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or json_depth(data) > MAX_CONFIG_DEPTH:
        raise ConfigError(f"{config_path}: nested more than {MAX_CONFIG_DEPTH} levels deep, "
                          "not a settings file; see `citewise config` for the format")
    if not isinstance(data, dict):
        raise ConfigError(f"{config_path}: must hold a JSON object like {{\"embed\": "
                          f"{{...}}}}, not a {type(data).__name__}; see `citewise config`")
    return data


_TOO_DEEP = object()  # a settings file Python's parser could not even read


def json_depth(value: Any) -> int:
    """How deeply lists/objects nest in a parsed JSON value (iterative, any depth)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return deepest


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
            said = str(exc)
            for value in kwargs.values():  # a --db URL's password, however libpq quoted it
                if isinstance(value, str) and "://" in value:
                    said = scrub(said, value)
            raise click.ClickException(terminal_safe(" ".join(said.split()))) from exc
    return wrapper


def echo_json(value: Any) -> None:
    """``value`` as JSON; characters a terminal obeys are \\u-escaped (JSON escapes C0)."""
    click.echo(safe_json(value, indent=2))


def safe_json(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON with the characters a terminal obeys (C1 controls such as the 8-bit
    CSI, bidi overrides) \\u-escaped, for whatever the CLI prints or exports: a reader's query
    put raw U+009B and U+202E into an admin's terminal through `citewise log export`."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _choice_named(command: click.Command, name: str) -> str | None:
    """``--generator extractive`` for ``--extractive``: the option one of whose values the
    unknown option ``name`` names (a new user's guess, answered with a hint to put the
    question after ``--``)."""
    value = name.lstrip("-")
    for param in command.params:
        if (isinstance(param, click.Option) and isinstance(param.type, click.Choice)
                and value in param.type.choices and param.opts):
            return f"{max(param.opts, key=len)} {value}"
    return None


PERSON_OPTIONS = frozenset({"user", "username", "principal", "as", "who", "persona",
                            "person", "role"})
"""Options a new user guesses to ask as someone (two new users' ``--user bob`` was told to
ask for the text "--user")."""


class TextCommand(click.Command):
    """A command whose first argument is free text: text that looks like an option ("--mirror",
    a new user's search for wget's option) is refused by click with "No such option"; the
    message says how to pass it as text."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # click's parser consumes ``args``
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if choice := _choice_named(self, exc.option_name or ""):
                exc.message += f" Did you mean {choice}?"
            elif (exc.option_name or "").lstrip("-").lower() in PERSON_OPTIONS and \
                    any(p.name == "groups" for p in self.params):
                exc.message += (" A user is who they may read as: their --tenant and "
                                "--groups (e.g. --tenant acme --groups staff,hr); the HTTP "
                                "API's keys name users (`citewise keys add NAME`).")
            elif not exc.possibilities:  # not a misspelt option
                name = exc.option_name or ""  # the whole text, not click's "-k" of "-k 2,2n"
                text = next((a for a in given if name and a.startswith(name)), name)
                rest = [a for a in given if a != text] if text in given else ["--db", "DB"]
                exc.message += (f" (to {self.name} for text that starts with '-', give the "
                                f"options first, then -- and the text: citewise {self.name} "
                                f"{shlex.join([*rest, '--', text])})")
            raise
