"""Rerankers (LLM judge, cross-encoder) and the deadline-bounded rescoring of fused hits."""

from __future__ import annotations

from citewise.config import GenerateSettings, RerankSettings
from citewise.errors import ConfigError
from citewise.protocols import Reranker
from citewise.rerank.deadline import RerankOutcome, reorder, rerank_with_deadline

__all__ = ["RerankOutcome", "make_reranker", "reorder", "rerank_with_deadline"]


def make_reranker(settings: RerankSettings,
                  default_llm: GenerateSettings | str | None = None) -> Reranker | None:
    """The reranker ``settings.kind`` names (``None`` for ``none``); nothing loads yet.

    ``llm-judge`` uses ``settings.model``, else ``default_llm`` (the generator's settings or
    a model name); with the generator's settings it reuses their threads (unless
    ``rerank.threads`` is set) and context size, so the generator's loaded model is shared.
    """
    if settings.kind == "none":
        return None
    if settings.kind == "cross-encoder":
        if not settings.model:
            raise ConfigError("rerank.kind is cross-encoder but rerank.model is not set. Fix: "
                              "set rerank.model to a cross-encoder folder (sentence-transformers "
                              "layout) or an .onnx file with tokenizer.json next to it.")
        from citewise.rerank.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(settings.model, threads=settings.threads)
    from citewise.rerank.llm_judge import LLMJudgeReranker

    if isinstance(default_llm, GenerateSettings):
        return LLMJudgeReranker(settings.model or default_llm.local_model,
                                threads=settings.threads or default_llm.threads,
                                context_tokens=default_llm.context_tokens,
                                models_dir=default_llm.models_dir)
    model = settings.model or default_llm
    if not model:
        raise ConfigError("rerank.kind is llm-judge but no model is set. Fix: set rerank.model "
                          "to a local model name (`citewise models list`) or a GGUF path.")
    return LLMJudgeReranker(model, threads=settings.threads)
