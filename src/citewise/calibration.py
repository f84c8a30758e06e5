"""Calibrating an index's grounding gate on labelled questions (``citewise calibrate``).

Each question is run through retrieval and the gate only (``ask(..., dry_run=True)``) as its
principal (``as_persona`` > the question's persona > ``principal``). A question is answerable
for that principal when at least one of its relevant documents is in the index and readable by
it; an unanswerable question (``relevant: []``) or one whose evidence the principal may not
read should be declined. :func:`citewise.generate.calibrate.calibrate` picks the signal and
threshold; :func:`store_calibration` records them in the index (``gate.signal``,
``gate.threshold``, ``gate.calibration``), where ``ask`` reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.errors import ConfigError
from citewise.generate.calibrate import Calibration, Record, calibrate
from citewise.generate.gate import SIGNALS
from citewise.types import Document, Principal

if TYPE_CHECKING:
    from citewise.engine import Engine
    from citewise.eval.questions import Question


def readable(doc: Document | None, principal: Principal) -> bool:
    return doc is not None and doc.tenant == principal.tenant and bool(
        doc.acl_groups & principal.groups)


def _who(q: Question, personas: Mapping[str, Principal], as_persona: str | None,
         principal: Principal) -> Principal:
    name = as_persona or q.persona
    if name is None:
        return principal
    if name not in personas:
        raise ConfigError(f"question {q.id} runs as persona {name!r}, which the personas file "
                          f"does not define ({', '.join(sorted(personas)) or 'none given'}). "
                          "Fix: pass --personas FILE that defines it.")
    return personas[name]


def collect_records(engine: Engine, questions: Sequence[Question],
                    personas: Mapping[str, Principal], principal: Principal,
                    as_persona: str | None = None) -> list[Record]:
    """Gate signals and answerability of every question (retrieval only, no generation)."""
    records = []
    docs: dict[str, Document | None] = {}
    for q in questions:
        who = _who(q, personas, as_persona, principal)
        ids = {place.doc for piece in q.relevant for place in piece.places}
        for doc_id in ids - docs.keys():
            docs[doc_id] = engine.store.get_document(doc_id)
        answerable = any(readable(docs[d], who) for d in ids)
        answer = engine.ask(q.question, who, dry_run=True)
        records.append(Record(q.id, dict(answer.trace["gate"]["signals"]), answerable))
    return records


def run_calibration(engine: Engine, questions: str | Path | Sequence[Question],
                    personas: str | Path | Mapping[str, Principal] | None = None,
                    principal: Principal | None = None, as_persona: str | None = None,
                    max_false_decline: float = 0.1) -> Calibration:
    from citewise.eval.questions import as_personas, as_questions

    records = collect_records(engine, as_questions(questions), as_personas(personas),
                              principal or Principal.of("", tenant="default"), as_persona)
    return calibrate(records, SIGNALS, max_false_decline)


def store_calibration(engine: Engine, result: Calibration, source: str) -> None:
    """Record the chosen signal and threshold (and how they were chosen) in the index."""
    store = engine.store
    store.set_meta("gate.signal", result.signal)
    store.set_meta("gate.threshold", repr(result.threshold))
    store.set_meta("gate.calibration", json.dumps({
        "source": source, "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "max_false_decline": result.max_false_decline, "n_dev": result.n_dev,
        "n_test": result.n_test, "dev": result.dev.__dict__,
        "test": result.test.__dict__ if result.test else None, "auc": dict(result.auc)}))
