"""Every hint names something that exists (issue 12): each backticked `citewise ...` command
in the source (errors, notes, docstrings) must parse in the real click tree: its subcommands
exist and its options belong to that command; every --option a "Fix:" text names must be an
option of some citewise command (another tool's options excepted: inside its own backticked
command, or pip's where pip is named)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from citewise.cli.main import cli

SRC = Path(__file__).resolve().parents[2] / "src" / "citewise"
BACKTICKED = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
#: Options of other tools a hint may name (after "pip").
PIP_OPTIONS = {"--no-deps", "--force-reinstall", "--quiet", "--yes", "--upgrade", "--user"}


def strings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string literal of ``path`` with its line; an f-string's fields become ``{}``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside_fstring = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
                      for v in n.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            yield node.lineno, text
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in inside_fstring):
            yield node.lineno, node.value


def all_texts() -> list[tuple[str, str]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        for line, text in strings(path):
            out.append((f"{path.relative_to(SRC.parent)}:{line}", " ".join(text.split())))
    return out


TEXTS = all_texts()


def command_options(command: click.Command) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        names.update(param.opts)
        names.update(param.secondary_opts)
    return names


def every_option(group: click.Group = cli) -> set[str]:
    names = command_options(group)
    for command in group.commands.values():
        names |= every_option(command) if isinstance(command, click.Group) else \
            command_options(command)
    return names


def check_command(text: str) -> str | None:
    """Why ``text`` (``citewise ...``) does not name a real command and options, else None."""
    tokens = text.replace("…", " ").replace("...", " ").split()[1:]
    command: click.Command = cli
    path = ["citewise"]
    for i, token in enumerate(tokens):
        if token == "--":  # the end of the options: arguments follow, whatever they look like
            break
        if token.startswith("-"):
            option = token.split("=", 1)[0]
            if option.startswith("--") and option not in command_options(command):
                return f"{' '.join(path)} has no option {option}"
            continue
        if isinstance(command, click.Group) and not _placeholder(token):
            sub = command.commands.get(token)
            if sub is None:
                return f"{' '.join(path)} has no command {token!r}"
            command = sub
            path.append(token)
            continue
        if isinstance(command, click.Group) and i == 0:
            return f"{text!r} names no command"
    return None


def _placeholder(token: str) -> bool:
    return not re.fullmatch(r"[a-z][a-z0-9-]*", token)


def named_commands() -> list[tuple[str, str]]:
    found = []
    for where, text in TEXTS:
        for segment in BACKTICKED.findall(text):
            if re.match(r"citewise(\s|$)", segment) and " " in segment.strip():
                found.append((where, segment.strip()))
    return found


COMMANDS = named_commands()


def test_the_scan_finds_the_hints():
    assert len(COMMANDS) > 30
    assert any("citewise status --documents" in c for _, c in COMMANDS)
    assert sum("Fix:" in t for _, t in TEXTS) > 50


@pytest.mark.parametrize("where,command", COMMANDS, ids=[f"{w} {c}" for w, c in COMMANDS])
def test_every_backticked_citewise_command_exists(where, command):
    problem = check_command(command)
    assert problem is None, f"{where}: `{command}`: {problem}"


def test_every_option_a_fix_names_exists():
    known = every_option()
    bad = []
    for where, text in TEXTS:
        if "Fix:" not in text and "fix:" not in text:
            continue
        # options inside another tool's backticked command belong to that tool
        own = BACKTICKED.sub(lambda m: m.group(0) if m.group(1).startswith("citewise")
                             else "", text)
        for option in OPTION.findall(own):
            if option in known or ("pip" in text and option in PIP_OPTIONS):
                continue
            bad.append(f"{where}: {option} in {text[:120]!r}")
    assert not bad, "\n".join(bad)


def test_the_checker_catches_what_issue_12_found():
    assert check_command("citewise docs") is not None  # no such command
    assert check_command("citewise status --documents") is None
    assert check_command("citewise models pull --dir x") is not None  # it is --models-dir
    assert check_command("citewise models pull NAME --models-dir x") is None
    assert check_command("citewise eval run --questions Q") is None
    assert check_command("citewise acl DOC --groups hr --tenant t") is None
    assert check_command("citewise acl DOC --group hr") is not None


def test_every_command_starts_without_the_postgres_extra():
    """A plain install (``make demo``) has no psycopg: a hint's import of the PostgreSQL
    module crashed every command on start. The CLI and each command's help load without
    it, in a process where importing psycopg fails."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['psycopg'] = None; sys.modules['psycopg_pool'] = None\n"
            "from click.testing import CliRunner\nfrom citewise.cli.main import cli\n"
            "for name in sorted(cli.commands):\n"
            "    r = CliRunner().invoke(cli, [name, '--help'])\n"
            "    assert r.exit_code == 0, (name, r.output, r.exception)\nprint('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
