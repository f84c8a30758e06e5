"""fp32 BERT encoders (``model.safetensors`` + ``config.json``) run by onnxruntime, no torch.

No fp32 ONNX export of all-MiniLM-L6-v2 ships and the usual export (``optimum-cli export
onnx``) needs torch, so the graph is written here from the weights, once per process: the
equations of :func:`citewise.embed.numpy_bert.bert_forward` (embeddings + LayerNorm, then per
layer fused QKV attention with an additive key mask, output LayerNorm, GELU feed-forward,
LayerNorm) as ONNX opset-17 nodes with the weights as initialisers. onnxruntime optimises and
runs it; the numpy encoder stays as the test oracle (they agree to ~2e-7 on normalised
embeddings; README "Measured": 1.3x the passages/s and ~2.4x faster queries than numpy).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from citewise.embed.base import BaseEmbedder
from citewise.embed.models import verified_path
from citewise.embed.numpy_bert import BertConfig, BertWeights
from citewise.embed.onnx import run_session, session_options
from citewise.embed.safetensors import read_safetensors
from citewise.errors import ModelError

_SESSIONS: dict[tuple[str, str, int], tuple[ort.InferenceSession, int]] = {}
_LOCK = threading.Lock()


class _Graph:
    """Builds the node list and initialisers of one ONNX graph."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._names: Iterator[int] = iter(range(1 << 62))

    def const(self, array: Any) -> str:
        name = f"c{next(self._names)}"
        self.inits.append(self.numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs: Any) -> str:
        out = f"t{next(self._names)}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
        return self.op("Add", self.op("MatMul", x, self.const(weight)), self.const(bias))

    def norm(self, x: str, ln: tuple[np.ndarray, np.ndarray], eps: float) -> str:
        return self.op("LayerNormalization", x, self.const(ln[0]), self.const(ln[1]), axis=-1,
                       epsilon=eps)


def _gelu(g: _Graph, x: str) -> str:
    """0.5 x (1 + erf(x / sqrt 2))."""
    erf = g.op("Erf", g.op("Mul", x, g.const(np.float32(1 / np.sqrt(2)))))
    return g.op("Mul", g.op("Mul", x, g.const(np.float32(0.5))),
                g.op("Add", g.const(np.float32(1)), erf))


def _gelu_tanh(g: _Graph, x: str) -> str:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    cube = g.op("Mul", g.op("Mul", g.op("Mul", x, x), x), g.const(np.float32(0.044715)))
    inner = g.op("Mul", g.op("Add", x, cube), g.const(np.float32(np.sqrt(2 / np.pi))))
    return g.op("Mul", g.op("Mul", x, g.const(np.float32(0.5))),
                g.op("Add", g.const(np.float32(1)), g.op("Tanh", inner)))


_ACTIVATIONS: dict[str, Callable[[_Graph, str], str]] = {
    "gelu": _gelu, "gelu_new": _gelu_tanh, "gelu_pytorch_tanh": _gelu_tanh,
    "relu": lambda g, x: g.op("Relu", x)}


def _embeddings(g: _Graph, w: BertWeights) -> str:
    seq = g.op("Gather", g.op("Shape", "input_ids"), g.const(np.array(1, np.int64)), axis=0)
    positions = g.op("Range", g.const(np.array(0, np.int64)), seq,
                     g.const(np.array(1, np.int64)))
    x = g.op("Add", g.op("Gather", g.const(w.word), "input_ids"),
             g.op("Gather", g.const(w.position), positions))
    x = g.op("Add", x, g.op("Gather", g.const(w.token_type), "token_type_ids"))
    return g.norm(x, w.embed_ln, w.config.layer_norm_eps)


def bert_graph(w: BertWeights) -> Any:
    """The encoder as an ``onnx.ModelProto``: int64 ``input_ids``, ``attention_mask``,
    ``token_type_ids`` ``(batch, seq)`` -> float32 ``last_hidden_state``."""
    from onnx import TensorProto, helper

    cfg = w.config
    heads, d_head, hidden = cfg.num_heads, cfg.hidden_size // cfg.num_heads, cfg.hidden_size
    g = _Graph()
    x = _embeddings(g, w)
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    padding = g.op("Sub", g.const(np.float32(1)), mask)  # 1 on padded keys
    bias = g.op("Unsqueeze", g.op("Mul", padding, g.const(np.float32(-1e9))),
                g.const(np.array([1, 2], np.int64)))  # (batch, 1, 1, seq)
    split = g.const(np.array([0, 0, 3, heads, d_head], np.int64))
    merge = g.const(np.array([0, 0, hidden], np.int64))
    scale = g.const(np.float32(1 / np.sqrt(d_head)))
    for layer in w.layers:
        qkv = g.op("Transpose", g.op("Reshape", g.linear(x, layer.qkv_w, layer.qkv_b), split),
                   perm=[2, 0, 3, 1, 4])  # (3, batch, heads, seq, d_head)
        q, k, v = (g.op("Gather", qkv, g.const(np.array(i, np.int64)), axis=0)
                   for i in range(3))
        scores = g.op("MatMul", g.op("Mul", q, scale), g.op("Transpose", k, perm=[0, 1, 3, 2]))
        ctx = g.op("MatMul", g.op("Softmax", g.op("Add", scores, bias), axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merge)
        x = g.norm(g.op("Add", x, g.linear(ctx, layer.attn_out_w, layer.attn_out_b)),
                   layer.attn_ln, cfg.layer_norm_eps)
        inner = _ACTIVATIONS[cfg.hidden_act](g, g.linear(x, layer.inter_w, layer.inter_b))
        x = g.norm(g.op("Add", x, g.linear(inner, layer.out_w, layer.out_b)), layer.out_ln,
                   cfg.layer_norm_eps)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                           ["batch", "seq", hidden])
    graph = helper.make_graph(g.nodes, "bert", inputs, [output], g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bert_session(weights_path: str, config_path: str,
                 threads: int) -> tuple[ort.InferenceSession, int]:
    """(session, number of positions) for these files, built once per process and thread
    count; the numpy weights and the serialised graph are freed once onnxruntime has them."""
    key = (weights_path, config_path, threads)
    with _LOCK:
        if key not in _SESSIONS:
            config = BertConfig.from_json(Path(config_path))
            weights = BertWeights.from_tensors(read_safetensors(Path(weights_path)), config)
            model, positions = bert_graph(weights), weights.position.shape[0]
            del weights  # the graph holds its own copy: free each copy as soon as possible
            blob = model.SerializeToString()
            del model
            try:
                session = ort.InferenceSession(blob, sess_options=session_options(threads),
                                               providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise ModelError(f"onnxruntime cannot run the BERT graph of {weights_path}: "
                                 f"{exc}. Fix: export the model to ONNX (`optimum-cli export "
                                 "onnx --model <folder> <out>`) and set embed.model to "
                                 "that folder.") from exc
            _SESSIONS[key] = (session, positions)
        return _SESSIONS[key]


class BertOnnxEmbedder(BaseEmbedder):
    """A BERT sentence encoder (fp32 safetensors + config.json) run by onnxruntime."""

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray,
                 token_type_ids: np.ndarray) -> np.ndarray:
        if self.spec.config is None:
            raise ModelError(f"{self.spec.name}: a safetensors BERT needs its config.json; "
                             "add the model's config.json to its folder.")
        session, positions = bert_session(str(verified_path(self.spec.weights)),
                                          str(verified_path(self.spec.config)), self.threads)
        if input_ids.shape[1] > positions:
            raise ModelError(f"{self.spec.name}: {input_ids.shape[1]} tokens is over the "
                             f"model's {positions} positions; lower embed.max_length.")
        return run_session(session, self.spec.name, input_ids, attention_mask, token_type_ids)
