"""The answerability reader: the generator model judges whether the built context answers
the question, before it writes an answer.

The retrieval signals (:mod:`citewise.answer.gate`) measure how well passages *match* a
question; SQuAD-style unanswerable questions match well and are still not answered by any
passage. The reader asks the generator itself, on exactly the sources it would answer from:
"Do the sources above answer the question? Yes or No", and reads P(Yes) / (P(Yes) + P(No))
from the first answer token's log-probabilities (as the LLM judge does,
:func:`citewise.generate.local.yes_probability`).

Cost. :func:`reader_messages` keeps the generation prompt (system message, fenced sources,
question) and changes only its last line, so llama.cpp's prompt cache (one slot, prefix
reuse) holds the shared prefix afterwards: the answer that follows evaluates only its own last
line. The reader therefore costs one prompt evaluation the answer would have done anyway, plus
one token (``benchmarks/reader.py`` measures reader vs answer seconds).

An OpenAI-compatible endpoint is asked the same with ``logprobs``/``top_logprobs``; a server
that returns no logprobs is read by its verdict word (Yes → 1.0, No → 0.0, else no verdict).

Decision. The reader's score is ``sigmoid(b + w_s · signal + w_r · logit(P(Yes)))``, declined
below a threshold (reason ``reader_no``). Uncalibrated, ``b = w_s = 0, w_r = 1``: the score
is P(Yes) itself, with the model's shipped threshold (:data:`SHIPPED`; 0 for a model not
listed). ``citewise calibrate`` fits ``b, w_s, w_r`` by logistic regression on its dev half
(:mod:`citewise.answer.reader_fit`) and stores them in the index (``gate.reader``). The reader
runs only when the retrieval signals pass, and with ``gate.reader: auto`` only when its
threshold is above 0 (shipped for the model, set or calibrated: otherwise it would decline
nothing); ``citewise calibrate`` records it under ``gate.reader: on``. When it fails
(timeout, endpoint down) the gate keeps the retrieval decision and says so.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from citewise.errors import CitewiseError, ConfigError
from citewise.generate.control_tokens import safe_messages
from citewise.trace import ReaderVerdict  # what the reader said (a part of the answer trace)
from citewise.types import Prompt

QUESTION = ("Do the sources above contain the answer to the question? "
            "Reply with one word: Yes or No.")
SHIPPED_THRESHOLD = 0.0
"""Decline when P(Yes) is below this on an uncalibrated index whose reader model has no entry
in :data:`SHIPPED`: 0, i.e. it declines nothing (and ``gate.reader: auto`` does not run it).
A threshold belongs to its model: P(Yes) of another model lives on another scale."""
SHIPPED: dict[str, float] = {"qwen2.5-coder-1.5b-instruct@cc324af070c2": 0.254}
"""Shipped thresholds per model id, for an index nobody calibrated. The 1.5B's was chosen with
``benchmarks/reader.py`` on DEV sets only, context cut by ``generate.first_token_s`` on 2
threads (Wilson 95 %): the most dev abstention (ties: the lower threshold) while the reader
keeps every dev set's false declines within 10 % (or unchanged where retrieval alone is above
it: SQuAD's sample, 4/20). ninja dev set (54 questions; ROC AUC 0.93 among the 31 the retrieval
signals pass): abstention 0.81 -> 0.92 [0.76, 0.98], false declines 0.07 [0.02, 0.23]
unchanged. SQuAD dev half (40 sampled; AUC 0.71 among 32): its answerable questions all read
P(Yes) >= 0.49, so 0.254 changes nothing there (a SQuAD-only choice would have been 0.487; the
ninja questions in users' words read lower). Checked on borg (never fitted on; AUC 0.70 among
50): abstention 0.71 -> 0.74 [0.57, 0.85], false declines 0.07 -> 0.09 [0.04, 0.22].
Re-checked when the first-token cut fell to 200 tokens: ninja dev AUC 0.95, SQuAD dev 0.70,
the same declines at 0.254. Small: P(Yes) of a 1.5B model is weakly calibrated; ``citewise
calibrate`` on an index's own questions fits better. Cost: the reader evaluates the answer's
prompt but for its last line, and the answer then reuses that prefix (llama.cpp's cache), so
it adds one token and one short line.

The 0.5B is not listed: on SQuAD's dev half its P(Yes) was 0.27-0.37 for unanswerable and
0.30-0.34 for answerable questions (ROC AUC 0.53 on 14), so no threshold helps."""


def shipped_threshold(model_id: str) -> float:
    """The shipped reader threshold for ``model_id`` (:data:`SHIPPED`), else 0."""
    return SHIPPED.get(model_id, SHIPPED_THRESHOLD)


TOP_LOGPROBS = 20


@dataclass(frozen=True)
class ReaderModel:
    """How the reader's P(Yes) and the gate's retrieval signal combine (logistic)."""

    bias: float = 0.0
    w_signal: float = 0.0
    w_reader: float = 1.0
    threshold: float = SHIPPED_THRESHOLD
    source: str = "shipped"
    signal: str = "dense_top"

    def score(self, p_yes: float, signal: float) -> float:
        z = self.bias + self.w_signal * signal + self.w_reader * logit(p_yes)
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if k != "source"})

    @classmethod
    def from_json(cls, text: str, source: str = "index") -> ReaderModel:
        try:
            data = json.loads(text)
            return cls(float(data["bias"]), float(data["w_signal"]), float(data["w_reader"]),
                       float(data["threshold"]), source, str(data.get("signal", "dense_top")))
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError("the index's gate.reader calibration is unreadable. Fix: run "
                              "`citewise calibrate` again.") from exc


def logit(p: float, eps: float = 1e-4) -> float:
    p = min(1.0 - eps, max(eps, p))
    return math.log(p / (1.0 - p))


def choose_model(configured: float | None, stored: str | None,
                 model_id: str = "") -> ReaderModel:
    """Settings (``gate.reader_threshold``) beat the index's calibration beat the shipped one
    for the reading model ``model_id`` (:func:`shipped_threshold`)."""
    model = ReaderModel.from_json(stored) if stored else ReaderModel(
        threshold=shipped_threshold(model_id),
        source="shipped" if model_id in SHIPPED else "uncalibrated")
    if configured is not None:
        return ReaderModel(model.bias, model.w_signal, model.w_reader, configured, "settings",
                           model.signal)
    return model


def reader_messages(prompt: Prompt) -> list[dict[str, str]]:
    """The generation prompt with its last line (the instruction to answer) replaced by the
    Yes/No question: every token before it is shared with the answer's prompt."""
    messages = [dict(m) for m in prompt.messages]
    last = messages[-1]
    head = last["content"].rsplit("\n\n", 1)[0] if "\n\n" in last["content"] else last["content"]
    last["content"] = f"{head}\n\n{QUESTION}"
    return messages


def can_read(generator: Any) -> bool:
    """Whether ``generator`` is an LLM the reader can ask (local, endpoint, or a fake that
    implements ``answerable``)."""
    from citewise.generate.local import LocalGenerator
    from citewise.generate.openai import OpenAIGenerator

    return isinstance(generator, LocalGenerator | OpenAIGenerator) or callable(
        getattr(generator, "answerable", None))


def enabled(setting: str, generator: Any) -> bool:
    """``gate.reader``: ``on``/``off``, or ``auto`` = on when the generator is an LLM."""
    if setting == "off":
        return False
    if setting == "on" and not can_read(generator):
        raise ConfigError(f"gate.reader is on but the generator {generator.model_id} cannot "
                          "judge answerability. Fix: set gate.reader to auto or off, or use "
                          "--generator local / openai.")
    return can_read(generator)


def p_yes(generator: Any, prompt: Prompt, timeout_s: float | None = None) -> float:
    """P(Yes) that the prompt's sources answer its question, from ``generator``."""
    from citewise.generate.local import LocalGenerator, yes_probability
    from citewise.generate.openai import OpenAIGenerator

    messages = reader_messages(prompt)
    if callable(getattr(generator, "answerable", None)):
        return float(generator.answerable(messages))
    if isinstance(generator, LocalGenerator):
        return yes_probability(generator.server(), messages, top_logprobs=TOP_LOGPROBS,
                               timeout_s=timeout_s)
    if isinstance(generator, OpenAIGenerator):
        return endpoint_p_yes(generator, messages, timeout_s)
    raise ConfigError(f"{generator.model_id} cannot judge answerability. Fix: set gate.reader "
                      "to off.")


def read(generator: Any, prompt: Prompt, model: ReaderModel, signal: float,
         timeout_s: float | None = None) -> ReaderVerdict:
    """Ask the reader and decide; a failure passes (the retrieval decision stands) with
    ``error`` set."""
    start = time.perf_counter()
    try:
        p = p_yes(generator, prompt, timeout_s)
    except (CitewiseError, OSError) as exc:
        return ReaderVerdict(True, None, None, model.threshold, model.source,
                             generator.model_id, round(time.perf_counter() - start, 3),
                             " ".join(str(exc).split())[:160])
    score = model.score(p, signal)
    return ReaderVerdict(score >= model.threshold, round(p, 6), round(score, 6),
                         model.threshold, model.source, generator.model_id,
                         round(time.perf_counter() - start, 3))


def endpoint_p_yes(generator: Any, messages: Sequence[Mapping[str, str]],
                   timeout_s: float | None = None) -> float:
    """P(Yes) from an OpenAI-compatible endpoint: top logprobs of the first token when the
    server returns them, else the verdict word (Yes 1.0, No 0.0)."""
    from citewise.errors import GenerationError

    settings = generator.settings
    body = {"model": settings.model, "messages": safe_messages(messages),
            "max_tokens": 2, "temperature": 0.0, "logprobs": True,
            "top_logprobs": TOP_LOGPROBS}
    timeout = min(settings.timeout_s, timeout_s or settings.timeout_s)
    from citewise.generate.openai import _Retryable

    try:
        data = generator._request(body, timeout, None, time.monotonic())  # noqa: SLF001
    except _Retryable as exc:  # the answer's own request retries; the reader does not wait
        raise GenerationError(f"the endpoint failed the answerability question ({exc})") from exc
    try:
        choice = data["choices"][0]
    except (KeyError, IndexError, TypeError) as exc:
        raise GenerationError("the endpoint returned no choices to the answerability "
                              "question. Fix: set gate.reader to off for this endpoint.") from exc
    first = (((choice.get("logprobs") or {}).get("content") or [{}])[0] or {}).get(
        "top_logprobs")
    if first:
        return yes_share(first)
    word = str((choice.get("message") or {}).get("content") or "").strip().lower()
    if word.startswith("yes"):
        return 1.0
    if word.startswith("no"):
        return 0.0
    raise GenerationError(f"the endpoint answered the answerability question with {word!r:.40} "
                          "and no logprobs. Fix: set gate.reader to off for this endpoint.")


def yes_share(candidates: Sequence[Mapping[str, Any]]) -> float:
    """P(Yes) / (P(Yes) + P(No)) over top-logprob candidates (case and spaces ignored; 0.5
    when neither is among them)."""
    best: dict[str, float] = {}
    for cand in candidates:
        word = str(cand.get("token", "")).strip().lower()
        if word in ("yes", "no"):
            best[word] = max(best.get(word, -math.inf), float(cand["logprob"]))
    p_y, p_n = math.exp(best.get("yes", -math.inf)), math.exp(best.get("no", -math.inf))
    return 0.5 if p_y + p_n == 0 else p_y / (p_y + p_n)
