"""A minimal reader and writer for the safetensors format, so fp32 weights load without torch.

Layout (https://github.com/huggingface/safetensors): an 8-byte little-endian header length
``n``, ``n`` bytes of JSON ``{name: {"dtype", "shape", "data_offsets": [begin, end]}, ...}``
(plus an optional ``"__metadata__"``), then the raw little-endian tensor bytes; offsets are
relative to the end of the header.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from citewise.errors import ModelError

_DTYPES = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"), "I64": np.dtype("<i8"), "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"), "I8": np.dtype("i1"), "U8": np.dtype("u1"), "BOOL": np.dtype("?"),
}
_MAX_HEADER = 100 * 1024 * 1024  # the reference reader's limit
_NAMES = {dtype: name for name, dtype in _DTYPES.items() if name != "BF16"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """All tensors of ``path`` as read-only arrays memory-mapped from the file.

    BF16 tensors are returned widened to float32 (a copy); everything else is a view.
    """
    try:
        with path.open("rb") as fh:
            (header_len,) = struct.unpack("<Q", fh.read(8))
            if header_len > min(_MAX_HEADER, path.stat().st_size - 8):
                raise ValueError(f"header length {header_len} is past the end of the file")
            header = json.loads(fh.read(header_len))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    except (OSError, ValueError, struct.error) as exc:
        raise ModelError(f"{path} is not a valid safetensors file ({exc}); replace it with "
                         "the model's own model.safetensors.") from exc
    if not isinstance(header, dict):
        raise ModelError(f"{path} is not a valid safetensors file (its header is not a JSON "
                         "object); replace it with the model's own model.safetensors.")
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info.get("dtype") not in _DTYPES:
            raise ModelError(f"{path}: tensor {name} has dtype {info.get('dtype')}, which "
                             "citewise cannot read; convert the weights to float32 or float16.")
        begin, end = info["data_offsets"]
        try:
            array = data[begin:end].view(_DTYPES[info["dtype"]]).reshape(info["shape"])
        except ValueError as exc:
            raise ModelError(f"{path}: tensor {name} does not fit its data ({exc}); the file "
                             "is truncated or corrupt, replace it.") from exc
        if info["dtype"] == "BF16":
            array = (array.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = array
    return tensors


def write_safetensors(path: Path, tensors: Mapping[str, np.ndarray],
                      metadata: Mapping[str, str] | None = None) -> None:
    """Write ``tensors`` (numpy arrays; names sorted, as the reference writer does)."""
    header: dict[str, object] = {"__metadata__": dict(metadata)} if metadata else {}
    blobs, offset = [], 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        dtype = array.dtype.newbyteorder("<")
        if dtype not in _NAMES:
            raise ValueError(f"cannot write dtype {array.dtype} (tensor {name})")
        blob = array.astype(dtype, copy=False).tobytes()
        header[name] = {"dtype": _NAMES[dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # align the data to 8 bytes, like the reference writer
    with path.open("wb") as fh:
        fh.write(struct.pack("<Q", len(raw)))
        fh.write(raw)
        for blob in blobs:
            fh.write(blob)
