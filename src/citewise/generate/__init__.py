"""Generators (local GGUF, OpenAI-compatible, extractive) and choosing one; the prompt they
answer lives in :mod:`citewise.answer.prompt` (re-exported here).

:func:`choose_generator` maps ``settings.generate`` to a generator and says why it was chosen
(``auto`` = the local model when its file resolves, else extractive); :func:`make_generator`
returns just the generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citewise.answer.prompt import INSUFFICIENT_EVIDENCE, SYSTEM_PROMPT, build_prompt
from citewise.config import GenerateSettings
from citewise.errors import ModelError
from citewise.generate.extractive import ExtractiveGenerator
from citewise.generate.local import LocalGenerator, load_server, yes_probability
from citewise.generate.openai import OpenAIGenerator
from citewise.models import resolve
from citewise.protocols import Generator

__all__ = [
    "INSUFFICIENT_EVIDENCE",
    "SYSTEM_PROMPT",
    "ExtractiveGenerator",
    "GeneratorChoice",
    "LocalGenerator",
    "OpenAIGenerator",
    "build_prompt",
    "choose_generator",
    "load_server",
    "make_generator",
    "yes_probability",
]


@dataclass(frozen=True)
class GeneratorChoice:
    """The generator picked for a settings tree: ``kind`` (local/openai/extractive) and a
    one-line ``reason`` (for traces and ``--explain``)."""

    generator: Generator
    kind: str
    reason: str


def choose_generator(settings: GenerateSettings,
                     models_dir: str | Path | None = None) -> GeneratorChoice:
    """The generator ``settings.generator`` asks for. ``local`` with a missing model raises
    :class:`ModelError` (with the pull command); ``auto`` falls back to extractive instead."""
    kind = settings.generator
    if kind == "openai":
        return GeneratorChoice(OpenAIGenerator(settings.openai, settings.temperature), "openai",
                               f"generate.generator=openai ({settings.openai.model})")
    if kind == "extractive":
        return GeneratorChoice(ExtractiveGenerator(), "extractive",
                               "generate.generator=extractive")
    try:
        path = resolve(settings.local_model, models_dir)
    except ModelError as exc:
        if kind == "local":
            raise
        return GeneratorChoice(ExtractiveGenerator(), "extractive",
                               f"auto: local model unavailable ({exc})")
    local = LocalGenerator(settings.local_model, threads=settings.threads,
                           context_tokens=settings.context_tokens,
                           temperature=settings.temperature, models_dir=models_dir)
    return GeneratorChoice(local, "local", f"generate.generator={kind}: {path}")


def make_generator(settings: GenerateSettings, models_dir: str | Path | None = None) -> Generator:
    """Just the generator of :func:`choose_generator`."""
    return choose_generator(settings, models_dir).generator
