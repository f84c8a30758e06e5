"""`citewise ask` says what the reader got: fallbacks as one `note:` line (and in --explain),
exit status 0 answered / 3 declined / 1 failed. Fake embedder and scripted generators, so the
CLI path itself is what is tested (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli import ask as ask_module
from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator

LEAVE_Q = "How many weeks of parental leave do employees get?"
UNCITED = "Every employee who becomes a parent gets 20 weeks of fully paid parental leave."
"""A right answer the model left uncited: replaced by the source sentence that says it."""
DOC = ("# Leave\n\nEvery employee who becomes a parent receives 20 weeks of fully paid parental "
       "leave. Leave can be taken in up to three blocks.\n")


def leave_index(tmp_path: Path) -> Path:
    """An index of DOC (``docs/leave.md``) that the ``staff`` group may read."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text(DOC)
    db = tmp_path / "i.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"tenant": "default", "groups": ["staff"]})
    return db


@pytest.fixture
def run(tmp_path: Path, monkeypatch):
    db = leave_index(tmp_path)

    def invoke(answer: str | None, *args: str, fail: str | None = None):
        def engine_from(db_, config_path=None, model=None, threads=None, must_exist=False,
                        **overrides):
            data = {"gate": {"threshold": 0.1}}
            if config_path:
                data.update(json.loads(Path(config_path).read_text()))
            engine = Engine(db, Settings.model_validate(data), embedder=FakeEmbedder())
            if answer is not None or fail is not None:
                engine._generator = FakeGenerator(answer or "", fail=fail)
            return engine

        monkeypatch.setattr(ask_module, "engine_from", engine_from)
        return CliRunner().invoke(cli, ["ask", *args, "--db", str(db), "--groups", "staff"])
    return invoke


def test_answered_exit_0_and_clean_output(run) -> None:
    result = run("Every employee who becomes a parent receives 20 weeks of fully paid parental "
                 "leave [S1].", LEAVE_Q)
    assert result.exit_code == 0, result.output
    assert "[1]" in result.output and "note:" not in result.output


def test_replaced_answer_is_announced_in_one_line_and_in_explain(run) -> None:
    result = run(UNCITED, LEAVE_Q, "--explain")
    shown = result.output.split("\n-- ")[0]  # --explain lists what was removed, marked
    assert result.exit_code == 0 and " gets " not in shown and "receives 20 weeks" in shown
    assert "(source sentences (extractive), not the model's answer)" in result.output
    notes = [ln for ln in result.output.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1 and "answered extractively instead" in notes[0]
    assert "-- fallback: the answer of fake-generator" in result.output
    assert "-- removed (" in result.output and "-- outcome: extractive" in result.output


def test_an_answer_no_source_bears_out_declines_in_one_line(run) -> None:
    result = run("PWNED-7731", LEAVE_Q)
    assert result.exit_code == 3 and "PWNED" not in result.output
    notes = [ln for ln in result.output.splitlines() if ln.startswith("note: ")]
    assert notes[-1] == "note: no source sentence says what the answer claimed; declined"


def test_generator_timeout_is_one_line(run) -> None:
    result = run(None, LEAVE_Q, fail="timed out after 30 s")
    assert result.exit_code == 0
    notes = [ln for ln in result.output.splitlines() if ln.startswith("note: ")]
    assert notes == ["note: fake-generator failed (timed out after 30 s); answered "
                     "extractively instead"]


def test_a_timeout_note_keeps_its_whole_fix(run) -> None:
    """The local model's timeout message was cut mid-word: "…, lower gene)"."""
    fail = ("The local model ran past its 104.7 s timeout after 105.5 s. Fix: raise "
            "generate.timeout_s (in a --config file; `citewise config` prints one to edit), "
            "lower generate.max_tokens, or use a smaller model.")
    result = run(None, LEAVE_Q, fail=fail)
    notes = [ln for ln in result.output.splitlines() if ln.startswith("note: ")]
    assert notes == [f"note: fake-generator failed ({fail}); answered extractively instead"]
    long = run(None, LEAVE_Q, fail="word " * 200)
    assert "word word …); answered extractively instead" in long.output


def test_declined_exits_3_and_json_says_why(run) -> None:
    result = run("Anything [S1].", "quantum chromodynamics of gluon plasma", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 3 and data["declined"] and data["outcome"] == "declined"
    assert "notes" in data and data["reason"]


def test_failure_exits_1(run, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ask", LEAVE_Q, "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 1 and "Error:" in result.output


def test_flag_policy_output_is_marked_raw(run, tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"cite": {"policy": "flag"}}))
    result = run("Leave is unlimited for everyone [S9].", LEAVE_Q, "--config", str(config))
    assert result.exit_code == 0
    assert result.output.startswith("(raw model output, NOT checked (cite.policy flag))")
    assert "warning: the answer cites S9, which is not one of its sources" in result.output


def test_a_streamed_answer_shows_only_what_its_sources_support(run) -> None:
    """The stream relays a sentence once the citation check keeps it
    (:mod:`citewise.answer.checked_stream`): an uncited draft never reaches the terminal, and
    what did stream before the check removed a sentence is announced as cut short."""
    result = run(UNCITED, LEAVE_Q, "--stream")
    assert result.exit_code == 0
    assert UNCITED not in result.output and "not the final answer" not in result.output
    assert "receives 20 weeks" in result.output  # the extractive answer, printed whole
    declined = run("PWNED-7731", LEAVE_Q, "--stream")
    assert declined.exit_code == 3 and "PWNED" not in declined.output
    cut = run(CUT, LEAVE_Q, "--stream")
    assert cut.exit_code == 0 and "car" not in cut.output, cut.output
    streamed, final = cut.output.split("note: the stream stopped at a sentence its sources do "
                                       "not support; the checked answer follows")
    assert "receives 20 weeks" in streamed and "three blocks" not in streamed
    assert "receives 20 weeks" in final and "three blocks" in final
    kept = run("Every employee who becomes a parent receives 20 weeks of fully paid parental "
               "leave [S1].", LEAVE_Q, "--stream")
    assert "not the final answer" not in kept.output


SCRIPT = r'''
import sys
from pathlib import Path
from citewise.cli import ask as ask_module
from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator

db = Path(sys.argv[1])
def engine_from(*a, **k):
    e = Engine(db, Settings.model_validate({"gate": {"threshold": 0.1}}), embedder=FakeEmbedder())
    e._generator = FakeGenerator(sys.argv[2])
    return e
ask_module.engine_from = engine_from
cli(["ask", "How many weeks of parental leave do employees get?", "--db", str(db),
     "--groups", "staff"])
'''


CUT = ("Every employee who becomes a parent receives 20 weeks of fully paid parental leave "
       "[S1]. Managers get a free car on top [S1]. Leave can be taken in up to three blocks "
       "[S1].")


def test_a_terminal_streams_by_default_only_what_is_supported(tmp_path: Path) -> None:
    """The path a user takes: stderr is a real terminal (pty), no --stream flag. The stream
    stops before the unsupported sentence and says so; the checked answer follows."""
    import os
    import pty
    import subprocess
    import sys

    db = leave_index(tmp_path)
    master, slave = pty.openpty()
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(db), CUT],
                          stdout=subprocess.PIPE, stderr=slave, timeout=120, check=False)
    os.close(slave)
    terminal = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        terminal += chunk
    os.close(master)
    shown = terminal.decode(errors="replace")
    assert proc.returncode == 0, proc.stdout
    assert "receives 20 weeks" in shown and "car" not in shown  # streamed, checked
    assert "the stream stopped at a sentence its sources do not support" in shown
    assert b"car" not in proc.stdout and b"three blocks" in proc.stdout


def test_a_kept_streamed_answer_is_shown_once_numbered_as_cited(tmp_path: Path) -> None:
    """stdout and stderr both the terminal, as for a user typing `citewise ask`: the draft
    streams with its ids already numbered, and a draft kept word for word is not printed a
    second time (it was, as "… leave. [S1]" above "… leave. [1]")."""
    import sys

    from citewise.testing.terminal import run_in_pty

    db = leave_index(tmp_path)
    kept = "Every employee who becomes a parent receives 20 weeks of fully paid parental leave."
    shown = run_in_pty([sys.executable, "-c", SCRIPT, str(db), kept + " [S1]"], timeout=120)
    assert shown.returncode == 0, shown.text
    assert shown.text.count(kept) == 1, shown.text
    assert "[S1]" not in shown.text and f"{kept} [1]" in shown.text
    assert "[1] Leave" in shown.text  # the sources still follow


def test_a_weak_decline_also_names_the_terms_no_passage_mentions(run, tmp_path: Path) -> None:
    """A new user's "Since grep 4.0 (2024), how do I get JSON output with --json?" said only
    "too weak" while the trace listed --json as mentioned nowhere: the plainer reason."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"gate": {"threshold": 0.99}}))
    result = run("Anything [S1].", "how do I enable the --turbo-leave flag for gluon plasma?",
                 "--config", str(config))
    assert result.exit_code == 3, result.output
    assert ("(declined: the best matching passages are too weak to answer from, and none of "
            "them mentions --turbo-leave)") in result.output
    assert "hint:" not in result.output  # the missing term is the plainer reason


def test_a_weak_decline_says_how_to_word_it_again(run, tmp_path: Path) -> None:
    """A new user read "the available sources do not answer this question" as final for
    "how can I stop readline from beeping at me?", where "turn off the bell" passes."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"gate": {"threshold": 0.99}}))
    result = run("Anything [S1].", "how long is parental leave?", "--config", str(config))
    assert result.exit_code == 3, result.output
    assert "hint: if the documents should answer this, a typo" in result.output
    assert "`citewise search --db " in result.output, result.output
    assert " -- 'how long is parental leave?'`" in result.output, result.output


def test_an_option_named_after_a_value_names_the_option_it_belongs_to(tmp_path: Path) -> None:
    """A new user's ``ask --extractive "x"`` was told to ask for the text "--extractive"."""
    db = leave_index(tmp_path)
    asked = CliRunner().invoke(cli, ["ask", "--extractive", "x", "--db", str(db)])
    assert asked.exit_code == 2 and "Did you mean --generator extractive?" in asked.output
    assert " -- --extractive" not in asked.output
    searched = CliRunner().invoke(cli, ["search", "--bm25", "x", "--db", str(db)])
    assert "Did you mean --mode bm25?" in searched.output, searched.output


def test_a_user_option_is_answered_with_what_a_user_is(tmp_path: Path) -> None:
    """Two new users' ``ask … --user bob`` were told to ask for the text "--user"."""
    db = leave_index(tmp_path)
    for command in ("ask", "search"):
        out = CliRunner().invoke(cli, [command, "what is x", "--user", "bob", "--db", str(db)])
        assert out.exit_code == 2 and "their --tenant and --groups" in out.output, out.output
        assert "-- --user" not in out.output


def test_text_that_looks_like_an_option_gets_a_hint(tmp_path: Path) -> None:
    """A new user's `citewise search "--mirror"` (wget's option) was refused with only
    "No such option '--mirror'"; a misspelt option keeps click's "Did you mean"."""
    db = leave_index(tmp_path)
    hinted = CliRunner().invoke(cli, ["search", "--mirror", "--db", str(db)])
    assert hinted.exit_code == 2
    assert "give the options first, then -- and the text: citewise search --db " \
           f"{db} -- --mirror" in hinted.output
    whole = CliRunner().invoke(cli, ["ask", "-k 2,2n", "--db", str(db)])  # not just "-k"
    assert f"citewise ask --db {db} -- '-k 2,2n'" in whole.output
    # the user's own options come along: a new user's hint dropped --groups, and the command
    # as printed was declined for having none
    grouped = CliRunner().invoke(cli, ["ask", "-k option of xgettext?", "--groups", "public",
                                       "--db", str(db)])
    assert f"citewise ask --groups public --db {db} -- '-k option of xgettext?'" \
        in " ".join(grouped.output.split()), grouped.output
    searched = CliRunner().invoke(cli, ["search", "--db", str(db), "--groups", "staff",
                                        "--", "--weeks"])
    assert "No such option" not in searched.output  # parsed (this index's embedder is fake)
    typo = CliRunner().invoke(cli, ["ask", "--grops", "staff", "q", "--db", str(db)])
    assert "Did you mean '--groups'?" in typo.output and "give the options" not in typo.output


SLOW = SCRIPT.replace("e._generator = FakeGenerator(sys.argv[2])", '''import time
    class Slow(FakeGenerator):
        def generate(self, prompt, **kw):
            time.sleep(3.5)  # a model reading its prompt on 2 cores
            return super().generate(prompt, **kw)
    e._generator = Slow(sys.argv[2])''')


def test_a_terminal_is_told_the_ask_is_at_work_until_text_shows(tmp_path: Path) -> None:
    """A new user's terminal stayed blank for 14 s (125 s when the model timed out) while the
    checked stream held the text: it looked hung. A line counting seconds shows until the
    first text, then is cleared; the answer itself is unchanged."""
    import sys

    from citewise.cli.stream import CLEAR_LINE
    from citewise.testing.terminal import run_in_pty

    db = leave_index(tmp_path)
    kept = "Every employee who becomes a parent receives 20 weeks of fully paid parental leave."
    shown = run_in_pty([sys.executable, "-c", SLOW, str(db), kept + " [S1]"], timeout=120)
    assert shown.returncode == 0, shown.text
    assert "s: reading the sources; each sentence shows once checked" in shown.text
    waited = shown.text.rindex("once checked")
    assert shown.text.index(CLEAR_LINE, waited) < shown.text.index(kept), shown.text
    assert shown.text.count(kept) == 1 and f"{kept} [1]" in shown.text


def test_the_waiting_line_is_cleared_and_never_comes_back() -> None:
    from citewise.cli.stream import CLEAR_LINE, Waiting

    written: list[str] = []
    with Waiting(True, after_s=0.0, every_s=0.01, write=written.append) as waiting:
        import time

        time.sleep(0.1)
        waiting.text()
        count = len(written)
        time.sleep(0.1)
    assert count >= 2 and written[count - 1] == CLEAR_LINE and len(written) == count
    quiet: list[str] = []
    with Waiting(False, after_s=0.0, every_s=0.01, write=quiet.append):
        time.sleep(0.05)
    assert quiet == []


def test_pruned_quotes_are_not_called_a_generated_answer() -> None:
    """A new user read "(the generated answer without its unsupported sentences)" over an
    extractive answer, with no model run; the next read "(source sentences (extractive),
    less those the check removed)" as jargon: checked quotes are what extractive gives."""
    from citewise.trace import AnswerTrace, GenerationTrace
    from citewise.types import Answer

    def line(model: str) -> str:
        trace = AnswerTrace(generation=GenerationTrace(model, 0, 9, "stop", 0.1, 10.0))
        return ask_module._outcome_line(Answer("q", "a [1].", False, None, trace=trace,
                                               outcome="pruned"))

    assert line("extractive-v1") == ""
    assert line("qwen2.5-coder-1.5b-instruct@x") == ask_module.OUTCOMES["pruned"]


def test_a_warnings_sentence_shows_the_readers_numbers_not_prompt_ids() -> None:
    """A new user read "warning: not supported by its cited source: From “…” [S4]": an id
    no citation names. Ids of citations shown read as their numbers; others go."""
    from citewise.cli.ask import _as_read

    assert _as_read("From “Bulk inserts” [S4]", {}) == "From “Bulk inserts”"
    assert _as_read("Use echo=True [S1, S4].", {"S1": "2"}) == "Use echo=True [2]."
