"""The README runs in a terminal: every command of its "Use" block, in order, under a
pseudo-terminal in a fresh directory, with exit codes and key output checked; every
```python block of the README runs too. Data-driven from README.md: a command this file
has no expectation for fails the test (add a row to EXPECT), it is never skipped.

`make demo`'s script runs the same way in tests/cli/test_demo.py."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from citewise.testing.terminal import PtyProcess, run_in_pty

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
WORKSPACE = ROOT / "tests" / "data" / "readme"
VENV_BIN = Path(sys.executable).parent

pytestmark = pytest.mark.model


@dataclass(frozen=True)
class Expect:
    """What one README command must do: exit status, regexes its output must match
    (stdout and stderr as the terminal showed them), files it must leave in the workspace."""

    output: tuple[str, ...] = ()
    code: int = 0
    files: tuple[str, ...] = ()
    timeout: float = 240.0
    #: A long-running command (a server): started in the background, ready when ``output``
    #: matched, stopped after the block's last command.
    background: bool = False


ACTIVATE = "activate"  # `. .venv/bin/activate`: the harness puts that venv on PATH instead

#: Per-command expectations, keyed by the command's leading words (longest key wins).
EXPECT: dict[str, Expect | str] = {
    ". .venv/bin/activate": ACTIVATE,
    "source .venv/bin/activate": ACTIVATE,
    "citewise ingest": Expect(output=(r"\d+ new, 0 changed", r" 0 failed",
                                      r"ingest: 100%")),
    "citewise search": Expect(output=(r"mode: hybrid +filter: ", r"\[1\] API keys › Rotating",
                                      r"bm25 #\d")),
    "citewise ask": Expect(output=(r"\[1\] API keys › Rotating the API key",
                                   r"(?i)rotate")),
    "citewise show": Expect(output=(r"## Rotating the API key", r"every 90 days")),
    "citewise calibrate": Expect(output=(r"chosen: \w+ ≥ ", r"stored in citewise\.db",
                                         r"calibrate: 100%")),
    "citewise acl": Expect(output=(r"policies/salary\.md: groups hr",)),
    "citewise delete": Expect(output=(r"deleted 1 document\(s\): policies/old\.md",)),
    "citewise status": Expect(output=(r"documents: \d+ +chunks: \d+", r"engineering/api-keys\.md",
                                      r"policies/salary\.md .*groups=hr")),
    "citewise eval beir": Expect(output=(r"nDCG@10 \d\.\d{4}", r"ingest: "),
                                 files=("run.trec",)),
}


def use_block(readme: str = README) -> list[str]:
    """The commands of the first ```sh block under ``## Use``, one per line, comments kept
    (bash drops them); a line ending in ``\\`` continues on the next."""
    section = re.search(r"^## Use\s*$(.*?)(?=^## )", readme, re.M | re.S)
    assert section, "README.md has no '## Use' section"
    block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", section.group(1), re.S)
    assert block, "the README's Use section has no ```sh block"
    lines, pending = [], ""
    for raw in block.group(1).splitlines():
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        pending = ""
        if line and not line.startswith("#"):
            lines.append(line.removeprefix("$ "))
    return lines


def python_blocks(readme: str = README) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme, re.S)


def expectation(command: str) -> Expect | str:
    words = shlex.split(command, comments=True)
    for n in range(len(words), 0, -1):
        key = " ".join(words[:n])
        if key in EXPECT:
            return EXPECT[key]
    pytest.fail(f"the README's Use block has a command this harness cannot check: "
                f"{command!r}. Fix: add a row for it to EXPECT in {Path(__file__).name}")


def make_workspace(tmp: Path) -> Path:
    """A fresh project directory with what the README's commands name (``docs/``,
    ``examples/``, ...), and
    ``../shared/data/scifact-beir`` (a small BEIR folder) beside it."""
    work = tmp / "project"
    shutil.copytree(WORKSPACE, work)
    shutil.copytree(ROOT / "examples" / "corpus", work / "docs" / "handbook")
    shutil.copytree(ROOT / "examples", work / "examples")  # what README examples name
    write_mini_beir(tmp / "shared" / "data" / "scifact-beir")
    return work


def write_mini_beir(folder: Path) -> None:
    """BEIR layout from the bundled corpus: one document per Markdown file, a few queries."""
    (folder / "qrels").mkdir(parents=True)
    corpus = ROOT / "examples" / "corpus"
    with (folder / "corpus.jsonl").open("w") as fh:
        for path in sorted(corpus.glob("*.md")):
            body = path.read_text().split("---", 2)[-1]
            fh.write(json.dumps({"_id": path.stem, "title": path.stem.replace("-", " "),
                                 "text": body}) + "\n")
    queries = {"q1": ("how long is parental leave?", "leave-policy"),
               "q2": ("which cabin class may I book for a long flight?", "travel-policy"),
               "q3": ("how many office days per week?", "remote-work-policy"),
               "q4": ("who approves an expense claim?", "expense-policy"),
               "q5": ("how do I reset my password?", "it-service-desk")}
    with (folder / "queries.jsonl").open("w") as fh:
        for qid, (text, _) in queries.items():
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    rows = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t1" for q, (_, d) in queries.items()]
    (folder / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")


def terminal_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWISE_")}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(
        VENV_BIN.parent), HOME=str(home), TERM="xterm", COLUMNS="110",
        CITEWISE_MODELS_DIR=str(home / "models"))  # no local LLM: `ask` answers extractively
    return env


def test_the_use_block_is_found_and_every_command_is_known():
    commands = use_block()
    assert commands and commands[0].startswith(". .venv/bin/activate")
    assert any(c.startswith("citewise ingest") for c in commands)
    for command in commands:
        expectation(command)  # fails loudly for a command without a row


def test_readme_use_commands_run_in_a_terminal(tmp_path):
    work = make_workspace(tmp_path)
    env = terminal_env(tmp_path / "home")
    ran: list[str] = []
    servers: list[PtyProcess] = []
    try:
        run_block(work, env, ran, servers)
    finally:
        for server in servers:
            server.stop()
    assert len(ran) >= 8, ran


def run_block(work: Path, env: dict[str, str], ran: list[str],
              servers: list[PtyProcess]) -> None:
    for command in use_block():
        expect = expectation(command)
        if expect == ACTIVATE:
            assert (VENV_BIN / "activate").is_file()
            continue
        assert isinstance(expect, Expect)
        if expect.background:
            server = PtyProcess(["bash", "-c", f"exec {command}"], cwd=work, env=env)
            servers.append(server)
            for pattern in expect.output:
                assert server.expect(pattern, expect.timeout), \
                    f"no /{pattern}/ from $ {command}\n{server.output}"
            ran.append(command)
            continue
        run = run_in_pty(["bash", "-c", command], cwd=work, env=env, timeout=expect.timeout)
        shown = f"$ {command}\n{run.text}"
        assert run.returncode == expect.code, shown
        assert "Traceback" not in run.text, shown
        for pattern in expect.output:
            assert re.search(pattern, run.output), f"no /{pattern}/ in:\n{shown}"
        for name in expect.files:
            assert (work / name).is_file(), f"{name} missing after:\n{shown}"
        ran.append(command.split("#")[0].strip())


@pytest.mark.parametrize("index", range(len(python_blocks())) or [None])
def test_readme_python_examples_run(tmp_path, index):
    if index is None:
        pytest.skip("the README has no ```python example yet")
    work = make_workspace(tmp_path)
    script = work / "example.py"
    script.write_text(python_blocks()[index])
    run = run_in_pty([sys.executable, str(script)], cwd=work,
                     env=terminal_env(tmp_path / "home"), timeout=240)
    assert run.returncode == 0, run.text
    assert "Traceback" not in run.text, run.text


def test_background_commands_are_started_checked_and_stopped(tmp_path):
    server = PtyProcess(["bash", "-c", "exec python3 -u -c \"print('listening on 127.0.0.1:1');"
                         " import time; time.sleep(60)\""], cwd=tmp_path)
    try:
        assert server.expect(r"listening on 127\.0\.0\.1:\d+", timeout=30)
    finally:
        code = server.stop()
    assert code != 0  # stopped by the harness, not left running


def test_harness_reads_continuations_and_refuses_unknown_commands():
    text = ("## Use\n\n```sh\ncitewise ingest a \\\n  --groups x   # note\n# only a comment\n"
            "citewise serve --port 8080\n```\n\n## Next\n")
    assert use_block(text) == ["citewise ingest a --groups x   # note",
                               "citewise serve --port 8080"]
    assert isinstance(expectation("citewise ingest a --groups x"), Expect)
    with pytest.raises(pytest.fail.Exception, match="cannot check: 'citewise serve"):
        expectation("citewise serve --port 8080")
