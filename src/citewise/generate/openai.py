"""``OpenAIGenerator``: any OpenAI-compatible chat-completions endpoint, over httpx.

``POST {base_url}/chat/completions`` with ``Authorization: Bearer KEY`` when a key is set.
With ``on_token`` the request streams (``"stream": true``, server-sent events ``data: {…}``
ending with ``data: [DONE]``); usage comes from the final chunk when the server sends it
(``stream_options.include_usage``). 429, 5xx and connection errors are retried ``retries``
times with exponential backoff (0.5 s, 1 s, 2 s … capped at 8 s, or the server's
``Retry-After`` when it is shorter than 30 s); other errors fail at once. The key never
appears in an error message.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from citewise.config import OpenAISettings
from citewise.errors import GenerationError
from citewise.generate.control_tokens import safe_messages
from citewise.index.location import redact, scrub
from citewise.types import Generation, Prompt

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Retryable(Exception):
    def __init__(self, message: str, wait_s: float | None = None) -> None:
        super().__init__(message)
        self.wait_s = wait_s


def backoff_s(attempt: int, retry_after: str | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): ``min(8, 0.5 * 2**attempt)``, or
    the server's ``Retry-After`` seconds when given and under 30."""
    if retry_after:
        try:
            wait = float(retry_after)
        except ValueError:
            wait = -1.0
        if 0 <= wait < 30:
            return wait
    return min(8.0, 0.5 * 2 ** attempt)


class OpenAIGenerator:
    """A :class:`~citewise.protocols.Generator` over an OpenAI-compatible HTTP endpoint."""

    def __init__(self, settings: OpenAISettings, temperature: float = 0.0,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.temperature = temperature
        self.model_id = f"openai:{settings.model}"
        self._transport = transport
        self._sleep = sleep

    def generate(self, prompt: Prompt, *, max_tokens: int = 512,
                 on_token: Callable[[str], None] | None = None,
                 timeout_s: float | None = None) -> Generation:
        start = time.monotonic()
        body: dict[str, Any] = {"model": self.settings.model,
                                "messages": safe_messages(prompt.messages),
                                "max_tokens": max_tokens, "temperature": self.temperature}
        if on_token is not None:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        timeout = min(self.settings.timeout_s, timeout_s or self.settings.timeout_s)
        last = ""
        for attempt in range(self.settings.retries + 1):
            try:
                data = self._request(body, timeout, on_token, start)
                return self._generation(data, time.monotonic() - start)
            except GenerationError as exc:  # httpx quotes the URL back (InvalidURL, …)
                raise GenerationError(scrub(str(exc), self.settings.base_url),
                                      exc.partial) from exc
            except _Retryable as exc:
                last = str(exc)
                wait = exc.wait_s if exc.wait_s is not None else backoff_s(attempt)
                if attempt == self.settings.retries or (
                        timeout_s and time.monotonic() - start + wait > timeout_s):
                    break
                self._sleep(wait)
        raise GenerationError(scrub(
            f"{self._where()} failed after {self.settings.retries + 1} attempt(s): {last}. "
            "Fix: check that the server is up, or raise generate.openai.retries / timeout_s.",
            self.settings.base_url))  # a 5xx body may quote the URL back

    def _where(self) -> str:
        """The endpoint as messages name it: without the secrets of ``base_url`` (a security
        review's ``http://svc:PASSWORD@host/v1`` was printed in the answer's note, its JSON,
        and stored in the request log)."""
        return f"The chat endpoint {redact(self.settings.base_url.rstrip('/'))}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    def _request(self, body: Mapping[str, Any], timeout: float,
                 on_token: Callable[[str], None] | None, start: float) -> dict[str, Any]:
        url = f"{self.settings.base_url.rstrip('/')}/chat/completions"
        try:
            with httpx.Client(timeout=timeout, transport=self._transport) as client, \
                    client.stream("POST", url, json=body, headers=self._headers()) as resp:
                if resp.status_code != 200:
                    resp.read()
                    self._raise_status(resp)
                if body.get("stream"):
                    return _read_sse(resp.iter_lines(), on_token, start + timeout)
                resp.read()
                return resp.json()
        except httpx.TimeoutException as exc:
            raise GenerationError(f"{self._where()} did not answer within {timeout:g} s. Fix: "
                                  "raise generate.timeout_s / generate.openai.timeout_s (in a "
                                  "--config file; `citewise config` prints one to edit), or "
                                  "lower generate.max_tokens.") from exc
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise _Retryable(f"connection error ({type(exc).__name__})") from exc
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise GenerationError(f"{self._where()} is not a usable URL ({exc}). Fix: set "
                                  "generate.openai.base_url to an http(s) URL.") from exc
        except httpx.HTTPError as exc:
            raise GenerationError(f"{self._where()} failed ({type(exc).__name__}: {exc}). "
                                  "Fix: check generate.openai.base_url.") from exc
        except json.JSONDecodeError as exc:
            raise GenerationError(f"{self._where()} returned invalid JSON. Fix: check that "
                                  "base_url points at an OpenAI-compatible API.") from exc

    def _raise_status(self, resp: httpx.Response) -> None:
        detail = self._redact(resp.text[:300].strip())
        message = f"HTTP {resp.status_code}: {detail}"
        if resp.status_code in _RETRY_STATUS:
            retry_after = resp.headers.get("retry-after")
            raise _Retryable(message, backoff_s(0, retry_after) if retry_after else None)
        fixes = {401: f"set a valid key in ${self.settings.api_key_env} "
                      "(generate.openai.api_key_env)",
                 403: "check the key's permissions for this model",
                 404: "check generate.openai.base_url (it must end before /chat/completions) "
                      "and generate.openai.model"}
        fix = fixes.get(resp.status_code, "check the request settings (model, max_tokens)")
        raise GenerationError(f"{self._where()} refused the request ({message}). Fix: {fix}.")

    def _redact(self, text: str) -> str:
        """``text`` (an upstream body) without the API key; a key under 8 characters is no
        secret worth masking, and masking it ("x") mangled every body ("e***ceeded")."""
        key = self.settings.api_key
        return text.replace(key, "***") if key and len(key) >= 8 else text

    def _generation(self, data: Mapping[str, Any], seconds: float) -> Generation:
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise GenerationError(f"{self._where()} returned no choices[0].message.content. "
                                  "Fix: check that it speaks the chat-completions API.") from exc
        usage = data.get("usage") or {}
        return Generation(text=text.strip(), model_id=self.model_id,
                          tokens_in=int(usage.get("prompt_tokens") or 0),
                          tokens_out=int(usage.get("completion_tokens") or 0),
                          finish_reason=choice.get("finish_reason") or "stop", seconds=seconds)


def _read_sse(lines: Iterator[str], on_token: Callable[[str], None] | None,
              deadline: float) -> dict[str, Any]:
    """Fold a chat-completions SSE stream into the non-streaming response shape."""
    pieces: list[str] = []
    finish = "stop"
    usage: Mapping[str, Any] = {}
    for line in lines:
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("stream ran past its deadline")
        if not line.startswith("data:"):
            continue  # comments (": ping"), event names, blank separators
        payload = line[5:].strip()
        if payload == "[DONE]":
            break
        chunk = json.loads(payload)
        if "error" in chunk:
            raise GenerationError(f"The chat endpoint reported an error mid-stream: "
                                  f"{str(chunk['error'])[:200]}. Fix: retry, or check the model.")
        for choice in chunk.get("choices") or ():
            text = (choice.get("delta") or {}).get("content")
            if text:
                pieces.append(text)
                if on_token is not None:
                    on_token(text)
            finish = choice.get("finish_reason") or finish
        usage = chunk.get("usage") or usage
    return {"choices": [{"message": {"content": "".join(pieces)}, "finish_reason": finish}],
            "usage": usage}
