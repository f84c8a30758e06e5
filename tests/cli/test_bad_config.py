"""Hostile settings files and sidecars end in one ``Error: ...`` line, never a traceback
(issue 10, item 7). Nothing here loads a model: each command fails while reading its input."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.config import OpenAISettings
from citewise.errors import GenerationError
from citewise.generate.openai import OpenAIGenerator
from citewise.types import Prompt

DEEP = 100_000  # far past Python's recursion limit


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text.\n")
    return folder


def fails_on_one_line(tmp_path: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe{\"embed\": {}}", ("invalid UTF-8",)),
    (b"[" * DEEP + b"]" * DEEP, ("nested",)),
    (b"{\"a\":" * DEEP + b"1" + b"}" * DEEP, ("nested",)),
    (b"[1, 2]", ("JSON object",)),
    (b"{\"embed\": 3}", ("'embed'", "object")),
    (b"{\"embed\": ", ("not valid JSON",)),
    (b"null", ("JSON object", "NoneType")),  # was "nested more than 16 levels deep"
    (b"{\"embed\": {\"threads\": 100000}}", ("embed.threads", "1024")),  # grew 60 MB/s
    (b"{\"gate\": {\"threshold\": NaN}}", ("gate.threshold", "finite")),  # declined nothing
])
def test_bad_config_file_is_one_line(tmp_path, docs, content, words):
    config = tmp_path / "settings.json"
    config.write_bytes(content)
    line = fails_on_one_line(tmp_path, "ingest", str(docs), "--config", str(config),
                             "--model", "all-minilm-l6-v2", "--no-progress")
    for word in words:
        assert word in line


def test_file_url_as_openai_base_url_is_refused(tmp_path, docs):
    config = tmp_path / "settings.json"
    config.write_text('{"generate": {"generator": "openai", "openai": '
                      '{"base_url": "file:///etc/passwd"}}}')
    line = fails_on_one_line(tmp_path, "ingest", str(docs), "--config", str(config),
                             "--no-progress")
    assert "generate.openai.base_url" in line and "http" in line


def test_openai_generator_with_a_non_http_url_raises_generation_error():
    """Settings made in code skip nothing: model_construct bypasses validation, as a caller
    building settings by hand could; the generator still fails with its own error type."""
    settings = OpenAISettings.model_construct(
        **{**OpenAISettings().model_dump(), "base_url": "file:///etc/passwd", "retries": 0})
    generator = OpenAIGenerator(settings)
    with pytest.raises(GenerationError, match="base_url"):
        generator.generate(Prompt(({"role": "user", "content": "hi"},), "hi", ()))
    assert issubclass(httpx.UnsupportedProtocol, httpx.HTTPError)


@pytest.mark.parametrize("value, words", [
    ("[" * DEEP + "]" * DEEP, ("nested too deeply",)),
    ("[" * 500 + "]" * 500, ("nests more than",)),
    ('["\\udcff"]', ("lone UTF-16 surrogate",)),  # a security review's traceback
])
def test_deeply_nested_sidecar_line_is_one_line(tmp_path, docs, value, words):
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"path": "a.md", "groups": ' + value + "}\n")
    line = fails_on_one_line(tmp_path, "ingest", str(docs), "--meta", str(meta),
                             "--no-progress")
    for word in words:
        assert word in line


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe{}", ("invalid UTF-8",)),
    (b"[" * DEEP + b"]" * DEEP, ("nested too deeply",)),
])
@pytest.mark.parametrize("option", ["--questions", "--personas"])
def test_bad_eval_set_or_personas_is_one_line(tmp_path, content, words, option):
    from citewise.errors import ConfigError
    from citewise.eval.questions import load_personas, load_questions

    path = tmp_path / "input.json"
    path.write_bytes(content)
    load = load_questions if option == "--questions" else load_personas
    with pytest.raises(ConfigError) as info:
        load(path)
    assert "\n" not in str(info.value) and "Fix:" in str(info.value)
    for word in words:
        assert word in str(info.value)
