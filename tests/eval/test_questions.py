"""Eval-set and personas loading: accepted shapes and line-numbered errors that say the fix."""

import json

import pytest

from citewise.errors import ConfigError
from citewise.eval.questions import load_personas, load_questions, write_questions


def write(tmp_path, *rows):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_loads_pieces_alternatives_and_references(tmp_path):
    path = write(tmp_path, {"id": "q1", "question": "How?", "relevant": [
        {"doc": "a.md", "section": "#Setup", "also": [{"doc": "b.md", "section": None}],
         "grade": 2}], "answer": "x", "answers": ["y", "x"], "kind": "howto", "persona": "p"},
        "", {"id": "q2", "question": "Why?", "relevant": []})
    q1, q2 = load_questions(path)
    assert [p.doc for p in q1.relevant[0].places] == ["a.md", "b.md"]
    assert q1.relevant[0].places[0].section == "Setup" and q1.relevant[0].grade == 2
    assert q1.answers == ("x", "y") and q1.kind == "howto" and q1.persona == "p"
    assert not q2.answerable and q2.kind == "general" and q2.answer is None
    again = tmp_path / "again.jsonl"
    write_questions(again, [q1, q2])
    assert load_questions(again) == [q1, q2]


@pytest.mark.parametrize("row, message", [
    ("{not json", "line 2: not valid JSON"),
    ({"id": "x", "question": "?"}, "line 2: \"relevant\" is required"),
    ({"id": "x", "question": "", "relevant": []}, "\"question\" is required"),
    ({"id": "x", "question": "?", "relevant": [{"section": "s"}]}, "needs a \"doc\""),
    ({"id": "x", "question": "?", "relevant": [{"doc": "a", "grade": 0}]}, "\"grade\""),
    ({"id": "ok", "question": "?", "relevant": []}, "duplicate id 'ok' \\(first on line 1\\)"),
])
def test_errors_name_the_line_and_the_fix(tmp_path, row, message):
    path = write(tmp_path, {"id": "ok", "question": "?", "relevant": []}, row)
    with pytest.raises(ConfigError, match=message) as info:
        load_questions(path)
    assert "Fix:" in str(info.value)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(ConfigError, match="no questions"):
        load_questions(write(tmp_path, ""))
    with pytest.raises(ConfigError, match="cannot read eval set"):
        load_questions(tmp_path / "missing.jsonl")


def test_personas(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"support": {"groups": ["staff"], "tenant": "acme"},
                                "anon": {"groups": []}}))
    personas = load_personas(path)
    assert personas["support"].groups == frozenset({"staff"})
    assert personas["support"].tenant == "acme" and personas["anon"].tenant == "default"
    path.write_text(json.dumps({"x": {"groups": "staff"}}))
    with pytest.raises(ConfigError, match="persona 'x' needs \"groups\""):
        load_personas(path)


@pytest.mark.parametrize("path", ["/dev/zero", "/tmp"])
def test_a_set_path_that_is_no_regular_file_is_refused_without_reading(path):
    """An admin's reindex request names these paths on the server: /dev/zero must not be
    read until memory runs out, nor a folder or a FIFO block."""
    for load, option in ((load_questions, "--questions"), (load_personas, "--personas")):
        with pytest.raises(ConfigError, match=f"not a regular file .* Fix: check the {option}"):
            load(path)
