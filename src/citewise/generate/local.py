"""``LocalGenerator``: a GGUF model run in-process by xllamacpp (llama.cpp's server, no HTTP).

The model loads on first use and stays loaded for the life of the process: servers are cached
by ``(path, threads, context_tokens)`` in :func:`load_server`, which other stages (the LLM
reranker / support judge) use to share the same loaded model::

    server = load_server(resolve("qwen2.5-coder-0.5b-instruct"), threads=1, context_tokens=2048)
    p_yes = yes_probability(server, messages)

Requests always stream internally: each chunk is checked against the deadline and the
callback returns ``True`` to make llama.cpp stop, so ``timeout_s`` is honoured between tokens
(prompt evaluation itself cannot be interrupted; its time counts against the deadline).
Calls on one server are serialised by a lock (one slot).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.errors import BackendUnavailable, GenerationError, ModelError
from citewise.generate.control_tokens import safe_messages
from citewise.models import LOCAL_MODELS, resolve
from citewise.types import Generation, Prompt

_SERVERS: dict[tuple[str, int, int], Any] = {}
_LOCKS: dict[tuple[str, int, int], threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()


def effective_threads(threads: int) -> int:
    """``threads``, or the physical cores this process may use when 0
    (:func:`citewise.answer.budget.physical_cores`)."""
    from citewise.answer.budget import physical_cores

    return threads if threads > 0 else physical_cores()


def load_server(path: str | Path, threads: int = 0, context_tokens: int = 4096) -> Any:
    """The xllamacpp ``Server`` for a GGUF file, loaded once per process per
    ``(path, threads, context_tokens)``. Raises :class:`ModelError` if it cannot load."""
    key = (str(Path(path).resolve()), effective_threads(threads), context_tokens)
    with _REGISTRY_LOCK:
        if key not in _SERVERS:
            _SERVERS[key] = _start_server(*key)
            _LOCKS[key] = threading.Lock()
        return _SERVERS[key]


@contextmanager
def _turn(server: Any, timeout_s: float | None) -> Iterator[None]:
    """Hold ``server``'s lock, waiting at most ``timeout_s`` (None: as long as it takes):
    the model runs one request at a time, and a request's timeout counts its wait, so a
    queue of long requests (a security review's 30-request burst) ends in fallbacks, not
    in 45 minutes of waiting."""
    lock = server_lock(server)
    if not lock.acquire(timeout=-1 if timeout_s is None else max(timeout_s, 0.0)):
        raise GenerationError(f"The local model stayed busy with other requests for its "
                              f"{timeout_s:g} s timeout. Fix: retry, run fewer requests at "
                              "once, or raise generate.timeout_s (in a --config file; `citewise "
                              "config` prints one to edit).")
    try:
        yield
    finally:
        lock.release()


def server_lock(server: Any) -> threading.Lock:
    """The lock that serialises requests to ``server`` (from :func:`load_server`)."""
    with _REGISTRY_LOCK:
        for key, known in _SERVERS.items():
            if known is server:
                return _LOCKS[key]
    raise ModelError("This server was not loaded by load_server. Fix: get it from "
                     "citewise.generate.local.load_server(path, threads, context_tokens).")


def _start_server(path: str, threads: int, context_tokens: int) -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise BackendUnavailable("Local generation needs xllamacpp. Fix: pip install "
                                 "xllamacpp (or set generate.generator to extractive).") from exc
    if not Path(path).is_file():
        raise ModelError(f"No model file at {path}. Fix: citewise models pull NAME.")
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = context_tokens
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    params.warmup = False
    try:
        return xllamacpp.Server(params)
    except Exception as exc:  # the binding raises RuntimeError/ValueError on a bad file
        raise ModelError(f"Could not load the GGUF model {path}: {exc}. Fix: check that it is "
                         "a GGUF file (`citewise models pull NAME` re-creates shipped ones) and "
                         "that generate.context_tokens fits in memory.") from exc


@dataclass
class _Stream:
    """Accumulates a streamed chat completion; ``deadline`` is a monotonic time or None."""

    deadline: float | None
    on_token: Callable[[str], None] | None
    pieces: list[str] = field(default_factory=list)
    usage: Mapping[str, Any] = field(default_factory=dict)
    finish_reason: str = "stop"
    timed_out: bool = False
    error: str | None = None
    raised: BaseException | None = None  # from on_token: the binding would swallow it

    def __call__(self, chunk: Mapping[str, Any]) -> bool:
        if "error" in chunk:
            self.error = str(chunk["error"])
            return True
        for choice in chunk.get("choices") or ():
            text = (choice.get("delta") or {}).get("content")
            if text:
                self.pieces.append(text)
                if self.on_token is not None:
                    try:
                        self.on_token(text)
                    except BaseException as exc:  # re-raised by chat() after the stop
                        self.raised = exc
                        return True
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.timed_out = True
            return True  # tells llama.cpp to stop generating
        return False


def chat(server: Any, messages: Sequence[Mapping[str, str]], *, max_tokens: int,
         temperature: float = 0.0, seed: int = 0, timeout_s: float | None = None,
         on_token: Callable[[str], None] | None = None) -> tuple[str, Mapping[str, Any], str]:
    """One chat completion on a loaded server: ``(text, usage, finish_reason)``.
    Raises :class:`GenerationError` on a server error or when ``timeout_s`` passes (with the
    text written so far as its ``partial``)."""
    request = {"messages": safe_messages(messages), "max_tokens": max_tokens,
               "temperature": temperature, "seed": seed, "stream": True,
               "stream_options": {"include_usage": True}}
    start = time.monotonic()
    stream = _Stream(deadline=start + timeout_s if timeout_s else None, on_token=on_token)
    with _turn(server, timeout_s):
        result = server.handle_chat_completions(request, stream)
    if stream.raised is not None:
        raise stream.raised
    if isinstance(result, Mapping) and "error" in result:
        stream.error = str(result["error"])
    if stream.error:
        raise GenerationError(f"The local model failed: {stream.error}. Fix: shorten the "
                              "context (context.budget_tokens) or raise generate.context_tokens.")
    if stream.timed_out:
        raise GenerationError(f"The local model ran past its {timeout_s:g} s timeout after "
                              f"{time.monotonic() - start:.1f} s. Fix: raise generate.timeout_s "
                              "(in a --config file; `citewise config` prints one to edit), "
                              "lower generate.max_tokens, or use a smaller model.",
                              partial="".join(stream.pieces))
    return "".join(stream.pieces), stream.usage, stream.finish_reason


class LocalGenerator:
    """A :class:`~citewise.protocols.Generator` over a local GGUF model.

    ``model`` is a shipped name (``citewise models list``) or a path to a ``.gguf`` file.
    Nothing is loaded until the first :meth:`generate`; a model that cannot be found or
    loaded, or a missing xllamacpp, then raises :class:`GenerationError` carrying the
    :class:`ModelError`'s (or :class:`BackendUnavailable`'s) fix, so an answer falls back and
    says so (:meth:`server` raises the original error itself).
    """

    def __init__(self, model: str | Path, *, threads: int = 0, context_tokens: int = 4096,
                 temperature: float = 0.0, seed: int = 0,
                 models_dir: str | Path | None = None) -> None:
        self.model = str(model)
        self.threads = threads
        self.context_tokens = context_tokens
        self.temperature = temperature
        self.seed = seed
        self.models_dir = models_dir
        shipped = LOCAL_MODELS.get(self.model)
        self.model_id = shipped.model_id if shipped else Path(self.model).name

    def path(self) -> Path:
        """The model file (:class:`ModelError` with the fix when it is not there)."""
        return resolve(self.model, self.models_dir)

    def model_bytes(self) -> int | None:
        """Size of the model file (None when it is not there): what the timeout is sized on."""
        try:
            return self.path().stat().st_size
        except (ModelError, OSError):
            return None

    def server(self) -> Any:
        """The loaded xllamacpp server (loads the model on first call)."""
        return load_server(self.path(), self.threads, self.context_tokens)

    def warm_up(self, prefix: Sequence[Mapping[str, str]] = ()) -> None:
        """Load the model and evaluate ``prefix`` (the system message every prompt starts
        with), so that llama.cpp's prompt cache holds it before the first question."""
        try:
            server = self.server()
        except (ModelError, BackendUnavailable) as exc:
            raise GenerationError(str(exc)) from exc
        if prefix:
            chat(server, [*prefix, {"role": "user", "content": "Hello."}], max_tokens=1)

    def generate(self, prompt: Prompt, *, max_tokens: int = 512,
                 on_token: Callable[[str], None] | None = None,
                 timeout_s: float | None = None) -> Generation:
        start = time.monotonic()
        try:
            server = self.server()
        except (ModelError, BackendUnavailable) as exc:  # the contract: GenerationErrors
            raise GenerationError(str(exc)) from exc
        text, usage, finish = chat(server, prompt.messages, max_tokens=max_tokens,
                                   temperature=self.temperature, seed=self.seed,
                                   timeout_s=timeout_s, on_token=on_token)
        return Generation(text=text.strip(), model_id=self.model_id,
                          tokens_in=int(usage.get("prompt_tokens", 0)),
                          tokens_out=int(usage.get("completion_tokens", 0)),
                          finish_reason=finish, seconds=time.monotonic() - start)


def yes_probability(server: Any, messages: Sequence[Mapping[str, str]],
                    yes: str = "Yes", no: str = "No", top_logprobs: int = 20,
                    timeout_s: float | None = None) -> float:
    """P(yes) / (P(yes) + P(no)) for the first token the model would answer ``messages`` with.

    Reads the top ``top_logprobs`` candidates of the first generated token (greedy, one
    token); case and surrounding spaces of the candidates are ignored. When neither word is
    among them the result is 0.5 (no information). Softmax restricted to the two answers, as
    in LLM pointwise relevance judging (Liang et al. 2022, HELM; Sun et al. 2023, RankGPT
    "relevance generation").
    """
    request = {"messages": safe_messages(messages), "max_tokens": 1, "temperature": 0.0,
               "logprobs": True, "top_logprobs": top_logprobs}
    with _turn(server, timeout_s):
        result = server.handle_chat_completions(request)
    if not isinstance(result, Mapping) or "error" in result:
        raise GenerationError(f"The local model failed to judge: {result!r:.200}. Fix: shorten "
                              "the passage or raise the context size.")
    try:
        first = result["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
    except (KeyError, IndexError, TypeError) as exc:
        raise GenerationError("The local model returned no logprobs. Fix: update xllamacpp "
                              "(it must support `logprobs`/`top_logprobs`).") from exc
    best: dict[str, float] = {}
    for cand in first:
        word = str(cand.get("token", "")).strip().lower()
        if word in (yes.lower(), no.lower()):
            best[word] = max(best.get(word, -math.inf), float(cand["logprob"]))
    p_yes = math.exp(best.get(yes.lower(), -math.inf))
    p_no = math.exp(best.get(no.lower(), -math.inf))
    return 0.5 if p_yes + p_no == 0 else p_yes / (p_yes + p_no)
