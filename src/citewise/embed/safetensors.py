"""Read and write safetensors files (https://github.com/huggingface/safetensors) with the
``safetensors`` library's numpy API, so fp32 weights load without torch.

What citewise adds: one :class:`~citewise.errors.ModelError` naming the fix for a file that is
not safetensors, and BF16 tensors (which numpy cannot hold) widened to float32. Checksums are
not checked here: :func:`citewise.embed.models.verified_path` pins the file's sha256 first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, deserialize, safe_open
from safetensors.numpy import save_file

from citewise.errors import ModelError

_REPLACE = "replace it with the model's own model.safetensors."


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """All tensors of ``path`` as numpy arrays (BF16 widened to float32)."""
    tensors: dict[str, np.ndarray] = {}
    try:
        with safe_open(str(path), framework="np") as fh:
            dtypes = {name: fh.get_slice(name).get_dtype()
                      for name in fh.keys()}  # noqa: SIM118 (a safe_open handle)
            for name, dtype in dtypes.items():
                if dtype != "BF16":
                    tensors[name] = _tensor(fh, name, dtype, path)
    except (OSError, SafetensorError) as exc:
        raise ModelError(f"{path} is not a valid safetensors file ({exc}); {_REPLACE}") from exc
    if "BF16" in dtypes.values():
        tensors.update(_bf16_as_float32(path, {n for n, d in dtypes.items() if d == "BF16"}))
    return tensors


def _tensor(fh: object, name: str, dtype: str, path: Path) -> np.ndarray:
    try:
        return fh.get_tensor(name)  # type: ignore[attr-defined]
    except TypeError as exc:  # a dtype numpy has no type for (e.g. F8_E4M3)
        raise ModelError(f"{path}: tensor {name} has dtype {dtype}, which citewise cannot "
                         "read; convert the weights to float32 or float16.") from exc


def _bf16_as_float32(path: Path, names: set[str]) -> dict[str, np.ndarray]:
    """bfloat16 is the top half of a float32: shift the raw 16-bit words up by 16 bits."""
    out = {}
    for name, info in deserialize(path.read_bytes()):
        if name in names:
            raw = np.frombuffer(info["data"], dtype="<u2").reshape(info["shape"])
            out[name] = (raw.astype(np.uint32) << 16).view(np.float32)
    return out


def write_safetensors(path: Path, tensors: Mapping[str, np.ndarray],
                      metadata: Mapping[str, str] | None = None) -> None:
    """Write ``tensors`` (numpy arrays) with optional string ``metadata``."""
    save_file({name: np.ascontiguousarray(array) for name, array in tensors.items()},
              str(path), metadata=dict(metadata) if metadata else None)
