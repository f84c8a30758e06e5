"""``citewise calibrate`` fits how the answerability reader and the retrieval signal combine
(logistic regression on the dev half, threshold at the false-decline budget) and stores it."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from citewise.answer.calibrate import Record, calibrate, is_dev
from citewise.answer.calibration import collect_records, store_calibration
from citewise.answer.gate import SIGNALS
from citewise.answer.reader import ReaderModel, choose_model
from citewise.answer.reader_fit import fit_reader, gate_point, logistic
from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.questions import Piece, Place, Question
from citewise.results import CalibrationResult
from citewise.testing import FakeEmbedder, FakeReaderGenerator
from citewise.types import Principal

STAFF = Principal.of("staff", tenant="northwind")


def test_logistic_finds_the_separating_feature() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = (x[:, 1] + 0.1 * rng.normal(size=200) > 0).astype(float)
    w = logistic(x, y)
    assert w[2] > 3 and abs(w[1]) < 0.3 * w[2]


def records(n: int = 120) -> list[Record]:
    """The retrieval signal passes everything and tells nothing; the reader separates."""
    out = []
    for i in range(n):
        answerable = i % 2 == 0
        p_yes = 0.8 - 0.1 * (i % 3) if answerable else 0.2 + 0.1 * (i % 3)
        signals = {s: 0.5 + 0.01 * (i % 7) for s in SIGNALS}
        signals["reader"] = p_yes
        out.append(Record(f"q{i}", signals, answerable))
    return out


def test_fit_reader_declines_what_the_reader_says_no_to() -> None:
    recs = records()
    fit = fit_reader(recs, "dense_top", 0.4, max_false_decline=0.1)
    assert fit is not None and fit.model.w_reader > 0 and fit.model.source == "index"
    assert fit.dev.abstention == 1.0 and fit.dev.false_decline <= 0.1
    assert fit.test is not None and fit.test.abstention == 1.0
    assert fit.test.false_decline == 0.0
    without = gate_point([r for r in recs if is_dev(r.qid)], "dense_top", 0.4, fit.model, 0.0)
    assert without.abstention == 0.0  # the retrieval threshold alone declines nothing here


def test_fit_respects_the_false_decline_budget() -> None:
    recs = [replace(r, signals={**r.signals, "reader": 0.5}) if i % 4 == 0 else r
            for i, r in enumerate(records())]  # some answerable questions read as unsure
    fit = fit_reader(recs, "dense_top", 0.4, max_false_decline=0.0)
    assert fit is not None and fit.dev.false_decline == 0.0


def test_too_few_read_questions_fit_nothing() -> None:
    recs = [r for r in records(10)]
    assert fit_reader(recs, "dense_top", 0.4, 0.1) is None
    no_reader = [Record(r.qid, {k: v for k, v in r.signals.items() if k != "reader"},
                        r.answerable) for r in records()]
    assert fit_reader(no_reader, "dense_top", 0.4, 0.1) is None


def test_calibrate_records_the_reader_and_stores_its_fit(db: Path) -> None:
    def logprobs(messages) -> dict[str, float]:  # "parental" questions are answerable
        said = "parental" in messages[-1]["content"].split("Question:")[-1]
        return {"Yes": math.log(0.9 if said else 0.1), "No": math.log(0.1 if said else 0.9)}

    leave = Piece((Place("leave-policy"),))
    questions = [Question("a1", "How many weeks of parental leave?", (leave,)),
                 Question("u1", "How many weeks of sabbatical leave?")]
    with Engine(db, Settings.model_validate({"gate": {"threshold": 0.0, "reader": "on"}}),
                embedder=FakeEmbedder()) as engine:
        engine._generator = FakeReaderGenerator("x", logprobs=logprobs)  # noqa: SLF001
        recs = collect_records(engine, questions, {}, STAFF)
        assert recs[0].signals["reader"] == pytest.approx(0.9)
        assert recs[1].signals["reader"] == pytest.approx(0.1)
        result = calibrate(records(), SIGNALS, 0.1)
        fit = fit_reader(records(), result.signal, result.threshold, 0.1)
        store_calibration(engine, replace(result, reader=fit), source="test")
        stored = choose_model(None, engine.store.get_meta("gate.reader@default"))
        assert stored == replace(fit.model, source="index")
        assert CalibrationResult(replace(result, reader=fit), True).to_dict()["reader"][
            "model"]["w_reader"] == fit.model.w_reader
        store_calibration(engine, result, source="test")  # no reader this time: back to shipped
        assert choose_model(None, engine.store.get_meta("gate.reader@default")) == ReaderModel(
            source="uncalibrated")
