"""Calibrating an index's grounding gate on labelled questions (``citewise calibrate``).

Each question is run through retrieval and the gate only (``ask(..., dry_run=True)``) as its
principal, chosen as ``citewise eval run`` chooses it
(:class:`~citewise.eval.harness.Askers`). A question is answerable for that principal when a
relevant piece is readable by it (:func:`~citewise.eval.harness.restrict_to_readable`); an
unanswerable question (``relevant: []``) or one whose evidence the principal may not read
should be declined. :func:`citewise.answer.calibrate.calibrate` picks the signal and
threshold; :func:`store_calibration` records them in the index for the askers' tenant
(``gate.signal@<tenant>`` & co: :mod:`citewise.index.meta_keys`), where ``ask`` reads them
for that tenant's users. The questions of one calibration are asked by one tenant's users.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.answer.calibrate import Calibration, Record, against, calibrate
from citewise.answer.gate import SIGNALS
from citewise.answer.gate_store import stored_gate
from citewise.errors import ConfigError
from citewise.index.meta_keys import gate_key
from citewise.types import Document, Principal

if TYPE_CHECKING:
    from citewise.engine import Engine
    from citewise.eval.questions import Question


def collect_records(engine: Engine, questions: Sequence[Question],
                    personas: Mapping[str, Principal], principal: Principal | None,
                    as_persona: str | None = None,
                    on_progress: Callable[[int], None] | None = None) -> list[Record]:
    """Gate signals and answerability of every question (retrieval only, no generation).
    Who asks and what they may read are decided as ``citewise eval run`` decides them."""
    from citewise.eval.harness import Askers, restrict_to_readable

    askers = Askers(personas, as_persona, principal)
    docs: dict[str, Document | None] = {}
    warnings: list[str] = []
    records = []
    labelled = unreadable = 0
    for q in questions:
        _, who = askers(q)
        readable_q, _ = restrict_to_readable(engine, q, who, docs, warnings)
        labelled += bool(q.relevant)
        unreadable += bool(q.relevant) and not readable_q.relevant
        answer = engine.ask(q.question, who, dry_run=True)
        gate = answer.trace.gate
        signals = dict(gate.signals)
        if gate.reader is not None and gate.reader.p_yes is not None:  # the answerability
            signals["reader"] = gate.reader.p_yes  # reader read it (citewise.answer.reader)
        records.append(Record(q.id, signals, bool(readable_q.relevant)))
        if on_progress is not None:
            on_progress(1)
    if labelled and unreadable == labelled:
        who = askers.fallback
        asker = (f"tenant {who.tenant}, groups {', '.join(sorted(who.groups)) or 'none'}"
                 if who is not None and not as_persona else "its persona")
        raise ConfigError(f"the asker ({asker}) may read none of the documents the "
                          f"{labelled} answerable question(s) name, so every question would "
                          "count as unanswerable. Fix: pass the --tenant and --groups of a "
                          "user who may read them, or --personas")
    return records


def run_calibration(engine: Engine, questions: str | Path | Sequence[Question],
                    personas: str | Path | Mapping[str, Principal] | None = None,
                    principal: Principal | None = None, as_persona: str | None = None,
                    max_false_decline: float = 0.1,
                    on_progress: Callable[[int], None] | None = None) -> Calibration:
    from citewise.eval.questions import as_personas, as_questions

    questions, personas = as_questions(questions), as_personas(personas)
    tenant = asking_tenant(questions, personas, principal, as_persona)
    records = collect_records(engine, questions, personas, principal, as_persona, on_progress)
    from dataclasses import replace

    from citewise.answer.reader_fit import fit_reader

    result = calibrate(records, SIGNALS, max_false_decline)
    result = against(result, records, *_in_force(engine, tenant))
    return replace(result, tenant=tenant, reader=fit_reader(
        records, result.signal, result.threshold, max_false_decline))


def asking_tenant(questions: Sequence[Question], personas: Mapping[str, Principal],
                  principal: Principal | None, as_persona: str | None) -> str:
    """The one tenant whose users ask ``questions``: a calibration is that tenant's."""
    from citewise.eval.harness import Askers

    askers = Askers(personas, as_persona, principal)
    tenants = sorted({askers(q)[1].tenant for q in questions})
    if len(tenants) > 1:
        raise ConfigError(f"the questions are asked by users of {len(tenants)} tenants "
                          f"({', '.join(tenants[:5])}), and a calibration is stored for one "
                          "tenant (its users' questions fit its gate). Fix: calibrate each "
                          "tenant's questions on their own, with its --tenant or personas")
    return tenants[0] if tenants else (principal.tenant if principal else "default")


def _in_force(engine: Engine, tenant: str) -> tuple[str, float, str]:
    """(signal, threshold, source) of the gate ``ask`` uses now for ``tenant``'s users."""
    from citewise.answer.gate import choose_threshold

    stored = stored_gate(engine.store, tenant)
    return choose_threshold(engine.settings.gate.threshold, stored.signal, stored.threshold,
                            engine.index_info().embedder)


def store_calibration(engine: Engine, result: Calibration, source: str) -> None:
    """Record the chosen signal and threshold (and how they were chosen) in the index, for
    the tenant whose questions they were fitted on (``result.tenant``)."""
    store, tenant = engine.store, result.tenant
    store.set_meta(gate_key("threshold", tenant), repr(result.threshold))
    # the reader's combination, or "" (the shipped one) when it was not fitted this time
    store.set_meta(gate_key("reader", tenant),
                   result.reader.model.to_json() if result.reader else "")
    store.set_meta(gate_key("calibration", tenant), json.dumps({
        "source": source, "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "max_false_decline": result.max_false_decline, "n_dev": result.n_dev,
        "n_test": result.n_test, "dev": result.dev.__dict__,
        "test": result.test.__dict__ if result.test else None, "auc": dict(result.auc)}))
    # the signal last: a tenant's first calibration is read (gate_store) once it is there
    store.set_meta(gate_key("signal", tenant), result.signal)
