"""Every CLI command has help text and is documented in the README (sqlite-utils style)."""

from pathlib import Path

import click
import pytest

from citewise.cli.main import cli

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def commands(group: click.Group, prefix: str = "citewise"):
    for name, command in group.commands.items():
        full = f"{prefix} {name}"
        if isinstance(command, click.Group):
            yield from commands(command, full)
        else:
            yield full, command


@pytest.mark.parametrize("name,command", list(commands(cli)))
def test_command_has_help_and_is_documented(name, command):
    assert command.help and len(command.help) > 20
    assert name in README, f"README does not mention `{name}`"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden and param.name != "help":
            assert param.help or param.is_flag, f"{name} {param.opts} has no help"


def test_readme_starts_with_the_two_commands():
    head = README[:400]
    assert "make demo" in head and "make test" in head


def test_ingest_help_names_every_format_it_reads():
    """A new user of the AWS CLI's reST examples found reStructuredText missing from
    `citewise ingest --help`."""
    from citewise.ingest.doc_names import FORMAT_BY_SUFFIX

    names = {"markdown": "Markdown", "rst": "reStructuredText", "html": "HTML", "text": "text",
             "pdf": "PDF", "docx": "Word", "info": "GNU Info"}
    helped = " ".join(cli.commands["ingest"].help.split())
    for fmt in set(FORMAT_BY_SUFFIX.values()):
        assert names[fmt] in helped, fmt
