"""Who answers the judge's Yes/No question (:mod:`citewise.eval.judge`): the local GGUF model
(``eval.judge: local``, ``eval.judge_model``) or the OpenAI-compatible endpoint of
``generate.openai`` (``eval.judge: openai``). Tests use
:class:`citewise.testing.FakeJudgeModel`.

The local model is loaded once per process and shared with the generator when it is the same
file with the same threads and context (:func:`citewise.generate.local.load_server`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from citewise.config import Settings
from citewise.errors import GenerationError, ModelError
from citewise.models import LOCAL_MODELS

TOP_LOGPROBS = 20


@runtime_checkable
class JudgeModel(Protocol):
    """P(Yes) / (P(Yes) + P(No)) for the first token of the answer to ``messages``."""

    model_id: str

    def p_yes(self, messages: Sequence[Mapping[str, str]]) -> float: ...


class LocalJudgeModel:
    """A local GGUF model (a shipped name or a path), loaded on the first :meth:`p_yes`."""

    def __init__(self, model: str, *, threads: int = 0, context_tokens: int = 4096,
                 models_dir: str | Path | None = None) -> None:
        self.model, self.threads, self.context_tokens = model, threads, context_tokens
        self.models_dir = models_dir
        shipped = LOCAL_MODELS.get(model)
        self.model_id = shipped.model_id if shipped else Path(model).name

    def p_yes(self, messages: Sequence[Mapping[str, str]]) -> float:
        from citewise.generate.local import load_server, yes_probability
        from citewise.models import resolve

        try:
            server = load_server(resolve(self.model, self.models_dir), self.threads,
                                 self.context_tokens)
        except ModelError as exc:
            raise GenerationError(f"{exc} (the judge model is eval.judge_model)") from exc
        return yes_probability(server, messages, top_logprobs=TOP_LOGPROBS)


class EndpointJudgeModel:
    """The ``generate.openai`` endpoint: logprobs when it returns them, else its Yes/No word
    (:func:`citewise.answer.reader.endpoint_p_yes`)."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator
        self.model_id = generator.model_id

    def p_yes(self, messages: Sequence[Mapping[str, str]]) -> float:
        from citewise.answer.reader import endpoint_p_yes

        return endpoint_p_yes(self.generator, messages)


def make_judge_model(settings: Settings) -> JudgeModel:
    """The judge model ``settings.eval`` asks for (nothing is loaded yet)."""
    if settings.eval.judge == "openai":
        from citewise.generate.openai import OpenAIGenerator

        return EndpointJudgeModel(OpenAIGenerator(settings.generate.openai, 0.0))
    gen = settings.generate
    return LocalJudgeModel(settings.eval.judge_model, threads=gen.threads,
                           context_tokens=gen.context_tokens, models_dir=gen.models_dir)
