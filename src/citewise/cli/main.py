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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="citewise")
def cli() -> None:
    """citewise: answers from governed documents, with citations anyone can check."""
    # pypdf warns about every repair it makes (a looping outline, a wrong object offset), on
    # stderr, with raw PDF objects and their bytes; the file still loads, and what fails is
    # reported as one `failed:` line
    logging.getLogger("pypdf").setLevel(logging.ERROR)


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
