"""README promises about deletes, ACL changes and versions, through `citewise serve` (the
path a server's users take), on SQLite and PostgreSQL: when the API call returns, a deleted
document (or one whose ACL was tightened) is out of search, ask (JSON and stream), the
document routes and every server cache, even for queries cached just before; a rollback
through the API does not bring a deleted document back."""

from __future__ import annotations

import json
import threading
import time

from tests.serve.conftest import SECRET, SECRET_DOC, Served

QUESTION = "What is the salary band midpoint for a Director?"
SEARCH = {"query": "salary band midpoint Director", "top_k": 20}


def found(served: Served, who: str, doc_id: str) -> list[str]:
    """Where ``who`` still meets ``doc_id`` (or the secret text): [] when nowhere."""
    client = served.client(who)
    where = []
    hits = client.post("/v1/search", json=SEARCH).json()
    if doc_id in {h["doc_id"] for h in hits["hits"]} or (
            doc_id == SECRET_DOC and SECRET in json.dumps(hits)):
        where.append("search" + (" (cached)" if hits["cached"] else ""))
    answer = client.post("/v1/ask", json={"question": QUESTION}).json()
    if doc_id in {c["doc_id"] for c in answer.get("citations", [])} or (
            doc_id == SECRET_DOC and SECRET in json.dumps(answer)):
        where.append("ask")
    with client.stream("POST", "/v1/ask", json={"question": QUESTION, "stream": True}) as r:
        streamed = r.read().decode()
    if f'"doc_id": "{doc_id}"' in streamed or f'"doc_id":"{doc_id}"' in streamed or (
            doc_id == SECRET_DOC and SECRET in streamed):
        where.append("ask stream")
    if client.get(f"/v1/documents/{doc_id}").status_code != 404:
        where.append("document")
    if client.get(f"/v1/documents/{doc_id}/content").status_code != 404:
        where.append("content")
    return where


def warm(served: Served, who: str) -> None:
    """Fill the server's caches with answers that hold the secret document."""
    for _ in range(2):
        served.client(who).post("/v1/search", json=SEARCH)
        served.client(who).post("/v1/ask", json={"question": QUESTION})


def test_delete_through_the_api_holds_in_every_read_and_cache(served: Served) -> None:
    assert found(served, "hana", SECRET_DOC) == ["search", "ask", "ask stream", "document",
                                                 "content"]
    warm(served, "hana")
    if not served.db.startswith("postgresql"):  # PostgreSQL results are not cached
        again = served.client("hana").post("/v1/search", json=SEARCH).json()
        assert again["cached"]
    removed = served.client("ada").delete(f"/v1/documents/{SECRET_DOC}").json()
    assert removed["removed"] == 1
    assert found(served, "hana", SECRET_DOC) == []
    assert found(served, "ada", SECRET_DOC) == []


def test_acl_tightened_through_the_api_holds_in_every_read_and_cache(served: Served) -> None:
    acl = served.client("ada").put(f"/v1/documents/{SECRET_DOC}/acl",
                                   json={"groups": ["staff"]})
    assert acl.status_code == 200, acl.text
    assert "search" in found(served, "sam", SECRET_DOC)  # now sam may read it
    warm(served, "sam")
    served.client("ada").put(f"/v1/documents/{SECRET_DOC}/acl", json={"groups": ["hr"]})
    assert found(served, "sam", SECRET_DOC) == []
    assert "search" in found(served, "hana", SECRET_DOC)


def test_rollback_through_the_api_does_not_resurrect_a_delete(served: Served) -> None:
    ada, otto = served.client("ada"), served.client("otto")
    built = otto.post("/v1/versions/reindex", json={"chunk_tokens": 128, "force": True})
    assert built.status_code == 200, built.text
    warm(served, "hana")
    assert ada.delete(f"/v1/documents/{SECRET_DOC}").json()["removed"] == 1
    back = otto.post("/v1/versions/rollback", json={})
    assert back.status_code == 200, back.text
    assert [v["state"] for v in otto.get("/v1/versions").json()["versions"]][:1] == ["live"]
    assert found(served, "hana", SECRET_DOC) == []


def upload_then_roll_back_past_it(served: Served) -> dict:
    """Reindex (version 2), upload late.md there as eddie, roll back to version 1: the
    rollback's reply."""
    otto = served.client("otto")
    assert otto.post("/v1/versions/reindex", json={"chunk_tokens": 128,
                                                   "force": True}).status_code == 200
    up = served.client("eddie").post("/v1/documents", data={"groups": "staff"}, files={
        "file": ("late.md", b"# Late\n\nThe zebra budget is 4411.\n", "text/markdown")})
    assert up.status_code == 201, up.text
    return otto.post("/v1/versions/rollback", json={}).json()


def test_a_rollback_names_the_documents_the_version_it_brings_back_lacks(
        served: Served) -> None:
    """An operator's trial: an upload made after a reindex vanished with the rollback, and
    the reply said only which version is live."""
    back = upload_then_roll_back_past_it(served)
    assert back["lost"] == ["late.md"] and back["uploads"] == ["late.md"], back


def test_a_document_a_rollback_left_behind_can_be_deleted_so_no_roll_forward_returns_it(
        served: Served) -> None:
    """Stop 62's security review (F4): an upload made after a reindex, lost by a rollback,
    was "not in the index" to its editor's DELETE and ACL change, and came back with the
    roll forward. The DELETE reaches the retired version; the ACL change names the fix."""
    otto, eddie = served.client("otto"), served.client("eddie")
    assert upload_then_roll_back_past_it(served)["lost"] == ["late.md"]
    acl = eddie.put("/v1/documents/late.md/acl", json={"groups": ["hr"]})
    assert acl.status_code == 404 and "retired version 2" in acl.json()["detail"], acl.text
    assert "DELETE" in acl.json()["fix"]
    gone = eddie.delete("/v1/documents/late.md")
    assert gone.status_code == 200, gone.text
    assert otto.post("/v1/versions/rollback", json={"version": 2}).status_code == 200
    assert found(served, "sam", "late.md") == []
    hits = served.client("sam").post("/v1/search", json={"query": "zebra budget 4411"})
    assert "4411" not in hits.text


def test_another_tenants_editor_cannot_delete_a_document_a_rollback_left_behind(
        served: Served, tmp_path) -> None:
    from citewise.serve.keys import KeyFile

    assert upload_then_roll_back_past_it(served)["lost"] == ["late.md"]
    key = KeyFile.load(tmp_path / "keys.json").add("gil", "globex", ["staff"], "editor")
    other = served.client()
    other.headers["Authorization"] = f"Bearer {key}"
    r = other.delete("/v1/documents/late.md")
    assert r.status_code == 404 and "retired" not in r.text, r.text


def test_an_acl_change_during_a_server_reindex_is_at_once_and_survives_it(
        served: Served, monkeypatch) -> None:
    """A reindex through the API held the server's one-writer lock while it re-embedded the
    whole index, so an admin's ACL revocation waited (minutes on a real corpus) for it."""
    from citewise import reindex

    started, release = threading.Event(), threading.Event()
    build = reindex.index_documents

    def slow_build(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        started.set()
        release.wait(60)
        return build(*args, **kwargs)

    monkeypatch.setattr(reindex, "index_documents", slow_build)
    otto, ada = served.client("otto"), served.client("ada")
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("r", otto.post(
        "/v1/versions/reindex", json={"chunk_tokens": 128, "force": True}, timeout=120)))
    thread.start()
    try:
        assert started.wait(60), "the reindex never started building"
        t0 = time.monotonic()
        acl = ada.put(f"/v1/documents/{SECRET_DOC}/acl", json={"groups": ["admins"]})
        assert acl.status_code == 200 and time.monotonic() - t0 < 10, acl.text
        assert thread.is_alive() and found(served, "hana", SECRET_DOC) == []
        again = otto.post("/v1/versions/reindex", json={"force": True})
        assert again.status_code == 409 and "GET /v1/versions" in again.json()["fix"]
    finally:
        release.set()
        thread.join(120)
    assert outcome["r"].status_code == 200, outcome["r"].text
    assert outcome["r"].json()["decision"] == "forced"
    assert found(served, "hana", SECRET_DOC) == []  # the new version has the change
