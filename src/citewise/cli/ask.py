"""``citewise ask``: a grounded answer with citations, or a clear decline."""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any

import click

from citewise.answer.citations import NumberedStream, citation_lines, joined_trailing, place
from citewise.cli.common import (
    TextCommand,
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.cli.hints import warn_nothing_readable, warn_without_groups
from citewise.cli.show import opens_nowhere, show_options
from citewise.cli.stream import Waiting
from citewise.engine import Engine
from citewise.trace import GateTrace
from citewise.types import SEARCH_MODES, Answer, Citation, Principal

REASONS = {
    "no_evidence": "nothing you may read matches the question",
    "not_a_question": "that reads as a thanks or a greeting, not a question about the "
                      "documents",
    "weak_evidence": "the best matching passages are too weak to answer from",
    "missing_terms": "none of the passages you may read that match the question best mentions",
    "model_declined": "the sources retrieved do not answer the question",
    "reader_no": "the model, reading the passages you may read, judged that they do not "
                 "answer the question",
    "sources_changed": "a source was deleted, changed or made unreadable to you while the "
                       "answer was written; ask again",
    "unsupported": "no sentence of the answer was supported by the sources it cites, and no "
                   "source sentence says what it claimed or answers the question",
}
WEAK_HINT = ("hint: if the documents should answer this, a typo or words they do not use may "
             "have weakened the match: try their words, or see what matches with "
             "`citewise search {search}`")
"""A new user's "how can I stop readline from beeping at me?" was declined as weak (0.456 vs
0.468) where "turn off the bell" passes, and "do not answer this question" read as final."""
_ASKED_TOKEN = re.compile(r"[\w-]+(?:[./:][\w-]+)*")
_VERSION_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_VERSION_WORDS = frozenset({"version", "release", "edition"})
EXIT_ANSWERED, EXIT_FAILED, EXIT_DECLINED = 0, 1, 3
"""Exit status of `citewise ask`: answered (also after a noted fallback), failed (an error;
click's usage errors are 2), declined."""
OUTCOMES = {"answered": "", "pruned": "the generated answer without its unsupported sentences",
            "extractive": "source sentences (extractive), not the model's answer",
            "raw": "raw model output, NOT checked (cite.policy flag)", "declined": ""}


def _outcome_line(answer: Answer) -> str:
    """What the reader gets, said of the generator that ran, or nothing: quotes the
    extractive generator chose, less one that did not hold, are no "generated answer" (a
    new user read "(the generated answer without its unsupported sentences)" with no model
    run), and are what an extractive answer always is, checked quotes: the next new user
    read "(source sentences (extractive), less those the check removed)" as jargon."""
    generation = answer.trace.generation
    if answer.outcome == "pruned" and generation is not None \
            and generation.model.startswith("extractive"):
        return ""
    return OUTCOMES[answer.outcome]


def answer_json(answer: Answer) -> dict[str, Any]:
    return answer.to_dict()


def as_asked(question: str, terms: Sequence[str]) -> list[str]:
    """``terms`` (the gate's, lowercased and a version's number alone) as the question
    wrote them, each once: a new user's decline said "mentions xslttransformtojsonstring"
    and "mentions 3.0, 3" of "XSLT 3.0"."""
    tokens = _ASKED_TOKEN.findall(question)
    out: dict[str, None] = {}
    for term in terms:
        said = next((t for t in tokens if t.lower() == term), None) or next(
            (t for t in tokens if t.lower().startswith(term + ".")), term)
        out.setdefault(_named_version(question, said), None)
    phrases = [s.lower().split() for s in out if " " in s]
    return [s for s in out if not any(s.lower() in words for words in phrases)]


def _named_version(question: str, said: str) -> str:
    """A version's number with the name before it ("Python 4", "version 2"): a new user's
    decline of a question about Python 4 said "mentions 4, Python"."""
    if not _VERSION_NUMBER.fullmatch(said):
        return said
    before = re.search(rf"(?<![\w+-])([A-Za-z][\w+-]*)\s+{re.escape(said)}(?![\w.])",
                       question)  # a word from its start: no retry inside it
    if before and (before.group(1)[0].isupper() or before.group(1).lower() in _VERSION_WORDS):
        return f"{before.group(1)} {said}"
    return said


def _search_args(answer: Answer, show_args: Sequence[str]) -> str:
    """What `citewise search` needs to see what matched: the ask's options as given (a pasted
    hint without --groups was refused), then the query searched (a follow-up's rewrite, a
    second review) after ``--``, which keeps "-v …" a question."""
    talk = answer.trace.conversation
    query = talk.query if talk is not None else answer.question
    return " ".join(map(shlex.quote, (*show_args, "--", query)))


def print_answer(answer: Answer, *, shown: bool = False, show_args: Sequence[str] = ()) -> None:
    """The answer, its citations, warnings and notes (``shown``: the text was streamed to
    this terminal as it is, so only what follows it is printed; ``show_args``: the options a
    pasted ``citewise show`` needs to read what this ask read, :func:`show_options`)."""
    if answer.declined:
        echo(answer.answer)
        why = REASONS.get(answer.reason or "", answer.reason)
        missing = ", ".join(as_asked(answer.question,
                                     answer.trace.gate.missing if answer.trace.gate else ()))
        if answer.reason == "missing_terms":
            why += " " + missing
        elif answer.reason == "weak_evidence" and missing:  # both held: say the plainer one
            why += f", and none of them mentions {missing}"
        echo(f"(declined: {why})")
        if answer.reason == "weak_evidence" and not missing:
            echo(WEAK_HINT.format(search=_search_args(answer, show_args)))
        print_notes(answer)
        return
    if line := _outcome_line(answer):
        echo(f"({line})")
    if not shown:
        echo(answer.answer)
    if answer.citations:
        echo("")
        for line in citation_lines(answer.citations):
            echo(line, one_line=True)
        closed = next((c for c in answer.citations if opens_nowhere(c.source)), None)
        top = next((c for c in answer.citations if _opens_at_top(c)), None)
        if closed is not None or top is not None:
            cited = closed or top
            section = [] if "#" in cited.source or not cited.heading_path else [
                "--anchor", " › ".join(cited.heading_path)]  # plain text: its headings
            command = shlex.join(["citewise", "show", cited.source, *section, *show_args])
            why = ("a browser opens no section of a compressed or Info file" if closed else
                   "a browser opens this file at its top, not at the cited section")
            echo(f"note: {why}; `{command}` prints [{cited.id}]", one_line=True)
    v = answer.validation
    for sid in v.fabricated:
        echo(f"warning: the answer cites {sid}, which is not one of its sources")
    numbers = {c.sid: c.id for c in answer.citations}  # (``shown`` is the bool above)
    for issue in v.unsupported:
        echo(f"warning: not supported by its cited source: {_as_read(issue.sentence, numbers)}")
    for issue in v.uncited:
        echo(f"warning: no citation for: {_as_read(issue.sentence, numbers)}")
    print_notes(answer)


_PROMPT_IDS = re.compile(r"\s*\[(S\d{1,4}(?:,\s*S\d{1,4})*)\]")


def _as_read(sentence: str, numbers: dict[str, str]) -> str:
    """A checked sentence with its prompt ids (``[S4]``) as the reader's numbers, or without
    those no citation shows: a new user read "… [S4]" in a warning, an id nothing names."""
    def number(match: re.Match[str]) -> str:
        ids = [numbers[i.strip()] for i in match.group(1).split(",") if i.strip() in numbers]
        return f" [{', '.join(ids)}]" if ids else ""
    return _PROMPT_IDS.sub(number, sentence)


def _opens_at_top(citation: Citation) -> bool:
    """A local file's link with no anchor to a section it has (plain text: a new user's
    citation of Git's 511-line 2.29.0.txt, "› Updates since v2.28", opened at its top)."""
    return citation.source.lower().startswith("file:") and "#" not in citation.source \
        and bool(citation.heading_path)


def _answer(engine, question: str, principal: Principal, history_path: str | None,
            dry_run: bool, on_token) -> Answer:
    """``engine.ask`` of ``question``, or ``engine.converse`` with the turns before it."""
    if history_path:
        from citewise.answer.rewrite import read_history

        return engine.converse(question, principal, read_history(history_path),
                               dry_run=dry_run, on_token=on_token)
    return engine.ask(question, principal, dry_run=dry_run, on_token=on_token)


def _bare(text: str) -> str:
    """``text`` without citation brackets and with single spaces: a streamed draft that only
    differs from the final answer in how its sources are numbered is the same answer."""
    return " ".join(re.sub(r"\s*\[[^\]]*\]", "", text).split())


def _stream_note(streamed: str, answer: Answer) -> str | None:
    """What to say after the stream when the final answer differs from it: the stream
    stopped before a sentence the check removed (the answer goes on from it), or what was
    streamed was replaced (read on, extractive, declined); None when nothing differs."""
    if not answer.trace.generation or not streamed.strip() or \
            _bare(streamed) == _bare(answer.answer):
        return None
    read_on = answer.trace.escalated is not None
    if not read_on and _bare(answer.answer).startswith(_bare(streamed)):
        return ("the stream stopped at a sentence its sources do not support; the checked "
                "answer follows")
    why = "read on past the first passages" if read_on else answer.outcome
    return f"the streamed text above is not the final answer ({why}); the final answer follows"


def _shown_as_is(streamed: str, answer: Answer) -> bool:
    """Whether the streamed text, numbered as it came, is the final answer word for word on
    a terminal that also shows stdout: printing it again would show the answer twice."""
    return (answer.outcome == "answered" and answer.trace.escalated is None
            and sys.stdout.isatty() and sys.stderr.isatty()
            and joined_trailing(streamed).split() == answer.answer.split())


def print_notes(answer: Answer) -> None:
    """Every fallback taken, one line each."""
    for note in answer.notes:
        echo(f"note: {note}")


def passage_places(engine: Engine, answer: Answer, principal: Principal) -> dict[str, str]:
    """``Title › Heading`` of each passage in the answer's context and each one dropped from
    it, by chunk id (what ``--explain`` shows beside ``S1 = <chunk id>`` and ``dropped <chunk
    id>``: new users had to map the ids with ``search --json``); only chunks ``principal``
    may read."""
    context = answer.trace.context
    ids = [*(p.chunk_id for p in context.passages), *(d.chunk_id for d in context.dropped)] \
        if context else []
    found = engine.store.get_chunks(ids, principal) if ids else {}
    return {cid: place(doc.title, chunk.heading_path) for cid, (chunk, doc) in found.items()}


def print_trace(answer: Answer, places: dict[str, str] | None = None) -> None:
    t = answer.trace
    if t.conversation is not None:
        c = t.conversation
        echo(f"\n-- follow-up rewritten ({c.method}): {c.query}", nl=False)
    if t.gate is not None:  # always, for an answer from ask
        _print_gate(t.gate)
    echo(f"-- rerank: {t.rerank.status if t.rerank else None}")
    if t.budget is not None:
        b = t.budget
        echo(f"-- first read: {b.passages} of {b.of_passages} passages ("
             f"{b.tokens} tokens, a {b.prompt_tokens}-token prompt), first token in "
             f"~{b.estimated_first_token_s:g} s on {b.threads} "
             f"thread{'s' if b.threads != 1 else ''} (generate.first_token_s "
             f"{b.first_token_s:g}); the rest only if they do not answer")
    if t.escalated is not None:
        e = t.escalated
        echo(f"-- read on: {e.why} with {e.from_passages} passages; then read "
             f"{' then '.join(map(str, e.path[1:]))} (of {e.to_passages})")
    for p in t.context.passages if t.context else ():
        place = (places or {}).get(p.chunk_id)
        echo(f"-- {p.id} = {p.chunk_id} ({p.tokens} tokens{'; ' + place if place else ''})",
             one_line=True)
    for d in t.context.dropped if t.context else ():
        place = (places or {}).get(d.chunk_id)
        echo(f"-- dropped {d.chunk_id}: {d.reason}{' (' + place + ')' if place else ''}",
             one_line=True)
    if t.dry_run and answer.outcome == "answered":  # nothing was generated
        echo("-- outcome: would answer (dry run: the gate passed; no answer was generated)")
    else:
        echo(f"-- outcome: {answer.outcome}")
    for r in t.enforce.removed if t.enforce else ():
        echo(f"-- removed ({r.why}): {r.sentence}")
    for note in answer.notes:
        echo(f"-- fallback: {note}")
    times = t.timings_ms.to_dict() if t.timings_ms else {}
    echo(f"-- timings ms: {', '.join(f'{k} {v:.0f}' for k, v in times.items())}")


def _print_gate(gate: GateTrace) -> None:
    """The gate's decision and the answerability reader's verdict (when it read)."""
    echo(f"\n-- gate: {gate.signal} {gate.score} vs {gate.threshold} ({gate.source}) "
         f"-> {'pass' if gate.passed else gate.reason}")
    r = gate.reader
    if r is not None:
        verdict = ("pass" if r.passed else "reader_no") if not r.error \
            else f"failed: {r.error}"
        echo(f"-- reader: {r.model} P(yes) {r.p_yes}, score {r.score} vs "
             f"{r.threshold} ({r.source}, {r.seconds:.2f} s) -> {verdict}")


@click.command(cls=TextCommand)
@click.argument("question")
@click.option("--groups", default="", help="Comma-separated groups of the asking user.")
@click.option("--tenant", default="default", show_default=True, help="Tenant of the user.")
@click.option("--generator", type=click.Choice(["auto", "local", "openai", "extractive"]),
              default=None, help="Answer writer (default: auto = local if installed).")
@click.option("--rerank", type=click.Choice(["none", "llm-judge", "cross-encoder"]),
              default=None, help="Reranker for the top hits (default: none).")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default=None, help="Retrieval signals.")
@click.option("--dry-run", is_flag=True, help="Stop after the grounding gate (no generation); "
                                               "exit 3 when it would decline.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer, citations and trace.")
@click.option("--stream/--no-stream", default=None,
              help="Show the model's output on stderr as it is written (default: when stderr "
                   "is a terminal, the generator is an LLM and --json is not given); a "
                   "replaced answer is announced.")
@click.option("--explain", is_flag=True, help="Also print the gate, context and timings.")
@click.option("--history", "history_path", type=click.Path(dir_okay=False, exists=True),
              default=None, help="Earlier turns (JSON list of {question, answer}): QUESTION "
                                 "is a follow-up, rewritten into a standalone query first.")
@db_option
@settings_options
@friendly_errors
def ask(question, groups, tenant, generator, rerank, mode, dry_run, as_json, stream, explain,
        history_path, db, config_path, model, threads):
    """Answer QUESTION from the documents the user may read, with checked citations; declines
    with "insufficient evidence" when they don't answer it. Exit status: 0 answered, 3
    declined, 1 failed."""
    principal = Principal.of(groups, tenant=tenant)
    streamed = NumberedStream()
    with engine_from(db, config_path, model, threads, must_exist=True,
                     **{"generate.generator": generator, "rerank.kind": rerank,
                        "retrieve.mode": mode}) as engine:
        engine = with_api_key(engine)
        if stream is None:  # a terminal sees an LLM write; extractive answers come whole
            stream = (not as_json and not dry_run and sys.stderr.isatty()
                      and not engine.generator.model_id.startswith("extractive"))

        waiting = Waiting(bool(stream) and sys.stderr.isatty())

        def on_token(piece: str) -> None:
            if piece:
                waiting.text()
            echo(streamed.feed(piece), nl=False, err=True)

        with waiting:
            answer = _answer(engine, question, principal, history_path, dry_run,
                             on_token if stream else None)
        places = passage_places(engine, answer, principal) if explain else {}
        if not as_json:
            warn_without_groups(principal, engine.store)
            if answer.reason == "no_evidence":
                warn_nothing_readable(engine.store, principal)
    if as_json:
        echo_json(answer_json(answer))
        sys.exit(EXIT_DECLINED if answer.declined else EXIT_ANSWERED)
    shown = False
    if stream:
        echo(streamed.close(), err=True)
        note = _stream_note(streamed.shown, answer)
        if note:
            echo(f"note: {note}", err=True)
        shown = _shown_as_is(streamed.shown, answer)
    chosen = (answer.trace.generation.chosen if answer.trace.generation else None) or ""
    if chosen.startswith("auto:"):  # say when no LLM wrote the answer, and how to get one
        echo(f"note: answered without an LLM (extractive); {chosen[len('auto: '):]}",
             err=True)
    if dry_run:
        gate = answer.trace.gate
        echo("would decline" if answer.declined else "would answer", nl=False)
        echo(f" ({gate.signal} {gate.score} vs {gate.threshold})" if gate is not None
             else f" ({REASONS.get(answer.reason or '', answer.reason)})")  # no search ran
    else:
        print_answer(answer, shown=shown,
                     show_args=show_options(db, groups, tenant, config_path))
    if explain:
        print_trace(answer, places)
    if answer.declined:  # a dry run's "would decline" too: scripts test the gate by it
        sys.exit(EXIT_DECLINED)


def with_api_key(engine: Engine) -> Engine:
    """The OpenAI-compatible key comes from the environment, read here at the CLI edge."""
    api = engine.settings.generate.openai
    if api.api_key is None and os.environ.get(api.api_key_env):
        generate = engine.settings.generate.model_copy(
            update={"openai": api.model_copy(update={"api_key": os.environ[api.api_key_env]})})
        engine.settings = engine.settings.model_copy(update={"generate": generate})
    return engine
