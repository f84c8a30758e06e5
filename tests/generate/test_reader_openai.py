"""The answerability reader against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import math

import pytest

from citewise.answer.reader import QUESTION, ReaderModel, endpoint_p_yes, read, reader_messages
from citewise.errors import GenerationError

from .test_openai import PROMPT, completion, generator, send_json, serve  # noqa: F401


def with_logprobs(top: dict[str, float]) -> object:
    return send_json(200, {"choices": [{
        "index": 0, "message": {"role": "assistant", "content": next(iter(top))},
        "finish_reason": "length", "logprobs": {"content": [{
            "token": next(iter(top)), "logprob": next(iter(top.values())),
            "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top.items()]}]}}]})


def test_endpoint_logprobs_give_p_yes(serve) -> None:  # noqa: F811
    server = serve(with_logprobs({"No": math.log(0.7), "Yes": math.log(0.3), "I": -5.0}))
    gen, _ = generator(server)
    assert endpoint_p_yes(gen, reader_messages(PROMPT)) == pytest.approx(0.3)
    _, body = server.requests[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["max_tokens"] == 2
    assert body["messages"][-1]["content"].endswith(QUESTION)
    assert body["messages"][0] == dict(PROMPT.messages[0])


def test_endpoint_without_logprobs_is_read_by_its_verdict(serve) -> None:  # noqa: F811
    server = serve(completion("Yes."), completion("no"), completion("It depends"))
    gen, _ = generator(server)
    assert endpoint_p_yes(gen, reader_messages(PROMPT)) == 1.0
    assert endpoint_p_yes(gen, reader_messages(PROMPT)) == 0.0
    with pytest.raises(GenerationError, match="gate.reader to off"):
        endpoint_p_yes(gen, reader_messages(PROMPT))


def test_endpoint_down_fails_open_with_the_error(serve) -> None:  # noqa: F811
    server = serve(send_json(503, {"error": "overloaded"}))
    gen, _ = generator(server)
    verdict = read(gen, PROMPT, ReaderModel(), signal=0.5)
    assert verdict.passed and verdict.p_yes is None and "503" in (verdict.error or "")
    assert len(server.requests) == 1  # no retries: the answer's request has its own
    server2 = serve(with_logprobs({"No": math.log(0.9), "Yes": math.log(0.1)}))
    gen2, _ = generator(server2)
    verdict = read(gen2, PROMPT, ReaderModel(threshold=0.5), signal=0.5)
    assert not verdict.passed and verdict.p_yes == pytest.approx(0.1)
    assert verdict.model == "openai:test-model"
