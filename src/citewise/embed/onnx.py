"""Embeddings from an ONNX transformer export, run by onnxruntime on the CPU.

The graph takes ``input_ids``/``attention_mask`` (and ``token_type_ids`` when it declares
that input) and returns ``last_hidden_state``; pooling and normalisation happen in
:class:`~citewise.embed.base.BaseEmbedder`. One session per (model file, threads) per process.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import onnxruntime as ort

from citewise.embed.base import BaseEmbedder
from citewise.embed.models import verified_path
from citewise.errors import ModelError

_SESSIONS: dict[tuple[str, int], ort.InferenceSession] = {}
_SESSION_LOCK = threading.Lock()

_OUTPUT_NAMES = ("last_hidden_state", "token_embeddings", "sentence_embedding")
_INT_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


def session_options(threads: int) -> ort.SessionOptions:
    """citewise's onnxruntime settings: ``threads`` intra-op threads, all graph optimisations."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle workers sleep instead of spinning: on a busy machine spinning threads
    # fight the other processes (2 threads: 14 -> 22 passages/s under load, measured).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _session(path: Path, threads: int) -> ort.InferenceSession:
    key = (str(path), threads)
    with _SESSION_LOCK:
        if key not in _SESSIONS:
            try:
                _SESSIONS[key] = ort.InferenceSession(
                    str(path), sess_options=session_options(threads),
                    providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise ModelError(
                    f"onnxruntime cannot load {path}: {exc}. To fix it, re-export the model "
                    "to ONNX (opset 14 or later) or reinstall its package.") from exc
        return _SESSIONS[key]


class OnnxEmbedder(BaseEmbedder):
    """An ONNX encoder (e.g. the shipped int8 all-MiniLM-L6-v2) behind the Embedder protocol."""

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray,
                 token_type_ids: np.ndarray) -> np.ndarray:
        session = _session(verified_path(self.spec.weights), self.threads)
        return run_session(session, self.spec.name, input_ids, attention_mask, token_type_ids)


def run_session(session: ort.InferenceSession, name: str, input_ids: np.ndarray,
                attention_mask: np.ndarray, token_type_ids: np.ndarray) -> np.ndarray:
    """Feed the inputs the graph declares (in its integer type); its token states out."""
    given = {"input_ids": input_ids, "attention_mask": attention_mask,
             "token_type_ids": token_type_ids}
    feeds = {}
    for node in session.get_inputs():
        if node.name not in given:
            raise ModelError(
                f"{name}: the ONNX graph wants an input {node.name!r}; citewise feeds "
                "input_ids, attention_mask and token_type_ids. Re-export the model with "
                "those inputs.")
        feeds[node.name] = given[node.name].astype(_INT_TYPES.get(node.type, np.int64))
    try:
        return session.run([_output_name(session)], feeds)[0]
    except Exception as exc:  # onnxruntime's errors are untyped
        raise ModelError(
            f"{name} failed to run on a batch of shape {input_ids.shape}: {exc}. "
            "If the model has a lower token limit, set embed.max_length to it.") from exc


def _output_name(session: ort.InferenceSession) -> str:
    names = [node.name for node in session.get_outputs()]
    for name in _OUTPUT_NAMES:
        if name in names:
            return name
    return names[0]
