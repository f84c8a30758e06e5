"""A tiny governed corpus indexed with real SQLite and the deterministic fake embedder."""

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.questions import parse_question
from citewise.testing import FakeEmbedder
from citewise.types import Principal

TRAVEL = """---
title: Travel policy
groups: [staff]
---
# Travel policy

## Booking
Book flights through the travel desk at least 14 days ahead.

### Trains
Rail travel under four hours is preferred over flying.

## Per diem
The daily meal allowance is 45 euros in Europe.
"""
SALARY = """---
title: Salary bands
groups: [hr]
---
# Salary bands

Level 5 salary band: 98,000 to 120,000 euros. Salary band review happens in March.
"""
PERSONAS = {"staff": Principal.of("staff", name="staff"),
            "hr": Principal.of(["staff", "hr"], name="hr")}


def q(qid, text, relevant=(), **extra):
    return parse_question({"id": qid, "question": text, "relevant": list(relevant), **extra},
                          "test")


QUESTIONS = [
    q("meal", "what is the daily meal allowance", [{"doc": "travel.md", "section": "per-diem"}],
      answer="45 euros", kind="policy"),
    q("train", "is rail preferred over flying", [{"doc": "travel.md", "section": "booking"}],
      kind="policy"),
    q("salary", "level 5 salary band", [{"doc": "salary.md", "section": None}], kind="hr",
      persona="hr"),
    q("salary-staff", "level 5 salary band", [{"doc": "salary.md", "section": None}],
      kind="hr", persona="staff"),
    q("parking", "where do I park my bike", [], kind="policy"),
]


@pytest.fixture
def questions():
    return list(QUESTIONS)


@pytest.fixture
def personas():
    return dict(PERSONAS)


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (root / "salary.md").write_text(SALARY, encoding="utf-8")
    return root


@pytest.fixture
def engine(tmp_path, corpus):
    settings = Settings.model_validate({"retrieve": {"mode": "bm25"}})
    with Engine(tmp_path / "idx.db", settings, embedder=FakeEmbedder()) as eng:
        # the operator grants staff and hr; each file's front matter narrows it to one
        eng.ingest_paths([Path(corpus)], {"groups": ["staff", "hr"]})
        yield eng


def restricted_label_problems(questions: Sequence, only_restricted: Mapping[str, str],
                              pages: Mapping[str, str], restricted: Collection[str]) -> list[str]:
    """What is wrong with an eval set's restricted labels: ``only_restricted`` maps each
    question whose persona may not read its answer (kind ``access``, no answer) to a pattern
    that answers it; the pattern must match its labelled page and no page outside
    ``restricted`` (``pages``: lowercased text by document path)."""
    problems = []
    hidden = {q.id for q in questions if q.kind == "access" and not q.answer}
    if hidden != set(only_restricted):
        problems.append(f"restricted questions without a pattern or patterns without one: "
                        f"{sorted(hidden ^ set(only_restricted))}")
    labelled = {q.id: q.relevant[0].places[0].doc for q in questions if q.relevant}
    for qid, pattern in only_restricted.items():
        if not re.search(pattern, pages.get(labelled.get(qid, ""), "")):
            problems.append(f"{qid}: {pattern!r} not in {labelled.get(qid)}")
        public = [d for d, text in pages.items()
                  if d not in restricted and re.search(pattern, text)]
        if public:
            problems.append(f"{qid}: {pattern!r} also in public {public}")
    return problems
