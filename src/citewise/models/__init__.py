"""Shipped local LLMs: the registry, ``pull`` (download parts, join, verify) and ``resolve``."""

from citewise.models.pull import join_parts, pull
from citewise.models.registry import (
    LOCAL_MODELS,
    QWEN_CODER_05B,
    QWEN_CODER_15B,
    SMOLLM2_135M,
    LocalModel,
    ModelPart,
    default_models_dir,
    get_model,
)
from citewise.models.store import ModelStatus, is_installed, list_models, model_path, resolve

__all__ = [
    "LOCAL_MODELS",
    "LocalModel",
    "ModelPart",
    "ModelStatus",
    "QWEN_CODER_05B",
    "QWEN_CODER_15B",
    "SMOLLM2_135M",
    "default_models_dir",
    "get_model",
    "is_installed",
    "join_parts",
    "list_models",
    "model_path",
    "pull",
    "resolve",
]
