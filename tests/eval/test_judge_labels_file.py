"""The committed judge labels (evals/httpx.judge-labels.jsonl) and the agreement measured on
them (evals/httpx.judge-agreement.json): the labels are well formed and match the eval set,
and the measurement is for the judge as it is now (model, prompt, labels)."""

from __future__ import annotations

import json
from pathlib import Path

from citewise.config import EvalSettings
from citewise.eval.judge import prompt_hash
from citewise.eval.judge_labels import labels_digest, load_labels
from citewise.eval.questions import load_questions
from citewise.models import LOCAL_MODELS

EVALS = Path(__file__).resolve().parents[2] / "evals"
LABELS = EVALS / "httpx.judge-labels.jsonl"
AGREEMENT = EVALS / "httpx.judge-agreement.json"
REMEASURE = ("re-run when the judge model or prompt changes: `citewise eval judge-check "
             "--labels evals/httpx.judge-labels.jsonl --write evals/httpx.judge-agreement.json`")


def test_labels_cover_both_verdicts_and_match_the_eval_set():
    labels = load_labels(LABELS)
    questions = {q.id: q for q in load_questions(EVALS / "httpx.jsonl")}
    assert len(labels) >= 50
    assert sum(not lab.correct for lab in labels) >= 15
    assert sum(lab.correct for lab in labels) >= 15
    assert len({lab.generator for lab in labels}) >= 2
    for lab in labels:
        q = questions[lab.question_id]
        assert lab.question == q.question and list(lab.references) == list(q.answers), lab.id
        assert q.answerable, lab.id


def test_agreement_was_measured_for_this_judge():
    data = json.loads(AGREEMENT.read_text(encoding="utf-8"))
    model = LOCAL_MODELS[EvalSettings().judge_model].model_id
    assert data["model"] == model, f"default judge model is {model}, measured {data['model']}; " \
        + REMEASURE
    assert data["prompt_hash"] == prompt_hash(), \
        f"judge prompt hash {prompt_hash()}, measured {data['prompt_hash']}; " + REMEASURE
    assert data["labels_sha256"] == labels_digest(LABELS), "labels changed; " + REMEASURE
    assert data["threshold"] == EvalSettings().judge_threshold, REMEASURE
    assert data["n"] == len(load_labels(LABELS))
    for figure in ("accuracy", "kappa"):
        f = data[figure]
        assert f["lo"] <= f["value"] <= f["hi"], figure
