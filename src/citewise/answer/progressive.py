"""Progressive context: answer from the first passages, read on only when they do not answer.

A local model evaluates its whole prompt before the first token, so on a small machine the
context decides when an answer starts (:mod:`citewise.answer.budget`). Cutting the context to
what is read in ``generate.first_token_s`` makes the start quick but loses the answer when it
sits in a later passage: on the httpx set at a 200-token cut, 6 of 49 answerable questions
were declined by the model and 2 had no supported sentence. So ``ask`` first reads the
passages that fit (:func:`prefix`: a *prefix* of the whole context, so llama.cpp's prompt cache
keeps them evaluated), and reads on towards the whole context (:func:`steps`,
:func:`escalate`) when

* the answerability reader finds no answer in them (``reader_no``), or
* the answer from them is a decline (``model_declined``) or has no supported sentence
  (``unsupported``) — the outcomes in :data:`RETRY` — and the generator did not fail.

Reading on goes in steps (:func:`steps`): the first passages, then a prefix holding at least
:data:`WIDEN` times their tokens, and so on up to the whole context. A small model declines
more often when handed every passage at once: on httpx, two answerable questions that a
200-token first read had answered were declined after a 120-token first read jumped straight
to all 8 passages. Each step is a prefix of the next, so only the passages after the previous
step are evaluated again. While the first answer may still be the decline sentence, its
tokens are held back (:func:`hold_declines`), so a terminal never shows a decline that is
then replaced; a later answer is not streamed (the CLI prints it whole). Every step is in
the trace (``escalated.path``: the passages of each context read) and one note.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from citewise.answer.budget import FIRST_READ_TOKENS, MIN_CONTEXT_TOKENS
from citewise.answer.context import Context
from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
from citewise.trace import AnswerTrace, EscalationTrace, TraceDraft
from citewise.types import ContextPassage

WIDEN = 2
"""Each read-on step holds at least this many times the previous step's passage tokens."""
RETRY = ("model_declined", "unsupported")
"""Outcomes of an answer from the passages read so far that more of the context may change."""

_WHY = {"reader_no": "the reader found no answer in them", "model_declined": "the model "
        "declined", "unsupported": "no sentence of the model's answer was kept"}


def prefix(full: Context, allowed: int,
           prompt_tokens: Callable[[tuple[ContextPassage, ...]], int]) -> Context | None:
    """The leading passages of ``full`` whose prompt fits ``allowed`` tokens, taking more
    while they hold fewer than :data:`FIRST_READ_TOKENS`; None when the first passage alone
    is over ``allowed`` and longer than :data:`MIN_CONTEXT_TOKENS` (one whole chunk: the
    caller then cuts it to that)."""
    kept: list[ContextPassage] = []
    for p in full.passages:
        over = prompt_tokens((*kept, p)) > allowed
        if over and sum(k.tokens for k in kept) >= FIRST_READ_TOKENS:
            break
        if over and not kept and p.tokens > MIN_CONTEXT_TOKENS:
            return None
        kept.append(p)
    return Context(tuple(kept), full.dropped, sum(k.tokens for k in kept))


def steps(first: Context, full: Context) -> tuple[Context, ...]:
    """The contexts read in turn: ``first``, wider prefixes of ``full`` (each holding at least
    :data:`WIDEN` times the previous one's tokens), and ``full`` last."""
    out = [first]
    while out[-1] is not full:
        want, kept, tokens = WIDEN * max(out[-1].tokens, 1), [], 0
        for p in full.passages:
            kept.append(p)
            tokens += p.tokens
            if tokens >= want:
                break
        if len(kept) >= len(full.passages) or len(kept) <= len(out[-1].passages):
            out.append(full)
        else:
            out.append(Context(tuple(kept), full.dropped, tokens))
    return tuple(out)


def whole_texts(read: tuple[ContextPassage, ...],
                whole: Context | None) -> tuple[ContextPassage, ...]:
    """``read`` with each passage the first read cut to fit (:func:`prefix`'s caller) given
    its text in ``whole``, under the same id: what a quote of the sources may show. The cut
    is for the first token's sake; a quote cut with it ended an example inside its ``if``
    (libffi's Simple Example)."""
    if whole is None:
        return read
    by_chunk = {p.hit.chunk.chunk_id: p for p in whole.passages}
    out = []
    for p in read:
        w = by_chunk.get(p.hit.chunk.chunk_id)
        if w is not None and len(w.text) > len(p.text) and w.text.startswith(p.text.rstrip()):
            p = replace(p, text=w.text, tokens=w.tokens)
        out.append(p)
    return tuple(out)


def escalate(draft: TraceDraft, why: str, read: Context, then: Context,
             notes: list[str], whole: bool = True) -> None:
    """Record (the trace's ``escalated`` and one note) that the passages ``read`` did not
    answer and ``then`` is read next (``whole``: the whole context). ``from_passages`` stays
    the first read's; ``path`` lists every step's passages. An unsupported answer's note
    says why its sentences were removed: a new user read "no sentence of the answer was
    supported" as the passages' fault when the model had only left its sentences uncited.
    Every step shares one note ("the first 1, then 3 passage(s) did not answer (last: …);
    read all 8"): a new user's decline had three such lines above two more."""
    done, n = draft.trace.escalated, len(then.passages)
    if done is None:
        done = EscalationTrace(len(read.passages), (len(read.passages),), why, n)
    draft.set(escalated=replace(done, why=why, to_passages=n, path=(*done.path, n)))
    said = _WHY.get(why, why)
    removed = draft.trace.enforce.removed if draft.trace.enforce else ()
    if why == "unsupported" and removed:
        counts = Counter(r.why for r in removed)
        said += ": " + ", ".join(f"{k} {w}" for w, k in counts.items())
    tried = draft.trace.escalated.path[:-1]
    note = (f"the first {', then '.join(map(str, tried))} passage(s) did not answer "
            f"({'last: ' if len(tried) > 1 else ''}{said}); read {'all ' if whole else ''}{n}")
    earlier = [i for i, past in enumerate(notes) if past.startswith("the first ")
               and " passage(s) did not answer (" in past]
    if len(tried) > 1 and earlier:  # one line for every step, not a line per step
        notes[earlier[-1]] = note
    else:
        notes.append(note)


def failed(trace: AnswerTrace) -> bool:
    """Whether the generator failed (timeout, endpoint down): more passages would not help."""
    return trace.generation is not None and any(
        "failed (" in n for n in trace.generation.notes)


class _HoldDeclines:
    """Relays tokens once the text can no longer be the decline sentence."""

    def __init__(self, on_token: Callable[[str], None]) -> None:
        self.on_token = on_token
        self.held: list[str] = []
        self.open = False
        self.phrase = INSUFFICIENT_EVIDENCE.lower()

    def __call__(self, piece: str) -> None:
        if self.open or not piece:  # an empty piece shows nothing (checked_stream's beat)
            self.on_token(piece)
            return
        self.held.append(piece)
        text = "".join(self.held).lstrip().lower()
        if self.phrase.startswith(text) or text.startswith(self.phrase.split(":")[0]):
            return  # may still be, or is, the decline: hold
        self.open = True
        for past in self.held:
            self.on_token(past)


def hold_declines(on_token: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """``on_token`` holding back text while it may still be the decline sentence."""
    return None if on_token is None else _HoldDeclines(on_token)
