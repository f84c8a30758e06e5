"""The answer trace: everything ``ask`` decided, as frozen values with one ``to_dict()`` each.

:class:`AnswerTrace` is :attr:`citewise.types.Answer.trace`. It sits in the lowest layer, next
to :mod:`citewise.types` (which imports it), and imports nothing else of citewise. Of
passages, it holds only the ids and scores of those the asking principal may read.

``AnswerTrace.to_dict()`` is the trace's JSON (``run.json``, ``/v1/ask``, ``/v1/traces/{id}``,
the request log, the web page). A part that was not reached (None) is left out, and so is an
optional field that was not set where its class says so (e.g. ``rerank.error``,
``generation.chosen``, ``gate.reader``). The parts, in the order they are written:

* ``timings_ms`` (:class:`Timings`): milliseconds per stage that ran, in pipeline order.
* ``index`` (:class:`IndexInfo`): the index that answered (also ``Engine.index_info()``).
* ``retrieval`` (:class:`RetrievalTrace`): mode, candidates per signal, the hits after
  reranking (:class:`RetrievedHit`).
* ``rerank`` (:class:`RerankTrace`), ``gate`` (:class:`GateTrace`, with the answerability
  reader's :class:`ReaderVerdict` when it read), ``models`` (:class:`ModelsTrace`).
* ``budget`` (:class:`BudgetTrace`): the first read, cut to ``generate.first_token_s``.
* ``escalated`` (:class:`EscalationTrace`): reading on past the first passages.
* ``context`` (:class:`ContextTrace`), ``dry_run`` (written only when true),
  ``generation`` (:class:`GenerationTrace`), ``enforce`` (:class:`EnforceTrace`),
  ``conversation`` (:class:`ConversationTrace`, added by ``Engine.converse``).

Two leaves stay plain ``Mapping`` values because they are only ever serialised, never read
field by field in another module: ``retrieval.candidates`` (hits per signal) and each hit's
``signals`` (rank and score per signal). ``gate.signals`` maps a signal name to its value.

``ask`` fills a :class:`TraceDraft` stage by stage and hands back its :attr:`TraceDraft.trace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citewise.types import Hit


def _set(obj: Any, *optional: str) -> dict[str, Any]:
    """``obj``'s fields in order, without those named in ``optional`` that are None."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)
            if not (f.name in optional and getattr(obj, f.name) is None)}


@dataclass(frozen=True)
class Timings:
    """Milliseconds per stage; a stage that did not run is None (left out). ``rewrite``: a
    follow-up made standalone before the ask (counted in ``total``)."""

    rewrite: float | None = None
    retrieve: float | None = None
    rerank: float | None = None
    gate: float | None = None
    context: float | None = None
    reader: float | None = None
    generate: float | None = None
    validate: float | None = None
    total: float | None = None

    def to_dict(self) -> dict[str, float]:
        return {k: v for k, v in _set(self).items() if v is not None}


@dataclass(frozen=True)
class IndexInfo:
    """What identifies an index: its version number and, when it has a manifest, the
    embedder, the chunker hash and when it was created."""

    version: int
    embedder: str | None = None
    chunker: str | None = None
    created_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _set(self, "embedder", "chunker", "created_at")


@dataclass(frozen=True)
class RetrievedHit:
    """A hit as the trace keeps it: ids and scores (``signals``: serialised only)."""

    rank: int
    chunk_id: str
    doc_id: str
    score: float
    signals: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    @classmethod
    def of(cls, hit: Hit) -> RetrievedHit:
        return cls(hit.rank, hit.chunk.chunk_id, hit.document.doc_id, round(hit.score, 6),
                   {n: {"rank": s.rank, "score": round(s.score, 6)}
                    for n, s in hit.signals.items()})

    def to_dict(self) -> dict[str, Any]:
        return {**_set(self), "signals": {n: dict(s) for n, s in self.signals.items()}}


@dataclass(frozen=True)
class RetrievalTrace:
    mode: str
    candidates: Mapping[str, int] = field(default_factory=dict)  # serialised only
    hits: tuple[RetrievedHit, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "candidates": dict(self.candidates),
                "hits": [h.to_dict() for h in self.hits]}


@dataclass(frozen=True)
class RerankTrace:
    """``status`` off | ok | timeout | error; the rest when a reranker ran."""

    status: str
    scored: int
    of: int | None = None
    model: str | None = None
    ms: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _set(self, "of", "model", "ms", "error")


@dataclass(frozen=True)
class ReaderVerdict:
    """What the answerability reader (:mod:`citewise.answer.reader`) said: ``p_yes`` (None
    when it could not read), the combined ``score``, the ``threshold``, whether the answer may
    proceed, where the numbers came from."""

    passed: bool
    p_yes: float | None
    score: float | None
    threshold: float
    source: str
    model: str
    seconds: float
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GateTrace:
    """The grounding gate's decision (``citewise.answer.gate.decide`` returns it with
    ``reader`` unset), then the reader's verdict (when it read) and what it changed:
    ``passed`` / ``reason``."""

    passed: bool
    reason: str | None
    signal: str
    score: float
    threshold: float
    source: str
    signals: Mapping[str, float] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    reader: ReaderVerdict | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {**_set(self, "reader"), "signals": dict(self.signals),
               "missing": list(self.missing)}
        if self.reader is not None:
            out["reader"] = self.reader.to_dict()
        return out


@dataclass(frozen=True)
class ModelsTrace:
    """The models that took part; ``generator`` once one wrote."""

    embedder: str | None
    reranker: str | None
    generator: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _set(self, "generator")


@dataclass(frozen=True)
class BudgetTrace:
    """The first read, cut to what a local model evaluates in ``generate.first_token_s``."""

    configured_tokens: int
    tokens: int
    passages: int
    of_passages: int
    prompt_tokens: int
    first_token_s: float
    estimated_first_token_s: float
    threads: int
    floor_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PassageTrace:
    id: str  # the prompt id (S1…)
    chunk_id: str
    tokens: int


@dataclass(frozen=True)
class DroppedTrace:
    chunk_id: str
    reason: str


@dataclass(frozen=True)
class ContextTrace:
    """The passages placed in the prompt, and those left out with why."""

    tokens: int
    passages: tuple[PassageTrace, ...] = ()
    dropped: tuple[DroppedTrace, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "passages": [asdict(p) for p in self.passages],
                "dropped": [asdict(d) for d in self.dropped]}


@dataclass(frozen=True)
class GenerationTrace:
    """One generation: ``notes`` are the fallbacks it took; ``chosen`` why the generator was
    picked (when ``ask`` chose it)."""

    model: str
    tokens_in: int
    tokens_out: int
    finish_reason: str
    seconds: float
    timeout_s: float
    notes: tuple[str, ...] = ()
    chosen: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**_set(self, "chosen"), "notes": list(self.notes)}


@dataclass(frozen=True)
class RemovedSentence:
    sentence: str
    why: str
    status: str


@dataclass(frozen=True)
class EnforceTrace:
    """``cite.policy: strict``: the sentences removed and the outcome."""

    policy: str
    removed: tuple[RemovedSentence, ...] = ()
    outcome: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**_set(self, "outcome"), "removed": [asdict(r) for r in self.removed]}


@dataclass(frozen=True)
class EscalationTrace:
    """Reading on (:mod:`citewise.answer.progressive`): passages of the first read, of each
    step (``path``), why the last one read on; the first reader verdict and generation that
    were read past (when there were)."""

    from_passages: int
    path: tuple[int, ...]
    why: str
    to_passages: int
    first_reader: ReaderVerdict | None = None
    first_generation: GenerationTrace | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from_passages": self.from_passages, "path": list(self.path),
                               "why": self.why, "to_passages": self.to_passages}
        if self.first_reader is not None:
            out["first_reader"] = self.first_reader.to_dict()
        if self.first_generation is not None:
            out["first_generation"] = self.first_generation.to_dict()
        return out


@dataclass(frozen=True)
class ConversationTrace:
    """A follow-up rewritten into a standalone query (:mod:`citewise.answer.rewrite`)."""

    original: str
    query: str
    method: str
    note: str
    turns: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AnswerTrace:
    """Everything ``ask`` decided (see the module docstring); a part not reached is None."""

    timings_ms: Timings | None = None
    index: IndexInfo | None = None
    retrieval: RetrievalTrace | None = None
    rerank: RerankTrace | None = None
    gate: GateTrace | None = None
    models: ModelsTrace | None = None
    budget: BudgetTrace | None = None
    escalated: EscalationTrace | None = None
    context: ContextTrace | None = None
    dry_run: bool = False
    generation: GenerationTrace | None = None
    enforce: EnforceTrace | None = None
    conversation: ConversationTrace | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            part = getattr(self, f.name)
            if f.name == "dry_run":
                if part:
                    out["dry_run"] = True
            elif part is not None:
                out[f.name] = part.to_dict()
        return out


@dataclass
class TraceDraft:
    """``ask``'s trace while it runs: each stage replaces the parts it decides (the parts
    stay frozen values); :attr:`trace` is the trace so far."""

    trace: AnswerTrace = field(default_factory=AnswerTrace)

    def set(self, **parts: Any) -> None:
        self.trace = replace(self.trace, **parts)

    def time(self, **stages_ms: float) -> None:
        """Add ``stages_ms`` to the stages' times: reading on runs the reader, the model and
        the check once per step, and each step's time replaced the one before, so a new
        user's ``--explain`` said 57 s of stages in 126 s."""
        timings = self.trace.timings_ms or Timings()
        self.set(timings_ms=replace(timings, **{
            stage: round((getattr(timings, stage) or 0.0) + ms, 3)
            for stage, ms in stages_ms.items()}))
