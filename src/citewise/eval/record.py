"""What one evaluation run recorded, per question, serialisable to ``run.json``.

A run carries its questions, so it can be re-scored (:mod:`citewise.eval.scoring`) and
compared (:mod:`citewise.eval.compare`) without the eval set or the index.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.eval.questions import Piece, Question, parse_question
from citewise.private import write_private_text
from citewise.text import json_problem

RUN_FORMAT = 1


@dataclass
class QuestionRecord:
    """One question as run: the principal it ran as, the pieces visible to it, and the hits.

    ``hits`` are dicts with ``rank, score, doc_id, chunk_id, anchor, heading_path,
    section_id, start, end, tokens, text_hash, title, snippet`` (best first).
    ``hidden`` counts relevant pieces whose documents this principal may not read: they are
    dropped from ``question.relevant`` (all hidden: the question is unanswerable for them).
    ``answer`` holds the :class:`~citewise.types.Answer` fields when answers were asked for;
    ``judge`` the answer-correctness verdict when the run was judged
    (:class:`citewise.eval.judge.Verdict` fields).
    """

    question: Question
    persona: str | None
    hits: list[dict[str, Any]]
    latency_ms: float
    hidden: int = 0
    leaks: int = 0
    answer: dict[str, Any] | None = None
    answer_latency_ms: float | None = None
    judge: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def answerable(self) -> bool:
        return self.question.answerable

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return self.question.relevant

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["question"] = self.question.as_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str) -> QuestionRecord:
        try:
            return cls(question=parse_question(data["question"], where),
                       persona=data.get("persona"), hits=list(data["hits"]),
                       latency_ms=float(data["latency_ms"]), hidden=int(data.get("hidden", 0)),
                       leaks=int(data.get("leaks", 0)), answer=data.get("answer"),
                       answer_latency_ms=data.get("answer_latency_ms"),
                       judge=data.get("judge"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: not a citewise eval record ({exc}). "
                              "Fix: pass a run.json written by `citewise eval run`") from None


@dataclass
class EvalRun:
    """A whole run: settings that shaped it, ``k``, and one record per question."""

    records: list[QuestionRecord]
    k: int = 10
    name: str = "run"
    created_at: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, QuestionRecord]:
        return {r.id: r for r in self.records}

    @property
    def with_answers(self) -> bool:
        return any(r.answer is not None for r in self.records)

    def as_dict(self) -> dict[str, Any]:
        return {"format": RUN_FORMAT, "name": self.name, "created_at": self.created_at,
                "k": self.k, "settings": self.settings, "warnings": self.warnings,
                "records": [r.as_dict() for r in self.records]}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=1, default=str)

    @classmethod
    def from_json(cls, text: str, where: str = "run.json") -> EvalRun:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # a 5,000-digit number, 50,000 "["
            why = "nested too deeply" if isinstance(exc, RecursionError) else \
                json_problem(exc)
            raise ConfigError(f"{where}: not valid JSON ({why}). "
                              "Fix: pass a run.json written by `citewise eval run`") from None
        if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
            raise ConfigError(f"{where}: not a citewise eval run (format {RUN_FORMAT}). "
                              "Fix: pass a run.json written by `citewise eval run`")
        records = [QuestionRecord.from_dict(r, f"{where} record {i}")
                   for i, r in enumerate(data.get("records") or [], start=1)]
        return cls(records=records, k=int(data.get("k", 10)), name=data.get("name", "run"),
                   created_at=data.get("created_at", ""), settings=data.get("settings") or {},
                   warnings=list(data.get("warnings") or []))

    def save(self, path: str | Path) -> None:
        write_private_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> EvalRun:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror}. Fix: check the path") \
                from None
        except UnicodeDecodeError:  # a security review's 0xff byte: a traceback
            raise ConfigError(f"{path}: not UTF-8 text. Fix: pass a run.json written by "
                              "`citewise eval run`") from None
        return cls.from_json(text, path.name)

    def doc_runs(self) -> dict[str, list[tuple[str, float]]]:
        """Per question, documents by first occurrence with their best score (TREC run)."""
        out: dict[str, list[tuple[str, float]]] = {}
        for r in self.records:
            docs: dict[str, float] = {}
            for h in r.hits:
                docs.setdefault(h["doc_id"], float(h["score"]))
            out[r.id] = list(docs.items())
        return out
