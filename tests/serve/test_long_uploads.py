"""Uploads that take a while: parsing and embedding happen before the write, outside its lock.
The report times the whole upload (it gave the write's time alone), and a key removed or
changed meanwhile writes nothing (a security review's revoked key's upload was written
minutes later under its name)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
from tests.serve.conftest import SETTINGS, build_index, make_keys

from citewise import connect
from citewise.serve import create_app
from citewise.serve.keys import KeyFile
from citewise.testing import FakeEmbedder
from citewise.testing.server import serving

PAUSE_S = 0.4


class SlowEmbedder(FakeEmbedder):
    """Embeds as the fake does, :data:`PAUSE_S` per batch of passages; ``embedding`` is set
    once a batch is being embedded (a key is removed then, not after a fixed delay: on a
    loaded machine a timer fired before the request was even authenticated)."""

    embedding = threading.Event()

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) > 0:
            SlowEmbedder.embedding.set()
            time.sleep(PAUSE_S)
        return super().embed_batch(texts)


def remove_while_embedding(keys_file: Path, name: str) -> threading.Thread:
    SlowEmbedder.embedding.clear()

    def remove() -> None:
        if SlowEmbedder.embedding.wait(60):
            KeyFile.load(keys_file).remove(name)

    thread = threading.Thread(target=remove)
    thread.start()
    return thread


@contextmanager
def slow_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``(url, keys)`` of a served example index whose embedder takes :data:`PAUSE_S`."""
    db = str(tmp_path / "index.db")
    build_index(db)
    keys = make_keys(tmp_path / "keys.json")
    engine = connect(db, SETTINGS, embedder=SlowEmbedder())
    with serving(create_app(engine, KeyFile.load(tmp_path / "keys.json"))) as url:
        yield url, keys


def upload(url: str, key: str) -> httpx.Response:
    return httpx.post(f"{url}/v1/documents", headers={"Authorization": f"Bearer {key}"},
                      files={"file": ("kites.md", b"# Kites\n\nKites fly on the roof.\n",
                                      "text/markdown")}, data={"groups": "staff"},
                      timeout=30.0)


def test_upload_report_counts_parse_and_embedding(tmp_path: Path) -> None:
    with slow_server(tmp_path) as (url, keys):
        r = upload(url, keys["eddie"])
    assert r.status_code == 201, r.text
    report = r.json()["ingest"]
    assert report["new"] == 1 and report["chunks_embedded"] == 1
    assert report["model_seconds"] >= PAUSE_S and report["seconds"] >= PAUSE_S


def test_a_key_removed_during_its_upload_writes_nothing(tmp_path: Path) -> None:
    with slow_server(tmp_path) as (url, keys):
        revoke = remove_while_embedding(tmp_path / "keys.json", "eddie")
        r = upload(url, keys["eddie"])
        revoke.join()
        assert r.status_code == 401 and "nothing was written" in r.text, r.text
        listed = httpx.get(f"{url}/v1/documents", headers={
            "Authorization": f"Bearer {keys['ada']}"}, timeout=30.0).json()["documents"]
        assert "kites.md" not in {d["doc_id"] for d in listed}


def test_a_key_removed_while_its_write_waits_for_the_gate_writes_nothing(tmp_path: Path
                                                                         ) -> None:
    """A review held the index's write gate 15 s (as a backup, a CLI ingest or a reindex's
    catch-up does), removed an editor's key meanwhile, and the waiting DELETE and ACL change
    then landed: every write looks the key up again once the gate is held."""
    from citewise.index import gate

    with slow_server(tmp_path) as (url, keys):
        admin = {"Authorization": f"Bearer {keys['ada']}"}
        staff = [d["doc_id"] for d in httpx.get(f"{url}/v1/documents", headers=admin,
                                                timeout=30.0).json()["documents"]
                 if d["groups"] == ["staff"]]
        editor = {"Authorization": f"Bearer {keys['eddie']}"}
        answers: dict[str, httpx.Response] = {}
        calls = {
            "delete": lambda: httpx.delete(f"{url}/v1/documents/{staff[0]}", headers=editor,
                                           timeout=30.0),
            "acl": lambda: httpx.put(f"{url}/v1/documents/{staff[1]}/acl", headers=editor,
                                     json={"groups": ["everyone"]}, timeout=30.0),
        }
        with gate.file_gate(str(tmp_path / "index.db")):
            for name, call in calls.items():
                threading.Thread(target=lambda n=name, c=call: answers.__setitem__(n, c()),
                                 daemon=True).start()
                time.sleep(PAUSE_S)  # one at a time: each waits for the gate
            KeyFile.load(tmp_path / "keys.json").remove("eddie")
        deadline = time.monotonic() + 20
        while len(answers) < len(calls) and time.monotonic() < deadline:
            time.sleep(0.05)
        for name in calls:
            assert answers[name].status_code == 401, (name, answers[name].text)
        listed = {d["doc_id"]: d["groups"] for d in httpx.get(
            f"{url}/v1/documents", headers=admin, timeout=30.0).json()["documents"]}
        assert listed[staff[0]] == listed[staff[1]] == ["staff"]


def test_a_key_removed_during_its_reindex_promotes_nothing(tmp_path: Path) -> None:
    """A security review removed an operator's key 1 s into the reindex it asked for, and
    the new version was promoted 246 s later: the key is looked up again under the write
    gate just before the decision, and the shadow is refused."""
    with slow_server(tmp_path) as (url, keys):
        operator = {"Authorization": f"Bearer {keys['otto']}"}
        revoke = remove_while_embedding(tmp_path / "keys.json", "otto")
        r = httpx.post(f"{url}/v1/versions/reindex", headers=operator,
                       json={"chunk_tokens": 64, "force": True}, timeout=60.0)
        revoke.join()
        assert r.status_code == 401 and "refused, not promoted" in r.text, r.text
        admin = KeyFile.load(tmp_path / "keys.json").add("ops2", "northwind", ["staff"],
                                                          "operator")
        versions = httpx.get(f"{url}/v1/versions", headers={
            "Authorization": f"Bearer {admin}"}, timeout=30.0).json()["versions"]
        assert [v["state"] for v in versions] == ["live", "refused"], versions


def test_an_upload_being_embedded_has_no_copy_on_disk(tmp_path: Path, monkeypatch) -> None:
    """A security review killed the server (``kill -9``) while an hr-only upload embedded:
    its temporary copy stayed in /tmp, and nothing removed it. The upload is read from
    memory; while it embeds, no file holds its text."""
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    seen: list[list[str]] = []

    def look() -> None:
        if SlowEmbedder.embedding.wait(60):
            seen.append([str(p) for p in scratch.rglob("*") if p.is_file()
                         and b"Kites fly" in p.read_bytes()])

    SlowEmbedder.embedding.clear()
    with slow_server(tmp_path) as (url, keys):
        watcher = threading.Thread(target=look)
        watcher.start()
        r = upload(url, keys["eddie"])
        watcher.join()
    assert r.status_code == 201, r.text
    assert seen == [[]]
