"""``ask``: a question in, a grounded answer with checked citations (or a decline) out.

retrieve (tenant + ACL inside the search) → rerank under a deadline → grounding gate →
context (dedup, MMR, token budget, opaque ``S1``… ids) → generate (passages fenced as data) →
validate citations (fabricated / unsupported / uncited) → keep only supported sentences
(``cite.policy: strict``, the default; with none left, the source sentences that say what the
answer claimed, :mod:`citewise.generate.claim_quotes`, or the extractive answer, or a decline,
each noted in ``Answer.notes``) → citations for the reader.

Everything the pipeline decided is in ``Answer.trace`` (:class:`~citewise.trace.AnswerTrace`,
filled stage by stage in a :class:`~citewise.trace.TraceDraft`); it only ever holds ids and
scores of passages the asking principal may read.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import replace
from textwrap import shorten
from typing import TYPE_CHECKING

from citewise.answer.checked_stream import CheckedRelay, ReadableRelay
from citewise.answer.citations import build_citations
from citewise.answer.context import Context, build_context
from citewise.answer.gate import GateDecision, choose_threshold, decide
from citewise.answer.gate_store import StoredGate, stored_gate
from citewise.answer.progressive import RETRY, escalate, failed, hold_declines, prefix, steps
from citewise.answer.salient import salient_missing
from citewise.answer.small_talk import is_small_talk
from citewise.answer.supported import declined, supported_answer
from citewise.answer.word_evidence import word_lookup
from citewise.errors import ConfigError, GenerationError
from citewise.text import not_text
from citewise.trace import (
    BudgetTrace,
    ContextTrace,
    DroppedTrace,
    GenerationTrace,
    ModelsTrace,
    PassageTrace,
    RerankTrace,
    RetrievalTrace,
    RetrievedHit,
    TraceDraft,
)
from citewise.types import Answer, ContextPassage, Generation, Hit, Principal, Prompt

if TYPE_CHECKING:
    from citewise.engine import Engine
    from citewise.protocols import Generator, Reranker

REASON_CHARS = 400
"""Most characters of a failed generator's message a note repeats (a remote server's error
body may be long); ours, with their fix, are shorter."""


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)


def _gate(engine: Engine, question: str, hits: list[Hit], embedder_id: str | None,
          principal: Principal, stored: StoredGate) -> GateDecision:
    store = engine.store
    signal, threshold, source = choose_threshold(
        engine.settings.gate.threshold, stored.signal, stored.threshold, embedder_id)
    source = stored.source(source)
    missing = salient_missing(question, hits, word_lookup(store, principal))
    return decide(question, hits, signal, threshold, source, missing)


def _rerank(engine: Engine, question: str, hits: list[Hit],
            reranker: Reranker | None) -> tuple[list[Hit], RerankTrace]:
    settings = engine.settings.rerank
    if reranker is None or not hits:
        return hits, RerankTrace("off", 0)
    from citewise.rerank import rerank_with_deadline

    outcome = rerank_with_deadline(reranker, question, hits, settings.top_n,
                                   settings.deadline_ms / 1000.0)
    return list(outcome.hits), RerankTrace(
        outcome.status, outcome.scored, min(len(hits), settings.top_n), reranker.model_id,
        round(outcome.ms, 3), outcome.error or None)


def ask(engine: Engine, question: str, principal: Principal, *,
        generator: Generator | None = None, reranker: Reranker | None = None,
        dry_run: bool = False, on_token: Callable[[str], None] | None = None) -> Answer:
    """Answer ``question`` as ``principal`` (see the module docstring)."""
    if not question or not question.strip():
        raise ConfigError("the question is empty. Fix: pass a question, e.g. "
                          "`citewise ask \"How many vacation days do I get?\"`.")
    if (shown := not_text(question)) is not None:
        raise ConfigError(f"the question is not UTF-8 text ({shown}). Fix: pass it as UTF-8 "
                          "(a terminal with LANG=C.UTF-8, or `iconv -t UTF-8`).")
    started = time.perf_counter()
    draft = TraceDraft()
    if is_small_talk(question):  # "thanks!" is no question about the documents
        return _finish(declined(question, "not_a_question"), draft, started)
    stored = stored_gate(engine.store, principal.tenant)  # read once: gate and reader
    hits, gate = _retrieve(engine, question, principal, reranker, draft, stored)
    if not gate.passed:
        return _finish(declined(question, gate.reason or "weak_evidence"), draft, started)
    t = time.perf_counter()
    path = steps(*_fit_context(engine, question, hits, generator, draft))
    draft.time(context=_ms(t))
    notes = _rerank_notes(draft.trace.rerank)
    at = _read(engine, question, path, generator, draft, notes, dry_run, stored.reader)
    draft.set(context=_context_trace(path[-1 if at is None else at]))
    if at is None:
        return _finish(declined(question, "reader_no", tuple(notes)), draft, started)
    if dry_run:
        draft.set(dry_run=True)
        return _finish(Answer(question, "", False, None), draft, started)
    for i in range(at, len(path) - 1):  # read on while the passages so far do not answer
        relay = hold_declines(on_token) if i == at else None
        answer = _generate(engine, question, path[i], generator, relay, draft, notes,
                           whole=path[-1], principal=principal)
        if answer.reason not in RETRY or failed(draft.trace):
            return _finish(answer, draft, started)
        escalate(draft, answer.reason or "", path[i], path[i + 1], notes,
                 whole=path[i + 1] is path[-1])
        done = draft.trace.escalated
        if done.first_generation is None:  # the first generation read past
            draft.set(escalated=replace(done, first_generation=draft.trace.generation))
        draft.set(generation=None, context=_context_trace(path[i + 1]))
    relay = on_token if at == len(path) - 1 else None
    return _finish(_generate(engine, question, path[-1], generator, relay, draft, notes,
                             principal=principal), draft, started)


def _retrieve(engine: Engine, question: str, principal: Principal, reranker: Reranker | None,
              draft: TraceDraft, stored: StoredGate) -> tuple[list[Hit], GateDecision]:
    """Search, rerank and the grounding gate (``stored``: the asker's tenant's calibration),
    each in the trace."""
    settings = engine.settings
    t = time.perf_counter()
    depth = max(settings.retrieve.top_k, settings.context.max_passages * 2,
                settings.rerank.top_n)
    result = engine.search(question, principal, top_k=depth)
    draft.time(retrieve=_ms(t))
    index = engine.index_info()  # the manifest, read once
    t = time.perf_counter()
    if reranker is None and settings.rerank.kind != "none":
        reranker = engine.reranker
    hits, rerank = _rerank(engine, question, list(result.hits), reranker)
    draft.time(rerank=_ms(t))
    draft.set(index=index, retrieval=RetrievalTrace(
        result.mode, dict(result.candidates), tuple(RetrievedHit.of(h) for h in hits)),
        rerank=rerank)
    t = time.perf_counter()
    gate = _gate(engine, question, hits, index.embedder, principal, stored)
    draft.time(gate=_ms(t))
    embedder = settings.embed.model if result.mode != "bm25" else None
    draft.set(gate=gate, models=ModelsTrace(embedder, rerank.model))
    return hits, gate


def _read(engine: Engine, question: str, path: tuple[Context, ...],
          generator: Generator | None, draft: TraceDraft, notes: list[str],
          dry_run: bool, stored: str | None) -> int | None:
    """The index in ``path`` (:func:`~citewise.answer.progressive.steps`) of the first
    context the answerability reader accepts, reading on step by step (each reuses the
    previous one's evaluated prompt), else None (declined). ``stored``: the reader's
    calibration for the asker's tenant, if any."""
    for i, context in enumerate(path):
        if i:
            escalate(draft, "reader_no", path[i - 1], context, notes, whole=context is path[-1])
            gate, done = draft.trace.gate, draft.trace.escalated
            if done.first_reader is None:  # the first verdict read past
                draft.set(escalated=replace(done, first_reader=gate.reader))
            draft.set(gate=replace(gate, passed=True, reason=None, reader=None))
        if _reader_passes(engine, question, context, generator, draft, notes, dry_run,
                          stored):
            return i
    return None


def _fit_context(engine: Engine, question: str, hits: list[Hit],
                 generator: Generator | None, draft: TraceDraft) -> tuple[Context, Context]:
    """``(first, full)``: the whole context, and for a local model the passages of it that
    are evaluated within ``generate.first_token_s`` (:mod:`citewise.answer.budget`; the whole
    user message counts: passages, fences, question). ``first`` is a prefix of ``full`` so
    that reading on (:mod:`citewise.answer.progressive`) reuses the evaluated prompt; it is
    ``full`` itself when everything fits or no cut applies."""
    from citewise.answer import budget as fit
    from citewise.answer.prompt import user_message
    from citewise.generate.entries import entries_first
    from citewise.generate.local import effective_threads

    settings = engine.settings.context
    gen = generator or engine.generator
    sizer = getattr(gen, "model_bytes", None)
    size = sizer() if callable(sizer) else None
    threads = effective_threads(getattr(gen, "threads", 0) or 0)
    allowed = fit.prompt_budget(size, threads, engine.settings.generate.first_token_s)

    load_parsed = functools.cache(engine.store.get_parsed)  # both builds read one document

    hits = entries_first(question, hits)  # a manual's entry of the asked term leads

    def build(tokens: int) -> Context:
        return build_context(hits, settings.model_copy(update={"budget_tokens": tokens}),
                             engine.count_tokens, load_parsed)

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
    draft.set(budget=BudgetTrace(
        configured_tokens=settings.budget_tokens, tokens=first.tokens,
        passages=len(first.passages), of_passages=len(full.passages), prompt_tokens=used,
        first_token_s=engine.settings.generate.first_token_s,
        estimated_first_token_s=round(fit.first_token_seconds(used, size, threads), 1),
        threads=threads, floor_tokens=fit.FIRST_READ_TOKENS))
    return first, full


def _reader_passes(engine: Engine, question: str, context: Context,
                   generator: Generator | None, draft: TraceDraft, notes: list[str],
                   dry_run: bool, stored: str | None) -> bool:
    """The answerability reader (:mod:`citewise.answer.reader`), when ``gate.reader``
    enables it for this generator; its verdict goes in the trace's ``gate.reader``. With
    ``auto`` and only the shipped threshold, a dry run (``citewise calibrate``, ``ask
    --dry-run``) does not read: it would cost an LLM prompt per question, and calibrate fits
    the reader only under ``gate.reader: on``."""
    from citewise.answer import reader
    from citewise.answer.prompt import build_prompt

    setting, configured = engine.settings.gate.reader, engine.settings.gate.reader_threshold
    if not context.passages or setting == "off":
        return True
    gen = generator or engine.generator
    if setting == "auto" and configured is None and not stored and \
            (dry_run or reader.shipped_threshold(gen.model_id) <= 0):
        return True  # uncalibrated: no shipped threshold (it declines nothing) or a dry run
    if not reader.enabled(setting, gen):
        return True
    t = time.perf_counter()
    model = reader.choose_model(configured, stored, gen.model_id)
    gate = draft.trace.gate
    verdict = reader.read(gen, build_prompt(question, list(context.passages)), model,
                          gate.signals.get(model.signal, gate.score),
                          engine.settings.generate.timeout_s)
    draft.time(reader=_ms(t))
    if verdict.error:
        notes.append(f"the answerability reader failed ({verdict.error}); the retrieval "
                     "signals alone opened the gate")
    draft.set(gate=replace(gate, reader=verdict) if verdict.passed else
              replace(gate, reader=verdict, passed=False, reason="reader_no"))
    return verdict.passed


def _rerank_notes(info: RerankTrace) -> list[str]:
    """A reranker that timed out or failed is a fallback too: one line."""
    if info.status == "timeout":
        return [f"reranker {info.model} hit its deadline after {info.scored} of "
                f"{info.of} passages; the rest keep the fused order"]
    if info.status == "error":
        return [f"reranker {info.model} failed ({info.error}); kept the fused order"]
    return []


def _context_trace(context: Context) -> ContextTrace:
    return ContextTrace(context.tokens,
                        tuple(PassageTrace(p.sid, p.chunk_id, p.tokens)
                              for p in context.passages),
                        tuple(DroppedTrace(d.chunk_id, d.reason) for d in context.dropped))


def _finish(answer: Answer, draft: TraceDraft, started: float) -> Answer:
    draft.time(total=_ms(started))
    return replace(answer, trace=draft.trace)


def _run(gen: Generator, prompt: Prompt, max_tokens: int, timeout_s: float,
         on_token: Callable[[str], None] | None, notes: list[str]) -> Generation:
    """Generate; on failure or timeout fall back to the extractive generator (noted). What a
    model that timed out had written is kept instead, to be checked like any answer: its
    supported sentences, else the sources of its claims, else a decline."""
    from citewise.generate.extractive import ExtractiveGenerator

    try:
        return gen.generate(prompt, max_tokens=max_tokens, on_token=on_token,
                            timeout_s=timeout_s)
    except GenerationError as exc:
        reason = shorten(str(exc), REASON_CHARS, placeholder=" …")  # at a word: the local
        # model's timeout lost its fix mid-word ("lower gene") at 160 characters
        if exc.partial.strip():
            notes.append(f"{gen.model_id} failed ({reason}); what it had written is checked "
                         "like a whole answer")
            return Generation(exc.partial.strip(), gen.model_id, finish_reason="timeout")
        notes.append(f"{gen.model_id} failed ({reason}); answered extractively instead")
        return ExtractiveGenerator().generate(prompt, max_tokens=max_tokens)


def _generate(engine: Engine, question: str, context: Context, generator: Generator | None,
              on_token: Callable[[str], None] | None, draft: TraceDraft,
              notes: list[str] | None = None, whole: Context | None = None,
              principal: Principal | None = None) -> Answer:
    """Generate from ``context`` and check the answer's citations (``cite.policy``); the
    generation, with every note it took, goes in the trace. ``whole``: the whole context,
    when ``context`` is a first read. ``principal``: the asker, who must still be able to
    read the passages when each sentence is streamed and when the answer is returned
    (:mod:`citewise.answer.still_readable`)."""
    from citewise.answer.prompt import build_prompt
    from citewise.answer.still_readable import NOTE, REVOKED, still_readable
    from citewise.cite.parse import canonical_citations

    cfg = engine.settings.generate
    gen = generator or engine.generator
    t = time.perf_counter()  # building the prompt is generation's time too (a review's 34 s
    prompt = build_prompt(question, list(context.passages))  # ask showed 0.2 s of stages)
    notes = list(notes or [])
    timeout = cfg.timeout_s or _auto_timeout(gen, prompt, cfg.max_tokens)
    read = [*context.passages, *(whole.passages if whole else ())]

    def readable() -> bool:
        return principal is None or still_readable(engine.store, principal, read)

    relay = None if on_token is None else ReadableRelay(on_token, readable, time.monotonic)
    if on_token is not None and engine.settings.cite.policy == "strict":
        quoted = gen.model_id.startswith("extractive")  # checked without the question
        relay = CheckedRelay(on_token, context.passages, None if quoted else question,
                             readable)
    out = _run(gen, prompt, cfg.max_tokens, timeout, relay, notes)
    if isinstance(relay, CheckedRelay):
        relay.finish()
    out = replace(out, text=canonical_citations(out.text))  # "[Source id="S1"]" -> "[S1]"
    draft.time(generate=_ms(t))
    t = time.perf_counter()
    chosen = engine.generator_reason if generator is None else None
    draft.set(generation=GenerationTrace(
        out.model_id, out.tokens_in, out.tokens_out, out.finish_reason, round(out.seconds, 3),
        timeout, chosen=chosen or None),
        models=replace(draft.trace.models, generator=out.model_id))
    answer = _checked(engine, question, prompt, out, context, gen, draft, notes, whole)
    if not answer.declined and not readable():
        notes.append(NOTE)
        answer = declined(question, REVOKED, tuple(notes))
    draft.time(validate=_ms(t))  # the generation's notes: those taken while checking too
    draft.set(generation=replace(draft.trace.generation, notes=tuple(notes)))
    return answer


def _checked(engine: Engine, question: str, prompt: Prompt, out: Generation,
             context: Context, gen: Generator, draft: TraceDraft, notes: list[str],
             whole: Context | None = None) -> Answer:
    """The answer ``out`` makes: the model's decline, its raw output (``cite.policy:
    flag``) or its supported sentences (``strict``)."""
    from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
    from citewise.cite.validate import validate

    report = validate(out.text, list(context.passages))
    if INSUFFICIENT_EVIDENCE.lower() in out.text.lower() and not report.cited:
        return declined(question, "model_declined", tuple(notes))
    if engine.settings.cite.policy == "flag":
        notes.append("cite.policy flag: the model's raw output, not checked sentence by "
                     "sentence (see the warnings)")
        text, citations = build_citations(out.text.strip(), context.passages, report)
        return Answer(question, text, False, None, citations, report, outcome="raw",
                      notes=tuple(notes))
    return supported_answer(question, prompt, out, context, draft, notes,
                            chosen_extractive=gen.model_id == out.model_id, whole=whole)


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
