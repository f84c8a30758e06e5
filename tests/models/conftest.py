"""A tiny fake "model" shipped in parts, as wheels in a folder (what pip would download)."""

from __future__ import annotations

import base64
import hashlib
import shutil
from collections.abc import Callable
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


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(folder: Path, prefix: str, index: int, payload: bytes,
                extra: dict[str, bytes] | None = None) -> Path:
    """A minimal valid py3 wheel holding ``<module>/data/partNN.bin`` (and ``extra`` files,
    e.g. a ``.pth`` that would run in every process if the wheel were installed)."""
    dist = module = f"{prefix}{index}"
    info = f"{dist}-0.1.0.dist-info"
    files = {
        f"{module}/__init__.py": b"",
        f"{module}/data/part{index:02d}.bin": payload,
        **(extra or {}),
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {dist.replace('_', '-')}\n"
                             "Version: 0.1.0\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: citewise-tests\n"
                         b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    import zipfile

    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    path = folder / f"{dist}-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


def fake_pip(wheels: Path, commands: list[list[str]]) -> Callable[[list[str]], None]:
    """A runner that records pip's command and puts the wheels in its ``--dest`` folder."""
    def run(command: list[str]) -> None:
        commands.append(command)
        dest = Path(command[command.index("--dest") + 1])
        for wheel in wheels.glob("*.whl"):
            shutil.copy(wheel, dest / wheel.name)
    return run


@pytest.fixture
def part_wheels(tmp_path) -> tuple[LocalModel, Path]:
    """The tiny model and a folder with its parts' wheels."""
    prefix = f"citewise_fakepart_{tmp_path.name[-8:].replace('-', '_')}_"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for i, data in enumerate(PART_BYTES, start=1):
        build_wheel(wheels, prefix, i, data)
    return tiny_model(prefix), wheels
