"""Hand-labelled answers (``evals/*.judge-labels.jsonl``) and the judge's agreement with them.

A label line::

    {"id": "timeout-default/extractive", "question_id": "timeout-default",
     "question": "...", "references": ["5 seconds"], "answer": "The default timeout is ...",
     "generator": "extractive", "label": "correct", "reason": "states the 5 s default"}

``label`` is a person's verdict (``correct`` / ``incorrect``) from the references and, where
needed, the documents; never the judge's output. :func:`check_agreement` asks the judge about
every line and reports accuracy and Cohen's kappa (:mod:`citewise.eval.agreement`) with 95 %
intervals, overall and on two halves split by a hash of the question id (``dev``: where a
prompt may be chosen; ``test``: where it is then reported).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.eval.agreement import accuracy, cohen_kappa, confusion, kappa_interval
from citewise.eval.judge import AnswerJudge
from citewise.eval.questions import jsonl_objects

LABELS = ("correct", "incorrect")
_KEYS = ("id", "question_id", "question", "answer", "generator", "label", "reason")


@dataclass(frozen=True)
class LabelledAnswer:
    id: str
    question_id: str
    question: str
    references: tuple[str, ...]
    answer: str
    generator: str
    correct: bool
    reason: str

    @property
    def half(self) -> str:
        digest = hashlib.sha256(self.question_id.encode()).digest()
        return "dev" if digest[0] % 2 == 0 else "test"


def _parse(obj: Any, where: str) -> LabelledAnswer:
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: expected a JSON object. Fix: one labelled answer per line")
    for key in _KEYS:
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ConfigError(f"{where}: \"{key}\" must be a non-empty string. "
                              f"Fix: add \"{key}\": \"...\"")
    refs = obj.get("references")
    if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
        raise ConfigError(f"{where}: \"references\" must be a non-empty list of strings. "
                          "Fix: copy the eval set's answer(s)")
    if obj["label"] not in LABELS:
        raise ConfigError(f"{where}: label {obj['label']!r} is not one of {list(LABELS)}. "
                          "Fix: write \"correct\" or \"incorrect\"")
    return LabelledAnswer(obj["id"], obj["question_id"], obj["question"], tuple(refs),
                          obj["answer"], obj["generator"], obj["label"] == "correct",
                          obj["reason"])


def load_labels(path: str | Path) -> list[LabelledAnswer]:
    """Read a labels file; a bad line raises :class:`ConfigError` naming file and line."""
    out: list[LabelledAnswer] = []
    seen: set[str] = set()
    for where, _, obj in jsonl_objects(path, "labels", "--labels"):
        item = _parse(obj, where)
        if item.id in seen:
            raise ConfigError(f"{where}: duplicate id {item.id!r}. Fix: give every line its "
                              "own id")
        seen.add(item.id)
        out.append(item)
    if not out:
        raise ConfigError(f"{path}: no labelled answers. Fix: add one JSON object per line")
    return out


def labels_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _figures(human: Sequence[bool], judged: Sequence[bool], seed: int) -> dict[str, Any]:
    from citewise.answer.calibrate import wilson

    c = confusion(human, judged)
    lo, hi = wilson(c.both + c.neither, c.n)
    k_lo, k_hi = kappa_interval(human, judged, seed=seed)
    return {"n": c.n, "human_correct": sum(human),
            "accuracy": {"value": round(accuracy(human, judged), 4), "lo": lo, "hi": hi,
                         "interval": "wilson"},
            "kappa": {"value": round(cohen_kappa(human, judged), 4), "lo": k_lo, "hi": k_hi,
                      "interval": "bootstrap"},
            "confusion": c.to_dict()}


def fit_threshold(items: Sequence[dict[str, Any]], seed: int = 0) -> dict[str, Any]:
    """The threshold on P(correct) with the highest kappa on the ``dev`` half (ties: nearest
    0.5), and the ``test`` half's figures at it: a suggestion for ``eval.judge_threshold``,
    reported on items it was not chosen on. Never applied by itself."""
    dev = [i for i in items if i["half"] == "dev"]
    test = [i for i in items if i["half"] == "test"]
    human = [i["human"] for i in dev]

    def dev_kappa(t: float) -> float:
        k = cohen_kappa(human, [i["p_correct"] >= t for i in dev])
        return -2.0 if math.isnan(k) else k  # a constant verdict (NaN) ranks last

    candidates = sorted({0.5, *(i["p_correct"] for i in dev)})
    best = max(candidates, key=lambda t: (dev_kappa(t), -abs(t - 0.5)))
    return {"threshold": best, "dev_kappa": round(dev_kappa(best), 4),
            "test": _figures([i["human"] for i in test],
                             [i["p_correct"] >= best for i in test], seed) if test else None}


@dataclass(frozen=True)
class JudgeAgreement:
    """The judge's agreement with a labels file (overall and per half), what it was measured
    for (model, prompt hash, threshold, labels digest) and each item's P(correct)."""

    labels: str
    labels_sha256: str
    model: str
    prompt_hash: str
    threshold: float
    overall: dict[str, Any]
    halves: dict[str, dict[str, Any]]
    items: tuple[dict[str, Any], ...]
    fitted: dict[str, Any]
    measured_at: str
    seconds: float
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"labels": self.labels, "labels_sha256": self.labels_sha256,
                "model": self.model, "prompt_hash": self.prompt_hash,
                "threshold": self.threshold, **self.overall, "halves": self.halves,
                "fitted_threshold": self.fitted,
                "measured_at": self.measured_at, "seconds": self.seconds,
                "notes": list(self.notes), "items": list(self.items)}


def check_agreement(path: str | Path, judge: AnswerJudge, seed: int = 0,
                    on_progress: Callable[[int], None] | None = None) -> JudgeAgreement:
    """Judge every labelled answer of ``path`` and compare with the human labels."""
    labels = load_labels(path)
    start = time.perf_counter()
    items = []
    for lab in labels:
        p = judge.p_correct(lab.question, lab.references, lab.answer)
        items.append({"id": lab.id, "human": lab.correct, "p_correct": round(p, 4),
                      "judge": p >= judge.threshold, "half": lab.half})
        if on_progress is not None:
            on_progress(1)
    halves = {}
    for half in ("dev", "test"):
        chosen = [i for i in items if i["half"] == half]
        halves[half] = _figures([i["human"] for i in chosen], [i["judge"] for i in chosen],
                                seed)
    return JudgeAgreement(
        labels=Path(path).as_posix(), labels_sha256=labels_digest(path),
        model=judge.model_id, prompt_hash=judge.prompt_hash, threshold=judge.threshold,
        overall=_figures([i["human"] for i in items], [i["judge"] for i in items], seed),
        halves=halves, items=tuple(items), fitted=fit_threshold(items, seed),
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        seconds=round(time.perf_counter() - start, 1))
