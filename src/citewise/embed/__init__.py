"""citewise.embed: texts -> L2-normalised float32 vectors, torch-free.

``load_embedder(settings)`` turns ``embed.model`` (a name in ``SHIPPED_MODELS`` or a model
folder) into an Embedder. The default, ``all-minilm-l6-v2-int8``, runs int8 ONNX with
onnxruntime; ``all-minilm-l6-v2`` runs the official fp32 weights with onnxruntime too (a graph
built from the safetensors, :mod:`citewise.embed.bert_onnx`); the numpy BERT
(:class:`NumpyBertEmbedder`) is the reference the tests check it against.
"""

from citewise.embed.base import BaseEmbedder
from citewise.embed.bert_onnx import BertOnnxEmbedder
from citewise.embed.loader import load_embedder, resolve_spec
from citewise.embed.models import SHIPPED_MODELS, ModelFile, ModelSpec
from citewise.embed.numpy_bert import NumpyBertEmbedder
from citewise.embed.onnx import OnnxEmbedder

__all__ = [
    "BaseEmbedder",
    "BertOnnxEmbedder",
    "ModelFile",
    "ModelSpec",
    "NumpyBertEmbedder",
    "OnnxEmbedder",
    "SHIPPED_MODELS",
    "load_embedder",
    "resolve_spec",
]
