"""Eval sets whose labels carry annotations (the evidence string next to the label, the
section title): accepted, kept in run.json and the report, and unknown keys warned about
instead of refusing the run (issue 12, item 7)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from citewise.cli.main import cli
from citewise.eval.harness import run_eval
from citewise.eval.questions import load_questions
from citewise.eval.record import EvalRun
from citewise.eval.report import render_report

EVIDENCE = "The daily meal allowance is 45 euros in Europe."
ROWS = [
    {"id": "meal", "question": "what is the daily meal allowance",
     "relevant": [{"doc": "travel.md", "section": "per-diem", "section_title": "Per diem",
                   "evidence": EVIDENCE, "doc_title": "Travel policy"}],
     "note": "checked by finance", "tags": ["money"]},
    {"id": "bike", "question": "where do I park my bike", "relevant": [],
     "reviewer": "ana"},  # an undocumented key: warned, kept
    {"id": "train", "question": "is rail preferred over flying",
     "relevant": [{"doc": "travel.md", "section": "booking", "sectoin": "trains"}]},
]


def write_set(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def test_documented_annotations_are_accepted_without_warnings(tmp_path):
    meal, bike, train = load_questions(write_set(tmp_path))
    piece = meal.relevant[0]
    assert piece.annotations == {"section_title": "Per diem", "evidence": EVIDENCE,
                                 "doc_title": "Travel policy"}
    assert meal.annotations == {"note": "checked by finance", "tags": ["money"]}
    assert meal.warnings == ()
    assert meal.as_dict()["relevant"][0]["evidence"] == EVIDENCE
    assert meal.as_dict()["note"] == "checked by finance"
    assert bike.annotations == {"reviewer": "ana"}
    assert len(bike.warnings) == 1 and "'reviewer'" in bike.warnings[0]
    assert "line 2" in bike.warnings[0]
    assert "'sectoin'" in train.warnings[0] and "relevant entry" in train.warnings[0]


def test_annotations_survive_run_json_and_show_in_the_report(engine, personas, tmp_path):
    run = run_eval(engine, write_set(tmp_path), personas, as_persona="staff")
    assert sum("unknown key" in w for w in run.warnings) == 2
    path = tmp_path / "run.json"
    run.save(path)
    saved = json.loads(path.read_text())
    first = saved["records"][0]["question"]
    assert first["relevant"][0]["evidence"] == EVIDENCE and first["tags"] == ["money"]
    again = EvalRun.load(path)
    assert again.records[0].question.relevant[0].annotations["evidence"] == EVIDENCE
    page = render_report(run, samples=50)
    assert "unknown key" in page


def test_eval_run_cli_warns_and_succeeds(engine, tmp_path):
    out = tmp_path / "out"
    personas = tmp_path / "personas.json"
    personas.write_text(json.dumps({"staff": {"groups": ["staff"]}}))
    engine.close()
    result = CliRunner().invoke(cli, ["eval", "run", "--questions", str(write_set(tmp_path)),
                                      "--personas", str(personas), "--as", "staff",
                                      "--db", str(engine.db), "--out", str(out),
                                      "--mode", "bm25"])
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "'reviewer'" in result.stderr
    assert json.loads((out / "run.json").read_text())["records"][0]["question"]["relevant"][0][
        "section_title"] == "Per diem"
