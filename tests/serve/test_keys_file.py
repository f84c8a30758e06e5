"""The keys file read by several request threads at once (a review's race: a slow read of a
broken file that finished after a good one left every key refused until the next edit), and
changed by several `citewise keys` commands at once."""

from __future__ import annotations

import json
import subprocess
import sys
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


def test_a_keys_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    """A security review: an editor that saves UTF-8 with a BOM made a running server refuse
    every key, and the fix it named (recreate the file) threw every key away."""
    path = tmp_path / "keys.json"
    key = KeyFile.load(path, must_exist=False).add("sam", "acme", ["staff"], "reader")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert KeyFile.load(path).lookup(key) is not None


def test_a_good_file_put_back_with_its_old_stamp_is_read_again(tmp_path):
    """An operator's typo refused every key (as documented); `cp -p keys.json.bak
    keys.json` put back the last good file's stamp (cp writes into the same inode, and
    -p its size and mtime), and every key stayed refused until a `touch`."""
    import os

    path = tmp_path / "keys.json"
    key = KeyFile.load(path, must_exist=False).add("sam", "acme", ["staff"], "reader")
    served = KeyFile.load(path)
    assert served.lookup(key) is not None
    good = path.read_bytes()
    stat = path.stat()
    with open(path, "r+b") as fh:  # a typo, written in place
        fh.write(good + b"}")
    assert served.lookup(key) is None and served.problem is not None
    with open(path, "r+b") as fh:  # cp -p: the same inode, size and mtime as before
        fh.write(good)
        fh.truncate()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert served.lookup(key) is not None and served.problem is None


def test_a_removal_is_not_undone_by_a_key_added_from_an_older_read(tmp_path):
    """A reliability review: `keys add` read the file, a `keys remove` wrote it, then the add
    wrote back what it had read plus its key, and the removed key worked again in the
    running server (2 of 20 trials of real concurrent commands)."""
    path = tmp_path / "keys.json"
    seed = KeyFile.load(path, must_exist=False)
    victim = seed.add("victim", "default", ["staff"], "reader")
    stale = KeyFile.load(path)  # a `keys add` that read the file before the removal
    KeyFile.load(path).remove("victim")
    late = stale.add("late", "default", ["staff"], "reader")
    server = KeyFile.load(path)
    assert server.lookup(victim) is None and server.lookup(late) is not None
    assert server.retired == ["victim"]


def test_concurrent_adds_from_several_processes_all_keep_their_keys(tmp_path):
    path = tmp_path / "keys.json"
    script = ("import sys; from citewise.serve.keys import KeyFile; "
              "print(KeyFile.load(sys.argv[1], must_exist=False).add(sys.argv[2], 'default', "
              "['staff'], 'reader'))")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), f"user{i}"],
                              stdout=subprocess.PIPE, text=True) for i in range(8)]
    keys = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    stored = KeyFile.load(path)
    assert sorted(e.name for e in stored.entries) == [f"user{i}" for i in range(8)]
    assert all(stored.lookup(k) is not None for k in keys)
    assert not list(tmp_path.glob("*.tmp"))
