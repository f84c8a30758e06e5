"""One committed eval set as the benchmarks open it: ``NAME=DOCS`` names ``evals/NAME.jsonl``
(its questions), ``evals/NAME.meta.jsonl`` (the ACL sidecar, when there is one) and its
personas (``evals/NAME.personas.json``; httpx's are ``evals/personas.json``) over the
documents in DOCS. Without personas every question is asked as the ``public`` group."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citewise.engine import Engine
from citewise.eval.questions import as_personas, as_questions
from citewise.ingest.sidecar import read_sidecar
from citewise.types import Principal

EVALS = Path(__file__).resolve().parents[1] / "evals"


@dataclass(frozen=True)
class EvalSet:
    name: str
    docs: str

    @classmethod
    def parse(cls, spec: str) -> EvalSet:
        name, docs = spec.split("=", 1)
        return cls(name, docs)

    def ingest(self, engine: Engine) -> None:
        """Index DOCS for the ``public`` group, with the set's sidecar when it has one."""
        meta = EVALS / f"{self.name}.meta.jsonl"
        engine.ingest_paths([self.docs], {"groups": ["public"]},
                            read_sidecar(meta) if meta.exists() else None)

    def questions(self) -> list:
        return as_questions(EVALS / f"{self.name}.jsonl")

    def personas(self) -> dict:
        path = EVALS / (f"{self.name}.personas.json" if self.name != "httpx"
                        else "personas.json")
        return as_personas(path) if path.exists() else {}

    def principal(self) -> Principal | None:
        """Who asks a question without a persona: None when the set has personas."""
        return None if self.personas() else Principal.of("public")
