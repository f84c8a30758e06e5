"""OpenAIGenerator against a real HTTP server on 127.0.0.1 speaking chat completions + SSE."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from citewise.answer.prompt import build_prompt
from citewise.config import OpenAISettings
from citewise.errors import GenerationError
from citewise.generate.openai import OpenAIGenerator, backoff_s

from .conftest import passage

KEY = "sk-test-SECRET-123"
Reply = Callable[[BaseHTTPRequestHandler, dict], None]


class ChatServer:
    """A chat-completions endpoint whose replies are scripted per request (last one repeats)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.requests: list[tuple[dict, dict]] = []  # (headers, body)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((dict(self.headers), body))
                if self.path != "/v1/chat/completions":
                    return send_json(404, {"error": "no route"})(self, body)
                index = min(len(outer.requests), len(outer.replies)) - 1
                outer.replies[index](self, body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def serve() -> Iterator[Callable[..., ChatServer]]:
    servers: list[ChatServer] = []

    def start(*replies: Reply) -> ChatServer:
        server = ChatServer(list(replies))
        server.thread.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.httpd.shutdown()
        server.httpd.server_close()


def send_json(status: int, payload: dict, headers: dict | None = None) -> Reply:
    def reply(handler: BaseHTTPRequestHandler, body: dict) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    return reply


def completion(text: str, prompt_tokens: int = 11, completion_tokens: int = 4) -> Reply:
    return send_json(200, {
        "id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}})


def sse(pieces: list[str], usage: dict | None) -> Reply:
    def reply(handler: BaseHTTPRequestHandler, body: dict) -> None:
        assert body["stream"] is True
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
        chunks += [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
        if usage:
            chunks.append({"choices": [], "usage": usage})
        handler.wfile.write(b": keep-alive\n\n")
        for chunk in chunks:
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            handler.wfile.flush()
        handler.wfile.write(b"data: [DONE]\n\n")
    return reply


def slow(seconds: float) -> Reply:
    def reply(handler: BaseHTTPRequestHandler, body: dict) -> None:
        time.sleep(seconds)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            completion("late")(handler, body)  # the client has usually given up by now
    return reply


def generator(server: ChatServer, **settings) -> tuple[OpenAIGenerator, list[float]]:
    waits: list[float] = []
    options = {"base_url": server.base_url, "model": "test-model", "api_key": KEY,
               "timeout_s": 5.0, "retries": 2, **settings}
    return OpenAIGenerator(OpenAISettings(**options), sleep=waits.append), waits


PROMPT = build_prompt("What is the refund window?", [passage("S1", "Refunds: 30 days.")])


def test_plain_request_sends_messages_key_and_returns_usage(serve):
    server = serve(completion("Refunds are accepted for 30 days [S1]."))
    gen, _ = generator(server)
    out = gen.generate(PROMPT, max_tokens=50)
    assert out.text == "Refunds are accepted for 30 days [S1]."
    assert (out.tokens_in, out.tokens_out, out.finish_reason) == (11, 4, "stop")
    assert out.model_id == "openai:test-model"
    headers, body = server.requests[0]
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert body["model"] == "test-model" and body["max_tokens"] == 50
    assert body["messages"] == [dict(m) for m in PROMPT.messages]
    assert "stream" not in body


def test_no_key_sends_no_authorization_header(serve):
    server = serve(completion("ok"))
    gen, _ = generator(server, api_key=None)
    gen.generate(PROMPT)
    assert "Authorization" not in server.requests[0][0]


def test_streaming_calls_on_token_and_reads_usage(serve):
    server = serve(sse(["Refunds ", "take ", "30 days [S1]."],
                       {"prompt_tokens": 20, "completion_tokens": 3}))
    gen, _ = generator(server)
    pieces: list[str] = []
    out = gen.generate(PROMPT, on_token=pieces.append)
    assert pieces == ["Refunds ", "take ", "30 days [S1]."]
    assert out.text == "Refunds take 30 days [S1]."
    assert (out.tokens_in, out.tokens_out, out.finish_reason) == (20, 3, "length")
    assert server.requests[0][1]["stream_options"] == {"include_usage": True}


def test_streaming_without_usage_reports_zero_tokens(serve):
    gen, _ = generator(serve(sse(["a", "b"], None)))
    out = gen.generate(PROMPT, on_token=lambda _t: None)
    assert out.text == "ab" and out.tokens_in == 0 and out.tokens_out == 0


def test_500_then_200_is_retried_with_backoff(serve):
    server = serve(send_json(500, {"error": "overloaded"}), completion("second try"))
    gen, waits = generator(server)
    assert gen.generate(PROMPT).text == "second try"
    assert len(server.requests) == 2 and waits == [0.5]


def test_429_honours_retry_after(serve):
    server = serve(send_json(429, {"error": "slow down"}, {"Retry-After": "2"}), completion("ok"))
    gen, waits = generator(server)
    assert gen.generate(PROMPT).text == "ok" and waits == [2.0]


def test_retries_exhausted_names_the_status_and_fix(serve):
    server = serve(send_json(503, {"error": "down"}))
    gen, waits = generator(server, retries=2)
    with pytest.raises(GenerationError, match=r"after 3 attempt\(s\): HTTP 503.*Fix:"):
        gen.generate(PROMPT)
    assert len(server.requests) == 3 and waits == [0.5, 1.0]


def test_401_is_not_retried_and_never_shows_the_key(serve):
    server = serve(send_json(401, {"error": f"invalid key {KEY}"}))
    gen, _ = generator(server)
    with pytest.raises(GenerationError) as info:
        gen.generate(PROMPT)
    message = str(info.value)
    assert "HTTP 401" in message and "OPENAI_API_KEY" in message and "Fix:" in message
    assert KEY not in message and "***" in message
    assert len(server.requests) == 1


def test_wrong_base_url_404_says_to_check_it(serve):
    server = serve(completion("unused"))
    gen, _ = generator(server, base_url=server.base_url + "/extra")
    with pytest.raises(GenerationError, match="HTTP 404.*base_url"):
        gen.generate(PROMPT)


def test_timeout_raises_generation_error(serve):
    server = serve(slow(1.5))
    gen, _ = generator(server, timeout_s=0.3, retries=0)
    start = time.monotonic()
    with pytest.raises(GenerationError, match="did not answer within 0.3 s"):
        gen.generate(PROMPT)
    assert time.monotonic() - start < 1.4


def test_connection_refused_is_retried_then_fails(serve):
    server = serve(completion("unused"))
    url = server.base_url
    server.httpd.shutdown()
    server.httpd.server_close()
    gen, waits = generator(server, base_url=url, retries=1)
    with pytest.raises(GenerationError, match="connection error"):
        gen.generate(PROMPT)
    assert waits == [0.5]


def test_backoff_formula():
    assert [backoff_s(a) for a in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff_s(0, "3") == 3.0 and backoff_s(0, "120") == 0.5 and backoff_s(1, "x") == 1.0


def test_an_upstream_body_hides_the_key_but_a_tiny_key_mangles_nothing():
    """A one-letter key ("x") turned every upstream body into "e***ceeded" noise."""
    body = f"quota exceeded for key {KEY}"
    long_key = OpenAIGenerator(OpenAISettings(base_url="http://127.0.0.1:9/v1", model="m",
                                              api_key=KEY))
    assert KEY not in long_key._redact(body) and "exceeded" in long_key._redact(body)
    tiny = OpenAIGenerator(OpenAISettings(base_url="http://127.0.0.1:9/v1", model="m",
                                          api_key="x"))
    assert tiny._redact(body) == body


def test_an_endpoints_credentials_are_never_in_a_message(serve):
    """A security review's ``base_url`` with a password was printed in the answer's note
    and stored in the request log; a key in its query would have gone the same way."""
    server = serve(send_json(404, {"error": "no"}))
    host = server.base_url.split("://", 1)[1]
    for url in (f"http://svc:Sup3rS3cretPW@{host}/extra?api-key=qk3y9secret",
                "http://svc:Sup3rS3cretPW@127.0.0.1:1/v1?token=qk3y9secret",
                "http://svc:Sup3rS3cretPW@[::1/v1"):  # httpx quotes a bad URL back
        gen, _ = generator(server, base_url=url, retries=0)
        with pytest.raises(GenerationError) as info:
            gen.generate(PROMPT)
        message = str(info.value)
        assert "Sup3rS3cretPW" not in message and "qk3y9secret" not in message, message
        assert "svc:***@" in message, message


def test_a_retried_error_body_quoting_the_endpoint_is_masked(serve):
    """The review of this stop: a 5xx body that quotes the URL back reached the final
    "failed after N attempts" message unmasked."""
    server = serve(send_json(503, {"error": "upstream http://svc:Sup3rS3cretPW@x/v1 down"}))
    host = server.base_url.split("://", 1)[1]
    gen, _ = generator(server, base_url=f"http://svc:Sup3rS3cretPW@{host}", retries=1)
    with pytest.raises(GenerationError) as info:
        gen.generate(PROMPT)
    assert "Sup3rS3cretPW" not in str(info.value) and "attempt(s)" in str(info.value)
