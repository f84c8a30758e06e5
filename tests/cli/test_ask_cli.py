"""`citewise ask` and `citewise calibrate` end to end on the bundled corpus with the real
embedding model and the extractive generator (deterministic, no LLM)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
META = ROOT / "examples" / "corpus.meta.jsonl"
RESTRICTED = "hr-compensation-bands-2026"
SECRET = "88,000"  # the L4 maximum: only the hr-only document says it

pytestmark = [pytest.mark.model, pytest.mark.slow]


def invoke(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args))
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("ask") / "demo.db"
    invoke("ingest", str(CORPUS), "--db", str(path), "--tenant", "northwind", "--groups",
           "staff", "--meta", str(META), "--no-progress")
    return path


def ask(db, question, groups="staff", *extra):
    result = invoke("ask", question, "--db", str(db), "--tenant", "northwind", "--groups",
                    groups, "--generator", "extractive", "--json", *extra, ok=False)
    out = json.loads(result.output)
    assert result.exit_code == (3 if out["declined"] else 0), result.output  # 3: declined
    return out


def test_answer_is_cited_and_checked(db):
    a = ask(db, "How many weeks of parental leave do employees get?")
    assert not a["declined"] and a["citations"]
    assert "20 weeks" in a["answer"]
    c = a["citations"][0]
    assert c["doc_id"] and c["source"] and c["quote"] and c["updated_at"] is not None
    assert a["validation"]["fabricated"] == []
    assert set(a["trace"]["timings_ms"]) >= {"retrieve", "gate", "generate", "total"}
    text = invoke("ask", "How many weeks of parental leave do employees get?", "--db", str(db),
                  "--tenant", "northwind", "--groups", "staff", "--generator",
                  "extractive").output
    assert "[1] " in text and "updated " in text


def test_restricted_document_never_reaches_unauthorised_output(db):
    for groups in ("staff", "nobody"):
        result = invoke("ask", "What is the maximum salary for level L4?", "--db", str(db),
                        "--tenant", "northwind", "--groups", groups, "--generator",
                        "extractive", "--json", "--explain", ok=False)
        assert result.exit_code in (0, 3), result.output
        assert SECRET not in result.output and RESTRICTED not in result.output
    assert ask(db, "What is the maximum salary for level L4?", "nobody")["reason"] == \
        "no_evidence"
    hr = ask(db, "What is the maximum salary for level L4?", "hr")
    assert {c["doc_id"] for c in hr["citations"]} == {RESTRICTED}


def test_dry_run_reports_the_gate_only(db):
    out = invoke("ask", "What does error code E42 mean?", "--db", str(db), "--tenant",
                 "northwind", "--groups", "staff", "--dry-run").output
    assert out.startswith("would answer")
    explained = invoke("ask", "What does error code E42 mean?", "--db", str(db), "--tenant",
                       "northwind", "--groups", "staff", "--dry-run", "--explain").output
    assert "-- outcome: would answer (dry run" in explained  # it said "answered"
    assert "-- outcome: answered" not in explained
    # exit 3 as --help says of a decline: a new user's "would decline" exited 0
    declined = invoke("ask", "How do I configure the Kubernetes operator?", "--db", str(db),
                      "--tenant", "northwind", "--groups", "staff", "--dry-run", ok=False)
    assert declined.output.startswith("would decline") and declined.exit_code == 3
    as_json = invoke("ask", "How do I configure the Kubernetes operator?", "--db", str(db),
                     "--tenant", "northwind", "--groups", "staff", "--dry-run", "--json",
                     ok=False)
    assert as_json.exit_code == 3


def test_calibrate_stores_the_threshold(db, tmp_path):
    answerable = [("parental leave weeks", "leave-policy.md"),
                  ("error code E42 lift overload", "prod-tern-operator-manual"),
                  ("business class flights travel policy", "travel-policy.md"),
                  ("report a security incident", "sec-incident-response"),
                  ("expense receipts reimbursement", "expense-policy.md"),
                  ("remote work days per week", "remote-work-policy.md")]
    off_topic = ["volcano eruption lava temperature", "medieval cathedral architecture",
                 "photosynthesis chlorophyll wavelength", "baroque harpsichord tuning",
                 "deep sea anglerfish bioluminescence", "cricket test match scoring rules"]
    lines = [{"id": f"a{i}", "question": q, "relevant": [{"doc": d}]}
             for i, (q, d) in enumerate(answerable)]
    lines += [{"id": f"u{i}", "question": q, "relevant": []} for i, q in enumerate(off_topic)]
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(x) + "\n" for x in lines))
    args = ("calibrate", "--questions", str(questions), "--db", str(db), "--tenant",
            "northwind", "--groups", "staff", "--max-false-decline", "0")
    # six questions a half: its fit declines one answerable test question in two, the
    # shipped gate none, so it is refused (the eval-gated swap) unless forced
    refused = invoke(*args, ok=False)
    assert refused.exit_code == 1 and "not stored" in refused.output, refused.output
    assert "in force now: combined+terms" in refused.output and "--force" in refused.output
    assert ask(db, "volcano eruption lava temperature")["trace"]["gate"]["source"] == "shipped"
    out = invoke(*args, "--force", "--json").output
    result = json.loads(out)
    assert result["dev"]["false_decline"] == 0.0 and result["stored"]
    assert result["in_force"]["test"]["false_decline"] < result["test"]["false_decline"]
    a = ask(db, "volcano eruption lava temperature")
    assert a["trace"]["gate"]["source"] == "index"
    assert a["trace"]["gate"]["threshold"] == result["threshold"]


def test_auto_without_a_local_model_says_it_answered_extractively(db, tmp_path, monkeypatch):
    monkeypatch.setenv("CITEWISE_MODELS_DIR", str(tmp_path / "no-models"))
    result = invoke("ask", "How many weeks of parental leave do employees get?", "--db",
                    str(db), "--tenant", "northwind", "--groups", "staff")
    assert "answered without an LLM (extractive)" in result.output
    assert "citewise models pull" in result.output and "[1] " in result.output


def test_a_decline_names_the_terms_as_the_question_wrote_them():
    """A new user's declines said "mentions xslttransformtojsonstring" and, of "XSLT 3.0",
    "mentions 3.0, 3" (the gate keeps terms lowercased, and a version's number alone)."""
    from citewise.cli.ask import as_asked

    assert as_asked("Does XSLT 3.0 have xsltTransformToJsonString?",
                    ["xslttransformtojsonstring", "3.0", "3"]) == [
        "xsltTransformToJsonString", "XSLT 3.0"]
    # a version's number with its name: "mentions 4, Python" of "Python 4"
    assert as_asked("How do I package a module for Python 4?", ["4", "python"]) == ["Python 4"]
    assert as_asked("What changed in version 26?", ["26"]) == ["version 26"]
    assert as_asked("Can I set the limit to 30?", ["30"]) == ["30"]
    assert as_asked("rewritten away", ["bz_config_error"]) == ["bz_config_error"]
