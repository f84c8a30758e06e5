"""A calibration is its tenant's: what ``citewise calibrate`` fits on one tenant's questions
decides that tenant's gate only (a security review: calibrating acme's questions changed what
globex's users were told, and an acme editor's upload could steer it)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from citewise.answer.calibrate import Record, calibrate
from citewise.answer.calibration import asking_tenant, store_calibration
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.eval.questions import Question
from citewise.index.meta_keys import gate_key, gate_name
from citewise.testing import FakeEmbedder
from citewise.types import Principal

NORTHWIND = Principal.of("staff", tenant="northwind")
OTHER = Principal.of("staff", tenant="globex")
QUESTION = "How many weeks of parental leave?"


def _fit(tenant: str) -> object:
    records = [Record(f"q{i}", {"dense_top": 0.9 if i % 2 else 0.1}, bool(i % 2))
               for i in range(80)]
    return replace(calibrate(records, ["dense_top"], 0.1), tenant=tenant)


def _source(engine: Engine, who: Principal) -> tuple[str, float]:
    gate = engine.ask(QUESTION, who, dry_run=True).trace.gate
    return gate.source, gate.threshold


@pytest.fixture
def copy(db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy.db"
    shutil.copy(db, target)
    return target


def test_a_tenants_calibration_decides_its_own_gate_only(copy: Path) -> None:
    with Engine(copy, Settings(), embedder=FakeEmbedder()) as engine:
        before = _source(engine, OTHER)
        store_calibration(engine, _fit("northwind"), source="test")
        assert _source(engine, NORTHWIND)[0] == "index"
        assert _source(engine, OTHER) == before  # another tenant's gate is as it was
        assert engine.store.get_meta(gate_key("signal", "northwind")) == "dense_top"
        assert engine.store.get_meta("gate.signal") is None


def test_an_index_wide_calibration_of_a_release_before_still_applies(copy: Path) -> None:
    with Engine(copy, Settings(), embedder=FakeEmbedder()) as engine:
        engine.store.set_meta("gate.signal", "dense_top")  # as the release before stored it
        engine.store.set_meta("gate.threshold", "0.25")
        assert _source(engine, OTHER) == ("index-wide", 0.25)  # the trace says whose
        store_calibration(engine, _fit("northwind"), source="test")
        assert _source(engine, OTHER) == ("index-wide", 0.25)
        assert _source(engine, NORTHWIND)[1] != 0.25


def test_questions_asked_in_two_tenants_are_refused() -> None:
    personas = {"a": NORTHWIND, "b": OTHER}
    questions = [Question("q1", QUESTION, persona="a"), Question("q2", QUESTION, persona="b")]
    with pytest.raises(ConfigError, match="2 tenants.*calibrate each tenant"):
        asking_tenant(questions, personas, None, None)
    assert asking_tenant(questions, personas, None, "b") == "globex"  # --as one persona
    assert asking_tenant([Question("q", QUESTION)], {}, NORTHWIND, None) == "northwind"


def test_storing_a_calibration_is_a_new_generation(copy: Path) -> None:
    """The servers' caches are keyed by it: they must not serve a decision the old
    calibration made (the review: cached answers the new threshold declines)."""
    with Engine(copy, Settings(), embedder=FakeEmbedder()) as engine:
        before = engine.store.generation()
        store_calibration(engine, _fit("northwind"), source="test")
        assert engine.store.generation() > before


def test_only_calibration_keys_are_named() -> None:
    assert gate_name("gate.threshold@acme") == "threshold"
    assert gate_name("gate.reader") == "reader"
    assert gate_name("gate.other@acme") is None and gate_name("threshold") is None
