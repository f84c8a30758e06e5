"""The keys file read by several request threads at once (a review's race: a slow read of a
broken file that finished after a good one left every key refused until the next edit)."""

from __future__ import annotations

import json
import threading

from citewise.serve import keys as keys_module
from citewise.serve.keys import KeyFile


def test_a_slow_read_of_a_broken_file_cannot_undo_a_later_good_one(tmp_path, monkeypatch):
    path = tmp_path / "keys.json"
    kf = KeyFile.load(path, must_exist=False)
    key = kf.add("sam", "acme", ["staff"], "reader")
    good = path.read_text()
    served = KeyFile.load(path)
    path.write_text(good.replace('"keys"', '"keys" ,,'))  # a typo being fixed
    reading, release = threading.Event(), threading.Event()
    loads = json.loads

    def slow_loads(text, *args, **kwargs):  # noqa: ANN001, ANN202
        if ",," in text:
            reading.set()
            release.wait(10)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(keys_module.json, "loads", slow_loads)
    first = threading.Thread(target=lambda: served.lookup(key))
    first.start()
    assert reading.wait(10)
    path.write_text(good + "\n")  # fixed while the broken read is still running
    second = threading.Thread(target=lambda: served.lookup(key))
    second.start()
    second.join(1.0)  # unlocked, it read the good file by now; locked, it waits for the first
    release.set()
    first.join(10)
    second.join(10)
    assert served.lookup(key) is not None and served.problem is None


def test_a_keys_file_too_deep_or_a_folder_refuses_every_key_in_one_line(tmp_path):
    """A robustness review: a keys file nested 100,000 deep, or replaced by a folder, made
    every request a 500 (RecursionError, IsADirectoryError) instead of the documented 503."""
    path = tmp_path / "keys.json"
    kf = KeyFile.load(path, must_exist=False)
    key = kf.add("sam", "acme", ["staff"], "reader")
    served = KeyFile.load(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert served.lookup(key) is None and "nested too deeply" in served.problem
    path.unlink()
    path.mkdir()
    assert served.lookup(key) is None and "not a citewise keys file" in served.problem
