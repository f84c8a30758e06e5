"""Conversations: a follow-up ("does it cover contractors?") becomes a standalone query
before retrieval, and the trace shows how.

With an LLM generator the model rewrites it (a short prompt: the earlier turns, then "rewrite
the last question as one standalone search query"); without one (extractive), or when the
model fails or answers with something that is not a query, the follow-up keeps its words
and gains the content terms of the earlier questions it lacks (``terms``): retrieval then
searches the conversation's topic, and the gate and the answer see the same text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.answer.small_talk import is_small_talk
from citewise.errors import ConfigError, GenerationError
from citewise.text import json_problem, mask_personal, query_terms
from citewise.types import Prompt

MAX_TURNS = 6
MAX_BORROWED = 24
"""The most terms a follow-up borrows from earlier questions: a security review's six
2,000-character turns made a 5,172-character query of a question the API bounds at 2,000."""
PROMPT_TURNS, TURN_CHARS = 4, 300
"""What of the conversation the model reads to rewrite a follow-up: the last turns, each
question and answer cut short. A security review's six 2,000-character turns took the local
model 86 s to read, past its timeout, while every other asker waited."""
SYSTEM = ("You rewrite a follow-up question from a conversation into ONE standalone search "
          "query that can be understood without the conversation. Resolve pronouns and "
          "references. Output only the query, on one line, without quotes or explanations.")


@dataclass(frozen=True)
class Turn:
    question: str
    answer: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"question": self.question, "answer": self.answer}


@dataclass(frozen=True)
class Rewrite:
    original: str
    query: str
    method: str  # none | terms | llm:<model> (| terms after llm failed: noted in ``note``)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"original": self.original, "query": self.query, "method": self.method,
                "note": self.note}


def turns_from(data: Any) -> list[Turn]:
    """Turns from JSON data: a list of ``{question, answer}`` objects."""
    if not isinstance(data, list) or not all(isinstance(t, dict) and t.get("question")
                                             for t in data):
        raise ConfigError("history: expected a JSON list of {\"question\": ..., \"answer\": "
                          "...} objects. Fix: e.g. [{\"question\": \"What is the leave "
                          "policy?\", \"answer\": \"...\"}]")
    return [Turn(str(t["question"]), str(t.get("answer") or "")) for t in data]


MAX_HISTORY_BYTES = 1 << 20
"""The largest history file read: six turns are used (:data:`MAX_TURNS`)."""


def _history_text(path: str | Path) -> str:
    try:
        with Path(path).open("rb") as fh:
            raw = fh.read(MAX_HISTORY_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}. Fix: check the path") from None
    if len(raw) > MAX_HISTORY_BYTES:
        raise ConfigError(f"{path}: over {MAX_HISTORY_BYTES:,} bytes. Fix: keep the last "
                          f"{MAX_TURNS} turns (only those are used)")
    return raw.decode("utf-8")  # a UnicodeDecodeError is a ValueError: reported below


def read_history(path: str | Path) -> list[Turn]:
    """A history file: a JSON list, or JSONL with one turn per line."""
    try:
        text = _history_text(path).strip()
        data = json.loads(text) if text.startswith("[") else \
            [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, bad UTF-8, deep "["
        why = "nested too deeply" if isinstance(exc, RecursionError) else json_problem(exc)
        raise ConfigError(f"{path}: not JSON or JSONL ({why}). Fix: write the "
                          "earlier turns as [{\"question\": ..., \"answer\": ...}]") from None
    return turns_from(data)


def by_terms(question: str, history: Sequence[Turn]) -> str:
    have = set(query_terms(question))
    extra: list[str] = []
    for turn in reversed(history[-MAX_TURNS:]):  # personal data is never a borrowed term
        for term in query_terms(mask_personal(turn.question, labels=False)):
            if term not in have and term not in extra and len(extra) < MAX_BORROWED:
                extra.append(term)
    return f"{question} ({' '.join(extra)})" if extra else question


def rewrite_followup(question: str, history: Sequence[Turn], generator: Any = None, *,
                     timeout_s: float = 30.0) -> Rewrite:
    if not history or is_small_talk(question):  # "thanks!" stays as it is: declined
        return Rewrite(question, question, "none")
    model = getattr(generator, "model_id", "") or ""
    if generator is None or model.startswith("extractive"):
        return Rewrite(question, by_terms(question, history), "terms")
    convo = "\n".join(f"Q: {t.question[:TURN_CHARS]}\nA: {t.answer[:TURN_CHARS]}"
                      for t in history[-PROMPT_TURNS:])
    user = f"Conversation:\n{convo}\n\nFollow-up: {question}\nStandalone query:"
    prompt = Prompt(({"role": "system", "content": SYSTEM}, {"role": "user", "content": user}),
                    question, ())
    try:
        out = generator.generate(prompt, max_tokens=64, timeout_s=timeout_s).text.strip()
    except GenerationError as exc:
        return Rewrite(question, by_terms(question, history), "terms", f"{model} failed: {exc}")
    line = out.splitlines()[0].strip().strip('"') if out else ""
    if not line or len(line) > 4 * len(question) + 200 or not query_terms(line):
        return Rewrite(question, by_terms(question, history), "terms",
                       f"{model} gave no usable query")
    return Rewrite(question, line, f"llm:{model}")
