"""Notes the CLI prints when a command's result is probably not what the user meant."""

from __future__ import annotations

import click

from citewise.types import Principal

NO_GROUPS_HINT = ("note: no --groups given: a user with no groups may read nothing, so nothing "
                  "can match. Fix: pass the asking user's groups, e.g. --groups staff "
                  "(`citewise status --documents` lists each document's groups).")


def warn_without_groups(principal: Principal) -> None:
    """Say on stderr why a search or question as a user without groups finds nothing."""
    if not principal.groups:
        click.echo(NO_GROUPS_HINT, err=True)
