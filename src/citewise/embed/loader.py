"""``embed.model`` -> an Embedder: a shipped model name, or the path of a user's model folder.

A folder is read the way sentence-transformers saves one:

* ``onnx/model.onnx`` or ``model.onnx`` -> :class:`OnnxEmbedder`; otherwise
  ``model.safetensors`` + ``config.json`` of a BERT encoder -> :class:`BertOnnxEmbedder`
  (onnxruntime runs a graph built from the weights; :class:`NumpyBertEmbedder` is the oracle);
* ``tokenizer.json`` (in the folder, or next to the ONNX file);
* ``sentence_bert_config.json`` ``max_seq_length`` (else the tokenizer's or config's limit);
* the Pooling module's ``config.json`` (via ``modules.json``, else ``1_Pooling/``): cls, mean
  (mean_sqrt_len is mean once normalised) or max; mean when there is none;
* a ``Normalize`` module in ``modules.json``.

A folder model's id is ``<folder name>@<first 12 hex digits of the weights' sha256>``.
Nothing heavy happens here: only small JSON files are read; weights load on first use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citewise.config import EmbedSettings
from citewise.embed.base import BaseEmbedder
from citewise.embed.bert_onnx import BertOnnxEmbedder
from citewise.embed.models import SHIPPED_MODELS, ModelFile, ModelSpec, Pooling
from citewise.embed.numpy_bert import NumpyBertEmbedder
from citewise.embed.onnx import OnnxEmbedder
from citewise.errors import ConfigError, ModelError

_RUNTIMES: dict[str, type[BaseEmbedder]] = {
    "onnx": OnnxEmbedder, "bert-onnx": BertOnnxEmbedder, "numpy-bert": NumpyBertEmbedder}
_DEFAULT_MAX_LENGTH = 512


def load_embedder(settings: EmbedSettings | None = None) -> BaseEmbedder:
    """The embedder ``settings.model`` names (a shipped name or a folder), not yet loaded."""
    settings = settings or EmbedSettings()
    spec = resolve_spec(settings.model)
    return _RUNTIMES[spec.runtime](spec, settings)


def resolve_spec(model: str) -> ModelSpec:
    """A shipped model's spec, or one read from the folder (or ``.onnx`` file) ``model``."""
    if model in SHIPPED_MODELS:
        return SHIPPED_MODELS[model]
    path = Path(model).expanduser()
    if path.is_file() and path.suffix == ".onnx":
        return spec_from_folder(path.parent, onnx_file=path)
    if path.is_dir():
        return spec_from_folder(path)
    raise ConfigError(
        f"Unknown embedding model {model!r}: it is neither a shipped model "
        f"({', '.join(SHIPPED_MODELS)}) nor an existing folder. Set embed.model to one of "
        "those names, or to a sentence-transformers folder / ONNX export with tokenizer.json.")


def spec_from_folder(folder: Path, onnx_file: Path | None = None) -> ModelSpec:
    """Describe the model saved in ``folder`` (see the module docstring for what is read)."""
    folder = folder.absolute()
    config = _read_json(folder / "config.json") or {}
    onnx_file = onnx_file or next(
        (p for p in (folder / "onnx" / "model.onnx", folder / "model.onnx") if p.is_file()), None)
    if onnx_file is not None:
        runtime, weights = "onnx", onnx_file.absolute()
    elif (folder / "model.safetensors").is_file() and config:
        runtime, weights = "bert-onnx", folder / "model.safetensors"
    else:
        raise ModelError(
            f"{folder} holds no model citewise can run: it needs onnx/model.onnx, model.onnx, "
            "or model.safetensors with config.json (a BERT encoder). Convert a "
            "pytorch_model.bin with `optimum-cli export onnx --model <folder> <out>`.")
    tokenizer = next((p for p in (folder / "tokenizer.json", weights.parent / "tokenizer.json")
                      if p.is_file()), None)
    if tokenizer is None:
        raise ModelError(
            f"{folder} has no tokenizer.json. Save one next to the model, e.g. with "
            "`AutoTokenizer.from_pretrained(folder).save_pretrained(folder)` (transformers).")
    pooling_config = _pooling_config(folder)
    dim = pooling_config.get("word_embedding_dimension") or config.get("hidden_size")
    if not dim:
        raise ModelError(f"{folder}: cannot tell the embedding size; add the model's "
                         "config.json (hidden_size) or 1_Pooling/config.json.")
    max_position = config.get("max_position_embeddings")
    return ModelSpec(
        name=folder.name,
        runtime=runtime,
        weights=_user_file(weights),
        tokenizer=_user_file(tokenizer),
        config=_user_file(folder / "config.json") if config else None,
        dim=int(dim),
        max_length=_max_length(folder, max_position),
        pooling=_pooling_mode(pooling_config, folder),
        normalize=any(str(m.get("type", "")).endswith("Normalize") for m in _modules(folder)),
        max_position=int(max_position) if max_position else None,
        description=f"user model from {folder}",
    )


def _user_file(path: Path) -> ModelFile:
    return ModelFile(relpath=path.name, root=path.parent)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"Cannot read {path}: {exc}. Fix or remove the file.") from exc


def _modules(folder: Path) -> list[dict[str, Any]]:
    return _read_json(folder / "modules.json") or []


def _pooling_config(folder: Path) -> dict[str, Any]:
    for module in _modules(folder):
        if str(module.get("type", "")).endswith("Pooling"):
            return _read_json(folder / module.get("path", "") / "config.json") or {}
    return _read_json(folder / "1_Pooling" / "config.json") or {}


def _pooling_mode(config: dict[str, Any], folder: Path) -> Pooling:
    """sentence-transformers pooling flags -> one mode (mean when no Pooling module)."""
    modes: set[Pooling] = set()
    for key, on in config.items():
        if not (key.startswith("pooling_mode_") and on):
            continue
        mode = key.removeprefix("pooling_mode_")
        if mode == "cls_token":
            modes.add("cls")
        elif mode in ("mean_tokens", "mean_sqrt_len_tokens"):  # same after L2 normalisation
            modes.add("mean")
        elif mode == "max_tokens":
            modes.add("max")
        else:
            raise ModelError(f"{folder}: pooling {mode!r} is not supported (cls, mean, max); "
                             "re-save the model with one of those.")
    if len(modes) > 1:
        raise ModelError(f"{folder}: several pooling modes at once ({sorted(modes)}) are not "
                         "supported; keep one in 1_Pooling/config.json.")
    return modes.pop() if modes else "mean"


def _max_length(folder: Path, max_position: int | None) -> int:
    st_config = _read_json(folder / "sentence_bert_config.json") or {}
    tok_config = _read_json(folder / "tokenizer_config.json") or {}
    limit = st_config.get("max_seq_length") or tok_config.get("model_max_length")
    if not isinstance(limit, int) or limit > 1_000_000:  # HF's "no limit" sentinel is huge
        limit = max_position or _DEFAULT_MAX_LENGTH
    return min(limit, max_position) if max_position else limit
