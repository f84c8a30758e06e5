"""choose_generator / make_generator: which generator the settings give, and why."""

from __future__ import annotations

import pytest

from citewise.answer.prompt import build_prompt
from citewise.config import GenerateSettings, OpenAISettings
from citewise.errors import GenerationError, ModelError
from citewise.generate import (
    ExtractiveGenerator,
    LocalGenerator,
    OpenAIGenerator,
    choose_generator,
    make_generator,
)
from citewise.protocols import Generator


def test_auto_without_a_pulled_model_falls_back_to_extractive(tmp_path):
    choice = choose_generator(GenerateSettings(), models_dir=tmp_path)
    assert isinstance(choice.generator, ExtractiveGenerator) and choice.kind == "extractive"
    assert "local model unavailable" in choice.reason and "citewise models pull" in choice.reason


def test_auto_with_a_model_file_is_local_and_loads_nothing(tmp_path):
    gguf = tmp_path / "own.gguf"
    gguf.write_bytes(b"GGUF")  # not a real model: choosing must not load it
    choice = choose_generator(GenerateSettings(local_model=str(gguf), threads=1,
                                               context_tokens=1024))
    assert choice.kind == "local" and str(gguf) in choice.reason
    local = choice.generator
    assert isinstance(local, LocalGenerator)
    assert (local.threads, local.context_tokens, local.model_id) == (1, 1024, "own.gguf")


def test_local_without_the_model_raises_with_the_fix(tmp_path):
    with pytest.raises(ModelError, match="Fix: citewise models pull"):
        choose_generator(GenerateSettings(generator="local"), models_dir=tmp_path)


def test_openai_and_extractive_by_name():
    settings = GenerateSettings(generator="openai", temperature=0.2,
                                openai=OpenAISettings(model="m", base_url="http://x/v1"))
    openai = make_generator(settings)
    assert isinstance(openai, OpenAIGenerator) and openai.model_id == "openai:m"
    assert openai.temperature == 0.2
    extractive = make_generator(GenerateSettings(generator="extractive"))
    assert isinstance(extractive, ExtractiveGenerator)
    for generator in (openai, extractive, LocalGenerator("x.gguf")):
        assert isinstance(generator, Generator)


def test_a_local_model_that_cannot_load_fails_as_a_generation_error(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 32)
    local = make_generator(GenerateSettings(generator="local", local_model=str(broken),
                                            threads=1, context_tokens=512))
    with pytest.raises(GenerationError, match="Could not load the GGUF model.*Fix:"):
        local.generate(build_prompt("q?", []))
