"""The answerability reader on a real GGUF model (SmolLM2-135M: plumbing and prompt-cache reuse,
not judgement quality), in process and over llama.cpp's own OpenAI-compatible HTTP server."""

from __future__ import annotations

import pytest

from citewise.answer.prompt import build_prompt
from citewise.answer.reader import ReaderModel, read, reader_messages
from citewise.config import OpenAISettings
from citewise.generate.local import LocalGenerator, server_lock
from citewise.generate.openai import OpenAIGenerator

from .conftest import passage
from .test_local import SMOLLM, needs_model

pytestmark = [pytest.mark.slow, needs_model]

PROMPT = build_prompt("What colour is the sky over the harbour?", [
    passage("S1", "The harbour master's log: the sky over the harbour was grey all week, "
                  "with fog in the mornings and wind from the north-west. " * 4)])


@pytest.fixture(scope="module")
def generator() -> LocalGenerator:
    return LocalGenerator(str(SMOLLM), threads=1, context_tokens=2048)


def test_local_reader_reads_a_probability(generator):
    verdict = read(generator, PROMPT, ReaderModel(), signal=0.5)
    assert verdict.error is None and 0.0 <= verdict.p_yes <= 1.0 and verdict.p_yes != 0.5
    assert verdict.passed and verdict.seconds > 0  # uncalibrated: declines nothing


def test_the_answer_reuses_the_readers_prompt_prefix(generator):
    server = generator.server()
    read(generator, PROMPT, ReaderModel(), signal=0.5)
    request = {"messages": [dict(m) for m in PROMPT.messages], "max_tokens": 1,
               "temperature": 0.0}
    with server_lock(server):
        result = server.handle_chat_completions(request)
    timings, usage = result["timings"], result["usage"]
    # only the answer's own last line (and the turn markers) is evaluated again
    assert timings["prompt_n"] < 0.25 * usage["prompt_tokens"]


def test_reader_over_llama_cpp_http_server_uses_real_logprobs(generator):
    base_url = f"{generator.server().listening_address}/v1"
    remote = OpenAIGenerator(OpenAISettings(base_url=base_url, model="smollm2", timeout_s=60))
    local = read(generator, PROMPT, ReaderModel(), signal=0.5)
    over_http = read(remote, PROMPT, ReaderModel(), signal=0.5)
    assert over_http.error is None
    assert over_http.p_yes == pytest.approx(local.p_yes, abs=0.05)
    assert reader_messages(PROMPT)[-1]["content"].endswith("Yes or No.")
