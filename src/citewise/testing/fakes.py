"""Deterministic fakes for tests. Never used by default: a user always gets the real model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hashed bag-of-words vectors: texts sharing words have higher cosine. Deterministic.

    Records every call so tests can assert what was (not) embedded:
    ``embedded`` lists every passage text, ``batch_count`` counts ``embed_batch`` calls.
    ``fail_after`` makes the n-th+1 passage raise, to simulate a crash mid-ingest.
    """

    def __init__(self, dim: int = 64, model_id: str = "fake-bow-64",
                 fail_after: int | None = None) -> None:
        self.dim = dim
        self.model_id = model_id
        self.fail_after = fail_after
        self.embedded: list[str] = []
        self.queries: list[str] = []
        self.batch_count = 0

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.batch_count += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if self.fail_after is not None and len(self.embedded) >= self.fail_after:
                raise RuntimeError("FakeEmbedder: simulated failure (fail_after reached)")
            self.embedded.append(text)
            out[i] = self._vector(text)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        """Whitespace words: a stand-in tokenizer for chunking tests."""
        return len(text.split())


class FakeReranker:
    """Scores a text by the share of the query's words it contains (deterministic).

    ``delay_s`` sleeps per text (a slow model, for deadline tests); ``fail_on`` makes a call
    raise when any of its texts contains that string; ``calls`` records every batch scored.
    """

    def __init__(self, model_id: str = "fake-overlap", delay_s: float = 0.0,
                 fail_on: str | None = None) -> None:
        self.model_id = model_id
        self.delay_s = delay_s
        self.fail_on = fail_on
        self.calls: list[list[str]] = []

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        import time

        self.calls.append(list(texts))
        words = set(_WORD.findall(query.lower()))
        scores = []
        for text in texts:
            if self.fail_on is not None and self.fail_on in text:
                raise RuntimeError(f"FakeReranker: simulated failure on {self.fail_on!r}")
            if self.delay_s:
                time.sleep(self.delay_s)
            found = words & set(_WORD.findall(text.lower()))
            scores.append(len(found) / max(len(words), 1))
        return scores


class SlowReranker(FakeReranker):
    """A :class:`FakeReranker` that takes ``delay_s`` (default 0.2 s) per text."""

    def __init__(self, delay_s: float = 0.2, model_id: str = "fake-slow") -> None:
        super().__init__(model_id=model_id, delay_s=delay_s)


class FakeGenerator:
    """A :class:`~citewise.protocols.Generator` that returns scripted answers, in order (the
    last one repeats). ``[S1]``-style text is returned verbatim, so tests control exactly which
    ids an answer cites; ``[{sid:20 weeks}]`` becomes the id of the first passage whose text
    contains "20 weeks" (``S0`` when none does), for tests that must cite the right passage
    whatever the retrieval order. ``prompts`` records every
    :class:`~citewise.types.Prompt` received;
    ``fail`` raises :class:`~citewise.errors.GenerationError` (a timeout, say) on every call,
    after streaming the scripted answer when one is given (its ``partial``: what a model that
    timed out had written).
    """

    def __init__(self, *answers: str, model_id: str = "fake-generator",
                 fail: str | None = None) -> None:
        self.answers = list(answers) or ["Insufficient evidence."]
        self.model_id = model_id
        self.fail = fail
        self.partial = bool(answers)
        self.prompts: list = []

    def generate(self, prompt, *, max_tokens: int = 512, on_token=None, timeout_s=None):
        from citewise.errors import GenerationError
        from citewise.types import Generation

        self.prompts.append(prompt)
        if self.fail is not None and not self.partial:
            raise GenerationError(self.fail)
        text = _fill_sids(self.answers[min(len(self.prompts), len(self.answers)) - 1], prompt)
        if on_token is not None:
            for piece in text.split(" "):
                on_token(piece + " ")
        if self.fail is not None:
            raise GenerationError(self.fail, partial=text)
        return Generation(text=text, model_id=self.model_id,
                          tokens_in=sum(len(m["content"].split()) for m in prompt.messages),
                          tokens_out=len(text.split()))


_SID_SLOT = re.compile(r"\{sid:([^{}]+)\}")


class SlowGenerator:
    """A generator that streams ``tokens`` words ("w0 w1 …", cited by nothing) ``delay_s``
    apart, counting in ``written`` those it wrote: tests of a reader who leaves mid-stream
    check that generation stopped (the citation check holds every one of them back)."""

    def __init__(self, tokens: int = 200, delay_s: float = 0.01,
                 model_id: str = "fake-slow") -> None:
        self.tokens, self.delay_s, self.model_id = tokens, delay_s, model_id
        self.written = 0

    def generate(self, prompt, *, max_tokens: int = 512, on_token=None, timeout_s=None):
        import time

        from citewise.types import Generation

        for i in range(self.tokens):
            self.written = i + 1
            if on_token is not None:
                on_token(f"w{i} ")
            time.sleep(self.delay_s)
        return Generation(text="done", model_id=self.model_id)


def _fill_sids(text: str, prompt) -> str:
    def sid_of(match: re.Match[str]) -> str:
        wanted = match.group(1)
        return next((p.sid for p in prompt.passages if wanted in p.text), "S0")

    return _SID_SLOT.sub(sid_of, text)


class FakeReaderGenerator(FakeGenerator):
    """A :class:`FakeGenerator` that can also act as the answerability reader
    (:mod:`citewise.answer.reader`): each ``answerable`` call reads the next scripted
    first-token top logprobs (``{"Yes": -0.1, "No": -2.4}``; the last one repeats), or asks
    ``logprobs`` when it is a function of the reader's messages, and returns
    P(Yes) / (P(Yes) + P(No)) exactly as the real readers do. ``read`` records the
    reader's messages; ``fail_read`` raises :class:`~citewise.errors.GenerationError` there.
    """

    def __init__(self, *answers: str, logprobs: Any = ({"Yes": 0.0},),
                 model_id: str = "fake-reader", fail_read: str | None = None) -> None:
        super().__init__(*answers, model_id=model_id)
        self.logprobs = logprobs if callable(logprobs) else list(logprobs)
        self.fail_read = fail_read
        self.read: list[list[dict[str, str]]] = []

    def answerable(self, messages: Sequence[dict[str, str]]) -> float:
        from citewise.answer.reader import yes_share
        from citewise.errors import GenerationError

        self.read.append([dict(m) for m in messages])
        if self.fail_read is not None:
            raise GenerationError(self.fail_read)
        chosen = self.logprobs(messages) if callable(self.logprobs) else \
            self.logprobs[min(len(self.read), len(self.logprobs)) - 1]
        return yes_share([{"token": t, "logprob": lp} for t, lp in chosen.items()])


class FakeJudgeModel:
    """A :class:`~citewise.eval.judge_models.JudgeModel` for tests: P(Yes) is 0.9 when the
    proposed answer (the judge prompt's ``Proposed answer:`` line) contains a reference of its
    ``Expected answer:`` line (case-insensitive), else 0.1; ``p`` overrides it with a fixed
    value. ``calls`` records every message list; ``fail`` raises
    :class:`~citewise.errors.GenerationError`."""

    def __init__(self, p: float | None = None, model_id: str = "fake-judge",
                 fail: str | None = None) -> None:
        self.p, self.model_id, self.fail = p, model_id, fail
        self.calls: list[list[dict[str, str]]] = []

    def p_yes(self, messages: Sequence[dict[str, str]]) -> float:
        from citewise.errors import GenerationError

        self.calls.append([dict(m) for m in messages])
        if self.fail is not None:
            raise GenerationError(self.fail)
        if self.p is not None:
            return self.p
        lines = dict(line.split(": ", 1) for line in messages[-1]["content"].splitlines()
                     if ": " in line)
        refs = [r.strip().lower() for r in lines.get("Expected answer", "").split(" | ")]
        answer = lines.get("Proposed answer", "").lower()
        return 0.9 if any(r and r in answer for r in refs) else 0.1
