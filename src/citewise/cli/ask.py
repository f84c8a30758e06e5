"""``citewise ask``: a grounded answer with citations, or a clear decline."""

from __future__ import annotations

import os
from typing import Any

import click

from citewise.cli.common import db_option, echo_json, engine_from, friendly_errors, settings_options
from citewise.cli.hints import warn_nothing_readable, warn_without_groups
from citewise.engine import Engine
from citewise.generate.citations import format_citation
from citewise.types import SEARCH_MODES, Answer, Principal

REASONS = {
    "no_evidence": "nothing you may read matches the question",
    "weak_evidence": "the best matching passages are too weak to answer from",
    "model_declined": "the sources retrieved do not answer the question",
    "unsupported": "the generated answer was not supported by its sources (strict policy)",
}


def answer_json(answer: Answer) -> dict[str, Any]:
    v = answer.validation
    return {
        "answer": answer.answer, "declined": answer.declined, "reason": answer.reason,
        "citations": [{"id": c.id, "chunk_id": c.chunk_id, "doc_id": c.doc_id, "title": c.title,
                       "heading_path": list(c.heading_path), "anchor": c.anchor,
                       "source": c.source, "updated_at": c.updated_at, "quote": c.quote}
                      for c in answer.citations],
        "validation": {"fabricated": list(v.fabricated),
                       "unsupported": [{"sentence": i.sentence, "ids": list(i.ids),
                                        "score": i.score} for i in v.unsupported],
                       "uncited": [{"sentence": i.sentence} for i in v.uncited]},
        "trace": dict(answer.trace)}


def print_answer(answer: Answer) -> None:
    if answer.declined:
        click.echo(answer.answer)
        click.echo(f"(declined: {REASONS.get(answer.reason or '', answer.reason)})")
        return
    click.echo(answer.answer)
    if answer.citations:
        click.echo("")
        for c in answer.citations:
            click.echo(format_citation(c))
    v = answer.validation
    for sid in v.fabricated:
        click.echo(f"warning: the answer cites {sid}, which is not one of its sources")
    for issue in v.unsupported:
        click.echo(f"warning: not supported by its cited source: {issue.sentence}")
    for issue in v.uncited:
        click.echo(f"note: no citation for: {issue.sentence}")


def print_trace(answer: Answer) -> None:
    t = answer.trace
    gate = t.get("gate", {})
    click.echo(f"\n-- gate: {gate.get('signal')} {gate.get('score')} vs {gate.get('threshold')} "
               f"({gate.get('source')}) -> {'pass' if gate.get('passed') else gate.get('reason')}")
    click.echo(f"-- rerank: {t.get('rerank', {}).get('status')}")
    for p in t.get("context", {}).get("passages", []):
        click.echo(f"-- {p['id']} = {p['chunk_id']} ({p['tokens']} tokens)")
    for d in t.get("context", {}).get("dropped", []):
        click.echo(f"-- dropped {d['chunk_id']}: {d['reason']}")
    times = ", ".join(f"{k} {v:.0f}" for k, v in t.get("timings_ms", {}).items())
    click.echo(f"-- timings ms: {times}")


@click.command()
@click.argument("question")
@click.option("--groups", default="", help="Comma-separated groups of the asking user.")
@click.option("--tenant", default="default", show_default=True, help="Tenant of the user.")
@click.option("--generator", type=click.Choice(["auto", "local", "openai", "extractive"]),
              default=None, help="Answer writer (default: auto = local if installed).")
@click.option("--rerank", type=click.Choice(["none", "llm-judge", "cross-encoder"]),
              default=None, help="Reranker for the top hits (default: none).")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default=None, help="Retrieval signals.")
@click.option("--dry-run", is_flag=True, help="Stop after the grounding gate (no generation).")
@click.option("--json", "as_json", is_flag=True, help="Print the answer, citations and trace.")
@click.option("--stream", is_flag=True,
              help="Show the model's raw output on stderr as it is written.")
@click.option("--explain", is_flag=True, help="Also print the gate, context and timings.")
@db_option
@settings_options
@friendly_errors
def ask(question, groups, tenant, generator, rerank, mode, dry_run, as_json, stream, explain,
        db, config_path, model, threads):
    """Answer QUESTION from the documents the user may read, with checked citations; declines
    with "insufficient evidence" when they don't answer it."""
    principal = Principal.of(groups, tenant=tenant)
    with engine_from(db, config_path, model, threads, must_exist=True,
                     **{"generate.generator": generator, "rerank.kind": rerank,
                        "retrieve.mode": mode}) as engine:
        engine = with_api_key(engine)
        on_token = (lambda piece: click.echo(piece, nl=False, err=True)) if stream else None
        answer = engine.ask(question, principal, dry_run=dry_run, on_token=on_token)
        if not as_json:
            warn_without_groups(principal)
            if answer.reason == "no_evidence":
                warn_nothing_readable(engine.store, principal)
    if as_json:
        echo_json(answer_json(answer))
        return
    if stream:
        click.echo("", err=True)
    chosen = answer.trace.get("generation", {}).get("chosen", "")
    if chosen.startswith("auto:"):  # say when no LLM wrote the answer, and how to get one
        click.echo(f"note: answered without an LLM (extractive); {chosen[len('auto: '):]}",
                   err=True)
    for note in answer.trace.get("generation", {}).get("notes", []):  # e.g. a timeout fallback
        click.echo(f"note: {note}", err=True)
    if dry_run:
        gate = answer.trace.get("gate", {})
        click.echo("would decline" if answer.declined else "would answer",
                   nl=False)
        click.echo(f" ({gate.get('signal')} {gate.get('score')} vs {gate.get('threshold')})")
    else:
        print_answer(answer)
    if explain:
        print_trace(answer)


def with_api_key(engine: Engine) -> Engine:
    """The OpenAI-compatible key comes from the environment, read here at the CLI edge."""
    api = engine.settings.generate.openai
    if api.api_key is None and os.environ.get(api.api_key_env):
        generate = engine.settings.generate.model_copy(
            update={"openai": api.model_copy(update={"api_key": os.environ[api.api_key_env]})})
        engine.settings = engine.settings.model_copy(update={"generate": generate})
    return engine
