"""``ask``: a question in, a grounded answer with checked citations (or a decline) out.

retrieve (tenant + ACL inside the search) → rerank under a deadline → grounding gate →
context (dedup, MMR, token budget, opaque ``S1``… ids) → generate (passages fenced as data) →
validate citations (fabricated / unsupported / uncited) → keep only supported sentences
(``cite.policy: strict``, the default; else the extractive answer or a decline, each noted in
``Answer.notes``) → citations for the reader.

Everything the pipeline decided is in ``Answer.trace``; it only ever holds ids and scores of
passages the asking principal may read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from citewise.answer.citations import build_citations
from citewise.answer.context import Context, build_context
from citewise.answer.gate import GateDecision, choose_threshold, decide
from citewise.answer.progressive import RETRY, escalate, failed, hold_declines, prefix, steps
from citewise.answer.salient import salient_missing
from citewise.errors import ConfigError, GenerationError
from citewise.types import Answer, ContextPassage, Generation, Hit, Principal, Prompt

if TYPE_CHECKING:
    from citewise.engine import Engine
    from citewise.protocols import Generator, Reranker


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)


def retrieval_trace(hits: tuple[Hit, ...] | list[Hit]) -> list[dict[str, Any]]:
    return [{"rank": h.rank, "chunk_id": h.chunk.chunk_id, "doc_id": h.document.doc_id,
             "score": round(h.score, 6),
             "signals": {n: {"rank": s.rank, "score": round(s.score, 6)}
                         for n, s in h.signals.items()}} for h in hits]


def _gate(engine: Engine, question: str, hits: list[Hit], embedder_id: str | None,
          principal: Principal) -> GateDecision:
    store = engine.store
    signal, threshold, source = choose_threshold(
        engine.settings.gate.threshold, store.get_meta("gate.signal"),
        store.get_meta("gate.threshold"), embedder_id)
    missing = salient_missing(question, hits, lambda word: bool(  # measured for calibration
        store.search_sparse(word, 1, principal)))
    return decide(question, hits, signal, threshold, source, missing)


def _rerank(engine: Engine, question: str, hits: list[Hit],
            reranker: Reranker | None) -> tuple[list[Hit], dict[str, Any]]:
    settings = engine.settings.rerank
    if reranker is None or not hits:
        return hits, {"status": "off", "scored": 0}
    from citewise.rerank import rerank_with_deadline

    outcome = rerank_with_deadline(reranker, question, hits, settings.top_n,
                                   settings.deadline_ms / 1000.0)
    info = {"status": outcome.status, "scored": outcome.scored, "of": min(len(hits),
            settings.top_n), "model": reranker.model_id, "ms": round(outcome.ms, 3)}
    if outcome.error:
        info["error"] = outcome.error
    return list(outcome.hits), info


def ask(engine: Engine, question: str, principal: Principal, *,
        generator: Generator | None = None, reranker: Reranker | None = None,
        dry_run: bool = False, on_token: Callable[[str], None] | None = None) -> Answer:
    """Answer ``question`` as ``principal`` (see the module docstring)."""
    if not question or not question.strip():
        raise ConfigError("the question is empty. Fix: pass a question, e.g. "
                          "`citewise ask \"How many vacation days do I get?\"`.")
    started = time.perf_counter()
    settings = engine.settings
    t = time.perf_counter()
    depth = max(settings.retrieve.top_k, settings.context.max_passages * 2,
                settings.rerank.top_n)
    result = engine.search(question, principal, top_k=depth)
    trace: dict[str, Any] = {"timings_ms": {"retrieve": _ms(t)}, "index": engine.index_info(),
                             "retrieval": {"mode": result.mode,
                                           "candidates": dict(result.candidates)}}
    t = time.perf_counter()
    if reranker is None and settings.rerank.kind != "none":
        reranker = engine.reranker
    hits, trace["rerank"] = _rerank(engine, question, list(result.hits), reranker)
    trace["timings_ms"]["rerank"] = _ms(t)
    trace["retrieval"]["hits"] = retrieval_trace(hits)
    t = time.perf_counter()
    gate = _gate(engine, question, hits, trace["index"].get("embedder"),  # manifest read once
                 principal)
    trace["timings_ms"]["gate"] = _ms(t)
    trace["gate"] = {"passed": gate.passed, "reason": gate.reason, "signal": gate.signal,
                     "score": gate.score, "threshold": gate.threshold, "source": gate.source,
                     "signals": dict(gate.signals), "missing": list(gate.missing)}
    models = {"embedder": engine.settings.embed.model if result.mode != "bm25" else None,
              "reranker": trace["rerank"].get("model")}
    trace["models"] = models
    if not gate.passed:
        return _finish(declined(question, gate.reason or "weak_evidence", trace), started)
    t = time.perf_counter()
    path = steps(*_fit_context(engine, question, hits, generator, trace))
    trace["timings_ms"]["context"] = _ms(t)
    notes = _rerank_notes(trace["rerank"])
    at = _read(engine, question, path, generator, trace, notes, dry_run)
    trace["context"] = _context_trace(path[-1 if at is None else at])
    if at is None:
        return _finish(declined(question, "reader_no", trace, tuple(notes)), started)
    if dry_run:
        trace["dry_run"] = True
        return _finish(Answer(question, "", False, None, trace=trace), started)
    for i in range(at, len(path) - 1):  # read on while the passages so far do not answer
        relay = hold_declines(on_token) if i == at else None
        answer = _generate(engine, question, path[i], generator, relay, trace, notes)
        if answer.reason not in RETRY or failed(trace):
            return _finish(answer, started)
        escalate(trace, answer.reason or "", path[i], path[i + 1], notes,
                 whole=path[i + 1] is path[-1])
        trace["escalated"].setdefault("first_generation", trace.pop("generation", None))
        trace["context"] = _context_trace(path[i + 1])
    relay = on_token if at == len(path) - 1 else None
    return _finish(_generate(engine, question, path[-1], generator, relay, trace, notes),
                   started)


def _read(engine: Engine, question: str, path: tuple[Context, ...],
          generator: Generator | None, trace: dict[str, Any], notes: list[str],
          dry_run: bool) -> int | None:
    """The index in ``path`` (:func:`~citewise.answer.progressive.steps`) of the first
    context the answerability reader accepts, reading on step by step (each reuses the
    previous one's evaluated prompt), else None (declined)."""
    for i, context in enumerate(path):
        if i:
            escalate(trace, "reader_no", path[i - 1], context, notes, whole=context is path[-1])
            trace["escalated"].setdefault("first_reader", trace["gate"].pop("reader", None))
            trace["gate"]["passed"], trace["gate"]["reason"] = True, None
        if _reader_passes(engine, question, context, generator, trace, notes, dry_run):
            return i
    return None


def _fit_context(engine: Engine, question: str, hits: list[Hit],
                 generator: Generator | None, trace: dict[str, Any]) -> tuple[Context, Context]:
    """``(first, full)``: the whole context, and for a local model the passages of it that
    are evaluated within ``generate.first_token_s`` (:mod:`citewise.answer.budget`; the whole
    user message counts: passages, fences, question). ``first`` is a prefix of ``full`` so
    that reading on (:mod:`citewise.answer.progressive`) reuses the evaluated prompt; it is
    ``full`` itself when everything fits or no cut applies."""
    from citewise.answer import budget as fit
    from citewise.answer.prompt import user_message
    from citewise.generate.local import effective_threads

    settings = engine.settings.context
    gen = generator or engine.generator
    sizer = getattr(gen, "model_bytes", None)
    size = sizer() if callable(sizer) else None
    threads = effective_threads(getattr(gen, "threads", 0) or 0)
    allowed = fit.prompt_budget(size, threads, engine.settings.generate.first_token_s)

    def build(tokens: int) -> Context:
        return build_context(hits, settings.model_copy(update={"budget_tokens": tokens}),
                             engine.count_tokens, engine.store.get_parsed)

    def prompt_tokens(passages: tuple[ContextPassage, ...]) -> int:
        return engine.count_tokens(user_message(question, passages))

    full = build(settings.budget_tokens)
    if allowed is None or not size or prompt_tokens(full.passages) <= allowed:
        return full, full
    first = prefix(full, allowed, prompt_tokens)
    if first is None:  # the strongest passage alone is too long: cut it (not a prefix)
        first = build(fit.context_budget(settings.budget_tokens,
                                         allowed - prompt_tokens(())))
    if first.passages == full.passages:  # the floor took them all
        first = full
    used = prompt_tokens(first.passages)
    trace["budget"] = {
        "configured_tokens": settings.budget_tokens, "tokens": first.tokens,
        "passages": len(first.passages), "of_passages": len(full.passages),
        "prompt_tokens": used, "first_token_s": engine.settings.generate.first_token_s,
        "estimated_first_token_s": round(fit.first_token_seconds(used, size, threads), 1),
        "threads": threads, "floor_tokens": fit.FIRST_READ_TOKENS}
    return first, full


def _reader_passes(engine: Engine, question: str, context: Context,
                   generator: Generator | None, trace: dict[str, Any], notes: list[str],
                   dry_run: bool = False) -> bool:
    """The answerability reader (:mod:`citewise.answer.reader`), when ``gate.reader``
    enables it for this generator; its verdict goes in ``trace["gate"]["reader"]``. With
    ``auto`` and only the shipped threshold, a dry run (``citewise calibrate``, ``ask
    --dry-run``) does not read: it would cost an LLM prompt per question, and calibrate fits
    the reader only under ``gate.reader: on``."""
    from citewise.answer import reader
    from citewise.answer.prompt import build_prompt

    setting, configured = engine.settings.gate.reader, engine.settings.gate.reader_threshold
    if not context.passages or setting == "off":
        return True
    stored = engine.store.get_meta("gate.reader")
    gen = generator or engine.generator
    if setting == "auto" and configured is None and not stored and \
            (dry_run or reader.shipped_threshold(gen.model_id) <= 0):
        return True  # uncalibrated: no shipped threshold (it declines nothing) or a dry run
    if not reader.enabled(setting, gen):
        return True
    t = time.perf_counter()
    model = reader.choose_model(configured, stored, gen.model_id)
    gate = trace["gate"]
    verdict = reader.read(gen, build_prompt(question, list(context.passages)), model,
                          gate["signals"].get(model.signal, gate["score"]),
                          engine.settings.generate.timeout_s)
    trace["timings_ms"]["reader"] = _ms(t)
    gate["reader"] = verdict.to_dict()
    if verdict.error:
        notes.append(f"the answerability reader failed ({verdict.error}); the retrieval "
                     "signals alone opened the gate")
    if not verdict.passed:
        gate["passed"], gate["reason"] = False, "reader_no"
    return verdict.passed


def _rerank_notes(info: dict[str, Any]) -> list[str]:
    """A reranker that timed out or failed is a fallback too: one line."""
    if info.get("status") == "timeout":
        return [f"reranker {info.get('model')} hit its deadline after {info.get('scored')} of "
                f"{info.get('of')} passages; the rest keep the fused order"]
    if info.get("status") == "error":
        return [f"reranker {info.get('model')} failed ({info.get('error')}); kept the fused "
                "order"]
    return []


def _context_trace(context: Context) -> dict[str, Any]:
    return {"tokens": context.tokens,
            "passages": [{"id": p.sid, "chunk_id": p.chunk_id, "tokens": p.tokens}
                         for p in context.passages],
            "dropped": [{"chunk_id": d.chunk_id, "reason": d.reason} for d in context.dropped]}


def declined(question: str, reason: str, trace: dict[str, Any],
             notes: tuple[str, ...] = ()) -> Answer:
    from citewise.answer.prompt import INSUFFICIENT_EVIDENCE

    return Answer(question, INSUFFICIENT_EVIDENCE, True, reason, trace=trace,
                  outcome="declined", notes=notes)


def _finish(answer: Answer, started: float) -> Answer:
    trace = dict(answer.trace)
    trace["timings_ms"] = {**trace.get("timings_ms", {}), "total": _ms(started)}
    return replace(answer, trace=trace)


def _run(gen: Generator, prompt: Prompt, max_tokens: int, timeout_s: float,
         on_token: Callable[[str], None] | None, notes: list[str]) -> Generation:
    """Generate; on failure or timeout fall back to the extractive generator (noted)."""
    from citewise.generate.extractive import ExtractiveGenerator

    try:
        return gen.generate(prompt, max_tokens=max_tokens, on_token=on_token,
                            timeout_s=timeout_s)
    except GenerationError as exc:
        reason = " ".join(str(exc).split())[:160]
        notes.append(f"{gen.model_id} failed ({reason}); answered extractively instead")
        return ExtractiveGenerator().generate(prompt, max_tokens=max_tokens)


def _generate(engine: Engine, question: str, context: Context, generator: Generator | None,
              on_token: Callable[[str], None] | None, trace: dict[str, Any],
              notes: list[str] | None = None) -> Answer:
    from citewise.answer.prompt import INSUFFICIENT_EVIDENCE, build_prompt
    from citewise.cite.parse import canonical_citations
    from citewise.cite.validate import validate

    cfg = engine.settings.generate
    gen = generator or engine.generator
    prompt = build_prompt(question, list(context.passages))
    notes = list(notes or [])
    t = time.perf_counter()
    timeout = cfg.timeout_s or _auto_timeout(gen, prompt, cfg.max_tokens)
    out = _run(gen, prompt, cfg.max_tokens, timeout, on_token, notes)
    out = replace(out, text=canonical_citations(out.text))  # "[Source id="S1"]" -> "[S1]"
    trace["timings_ms"]["generate"] = _ms(t)
    t = time.perf_counter()
    report = validate(out.text, list(context.passages))
    trace["generation"] = {"model": out.model_id, "tokens_in": out.tokens_in,
                           "tokens_out": out.tokens_out, "finish_reason": out.finish_reason,
                           "seconds": round(out.seconds, 3), "timeout_s": timeout,
                           "notes": notes}
    if generator is None and engine.generator_reason:
        trace["generation"]["chosen"] = engine.generator_reason
    trace["models"]["generator"] = out.model_id
    if INSUFFICIENT_EVIDENCE.lower() in out.text.lower() and not report.cited:
        trace["timings_ms"]["validate"] = _ms(t)
        return declined(question, "model_declined", trace, tuple(notes))
    if engine.settings.cite.policy == "flag":
        notes.append("cite.policy flag: the model's raw output, not checked sentence by "
                     "sentence (see the warnings)")
        text, citations = build_citations(out.text.strip(), context.passages, report)
        trace["timings_ms"]["validate"] = _ms(t)
        return Answer(question, text, False, None, citations, report, trace, "raw",
                      tuple(notes))
    answer = _supported_answer(question, prompt, out, context, trace, notes,
                               chosen_extractive=gen.model_id == out.model_id)
    trace["timings_ms"]["validate"] = _ms(t)
    return answer


def _auto_timeout(gen: Generator, prompt: Prompt, max_tokens: int) -> float:
    """The generation deadline sized to the model and machine
    (:func:`citewise.answer.budget.generation_timeout`); ~4 characters per token."""
    from citewise.answer.budget import generation_timeout
    from citewise.generate.local import effective_threads

    sizer = getattr(gen, "model_bytes", None)
    size = sizer() if callable(sizer) else None
    tokens_in = sum(len(m["content"]) for m in prompt.messages) // 4
    return generation_timeout(size, effective_threads(getattr(gen, "threads", 0) or 0),
                              tokens_in, max_tokens)


def _supported_answer(question: str, prompt: Prompt, out: Generation, context: Context,
                      trace: dict[str, Any], notes: list[str],
                      chosen_extractive: bool = False) -> Answer:
    """``cite.policy: strict``: keep the supported sentences; with none left, answer
    extractively (checked the same way) or decline. Every step is a note."""
    from citewise.cite.enforce import enforce
    from citewise.cite.validate import validate
    from citewise.generate.extractive import ExtractiveGenerator

    passages = list(context.passages)
    extractive_id = ExtractiveGenerator.model_id
    kept = enforce(out.text, passages)
    trace["enforce"] = {"policy": "strict", "removed": [
        {"sentence": r.text, "why": r.why, "status": r.status} for r in kept.removed]}
    fell_back = out.model_id == extractive_id and not chosen_extractive
    outcome = "extractive" if fell_back else "answered"
    if kept.answered and kept.removed:
        outcome = "pruned" if outcome == "answered" else outcome
        notes.append(f"removed {len(kept.removed)} sentence(s) of the answer that its sources "
                     f"do not support ({_whys(kept)}); see --explain")
    if not kept.answered and out.model_id != extractive_id:
        notes.append(f"the answer of {out.model_id} had no sentence supported by its sources "
                     f"({_whys(kept)}); answered extractively instead")
        outcome = "extractive"
        kept = enforce(ExtractiveGenerator().generate(prompt).text, passages)
        trace["generation"]["model"] = f"{out.model_id} -> {extractive_id}"
    trace["enforce"]["outcome"] = outcome if kept.answered else "declined"
    if not kept.answered:
        notes.append("no source sentence answers the question either; declined")
        return declined(question, "unsupported", trace, tuple(notes))
    final = _with_conflict(question, kept.text, passages, notes)
    report = validate(final, passages)
    text, citations = build_citations(final, context.passages, report)
    return Answer(question, text, False, None, citations, report, trace, outcome, tuple(notes))


def _with_conflict(question: str, text: str, passages: list[Any], notes: list[str]) -> str:
    """Conflicting evidence is shown, not resolved: an answer citing one side of a conflict
    gets both sides quoted (:mod:`citewise.answer.conflicts`)."""
    from citewise.answer.conflicts import conflict_text, find_conflicts, unresolved
    from citewise.cite.parse import citation_ids

    conflict = unresolved(find_conflicts(question, passages), citation_ids(text))
    if conflict is None:
        return text
    notes.append(f"the sources disagree ({conflict.a.sid} vs {conflict.b.sid}); both are shown")
    return f"{text}\n\n{conflict_text(conflict)}"


def _whys(kept: Any) -> str:
    counts: dict[str, int] = {}
    for r in kept.removed:
        counts[r.why] = counts.get(r.why, 0) + 1
    return ", ".join(f"{n} {why}" for why, n in counts.items()) or "nothing to check"
