"""`citewise models list` / `pull` through click (the library does the work)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.models import LOCAL_MODELS


def test_list_json_in_an_empty_dir(tmp_path):
    result = CliRunner().invoke(cli, ["models", "list", "--json", "--models-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["name"] for r in rows] == list(LOCAL_MODELS)
    assert all(r["installed"] is False for r in rows)
    assert rows[1]["size"] == 491_400_064


def test_list_reads_citewise_models_dir(tmp_path):
    model = LOCAL_MODELS["smollm2-135m-instruct"]
    result = CliRunner().invoke(cli, ["models", "list"],
                                env={"CITEWISE_MODELS_DIR": str(tmp_path)})
    assert result.exit_code == 0
    line = next(x for x in result.output.splitlines() if x.startswith(model.name))
    assert "not pulled" in line and str(tmp_path / model.filename) in line


def test_pull_unknown_name_fails_with_the_list(tmp_path):
    result = CliRunner().invoke(cli, ["models", "pull", "llama-9000",
                                      "--models-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "Unknown local model 'llama-9000'" in result.output
    assert "qwen2.5-coder-0.5b-instruct" in result.output and "Traceback" not in result.output
