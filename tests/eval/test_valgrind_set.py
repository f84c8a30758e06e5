"""The second eval set (evals/valgrind.jsonl) is well formed and has what it promises: >= 60
questions in users' words, >= 20 unanswerable by nature, >= 10 whose answer sits only in
documents restricted from the asking persona. (It is run by `make eval-valgrind`; no
threshold is ever fitted on it.)"""

from __future__ import annotations

import json
from pathlib import Path

from citewise.eval.questions import as_personas, as_questions

EVALS = Path(__file__).resolve().parents[2] / "evals"


def test_valgrind_set_counts_and_personas() -> None:
    questions = as_questions(EVALS / "valgrind.jsonl")
    personas = as_personas(EVALS / "valgrind.personas.json")
    restricted = {json.loads(x)["path"] for x in
                  (EVALS / "valgrind.meta.jsonl").read_text().splitlines() if x}
    assert len(questions) >= 60
    by_nature = [q for q in questions if not q.relevant]
    assert len(by_nature) >= 20
    hidden = [q for q in questions if q.persona == "user" and q.relevant
              and all(p.doc in restricted for piece in q.relevant for p in piece.places)]
    assert len(hidden) >= 10
    assert "developers" not in personas["user"].groups
    assert "developers" in personas["developer"].groups
    assert len({q.id for q in questions}) == len(questions)
