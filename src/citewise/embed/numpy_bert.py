"""A torch-free BERT encoder: the forward pass of Devlin et al. (2019) in numpy, fp32.

Reads Hugging Face BERT weights from ``model.safetensors`` (names ``embeddings.*`` and
``encoder.layer.{i}.*``, with or without a ``bert.`` prefix) and ``config.json``::

    h_0 = LayerNorm(word[ids] + position[0..s) + token_type[types])
    for each layer:
        a   = softmax(Q K^T / sqrt(d_head) + mask_bias) V        (per head, then concatenated)
        h   = LayerNorm(h + a W_o + b_o)
        h   = LayerNorm(h + act(h W_i + b_i) W_out + b_out)
    last_hidden_state = h_L

``act`` is the exact GELU, x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), with erf from
Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7, below float32 resolution here).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citewise.embed._blas import blas_threads
from citewise.embed.base import BaseEmbedder
from citewise.embed.models import verified_path
from citewise.embed.safetensors import read_safetensors
from citewise.errors import ModelError

_EXPORT_HINT = ("export it to ONNX (e.g. `optimum-cli export onnx --model <folder> <out>`) "
                "and set embed.model to that folder")


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_heads: int
    num_layers: int
    layer_norm_eps: float
    hidden_act: str

    @classmethod
    def from_json(cls, path: Path) -> BertConfig:
        """Read a Hugging Face ``config.json``; raise ModelError if it is not a plain BERT."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"Cannot read {path}: {exc}.") from exc
        if raw.get("model_type", "bert") != "bert":
            raise ModelError(f"{path}: model_type {raw.get('model_type')!r} is not BERT; the "
                             f"numpy encoder runs BERT only. To use this model, {_EXPORT_HINT}.")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ModelError(f"{path}: position_embedding_type "
                             f"{raw['position_embedding_type']!r} is not supported; "
                             f"{_EXPORT_HINT}.")
        act = raw.get("hidden_act", "gelu")
        if act not in _ACTIVATIONS:
            raise ModelError(f"{path}: hidden_act {act!r} is not supported (known: "
                             f"{sorted(_ACTIVATIONS)}); {_EXPORT_HINT}.")
        return cls(hidden_size=int(raw["hidden_size"]),
                   num_heads=int(raw["num_attention_heads"]),
                   num_layers=int(raw["num_hidden_layers"]),
                   layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
                   hidden_act=act)


def erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz & Stegun 7.1.26: 1 - (a1 t + ... + a5 t^5) exp(-x^2), t = 1/(1+p|x|)."""
    return np.copysign(1.0 - _erfc_abs(x), x)


def _erfc_abs(x: np.ndarray) -> np.ndarray:
    """1 - erf(|x|) by A&S 7.1.26, computed in place on temporaries (GELU is a hot spot)."""
    ax = np.abs(x)
    t = ax * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coef in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coef)
        poly *= t
    np.square(ax, out=ax)
    np.negative(ax, out=ax)
    np.exp(ax, out=ax)
    poly *= ax
    return poly


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU (Hendrycks & Gimpel 2016): 0.5 x (1 + erf(x / sqrt 2))."""
    out = _erfc_abs(x * np.float32(1 / np.sqrt(2)))
    np.subtract(1.0, out, out=out)  # erf(|x| / sqrt 2)
    np.copysign(out, x, out=out)
    out += 1.0
    out *= x
    out *= np.float32(0.5)
    return out


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU's tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ("gelu_new")."""
    inner = np.float32(np.sqrt(2 / np.pi)) * (x + np.float32(0.044715) * x * x * x)
    return 0.5 * x * (1.0 + np.tanh(inner))


_ACTIVATIONS = {"gelu": gelu, "gelu_new": gelu_tanh, "gelu_pytorch_tanh": gelu_tanh,
                "relu": lambda x: np.maximum(x, 0)}


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 * hidden): query, key, value side by side
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln: tuple[np.ndarray, np.ndarray]
    inter_w: np.ndarray
    inter_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    out_ln: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class BertWeights:
    config: BertConfig
    word: np.ndarray
    position: np.ndarray
    token_type: np.ndarray
    embed_ln: tuple[np.ndarray, np.ndarray]
    layers: tuple[_Layer, ...]

    @classmethod
    def from_tensors(cls, tensors: Mapping[str, np.ndarray], config: BertConfig) -> BertWeights:
        """Arrange HF BERT tensors for the forward pass (linear weights transposed to x @ W)."""
        prefix = _prefix(tensors)

        def get(name: str) -> np.ndarray:
            key = prefix + name
            if key not in tensors:
                raise ModelError(f"The weights have no tensor {key!r}: not a BERT encoder "
                                 f"checkpoint. To use this model, {_EXPORT_HINT}.")
            return np.asarray(tensors[key], dtype=np.float32)

        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(get(f"{name}.weight").T), get(f"{name}.bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(f"{name}.weight"), get(f"{name}.bias")

        layers = []
        for i in range(config.num_layers):
            p = f"encoder.layer.{i}."
            q, k, v = (linear(p + f"attention.self.{n}") for n in ("query", "key", "value"))
            attn_out, inter, out = (linear(p + n) for n in (
                "attention.output.dense", "intermediate.dense", "output.dense"))
            layers.append(_Layer(
                qkv_w=np.ascontiguousarray(np.concatenate([q[0], k[0], v[0]], axis=1)),
                qkv_b=np.concatenate([q[1], k[1], v[1]]),
                attn_out_w=attn_out[0], attn_out_b=attn_out[1],
                attn_ln=norm(p + "attention.output.LayerNorm"),
                inter_w=inter[0], inter_b=inter[1],
                out_w=out[0], out_b=out[1],
                out_ln=norm(p + "output.LayerNorm")))
        return cls(config=config,
                   word=get("embeddings.word_embeddings.weight"),
                   position=get("embeddings.position_embeddings.weight"),
                   token_type=get("embeddings.token_type_embeddings.weight"),
                   embed_ln=norm("embeddings.LayerNorm"),
                   layers=tuple(layers))


def _prefix(tensors: Mapping[str, np.ndarray]) -> str:
    """``""`` or ``"bert."`` (or any other prefix) in front of ``embeddings.word_...``."""
    suffix = "embeddings.word_embeddings.weight"
    for name in tensors:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return ""


def _layer_norm(x: np.ndarray, ln: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * ln[0] + ln[1]


def bert_forward(w: BertWeights, input_ids: np.ndarray, attention_mask: np.ndarray,
                 token_type_ids: np.ndarray) -> np.ndarray:
    """``(batch, seq)`` ids -> last hidden state ``(batch, seq, hidden)`` float32."""
    cfg = w.config
    batch, seq = input_ids.shape
    heads, d_head = cfg.num_heads, cfg.hidden_size // cfg.num_heads
    act = _ACTIVATIONS[cfg.hidden_act]
    x = w.word[input_ids] + w.position[:seq][None] + w.token_type[token_type_ids]
    x = _layer_norm(x.reshape(batch * seq, cfg.hidden_size), w.embed_ln, cfg.layer_norm_eps)
    # additive key mask: 0 for tokens, -1e9 for padding (exp underflows to exactly 0)
    bias = ((attention_mask[:, None, None, :] == 0) * np.float32(-1e9)).astype(np.float32)
    scale = np.float32(1.0 / np.sqrt(d_head))
    for layer in w.layers:
        qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, seq, 3, heads, d_head)
        q, k, v = qkv.transpose(2, 0, 3, 1, 4)  # each (batch, heads, seq, d_head)
        scores = (q * scale) @ k.transpose(0, 1, 3, 2) + bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, cfg.hidden_size)
        x = _layer_norm(x + (ctx @ layer.attn_out_w + layer.attn_out_b), layer.attn_ln,
                        cfg.layer_norm_eps)
        inner = act(x @ layer.inter_w + layer.inter_b)
        x = _layer_norm(x + (inner @ layer.out_w + layer.out_b), layer.out_ln,
                        cfg.layer_norm_eps)
    return x.reshape(batch, seq, cfg.hidden_size)


_WEIGHTS: dict[tuple[str, str], BertWeights] = {}
_WEIGHTS_LOCK = threading.Lock()


def load_bert(weights_path: Path, config_path: Path) -> BertWeights:
    """The weights at ``weights_path``, read and arranged once per process."""
    key = (str(weights_path), str(config_path))
    with _WEIGHTS_LOCK:
        if key not in _WEIGHTS:
            config = BertConfig.from_json(config_path)
            _WEIGHTS[key] = BertWeights.from_tensors(read_safetensors(weights_path), config)
        return _WEIGHTS[key]


class NumpyBertEmbedder(BaseEmbedder):
    """A BERT sentence encoder (fp32 safetensors + config.json) run in numpy, no torch."""

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray,
                 token_type_ids: np.ndarray) -> np.ndarray:
        if self.spec.config is None:
            raise ModelError(f"{self.spec.name}: the numpy BERT encoder needs config.json; "
                             "add the model's config.json to its folder.")
        weights = load_bert(verified_path(self.spec.weights), verified_path(self.spec.config))
        if input_ids.shape[1] > weights.position.shape[0]:
            raise ModelError(f"{self.spec.name}: {input_ids.shape[1]} tokens is over the "
                             f"model's {weights.position.shape[0]} positions; lower "
                             "embed.max_length.")
        return _parallel_forward(weights, input_ids, attention_mask, token_type_ids,
                                 self.threads)


def _parallel_forward(weights: BertWeights, input_ids: np.ndarray, attention_mask: np.ndarray,
                      token_type_ids: np.ndarray, threads: int) -> np.ndarray:
    """Split the batch's rows over ``threads`` Python threads, each with one BLAS thread.

    numpy releases the GIL in matmuls and ufuncs, so this scales the whole pass; OpenBLAS's
    own threads on the many small attention matmuls were slower than one thread (measured).
    """
    parts = min(threads, input_ids.shape[0])
    with blas_threads(1):
        if parts <= 1:
            return bert_forward(weights, input_ids, attention_mask, token_type_ids)
        slices = np.array_split(np.arange(input_ids.shape[0]), parts)
        with ThreadPoolExecutor(max_workers=parts) as pool:
            outs = pool.map(lambda rows: bert_forward(
                weights, input_ids[rows], attention_mask[rows], token_type_ids[rows]), slices)
            return np.concatenate(list(outs), axis=0)
