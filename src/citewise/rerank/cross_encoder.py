"""A user's cross-encoder as a :class:`~citewise.protocols.Reranker`, without torch.

``path`` is either

* a folder as sentence-transformers' ``CrossEncoder.save`` (Hugging Face
  ``BertForSequenceClassification``) writes it: ``model.safetensors`` + ``config.json`` +
  ``tokenizer.json``; the encoder runs on onnxruntime from the graph
  :mod:`citewise.embed.bert_onnx` builds from the weights, then the sequence-classification
  head (Devlin et al. 2019, sec. 4.1), in numpy, on the [CLS] state::

      pooled = tanh(W_p h_[CLS] + b_p)          (bert.pooler.dense)
      logits = W_c pooled + b_c                  (classifier)

* or an ONNX export (``model.onnx``/``onnx/model.onnx`` in such a folder, or an ``.onnx`` file
  with ``tokenizer.json`` beside it) whose first output (or ``logits``) is ``(batch, labels)``;
  run by onnxruntime. A folder with both prefers ONNX.

The query and passage are encoded as one pair (``[CLS] query [SEP] passage [SEP]``, token
types 0/1), truncated longest-first to the model's limit. Score: with one label,
sigmoid(logit) (sentence-transformers' default activation for one label); with two or more,
the softmax probability of the last label (label 1 = relevant in two-label rerankers).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from citewise.embed.base import _pad, _pad_id, available_cpus, load_tokenizer
from citewise.embed.bert_onnx import bert_session
from citewise.embed.loader import _max_length, _read_json
from citewise.embed.models import file_sha256
from citewise.embed.numpy_bert import _prefix
from citewise.embed.onnx import run_session
from citewise.embed.safetensors import read_safetensors
from citewise.errors import ConfigError, ModelError


@dataclass(frozen=True)
class CrossEncoderFiles:
    """Where a cross-encoder's parts are and how it runs."""

    runtime: Literal["onnx", "bert-onnx"]
    weights: Path
    tokenizer: Path
    config: Path | None
    max_length: int


def locate(path: str | Path) -> CrossEncoderFiles:
    """Find the weights, tokenizer and limits of the cross-encoder at ``path``."""
    path = Path(path).expanduser().absolute()
    if path.is_file() and path.suffix == ".onnx":
        folder, weights = path.parent, path
    elif path.is_dir():
        folder = path
        weights = next((p for p in (path / "onnx" / "model.onnx", path / "model.onnx",
                                    path / "model.safetensors") if p.is_file()), None)
        if weights is None:
            raise ModelError(f"{path} holds no cross-encoder citewise can run. Fix: save the "
                             "model as model.safetensors + config.json (BERT), or export it to "
                             "ONNX (`optimum-cli export onnx --model <folder> <out>`).")
    else:
        raise ConfigError(f"rerank.model {str(path)!r} is neither a folder nor an .onnx file. "
                          "Fix: point it at a cross-encoder folder or its ONNX export.")
    tokenizer = next((p for p in (folder / "tokenizer.json", weights.parent / "tokenizer.json")
                      if p.is_file()), None)
    if tokenizer is None:
        raise ModelError(f"{folder} has no tokenizer.json. Fix: save the model's tokenizer "
                         "there (`AutoTokenizer.from_pretrained(m).save_pretrained(folder)`).")
    config_path = folder / "config.json"
    config = _read_json(config_path) or {}
    if weights.suffix != ".onnx" and not config:
        raise ModelError(f"{folder} has model.safetensors but no config.json. Fix: add the "
                         "model's config.json (the numpy BERT needs its sizes).")
    return CrossEncoderFiles(
        runtime="onnx" if weights.suffix == ".onnx" else "bert-onnx", weights=weights,
        tokenizer=tokenizer, config=config_path if config else None,
        max_length=_max_length(folder, config.get("max_position_embeddings")))


def scores_from_logits(logits: np.ndarray) -> np.ndarray:
    """``(batch, labels)`` logits -> one score per row: sigmoid for one label, else the
    softmax probability of the last label."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 1:
        logits = logits[:, None]
    if logits.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-logits[:, 0]))
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted[:, -1] / shifted.sum(axis=1)


@dataclass(frozen=True)
class ClassifierHead:
    """BertForSequenceClassification's pooler and classifier, arranged for ``x @ W``."""

    pooler_w: np.ndarray
    pooler_b: np.ndarray
    classifier_w: np.ndarray
    classifier_b: np.ndarray

    @classmethod
    def from_file(cls, weights: Path) -> ClassifierHead:
        tensors = read_safetensors(weights)
        prefix = _prefix(tensors)  # "bert." in a BertForSequenceClassification checkpoint
        names = {"pooler_w": prefix + "pooler.dense.weight", "pooler_b": prefix +
                 "pooler.dense.bias", "classifier_w": "classifier.weight",
                 "classifier_b": "classifier.bias"}
        missing = [n for n in names.values() if n not in tensors]
        if missing:
            raise ModelError(f"{weights} has no {', '.join(missing)}: not a BERT "
                             "sequence-classification (cross-encoder) checkpoint. Fix: use the "
                             "cross-encoder's own model.safetensors, or its ONNX export.")
        get = {k: np.asarray(tensors[n], dtype=np.float32) for k, n in names.items()}
        return cls(pooler_w=np.ascontiguousarray(get["pooler_w"].T), pooler_b=get["pooler_b"],
                   classifier_w=np.ascontiguousarray(get["classifier_w"].T),
                   classifier_b=get["classifier_b"])

    def logits(self, hidden: np.ndarray) -> np.ndarray:
        """Last hidden state ``(batch, seq, hidden)`` -> logits ``(batch, labels)``."""
        pooled = np.tanh(hidden[:, 0] @ self.pooler_w + self.pooler_b)
        return pooled @ self.classifier_w + self.classifier_b


class CrossEncoderReranker:
    """Scores (query, passage) pairs with a cross-encoder (see the module docstring).

    Nothing is read but small JSON files until the first :meth:`rerank`.
    """

    def __init__(self, path: str | Path, threads: int = 0, batch_size: int = 16,
                 max_length: int | None = None) -> None:
        self.files = locate(path)
        self.threads = threads or available_cpus()
        self.batch_size = batch_size
        self.max_length = min(max_length or self.files.max_length, self.files.max_length)
        self._model_id: str | None = None
        self._head: ClassifierHead | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """``<folder or file name>@<first 12 hex digits of the weights' sha256>``."""
        if self._model_id is None:
            name = (self.files.weights.parent.name if self.files.weights.stem == "model"
                    else self.files.weights.stem)
            self._model_id = f"{name}@{file_sha256(self.files.weights)[:12]}"
        return self._model_id

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        tok = load_tokenizer(self.files.tokenizer, self.max_length)
        encodings = tok.encode_batch([(query, text) for text in texts])
        pad_id = _pad_id(tok)
        out = np.zeros(len(texts), dtype=np.float64)
        for start in range(0, len(encodings), self.batch_size):
            ids, mask, types = _pad(encodings[start:start + self.batch_size], pad_id)
            out[start:start + len(ids)] = scores_from_logits(self.logits(ids, mask, types))
        return [float(s) for s in out]

    def logits(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
        """Padded pair encodings -> ``(batch, labels)`` logits."""
        if self.files.runtime == "onnx":
            return _onnx_logits(self.files.weights, self.threads, ids, mask, types)
        if self.files.config is None:
            raise ModelError(f"{self.files.weights.parent} has no config.json. Fix: "
                             "add the model's config.json.")
        head = self._classifier()
        session, positions = bert_session(str(self.files.weights), str(self.files.config),
                                          self.threads)
        if ids.shape[1] > positions:
            raise ModelError(f"{ids.shape[1]} tokens is over the model's {positions} "
                             "positions. Fix: pass a lower max_length.")
        hidden = run_session(session, str(self.files.weights), ids, mask, types)
        return head.logits(hidden)

    def _classifier(self) -> ClassifierHead:
        with self._lock:
            if self._head is None:
                self._head = ClassifierHead.from_file(self.files.weights)
            return self._head


def _onnx_logits(path: Path, threads: int, ids: np.ndarray, mask: np.ndarray,
                 types: np.ndarray) -> np.ndarray:
    from citewise.embed.onnx import _INT_TYPES, _session

    session = _session(path, threads)
    given = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    feeds = {}
    for node in session.get_inputs():
        if node.name not in given:
            raise ModelError(f"{path}: the ONNX graph wants an input {node.name!r}; citewise "
                             "feeds input_ids, attention_mask and token_type_ids. Fix: "
                             "re-export the model with those inputs.")
        feeds[node.name] = given[node.name].astype(_INT_TYPES.get(node.type, np.int64))
    names = [node.name for node in session.get_outputs()]
    output = "logits" if "logits" in names else names[0]
    try:
        return np.asarray(session.run([output], feeds)[0])
    except Exception as exc:  # onnxruntime's errors are untyped
        raise ModelError(f"{path} failed on a batch of shape {ids.shape}: {exc}. Fix: check "
                         "that the export is a cross-encoder with (batch, labels) "
                         "output.") from exc
