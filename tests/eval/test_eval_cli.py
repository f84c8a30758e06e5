"""`citewise eval run/compare/squad` end to end on a fake-embedded index (bm25 mode never
loads a model), and report.html's contents."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.eval.questions import write_questions
from citewise.eval.record import EvalRun

SQUAD = Path(__file__).resolve().parents[3] / "shared" / "data" / "squad2-dev-subset" / \
    "dev-v2.0-normans-rhine.json"


def invoke(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def setup(engine, questions, tmp_path):
    qpath, ppath = tmp_path / "set.jsonl", tmp_path / "personas.json"
    write_questions(qpath, questions)
    ppath.write_text(json.dumps({"default": {"groups": ["staff"]},
                                 "staff": {"groups": ["staff"]},
                                 "hr": {"groups": ["staff", "hr"]}}))
    engine.close()
    return engine.db, qpath, ppath


def test_run_writes_run_trec_and_report(setup, tmp_path):
    db, qpath, ppath = setup
    out = tmp_path / "out"
    result = invoke("eval", "run", "--questions", qpath, "--personas", ppath, "--db", db,
                    "--mode", "bm25", "-k", 5, "--out", out, "--json")
    summary = json.loads(result.output)
    assert summary["questions"] == 5 and summary["answerable"] == 3
    assert summary["figures"]["hit@5"]["n"] == 3
    assert set(summary["slices"]) == {"kind", "persona", "answerable"}
    assert set(summary["slices"]["kind"]) == {"policy", "hr"}
    run = EvalRun.load(out / "run.json")
    assert run.k == 5 and run.settings["retrieve"]["mode"] == "bm25"
    assert (out / "run.trec").read_text().split()[:3] == ["meal", "Q0", "travel.md"]
    page = (out / "report.html").read_text()
    assert "<svg " in page and "Worst questions" in page
    assert "95% interval" in page and "section_hit@5" in page


def test_run_text_output_and_refusals(setup, tmp_path):
    db, qpath, ppath = setup
    result = invoke("eval", "run", "--questions", qpath, "--personas", ppath, "--db", db,
                    "--mode", "bm25", "--out", tmp_path / "o")
    assert "ndcg@10" in result.output and "report.html" in result.output
    missing = invoke("eval", "run", "--questions", qpath, "--db", tmp_path / "none.db",
                     "--mode", "bm25", code=1)
    assert "no index at" in missing.output
    nobody = invoke("eval", "run", "--questions", qpath, "--db", db, "--mode", "bm25",
                    "--out", tmp_path / "o2", code=1)
    assert "Fix:" in nobody.output


def test_compare_exit_status(setup, tmp_path):
    db, qpath, ppath = setup
    for name, k in (("a", 5), ("b", 5)):
        invoke("eval", "run", "--questions", qpath, "--personas", ppath, "--db", db,
               "--mode", "bm25", "-k", k, "--out", tmp_path / name)
    same = invoke("eval", "compare", tmp_path / "a" / "run.json", tmp_path / "b" / "run.json",
                  "--fail-on-regression")
    assert "passed" in same.output
    broken = EvalRun.load(tmp_path / "b" / "run.json")
    for r in broken.records:
        r.hits = []
    broken.save(tmp_path / "broken.json")
    result = invoke("eval", "compare", tmp_path / "a" / "run.json", tmp_path / "broken.json",
                    "--fail-on-regression", "--metric", "hit@5", "--json", code=1)
    data = json.loads(result.output)
    assert data["passed"] is False and data["rows"][0]["delta"] == -1.0
    invoke("eval", "compare", tmp_path / "a" / "run.json", tmp_path / "broken.json")  # no flag


def test_squad_conversion(tmp_path):
    if not SQUAD.is_file():
        pytest.fail(f"{SQUAD} is missing: the shared evaluation data must sit beside the repo")
    result = invoke("eval", "squad", SQUAD, "--out", tmp_path, "--json")
    data = json.loads(result.output)
    assert data == {"documents": 83, "questions": 706, "unanswerable": 320,
                    "docs_dir": str(tmp_path / "docs"),
                    "questions_path": str(tmp_path / "questions.jsonl")}
    rows = [json.loads(line) for line in (tmp_path / "questions.jsonl").open()]
    first = rows[0]
    assert first["relevant"] == [{"doc": "normans/p000.txt", "section": None}]
    assert first["answer"] == "France"
    assert (tmp_path / "docs" / "normans" / "p000.txt").read_text().startswith("The Normans")
    impossible = [r for r in rows if not r["relevant"]]
    assert len(impossible) == 320 and all(r["answer"] is None for r in impossible)
    multi = next(r for r in rows if r["id"] == "56ddde6b9a695914005b9629")
    assert multi["answers"] == ["10th and 11th centuries", "in the 10th and 11th centuries"]


@pytest.mark.slow
@pytest.mark.model
def test_sweep_prints_the_table(corpus, questions, tmp_path):
    qpath = tmp_path / "set.jsonl"
    write_questions(qpath, [q for q in questions if q.persona is None])
    result = invoke("eval", "sweep", "--questions", qpath, "--corpus", corpus, "--groups",
                    "staff,hr", "--vary", "mode=bm25,hybrid", "--threads", 1, "-k", 5)
    lines = result.output.splitlines()
    assert lines[0].split() == ["variant", "hit@5", "recall@5", "ndcg@10", "tokens/request",
                                "p50", "ms"]
    assert [line.split()[0] for line in lines[1:]] == ["mode=bm25", "mode=hybrid"]
    data = json.loads(invoke("eval", "sweep", "--questions", qpath, "--corpus", corpus,
                             "--groups", "staff", "--vary", "mode=bm25", "--json").output)
    assert data[0]["variant"] == {"retrieve.mode": "bm25"} and data[0]["hit@5"] == 1.0


def test_hostile_files_are_one_line_errors_and_no_output_goes_through_a_link(tmp_path):
    """A security review: ``eval compare``, ``eval squad`` and ``ask --history`` of a file
    nested 50,000 deep, holding a 5,000-digit number or a 0xff byte were tracebacks; ``eval
    squad --out`` wrote its questions through a planted symlink."""
    deep, big, bad = tmp_path / "deep.json", tmp_path / "big.json", tmp_path / "bad.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    big.write_text('{"data": ' + "9" * 5_000 + "}")
    bad.write_bytes(b"\xff\xfe[1]")
    for path in (deep, big, bad):
        for args in (("eval", "compare", path, path), ("eval", "squad", path, "--out",
                                                       tmp_path / "o")):
            out = invoke(*args, code=1).output
            assert out.startswith("Error: ") and "Traceback" not in out, out
        from citewise.answer.rewrite import read_history
        from citewise.errors import ConfigError

        with pytest.raises(ConfigError, match="not JSON or JSONL"):
            read_history(path)
    sq = tmp_path / "sq"
    sq.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (sq / "questions.jsonl").symlink_to(victim)
    squad = tmp_path / "one.json"
    squad.write_text(json.dumps({"data": [{"title": "T", "paragraphs": [{
        "context": "Paris is the capital.", "qas": [{"id": "q1", "question": "Capital?",
                                                     "answers": [{"text": "Paris"}]}]}]}]}))
    assert "symbolic link" in invoke("eval", "squad", squad, "--out", sq, code=1).output
    assert victim.read_text() == "precious"
