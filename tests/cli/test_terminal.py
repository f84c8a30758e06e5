"""The long commands as a user runs them: in a real terminal (a pseudo-terminal), with the
default flags. `citewise ingest` used to crash in every terminal (tqdm's ``__bool__`` raised
``TypeError`` on a bar without a total) while every test ran it without one."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from citewise.testing.terminal import run_in_pty

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
META = ROOT / "examples" / "corpus.meta.jsonl"
EVAL = ROOT / "tests" / "data" / "reindex_eval.jsonl"
PERSONAS = ROOT / "tests" / "data" / "reindex_personas.json"
CITEWISE = str(Path(sys.executable).with_name("citewise"))

pytestmark = pytest.mark.model


def terminal(*args: str, cwd: Path | None = None, timeout: float = 240.0):
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    env.pop("CITEWISE_DB", None)
    return run_in_pty([CITEWISE, *args], cwd=cwd, env=env, timeout=timeout)


def ingest(db: Path, *flags: str):
    return terminal("ingest", str(CORPUS), "--db", str(db), "--tenant", "northwind",
                    "--groups", "staff", "--meta", str(META), "--threads", "1", *flags)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("terminal") / "t.db"
    run = ingest(path)  # the README's first command: defaults, in a terminal
    assert run.returncode == 0, run.text
    return path


def test_ingest_in_a_terminal_draws_a_bar_and_indexes_everything(db):
    run = ingest(db.with_name("again.db"))
    assert run.returncode == 0, run.text
    assert "Traceback" not in run.text and "TypeError" not in run.text
    assert "13 new" in run.text and "0 failed" in run.text
    assert "ingest: 100%" in run.output and "13/13" in run.output  # tqdm's bar, drawn live
    assert "chunks embedded" in run.output  # the embedding inside a batch is counted too
    assert "\r" in run.text  # the bar redraws in place


def test_ingest_with_progress_forced_and_quiet(tmp_path):
    forced = ingest(tmp_path / "forced.db", "--progress")
    assert forced.returncode == 0, forced.text
    assert "13/13" in forced.output
    quiet = ingest(tmp_path / "quiet.db", "--quiet")
    assert quiet.returncode == 0, quiet.text
    assert "13 new" in quiet.text
    assert "ingest:" not in quiet.text and "%|" not in quiet.text


def test_reingest_in_a_terminal_embeds_nothing(db):
    run = ingest(db)
    assert run.returncode == 0, run.text
    assert "13 unchanged" in run.text and "(0 embedded)" in run.text


def test_eval_run_in_a_terminal_shows_progress_per_question(db, tmp_path):
    run = terminal("eval", "run", "--questions", str(EVAL), "--personas", str(PERSONAS),
                   "--db", str(db), "--out", str(tmp_path / "out"), "--mode", "bm25")
    assert run.returncode == 0, run.text
    assert "eval: 100%" in run.output and "14/14" in run.output
    assert (tmp_path / "out" / "report.html").is_file()


OFF_TOPIC = ("what is the share price target for 2030?", "who won the 1998 world cup?",
             "how do I bake sourdough bread?", "what is the capital of Australia?",
             "which moon of Jupiter is the largest?", "how tall is the Eiffel tower?",
             "what does a koala eat?", "when was the printing press invented?")


def test_calibrate_in_a_terminal_shows_progress(db, tmp_path):
    questions = tmp_path / "calibrate.jsonl"
    extra = [json.dumps({"id": f"u{i}", "question": q, "relevant": []})
             for i, q in enumerate(OFF_TOPIC)]
    questions.write_text(EVAL.read_text() + "\n".join(extra) + "\n")
    run = terminal("calibrate", "--questions", str(questions), "--personas", str(PERSONAS),
                   "--db", str(db), "--no-store")
    assert run.returncode == 0, run.text
    assert "calibrate: 100%" in run.output and "22/22" in run.output
    assert "chosen:" in run.text


@pytest.mark.slow
def test_reindex_in_a_terminal_shows_progress(db, tmp_path):
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    run = terminal("reindex", "--db", str(copy), "--chunk-tokens", "64", "--mode", "bm25",
                   "--questions", str(EVAL), "--personas", str(PERSONAS), "--threads", "1")
    assert run.returncode == 0, run.text
    assert "reindex: 100%" in run.output and "13/13" in run.output
    assert "chunks embedded" in run.output  # new chunk sizes: texts embedded, and counted
    assert "decision: PROMOTED" in run.text


def test_a_terminal_that_says_it_has_no_size_still_gets_a_bar(tmp_path):
    """A pseudo-terminal whose window size was never set (``docker exec -t``, ``script``
    run without a terminal) reports 0 columns and 0 rows: tqdm drew nothing on it."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "CITEWISE_DB")}
    run = run_in_pty([CITEWISE, "ingest", str(CORPUS), "--db", str(tmp_path / "t.db"),
                      "--groups", "staff", "--meta", str(META), "--threads", "1"],
                     env=env, columns=0, rows=0)
    assert run.returncode == 0, run.text
    assert "ingest: 100%" in run.output and "13/13" in run.output
