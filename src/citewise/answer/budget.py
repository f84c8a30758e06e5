"""How many threads and how much time a local generation gets, from the model and the machine.

Threads: llama.cpp's matrix kernels saturate a physical core; a second hyper-thread on the same
core adds little and competes for its caches, so the default is the number of *physical* cores
this process may run on (:func:`physical_cores`), not ``os.cpu_count()``.

Time: a fixed 180 s either waited far too long (a 135M model answers in seconds) or cut a big
model off. :func:`generation_timeout` estimates the worst case — the prompt evaluated, then
``max_tokens`` generated — from the model file's size and the threads::

    prefill_tps = PREFILL_TPS_PER_GB_THREAD * threads / size_gb
    decode_tps  = DECODE_TPS_PER_GB_THREAD * threads / size_gb
    timeout     = clamp(SAFETY * (tokens_in / prefill_tps + max_tokens / decode_tps),
                        MIN_TIMEOUT_S, MAX_TIMEOUT_S)

Rates are per GB of Q4 weights per thread (decoding reads every weight once per token, so it
scales with 1 / size): Qwen2.5-Coder-1.5B Q4_K_M (1.12 GB) on 2 threads evaluated prompts at
50-83 tokens/s (``benchmarks/answer.py``; see Context below for the constant) and read ~500
new prompt tokens and wrote 44 in 15.6 s; the 0.5B (0.49 GB) evaluated 94 tokens/s. These
constants reproduce that within a factor of two; SAFETY leaves room for a busy machine.
``generate.timeout_s`` overrides the estimate.

Context: a local model evaluates the whole prompt before its first token, so on a small
machine the context budget, not the model, decides when an answer starts. :func:`prompt_budget`
gives the prompt tokens evaluated in ``generate.first_token_s`` (default 5 s) at the estimated
prefill rate, less :data:`ANSWER_START_TOKENS` (the reader's and the answer's last lines, the
chat turn markers and the first decoded tokens). The *whole* user message must fit (the
question, the instruction line and every source's fence with its title and heading count, not
only passage text): ``answer.ask`` first reads the leading passages of the context that fit
(:func:`citewise.answer.progressive.prefix`) and the rest only when they do not answer. The
first read takes whole passages: past the budget it still takes the next one while it holds
fewer than :data:`FIRST_READ_TOKENS`, and a first passage over the budget is cut to no less
than :data:`MIN_CONTEXT_TOKENS`, one whole chunk (``chunk.chunk_tokens`` is 192;
:func:`context_budget`). ``benchmarks/context_budget.py`` measured how often the gold span is
still in a context cut to N tokens on SQuAD's dev half: 120 tokens 0.75 [0.68, 0.80], 200 0.86
[0.81, 0.91], 300 0.89 [0.84, 0.93], 450 0.95 [0.91, 0.97]. A first read that misses the answer
is not lost (the reader says No or the model declines, and more of the context is read:
:func:`citewise.answer.progressive.steps`), it is slower; so the first-read floor is 120,
chosen end to end: on the ninja dev set it kept abstention and false declines of the 200
floor (README, "Latency"), and on the bundled corpus it moved the first token's p50 from
6.6 s to 4.5-5.2 s (``benchmarks/answer.py``, idle 2 cores, three runs).
On a machine too slow for the target the trace says when the first token is then expected
(``--explain``).

The system message is the same for every question, so llama.cpp's prompt cache holds it after a
process's first answer, and from the start where :meth:`citewise.engine.Engine.warm_up` ran
(``citewise serve`` does at startup); a one-shot ``citewise ask`` also loads the model and
evaluates it, so its first token comes later.

The prefill constant is the slower of two measurements on the 2-core machine the targets are
set on: 83 tokens/s (1,137-token prompts, an idle day) and 50 tokens/s
(``benchmarks/answer.py``, ~500 new prompt tokens; 2026-12-02), i.e. 50 x 1.12 / 2 = 28 per
GB-thread. With it, 5 s on 2 cores with the 1.5B is ~210 prompt tokens; on an idle machine the
rate is higher (65 tokens/s on 450-token prompts, 2026-12-02), so the estimate in the trace errs
late.
"""

from __future__ import annotations

import os
from pathlib import Path

PREFILL_TPS_PER_GB_THREAD = 28.0
DECODE_TPS_PER_GB_THREAD = 5.0
SAFETY = 2.0
MIN_TIMEOUT_S = 20.0
MAX_TIMEOUT_S = 300.0
DEFAULT_TIMEOUT_S = 120.0  # a remote endpoint, or a model whose size is unknown
ANSWER_START_TOKENS = 40  # reader + answer last lines, turn markers, first decoded tokens
MIN_CONTEXT_TOKENS = 200  # a first passage over the budget is cut to no less (one chunk)
FIRST_READ_TOKENS = 120  # past the budget, the first read takes passages while under this


def _allowed_cpus() -> set[int]:
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def physical_cores(sysfs: str | Path = "/sys/devices/system/cpu") -> int:
    """Physical cores among the CPUs this process may use: distinct (package, core) pairs
    from Linux sysfs topology; without it, the number of usable CPUs."""
    cpus = _allowed_cpus()
    cores = set()
    for cpu in cpus:
        topo = Path(sysfs) / f"cpu{cpu}" / "topology"
        try:
            package = (topo / "physical_package_id").read_text().strip()
            core = (topo / "core_id").read_text().strip()
        except OSError:
            return max(1, len(cpus))
        cores.add((package, core))
    return max(1, len(cores) or len(cpus))


def expected_seconds(model_bytes: int, threads: int, tokens_in: int, tokens_out: int) -> float:
    """Prompt evaluation plus generation time estimated from the rates (module docstring)."""
    size_gb = max(model_bytes / 1e9, 0.05)
    threads = max(1, threads)
    prefill = PREFILL_TPS_PER_GB_THREAD * threads / size_gb
    decode = DECODE_TPS_PER_GB_THREAD * threads / size_gb
    return tokens_in / prefill + tokens_out / decode


def generation_timeout(model_bytes: int | None, threads: int, tokens_in: int,
                       max_tokens: int) -> float:
    """Seconds a local generation may take (module docstring); ``DEFAULT_TIMEOUT_S`` when the
    model size is unknown."""
    if not model_bytes:
        return DEFAULT_TIMEOUT_S
    estimate = SAFETY * expected_seconds(model_bytes, threads, tokens_in, max_tokens)
    return round(min(MAX_TIMEOUT_S, max(MIN_TIMEOUT_S, estimate)), 1)


def prefill_rate(model_bytes: int, threads: int) -> float:
    """Prompt tokens per second estimated for a model file of ``model_bytes`` on ``threads``."""
    return PREFILL_TPS_PER_GB_THREAD * max(1, threads) / max(model_bytes / 1e9, 0.05)


def prompt_budget(model_bytes: int | None, threads: int,
                  first_token_s: float | None) -> int | None:
    """Prompt tokens after the cached system message that a local model evaluates within
    ``first_token_s`` (module docstring); None for an endpoint (size unknown) or no target."""
    if not model_bytes or first_token_s is None:
        return None
    return int(prefill_rate(model_bytes, threads) * first_token_s) - ANSWER_START_TOKENS


def context_budget(configured: int, room: int) -> int:
    """Passage tokens for a prompt with ``room`` tokens left for passages and their fences:
    never above ``configured``, never below :data:`MIN_CONTEXT_TOKENS` (or ``configured``
    when that is smaller)."""
    return max(min(MIN_CONTEXT_TOKENS, configured), min(configured, room))


def first_token_seconds(prompt_tokens: int, model_bytes: int, threads: int) -> float:
    """Estimated seconds to the first answer token for ``prompt_tokens`` new prompt tokens."""
    return (prompt_tokens + ANSWER_START_TOKENS) / prefill_rate(model_bytes, threads)
