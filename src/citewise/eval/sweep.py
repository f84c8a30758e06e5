"""``sweep``: the same eval set over a grid of settings, each variant on a throwaway index.

``--vary chunk_tokens=128,256 --vary mode=bm25,hybrid`` is the product of the listed values
(4 variants). A key is a dotted setting (``retrieve.mode``) or a bare field name that exists
in exactly one settings section (``mode`` → ``retrieve.mode``). Variants that agree on every
setting that shapes the index (``limits``, ``chunk``, ``embed``) share one index, so when only
retrieval settings vary the corpus is chunked and embedded once; one embedder instance (the
model loaded once) serves every variant with the same ``embed`` settings.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import ConfigError
from citewise.eval.harness import run_eval
from citewise.eval.metrics import mean, percentile
from citewise.eval.questions import Question
from citewise.eval.record import EvalRun
from citewise.eval.scoring import score_run
from citewise.protocols import Embedder
from citewise.types import Principal

INDEX_SECTIONS = ("limits", "chunk", "embed")
COLUMNS = ("hit@5", "recall@5", "ndcg@10", "tokens_per_request", "latency_p50_ms")


def resolve_key(key: str) -> str:
    """``mode`` → ``retrieve.mode``; dotted keys are checked against the settings tree."""
    sections = Settings.model_fields
    if "." in key:
        section, field = key.split(".", 1)
        model = sections.get(section)
        if model is None or field not in model.annotation.model_fields:  # type: ignore[union-attr]
            raise ConfigError(f"--vary {key}: no such setting. Fix: see `citewise config`")
        return key
    owners = [s for s, info in sections.items()
              if key in getattr(info.annotation, "model_fields", {})]
    if len(owners) != 1:
        where = f"it is in {', '.join(owners)}" if owners else "no section has it"
        raise ConfigError(f"--vary {key}: {where}. Fix: write SECTION.{key} "
                          "(e.g. chunk.chunk_tokens, retrieve.mode)")
    return f"{owners[0]}.{key}"


def parse_vary(specs: Sequence[str]) -> list[dict[str, str]]:
    """``["a=1,2", "b=x"]`` → ``[{"s.a": "1", "t.b": "x"}, {"s.a": "2", "t.b": "x"}]``."""
    axes: list[tuple[str, list[str]]] = []
    for spec in specs:
        key, sep, values = spec.partition("=")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key.strip() or not items:
            raise ConfigError(f"--vary {spec!r}: expected KEY=V1,V2. "
                              "Fix: e.g. --vary chunk_tokens=128,256")
        axes.append((resolve_key(key.strip()), items))
    return [dict(zip([k for k, _ in axes], combo, strict=True))
            for combo in itertools.product(*[v for _, v in axes])]


def variant_settings(base: Settings, variant: Mapping[str, str]) -> Settings:
    data = base.model_dump()
    for dotted, value in variant.items():
        section, field = dotted.split(".", 1)
        data[section][field] = value
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"--vary {variant}: {'.'.join(map(str, first['loc']))}: "
                          f"{first['msg']}. Fix: pick a valid value (see `citewise config`)") \
            from None


def _key(settings: Settings, sections: Sequence[str]) -> str:
    return json.dumps({s: getattr(settings, s).model_dump() for s in sections}, sort_keys=True)


@dataclass
class SweepRow:
    variant: dict[str, str]
    figures: dict[str, float]
    run: EvalRun

    @property
    def label(self) -> str:
        return " ".join(f"{k.split('.', 1)[1]}={v}" for k, v in self.variant.items()) or "base"

    def as_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, **self.figures}


def _figures(run: EvalRun) -> dict[str, float]:
    scores = score_run(run).values()
    out = {m: mean([s[m] for s in scores if m in s]) for m in COLUMNS[:-1]}
    out["latency_p50_ms"] = percentile([r.latency_ms for r in run.records], 50)
    return out


def sweep(questions: Sequence[Question], corpus: Sequence[str | Path], variants: Sequence[
          Mapping[str, str]], base: Settings | None = None, ingest_defaults: Mapping[str, Any]
          | None = None, sidecar: Mapping[str, Mapping[str, Any]] | None = None,
          personas: Mapping[str, Principal] | None = None, principal: Principal | None = None,
          k: int = 10, embedder_factory: Callable[[Settings], Embedder] | None = None,
          on_variant: Callable[[SweepRow], None] | None = None) -> list[SweepRow]:
    """Run ``questions`` once per variant (see the module docstring); indexes live in a
    temporary directory removed on return."""
    base = base or Settings()
    rows: list[SweepRow] = []
    indexes: dict[str, Path] = {}
    embedders: dict[str, Embedder | None] = {}
    with tempfile.TemporaryDirectory(prefix="citewise-sweep-") as tmp:
        for variant in variants or [{}]:
            settings = variant_settings(base, variant)
            index_key, embed_key = _key(settings, INDEX_SECTIONS), _key(settings, ("embed",))
            if embed_key not in embedders:
                embedders[embed_key] = embedder_factory(settings) if embedder_factory else None
            fresh = index_key not in indexes
            db = indexes.setdefault(index_key, Path(tmp) / f"index{len(indexes)}.db")
            with Engine(db, settings, embedder=embedders[embed_key]) as engine:
                embedders[embed_key] = engine.embedder  # loaded once, shared from now on
                if fresh:
                    engine.ingest_paths(corpus, dict(ingest_defaults or {}), sidecar)
                run = run_eval(engine, questions, personas, k=k, principal=principal,
                               name=" ".join(f"{a}={b}" for a, b in variant.items()))
            row = SweepRow(dict(variant), _figures(run), run)
            rows.append(row)
            if on_variant:
                on_variant(row)
    return rows
