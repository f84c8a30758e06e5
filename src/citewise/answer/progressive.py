"""Progressive context: answer from the first passages, read on only when they do not answer.

A local model evaluates its whole prompt before the first token, so on a small machine the
context decides when an answer starts (:mod:`citewise.answer.budget`). Cutting the context to
what is read in ``generate.first_token_s`` makes the start quick but loses the answer when it
sits in a later passage: on the httpx set at a 200-token cut, 6 of 49 answerable questions
were declined by the model and 2 had no supported sentence. So ``ask`` first reads the
passages that fit (:func:`prefix`: a *prefix* of the whole context, so llama.cpp's prompt cache
keeps them evaluated), and goes on to the whole context (:func:`escalate`) when

* the answerability reader finds no answer in them (``reader_no``), or
* the answer from them is a decline (``model_declined``) or has no supported sentence
  (``unsupported``) — the outcomes in :data:`RETRY` — and the generator did not fail.

Only the passages after the prefix are evaluated again. While the first answer may still be
the decline sentence, its tokens are held back (:func:`hold_declines`), so a terminal never
shows a decline that is then replaced; the second answer is not streamed (the CLI prints it
whole). Both steps are in the trace (``escalated``) and one note.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citewise.answer.budget import FIRST_READ_TOKENS, MIN_CONTEXT_TOKENS
from citewise.answer.context import Context
from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
from citewise.types import ContextPassage

RETRY = ("model_declined", "unsupported")
"""Outcomes of an answer from the first passages that the whole context may change."""

_WHY = {"reader_no": "the reader found no answer in them", "model_declined": "the model "
        "declined", "unsupported": "no sentence of the answer was supported"}


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


def escalate(trace: dict[str, Any], why: str, first: Context, full: Context,
             notes: list[str]) -> None:
    """Record (``trace["escalated"]`` and one note) that the first passages did not answer
    and the whole context is read."""
    trace["escalated"] = {"why": why, "from_passages": len(first.passages),
                          "to_passages": len(full.passages)}
    notes.append(f"the first {len(first.passages)} passage(s) did not answer "
                 f"({_WHY.get(why, why)}); read all {len(full.passages)}")


def failed(trace: dict[str, Any]) -> bool:
    """Whether the generator failed (timeout, endpoint down): more passages would not help."""
    return any("failed (" in n for n in trace.get("generation", {}).get("notes", []))


class _HoldDeclines:
    """Relays tokens once the text can no longer be the decline sentence."""

    def __init__(self, on_token: Callable[[str], None]) -> None:
        self.on_token = on_token
        self.held: list[str] = []
        self.open = False
        self.phrase = INSUFFICIENT_EVIDENCE.lower()

    def __call__(self, piece: str) -> None:
        if self.open:
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
