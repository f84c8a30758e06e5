"""A tiny governed corpus indexed with real SQLite and the deterministic fake embedder."""

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
