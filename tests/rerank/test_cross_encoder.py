"""CrossEncoderReranker on a tiny random BERT it builds itself: the numpy path against a
loop-by-loop reference, the ONNX path against a hand-built graph, and the error messages."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from citewise.config import GenerateSettings, RerankSettings
from citewise.embed.safetensors import write_safetensors
from citewise.errors import ConfigError, ModelError
from citewise.rerank import make_reranker
from citewise.rerank.cross_encoder import CrossEncoderReranker, scores_from_logits
from citewise.rerank.llm_judge import LLMJudgeReranker

from .conftest import random_tensors, reference_logits, write_cross_encoder, write_tokenizer

QUERY = "does aspirin reduce heart risk?"
TEXTS = ["aspirin lowers the risk of heart", "the cat sat on the mat .", "stock market fell",
         "the heart"]


def reference_scores(folder: Path, labels: int = 1) -> list[float]:
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    out = []
    for text in TEXTS:
        enc = tok.encode(QUERY, text)
        logits = reference_logits(random_tensors(0, labels), enc.ids, enc.type_ids)
        if labels == 1:
            out.append(1 / (1 + math.exp(-logits[0])))
        else:
            e = np.exp(logits - logits.max())
            out.append(float(e[-1] / e.sum()))
    return out


def test_numpy_bert_cross_encoder_matches_the_reference(tmp_path: Path) -> None:
    folder = write_cross_encoder(tmp_path / "ce")
    reranker = CrossEncoderReranker(folder, threads=1)
    scores = reranker.rerank(QUERY, TEXTS)
    assert scores == pytest.approx(reference_scores(folder), abs=1e-5)
    assert len(set(np.round(scores, 6))) == len(TEXTS)  # random weights: distinct scores


def test_scores_do_not_depend_on_batching_padding_or_threads(tmp_path: Path) -> None:
    folder = write_cross_encoder(tmp_path / "ce")
    together = CrossEncoderReranker(folder, threads=2, batch_size=4).rerank(QUERY, TEXTS)
    alone = [CrossEncoderReranker(folder, threads=1, batch_size=1).rerank(QUERY, [t])[0]
             for t in TEXTS]
    assert together == pytest.approx(alone, abs=1e-6)
    assert CrossEncoderReranker(folder).rerank(QUERY, []) == []


def test_two_labels_score_is_the_softmax_of_the_last(tmp_path: Path) -> None:
    folder = write_cross_encoder(tmp_path / "ce2", labels=2)
    scores = CrossEncoderReranker(folder, threads=1).rerank(QUERY, TEXTS)
    assert scores == pytest.approx(reference_scores(folder, labels=2), abs=1e-5)


def test_scores_from_logits_hand_computed() -> None:
    assert scores_from_logits(np.array([[0.0], [2.0]])) == pytest.approx(
        [0.5, 1 / (1 + math.exp(-2))])
    assert scores_from_logits(np.array([[1.0, 3.0]])) == pytest.approx(
        [math.exp(3) / (math.exp(1) + math.exp(3))])


def _write_onnx(path: Path, emb: np.ndarray, type_emb: np.ndarray, w: np.ndarray) -> None:
    """logits = (sum_t mask_t * (E[id_t] + T[type_t])) @ W: a stand-in graph with the
    inputs/outputs of a BERT cross-encoder export."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    def inp(name: str) -> object:
        return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])

    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["tok"]),
        helper.make_node("Gather", ["T", "token_type_ids"], ["typ"]),
        helper.make_node("Add", ["tok", "typ"], ["x"]),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "axis2"], ["m3"]),
        helper.make_node("Mul", ["x", "m3"], ["xm"]),
        helper.make_node("ReduceSum", ["xm", "axis1"], ["pooled"], keepdims=0),
        helper.make_node("MatMul", ["pooled", "W"], ["logits"]),
    ]
    inits = [numpy_helper.from_array(emb, "E"), numpy_helper.from_array(type_emb, "T"),
             numpy_helper.from_array(w, "W"),
             numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
             numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1")]
    graph = helper.make_graph(
        nodes, "tiny-ce", [inp("input_ids"), inp("attention_mask"), inp("token_type_ids")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_onnx_cross_encoder_feeds_the_pair_and_reads_logits(tmp_path: Path) -> None:
    folder = tmp_path / "onnx-ce"
    folder.mkdir()
    write_tokenizer(folder / "tokenizer.json")
    rng = np.random.default_rng(1)
    emb = rng.standard_normal((32, 4)).astype(np.float32)
    type_emb = rng.standard_normal((2, 4)).astype(np.float32)
    w = rng.standard_normal((4, 1)).astype(np.float32)
    _write_onnx(folder / "model.onnx", emb, type_emb, w)
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    expected = []
    for text in TEXTS:
        enc = tok.encode(QUERY, text)
        pooled = (emb[enc.ids] + type_emb[enc.type_ids]).sum(axis=0)
        expected.append(1 / (1 + math.exp(-float(pooled @ w[:, 0]))))
    reranker = CrossEncoderReranker(folder / "model.onnx", threads=1, batch_size=3)
    assert reranker.rerank(QUERY, TEXTS) == pytest.approx(expected, abs=1e-5)
    assert reranker.model_id.startswith("onnx-ce@")


def test_errors_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Fix"):
        CrossEncoderReranker(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelError, match="Fix"):
        CrossEncoderReranker(empty)
    folder = write_cross_encoder(tmp_path / "no-head")
    tensors = {k: v for k, v in random_tensors().items() if not k.startswith("classifier")}
    write_safetensors(folder / "model.safetensors", tensors)
    with pytest.raises(ModelError, match="classifier.weight"):
        CrossEncoderReranker(folder, threads=1).rerank(QUERY, TEXTS)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match="tokenizer.json"):
        CrossEncoderReranker(folder)


def test_make_reranker(tmp_path: Path) -> None:
    assert make_reranker(RerankSettings()) is None
    with pytest.raises(ConfigError, match="rerank.model"):
        make_reranker(RerankSettings(kind="cross-encoder"))
    folder = write_cross_encoder(tmp_path / "ce")
    ce = make_reranker(RerankSettings(kind="cross-encoder", model=str(folder)))
    assert isinstance(ce, CrossEncoderReranker)
    gen = GenerateSettings(local_model="some-model", threads=3, context_tokens=2048)
    judge = make_reranker(RerankSettings(kind="llm-judge"), gen)
    assert isinstance(judge, LLMJudgeReranker)
    assert (judge.model, judge.threads, judge.context_tokens) == ("some-model", 3, 2048)
    own = make_reranker(RerankSettings(kind="llm-judge", model="/x.gguf", threads=1), gen)
    assert isinstance(own, LLMJudgeReranker) and (own.model, own.threads) == ("/x.gguf", 1)
