"""``citewise``: the command line. Each command is a thin layer over :class:`Engine`."""

from __future__ import annotations

import logging

import click

from citewise import __version__
from citewise.cli.admin import acl, config_cmd, delete, status
from citewise.cli.ask import ask
from citewise.cli.calibrate import calibrate
from citewise.cli.eval import eval_group
from citewise.cli.ingest import ingest
from citewise.cli.migrate import migrate
from citewise.cli.models import models_group
from citewise.cli.observe import feedback_group, log_group, monitor
from citewise.cli.search import search
from citewise.cli.serve import keys_group, serve
from citewise.cli.show import show
from citewise.cli.versions import backup, reindex, rollback, versions


class _Commands(click.Group):
    """The command group, whose arguments are checked before any command parses them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        _check_text_arguments(args)
        return super().parse_args(ctx, args)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="citewise")
def cli() -> None:
    """citewise: answers from governed documents, with citations anyone can check."""
    # pypdf warns about every repair it makes (a looping outline, a wrong object offset), on
    # stderr, with raw PDF objects and their bytes; the file still loads, and what fails is
    # reported as one `failed:` line
    logging.getLogger("pypdf").setLevel(logging.ERROR)


def _check_text_arguments(args: list[str]) -> None:
    """One line for an argument of bytes that are not UTF-8 (Python hands them over as lone
    surrogates), but a path that exists (a file named so is read): a tenant, group or
    document id of such bytes was a traceback (``UnicodeEncodeError`` in SQLite)."""
    import os

    from citewise.text import not_text

    for arg in args:
        shown = not_text(arg)
        if shown is not None and not os.path.lexists(arg.partition("=")[2] or arg):
            raise click.ClickException(f"{shown!s} is not UTF-8 text. Fix: pass it as UTF-8 "
                                       "(a terminal with LANG=C.UTF-8, or `iconv -t UTF-8`)")


for command in (ingest, search, ask, show, calibrate, delete, acl, status, config_cmd, eval_group,
                models_group):
    cli.add_command(command)
for command in (reindex, versions, rollback, backup):
    cli.add_command(command)
cli.add_command(migrate)
for command in (serve, keys_group, log_group, monitor, feedback_group):
    cli.add_command(command)

if __name__ == "__main__":  # pragma: no cover
    cli()
