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
