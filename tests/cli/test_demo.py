"""`make demo`'s script as a new user runs it: in a terminal (a pty), with the default flags.
The first cited answer comes before the model pull (extractive), the pull shows progress, and
the local model answers after it. The tiny SmolLM2 package `make install` already installs
stands in for the default LLM (its pull needs no network; its answers are nonsense, which is
why only the plumbing is checked here)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from citewise.testing.terminal import run_in_pty

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_demo_script_in_a_terminal(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWISE_")}
    env.update(TERM="xterm", COLUMNS="110", CITEWISE_DEMO_MODEL="smollm2-135m-instruct",
               CITEWISE_MODELS_DIR=str(tmp_path / "models"))
    run = run_in_pty(["bash", str(ROOT / "examples" / "demo.sh")], cwd=tmp_path, env=env,
                     timeout=540)
    text = run.text
    assert run.returncode == 0, text[-4000:]
    assert "Traceback" not in text and "ERROR" not in text
    assert "ingest: 100%" in run.output and "13/13" in run.output  # the bar, in a terminal
    assert "13 new" in text and "13 unchanged" in text
    first_answer = text.index("[1] Leave Policy › Parental leave")
    pull = text.index("Local answer model: smollm2-135m-instruct")
    assert first_answer < pull  # a cited answer before any model is pulled
    assert re.search(r"join: 100%.*93\.\dM/93\.\dM", run.output)  # the pull's progress
    assert (tmp_path / "models" / "smollm2-135m-instruct-q4_1.gguf").is_file()
    local = text[pull:]
    assert "The local model answers the same question" in local
    assert "The restricted document appears nowhere" in text
    assert "88,000" not in text[:text.index("An HR member asks")]
    assert text.rstrip().splitlines()[-5].startswith("index: ")
