"""A tiny fake "model" shipped in parts, as importable packages on sys.path."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from citewise.models import LocalModel, ModelPart

PART_BYTES = (b"GGUF-part-one|", b"part-two|", b"part-three")
JOINED = b"".join(PART_BYTES)


def tiny_model(prefix: str, sha256: str | None = None, size: int | None = None) -> LocalModel:
    parts = tuple(ModelPart(f"{prefix.replace('_', '-')}{i}==0.1.0", f"{prefix}{i}",
                            f"data/part{i:02d}.bin") for i in range(1, 4))
    return LocalModel(name="tiny-test-model", filename="tiny-test-model.gguf", parts=parts,
                      size=len(JOINED) if size is None else size,
                      sha256=sha256 or hashlib.sha256(JOINED).hexdigest())


def write_part_packages(root: Path, prefix: str) -> None:
    for i, data in enumerate(PART_BYTES, start=1):
        package = root / f"{prefix}{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{i:02d}.bin").write_bytes(data)


@pytest.fixture
def installed_parts(tmp_path, monkeypatch) -> LocalModel:
    """The tiny model's parts importable from sys.path (as if pip had installed them)."""
    prefix = f"citewise_fakepart_{tmp_path.name[-8:].replace('-', '_')}_"
    site = tmp_path / "site"
    write_part_packages(site, prefix)
    monkeypatch.syspath_prepend(str(site))
    return tiny_model(prefix)
