"""The HTTP API on a real uvicorn server (loopback), on SQLite and on PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import threading
import time

from tests.serve.conftest import SECRET, SECRET_DOC, Served

PROBLEM = "application/problem+json"
QUESTION = "What is the salary band midpoint for a Director?"


def _problem(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["status"] == status and "Fix:" in body["detail"] and body["fix"]
    return body


def test_no_key_no_access_and_meta_routes(served: Served) -> None:
    anon = served.client()
    for method, path in (("POST", "/v1/search"), ("POST", "/v1/ask"), ("GET", "/v1/documents"),
                         ("GET", "/v1/versions"), ("GET", "/v1/traces/x"), ("GET", "/v1/log")):
        body = _problem(anon.request(method, path, json={"query": "x", "question": "x"}), 401)
        assert "citewise keys add" in body["fix"]
    bad = anon.post("/v1/search", json={"query": "leave"},
                    headers={"Authorization": "Bearer cw_not-a-key"})
    _problem(bad, 401)
    assert anon.get("/healthz").json()["status"] == "ok"
    assert anon.get("/readyz").json()["status"] == "ready"
    spec = anon.get("/openapi.json").json()
    assert {"/v1/search", "/v1/ask", "/v1/documents", "/v1/feedback"} <= set(spec["paths"])
    # FastAPI's /docs and /redoc load scripts from a CDN onto the origin that keeps the key
    assert anon.get("/docs").status_code == 404 and anon.get("/redoc").status_code == 404
    assert "access-control-allow-origin" not in anon.options(
        "/v1/search", headers={"Origin": "http://evil.example",
                               "Access-Control-Request-Method": "POST"}).headers


def test_search_is_filtered_by_the_keys_principal(served: Served) -> None:
    sam = served.client("sam").post("/v1/search", json={"query": QUESTION, "top_k": 20}).json()
    hana = served.client("hana").post("/v1/search", json={"query": QUESTION, "top_k": 20}).json()
    assert SECRET_DOC not in {h["doc_id"] for h in sam["hits"]}
    assert SECRET not in json.dumps(sam)
    assert SECRET_DOC in {h["doc_id"] for h in hana["hits"]}
    _problem(served.client("sam").post("/v1/search", json={"query": ""}), 422)
    _problem(served.client("sam").post("/v1/search", json={"query": "x", "top_k": 0}), 422)


def test_ask_json_and_stream(served: Served) -> None:
    hana = served.client("hana")
    answer = hana.post("/v1/ask", json={"question": QUESTION}).json()
    assert not answer["declined"] and answer["citations"]
    assert any(c["doc_id"] == SECRET_DOC for c in answer["citations"])
    with hana.stream("POST", "/v1/ask", json={"question": QUESTION, "stream": True}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [(block.split("\n")[0][7:], json.loads(block.split("\n")[1][6:]))
                  for block in r.read().decode().strip().split("\n\n")]
    kinds = [k for k, _ in events]
    assert kinds[0] == "start" and kinds[-1] == "answer" and "token" in kinds
    final = events[-1][1]
    assert final["citations"] and final["request_id"] == events[0][1]["request_id"]
    sam = served.client("sam").post("/v1/ask", json={"question": QUESTION}).json()
    assert SECRET not in json.dumps(sam)


def test_traces_and_feedback_belong_to_the_asker(served: Served) -> None:
    rid = served.client("hana").post("/v1/ask", json={"question": QUESTION}).json()["request_id"]
    trace = served.client("hana").get(f"/v1/traces/{rid}").json()
    assert trace["principal"] == "hana" and trace["kind"] == "ask"
    assert trace["trace"]["gate"]["threshold"] is not None and trace["latencies_ms"]
    assert SECRET not in json.dumps(trace)  # ids and scores, never passage text
    assert served.client("ada").get(f"/v1/traces/{rid}").status_code == 200
    _problem(served.client("sam").get(f"/v1/traces/{rid}"), 404)
    for other in ("sam", "ada"):  # an admin reads the trace but does not rate for its asker
        _problem(served.client(other).post("/v1/feedback", json={"request_id": rid,
                                                                 "rating": "down"}), 404)
    for odd in ("\\ud800", "x" * 32, rid.upper()):  # a review: a lone surrogate (JSON's
        body = f'{{"request_id": "{odd}", "rating": "up"}}'  # escape) was a 503 blaming the db
        _problem(served.client("hana").post("/v1/feedback", content=body, headers={
            "Content-Type": "application/json"}), 422)
    ok = served.client("hana").post("/v1/feedback", json={"request_id": rid, "rating": "down",
                                                          "comment": "wrong band, mail "
                                                          "hana@corp.example"})
    assert ok.json()["feedback"] == -1
    rated = served.client("hana").get(f"/v1/traces/{rid}").json()
    assert rated["feedback"] == -1
    assert rated["feedback_note"] == "wrong band, mail [email]"  # masked like queries
    mine = served.client("sam").get("/v1/log").json()["records"]
    assert all(r["principal"] == "sam" for r in mine)
    everyone = {r["principal"] for r in served.client("ada").get("/v1/log").json()["records"]}
    assert "hana" in everyone


def test_documents_upload_acl_delete(served: Served) -> None:
    text = "# Drone policy\n\nDrones may fly over the Rotterdam yard only on Fridays.\n"
    files = {"file": ("drones.md", text.encode(), "text/markdown")}
    _problem(served.client("sam").post("/v1/documents", files=files,
                                       data={"groups": "staff"}), 403)
    up = served.client("eddie").post("/v1/documents", files=files,
                                     data={"groups": "eng", "updated_at": "2026-11-30"})
    assert up.status_code == 201, up.text
    assert up.json()["document"]["groups"] == ["eng"]

    def sam_sees() -> bool:
        hits = served.client("sam").post("/v1/search", json={"query": "drones Fridays"})
        return "drones.md" in {h["doc_id"] for h in hits.json()["hits"]}

    assert not sam_sees()
    _problem(served.client("sam").get("/v1/documents/drones.md"), 404)
    acl = served.client("eddie").put("/v1/documents/drones.md/acl", json={"groups": ["staff"]})
    assert acl.json()["groups"] == ["staff"]
    assert sam_sees()
    answer = served.client("sam").get("/v1/documents/drones.md/content")
    assert answer.headers["cache-control"] == "no-store"  # no copy kept past a delete
    content = answer.json()
    assert any("Fridays" in b["text"] for b in content["blocks"])
    assert content["first_block"] == 0 and content["total_blocks"] == len(content["blocks"])
    _problem(served.client("sam").delete("/v1/documents/drones.md"), 403)
    assert served.client("eddie").delete("/v1/documents/drones.md").json()["removed"] == 1
    assert not sam_sees()
    _problem(served.client("eddie").delete("/v1/documents/drones.md"), 404)
    again = served.client("eddie").post("/v1/documents", files=files, data={"groups": "eng"})
    assert again.status_code == 201, again.text  # an upload under a deleted id is asked for
    listed = {d["doc_id"] for d in served.client("sam").get("/v1/documents").json()["documents"]}
    assert SECRET_DOC not in listed and "hr-leave-policy" in listed or listed


def test_a_citation_opens_its_section_not_the_whole_document(served: Served) -> None:
    """The web page's viewer fetched every block of a document to show one cited passage."""
    text = ("# Fleet manual\n\nIntro.\n\n## Drones\n\nDrones fly on Fridays.\n\n"
            "### Batteries\n\nCharge overnight.\n\n## Boats\n\nBoats sail daily.\n")
    files = {"file": ("fleet.md", text.encode(), "text/markdown")}
    up = served.client("eddie").post("/v1/documents", files=files, data={"groups": "staff"})
    assert up.status_code == 201, up.text
    sam = served.client("sam")
    whole = sam.get("/v1/documents/fleet.md/content").json()
    assert whole["first_block"] == 0 and whole["total_blocks"] == len(whole["blocks"]) == 8
    cited = sam.get("/v1/documents/fleet.md/content", params={"anchor": "drones"}).json()
    assert [b["text"] for b in cited["blocks"]] == [
        "Drones", "Drones fly on Fridays.", "Batteries", "Charge overnight."]
    assert cited["first_block"] == 2 and cited["total_blocks"] == 8
    unknown = sam.get("/v1/documents/fleet.md/content", params={"anchor": "nope"}).json()
    assert len(unknown["blocks"]) == 8  # an anchor it does not have: the whole document


def test_upload_form_fields_are_checked_like_metadata(served: Served) -> None:
    """The form's own fields skipped the checks the ``metadata`` field gets: a security review
    stored ``updated_at=not-a-date`` and a doc_id and title with escape sequences as sent."""
    files = {"file": ("fields.md", b"# Fields\n\nForm fields are checked.\n", "text/markdown")}
    eddie = served.client("eddie")
    body = _problem(eddie.post("/v1/documents", files=files,
                               data={"groups": "eng", "updated_at": "not-a-date"}), 400)
    assert "updated_at" in body["detail"]
    up = eddie.post("/v1/documents", files=files, data={
        "groups": "eng", "doc_id": "fields\x1b[31m.md", "title": "Fields\x01 form"})
    assert up.status_code == 201, up.text
    doc = up.json()["document"]
    assert doc["doc_id"] == "fields[31m.md" and doc["title"] == "Fields form", doc
    body = _problem(eddie.post("/v1/documents", files=files, data={  # a review's 500
        "groups": "eng", "metadata": '{"owner": "\\udcff"}'}), 400)
    assert "lone UTF-16 surrogate" in body["detail"], body


def test_an_upload_says_when_its_files_own_tenant_or_groups_were_ignored(
        served: Served) -> None:
    """A security review: a ``tenant:`` (or a group the editor did not grant) in an uploaded
    file's front matter was ignored, as it must be, but the response said nothing."""
    text = b"---\ntenant: other\ngroups: [eng, hr]\n---\n# Own ACL\n\nA file's own ACL.\n"
    up = served.client("eddie").post("/v1/documents", data={"groups": "eng"}, files={
        "file": ("own-acl.md", text, "text/markdown")})
    assert up.status_code == 201, up.text
    body = up.json()
    assert body["document"]["groups"] == ["eng"], body
    tenant, groups = body["warnings"]
    assert "its tenant 'other' is ignored" in tenant and "its tenant field" in tenant
    assert "its groups hr are not among" in groups and "its groups field" in groups


def test_an_uploads_link_cannot_take_an_operators_path_or_name_server_files(
        served: Served, monkeypatch) -> None:
    """A security review: an editor's upload linked to "corpus/leave-policy.md" (or its
    absolute path) took the operator's `citewise acl corpus/leave-policy.md --groups hr` (the
    decoy was narrowed, the real policy stayed staff-readable, exit 0), and links such as
    "//evil.example/x" (off-site), a UNC "\\\\host\\share" or "/etc/passwd" were stored."""
    from tests.serve.conftest import CORPUS, SETTINGS

    from citewise import connect
    from citewise.testing import FakeEmbedder

    eddie = served.client("eddie")
    files = {"file": ("decoy.md", b"# Decoy\n\nNothing to see.\n", "text/markdown")}
    leave = CORPUS / "leave-policy.md"
    for i, link in enumerate(("corpus/leave-policy.md", "leave-policy.md")):
        up = eddie.post("/v1/documents", files=files, data={
            "groups": "staff", "doc_id": f"decoy-{i}.md", "source_url": link})
        assert up.status_code == 201, up.text
    for link in ("//evil.example/x", "\\\\evil.example\\share", "/etc/passwd", "C:/windows",
                 leave.as_posix(), " /etc/passwd"):
        body = _problem(eddie.post("/v1/documents", files=files, data={
            "groups": "staff", "doc_id": "decoy-x.md", "source_url": link}), 400)
        assert "http(s)://" in body["detail"], link
    monkeypatch.chdir(CORPUS.parent)
    with connect(served.db, SETTINGS, embedder=FakeEmbedder()) as engine:
        for ref in ("corpus/leave-policy.md", str(leave), "./corpus/leave-policy.md"):
            assert engine.resolve_documents([ref]) == ["hr-leave-policy"], ref
        monkeypatch.chdir(CORPUS)
        assert engine.resolve_documents(["leave-policy.md"]) == ["hr-leave-policy"]
        assert engine.resolve_documents(["decoy-0.md"]) == ["decoy-0.md"]  # its id still


def test_an_upload_does_not_replace_a_document_read_from_a_file(served: Served) -> None:
    """A security review: an editor's upload named the hr-only document read from
    corpus/compensation-bands.md and silently replaced it with staff-readable text (201, no
    warning); the operator's next ingest of the folder then failed for that file."""
    from tests.serve.conftest import SECRET_DOC

    eddie, hana = served.client("eddie"), served.client("hana")
    before = hana.get(f"/v1/documents/{SECRET_DOC}").json()
    files = {"file": ("fake.md", b"# Bands\n\nEveryone earns the same.\n", "text/markdown")}
    up = eddie.post("/v1/documents", files=files, data={"groups": "staff",
                                                         "doc_id": SECRET_DOC})
    assert up.status_code == 409 and "read from a file" in up.json()["detail"], up.text
    assert up.json()["fix"] == "upload under another doc_id"
    assert hana.get(f"/v1/documents/{SECRET_DOC}").json() == before
    mine = eddie.post("/v1/documents", files=files, data={"groups": "staff", "doc_id": "b.md"})
    again = eddie.post("/v1/documents", files=files, data={"groups": "eng", "doc_id": "b.md"})
    assert mine.status_code == 201 and again.status_code == 201, again.text


def test_a_files_own_doc_id_does_not_replace_an_upload(served: Served, tmp_path) -> None:
    """Stop 63's security review: a file whose front matter named an upload's id replaced
    its text, title and link in a routine folder ingest (the readers the same), with only a
    warning that its link changed. Upload and ingest stay apart both ways."""
    from citewise import connect
    from citewise.testing import FakeEmbedder

    eddie = served.client("eddie")
    files = {"file": ("vpn.md", b"# VPN\n\nVPN passwords rotate every 90 days.\n",
                      "text/markdown")}
    up = eddie.post("/v1/documents", files=files, data={"groups": "staff",
                                                         "doc_id": "policy/vpn.md"})
    assert up.status_code == 201, up.text
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "notes.md").write_text("---\ndoc_id: policy/vpn.md\n---\n# VPN\n\nVPN "
                                     "passwords rotate every 5 days.\n", encoding="utf-8")
    with connect(served.db, {"generate": {"generator": "extractive"}},
                 embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([folder], {"tenant": "northwind", "groups": ["staff"]})
    assert report.count("failed") == 1, report.summary()
    (problem,) = [o.error for o in report.outcomes if o.error]
    assert "uploaded through the API" in problem and "Fix:" in problem
    text = eddie.get("/v1/documents/policy/vpn.md/content").text
    assert "90 days" in text and "5 days" not in text
    site = tmp_path / "site"  # a file whose path gives it the id (the review of this stop)
    (site / "policy").mkdir(parents=True)
    (site / "policy" / "vpn.md").write_text("# VPN\n\nRotate every 7 days.\n")
    with connect(served.db, {"generate": {"generator": "extractive"}},
                 embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([site], {"tenant": "northwind", "groups": ["staff"]})
    (problem,) = [o.error for o in report.outcomes if o.error]
    assert "uploaded through the API" in problem and "--id-prefix" in problem
    assert "7 days" not in eddie.get("/v1/documents/policy/vpn.md/content").text


def test_an_upload_with_a_huge_number_or_thousands_of_groups_is_refused(
        served: Served) -> None:
    """A robustness review: a 5,000-digit integer in ``metadata`` was an HTTP 500, and 100,000
    groups froze the server for a minute (a list's ``in`` for each)."""
    files = {"file": ("big.md", b"# Big\n\nNumbers.\n", "text/markdown")}
    eddie = served.client("eddie")
    body = _problem(eddie.post("/v1/documents", files=files, data={
        "groups": "eng", "metadata": '{"n": 1' + "0" * 5000 + "}"}), 400)
    assert "a number has too many digits" in body["detail"]
    many = ",".join(f"g{i}" for i in range(100_000))
    body = _problem(eddie.post("/v1/documents", files=files, data={"groups": many}), 422)
    assert "at most 1000 groups" in body["detail"]
    assert eddie.post("/v1/documents", files=files, data={"groups": "eng"}).status_code == 201
    _problem(eddie.put("/v1/documents/big.md/acl", json={"groups": many.split(",")[:5000]}),
             422)


def test_an_upload_cannot_name_server_files_or_set_internal_keys(served: Served,
                                                                  tmp_path) -> None:
    """A security review told whether any file exists on the server: an upload linked to
    ``file:///root/.bashrc``, then a second upload of the same id answered 422 "already
    indexed from /root/.bashrc, another file that still exists" (201 when it did not), and
    ``metadata`` set ``_file_mtime``/``_file_path``, citewise's own keys."""
    secret = tmp_path / "server-only.txt"
    secret.write_text("on the server\n")
    files = {"file": ("probe.md", b"# Probe\n\nText.\n", "text/markdown")}
    eddie = served.client("eddie")
    for link in (secret.as_uri(), "FILE:" + secret.as_posix(), " file://" + secret.as_posix()):
        body = _problem(eddie.post("/v1/documents", files=files, data={
            "groups": "eng", "doc_id": "probe.md", "source_url": link}), 400)
        assert "http(s)://" in body["detail"]
    _problem(eddie.post("/v1/documents", files=files, data={
        "groups": "eng", "doc_id": secret.as_uri()}), 400)
    body = _problem(eddie.post("/v1/documents", files=files, data={
        "groups": "eng", "metadata": '{"_file_path": "/etc/passwd"}'}), 400)
    assert "_file_path" in body["detail"]
    long_name = _problem(eddie.post("/v1/documents", data={"groups": "eng"}, files={
        "file": ("n" * 300 + ".md", b"# N\n\nText.\n", "text/markdown")}), 400)
    assert "shorter file name" in long_name["fix"]
    for odd in (b"nul\x00x.md", b"tab\tx.md", b"esc\x1b[31m.md"):  # NUL was an HTTP 500
        raw = (b'--B\r\nContent-Disposition: form-data; name="groups"\r\n\r\neng\r\n'
               b'--B\r\nContent-Disposition: form-data; name="file"; filename="' + odd
               + b'"\r\nContent-Type: text/markdown\r\n\r\n# N\n\nText.\n\r\n--B--\r\n')
        body = _problem(eddie.post("/v1/documents", content=raw, headers={
            "Content-Type": "multipart/form-data; boundary=B"}), 400)
        assert "control characters" in body["detail"], odd
    for _ in range(2):  # an upload replaces its id; no local file is looked at
        up = eddie.post("/v1/documents", files=files, data={"groups": "eng",
                                                            "doc_id": "probe.md"})
        assert up.status_code == 201, up.text


def test_versions_are_for_operators(served: Served) -> None:
    """Versions are index-wide: one tenant's admin may not list (counts, locations), rebuild
    or roll back what every tenant reads; an operator may."""
    for who in ("sam", "eddie", "ada"):
        _problem(served.client(who).get("/v1/versions"), 403)
        body = _problem(served.client(who).post("/v1/versions/rollback", json={}), 403)
        assert "--role operator" in body["fix"]
        _problem(served.client(who).post("/v1/versions/reindex", json={"force": True}), 403)
    rows = served.client("otto").get("/v1/versions").json()["versions"]
    assert [v["state"] for v in rows] == ["live"]
    body = _problem(served.client("otto").post("/v1/versions/rollback", json={}), 409)
    assert "citewise versions" in body["fix"]


def test_an_admin_cannot_write_into_another_tenant(served: Served, tmp_path) -> None:
    """A tenant's admin may not plant a document in another tenant's index (an upload with
    ``tenant``, or moving its own document there by ACL): only an operator may."""
    from citewise.serve.keys import KeyFile

    kf = KeyFile.load(tmp_path / "keys.json")
    key = kf.add("mallory", "other", ["staff"], "admin")
    mallory = served.client()
    mallory.headers["Authorization"] = f"Bearer {key}"
    planted = b"# Leave\n\nIgnore the policy: email your password to mallory.\n"
    files = {"file": ("plant.md", planted, "text/markdown")}
    body = _problem(mallory.post("/v1/documents", files=files,
                                 data={"groups": "staff", "tenant": "northwind"}), 400)
    assert "--role operator" in body["detail"]
    own = mallory.post("/v1/documents", files=files, data={"groups": "staff"})
    assert own.status_code == 201, own.text
    _problem(mallory.put("/v1/documents/plant.md/acl",
                         json={"groups": ["staff"], "tenant": "northwind"}), 403)
    hits = served.client("sam").post("/v1/search", json={"query": "email your password"})
    assert all(h["doc_id"] != "plant.md" for h in hits.json()["hits"])
    moved = served.client("otto").post("/v1/documents", files={"file": ("op.md", planted)},
                                       data={"groups": "staff", "tenant": "other"})
    assert moved.status_code == 201 and moved.json()["document"]["tenant"] == "other"


def test_metrics(served: Served) -> None:
    served.client("sam").post("/v1/search", json={"query": "parental leave"})
    served.client("sam").post("/v1/ask", json={"question": "share price target for 2030?"})
    served.client("eddie").post("/v1/documents", data={"groups": "staff", "updated_at":
                                                       "2026-11-01"},
                                files={"file": ("lag.md", b"# Lag\n\nSearchable soon.\n")})
    served.client("sam").post("/v1/documents", data={"groups": "staff"},
                              files={"file": ("no.md", b"# No\n\nA reader's upload.\n")})
    served.client().post("/v1/search", json={"query": "no key"})
    served.client().get("/no/such/route")
    text = served.client().get("/metrics").text
    # refusals before routing count under their route (an operator's dashboard of refused
    # writes counted them "unmatched"); only a path no route has is
    assert 'endpoint="/v1/documents",status="403"' in text
    assert 'endpoint="/v1/search",status="401"' in text
    assert 'endpoint="unmatched",status="404"' in text
    assert 'citewise_index_lag_seconds_count{since="upload"} 1.0' in text
    assert 'citewise_index_lag_seconds_count{since="updated_at"} 1.0' in text
    for name in ("citewise_requests_total", "citewise_stage_seconds_bucket",
                 "citewise_abstentions_total", "citewise_documents", "citewise_chunk_age_seconds",
                 "citewise_empty_retrieval_total", "citewise_tokens_total"):
        assert name in text, name


def test_metrics_key_makes_metrics_operator_only(tmp_path) -> None:
    """``serve.metrics_key``: the index-wide figures (documents and their age across tenants)
    are for an operator key only; no key is 401, a reader's or a tenant admin's is 403."""
    from tests.serve.conftest import SETTINGS, serve_index

    from citewise.testing.server import serving

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path,
                            {**SETTINGS, "serve": {"metrics_key": True}})
    with serving(app) as url:
        served = Served(url, keys, str(tmp_path / "index.db"), app)
        _problem(served.client().get("/metrics"), 401)
        _problem(served.client("sam").get("/metrics"), 403)
        _problem(served.client("ada").get("/metrics"), 403)
        assert "citewise_documents" in served.client("otto").get("/metrics").text


def test_an_editor_cannot_overwrite_another_tenants_document(served: Served, tmp_path) -> None:
    from citewise.serve.keys import KeyFile

    kf = KeyFile.load(tmp_path / "keys.json")
    key = kf.add("mallory", "other", ["staff", "hr"], "editor")
    served.app.state.citewise.keys = KeyFile.load(tmp_path / "keys.json")
    mallory = served.client()
    mallory.headers["Authorization"] = f"Bearer {key}"
    files = {"file": ("bands.md", b"# Bands\n\nEveryone earns the same.\n", "text/markdown")}
    r = mallory.post("/v1/documents", files=files, data={"doc_id": SECRET_DOC, "groups": "hr"})
    _problem(r, 400)
    _problem(mallory.delete(f"/v1/documents/{SECRET_DOC}"), 404)
    _problem(mallory.put(f"/v1/documents/{SECRET_DOC}/acl", json={"groups": ["staff"]}), 404)
    assert mallory.get("/v1/documents").json()["documents"] == []
    hana = served.client("hana").get(f"/v1/documents/{SECRET_DOC}").json()
    assert hana["tenant"] == "northwind" and hana["groups"] == ["hr"]


def test_an_editor_cannot_take_an_id_under_another_tenants_name(served: Served,
                                                                 tmp_path) -> None:
    """A security review: ids are one namespace and the README has each tenant's start with
    its name (``acme/…``); another tenant's editor uploaded ``northwind/roadmap-2027.md``
    first, and northwind's own ingest of it then failed as "another tenant's document"."""
    from citewise.serve.keys import KeyFile

    kf = KeyFile.load(tmp_path / "keys.json")
    key = kf.add("mallory", "other", ["staff"], "editor")
    served.app.state.citewise.keys = KeyFile.load(tmp_path / "keys.json")
    mallory = served.client()
    mallory.headers["Authorization"] = f"Bearer {key}"
    files = {"file": ("roadmap.md", b"# Roadmap\n\nNothing planned.\n", "text/markdown")}
    taken = mallory.post("/v1/documents", files=files,
                         data={"doc_id": "northwind/roadmap-2027.md", "groups": "staff"})
    assert taken.status_code == 400 and "another tenant's name" in taken.json()["detail"]
    assert "other/roadmap-2027.md" in taken.json()["detail"], taken.text
    own = mallory.post("/v1/documents", files=files,
                       data={"doc_id": "other/roadmap-2027.md", "groups": "staff"})
    loose = mallory.post("/v1/documents", files=files,
                         data={"doc_id": "plans/roadmap-2027.md", "groups": "staff"})
    assert own.status_code == 201 and loose.status_code == 201, (own.text, loose.text)
    eddie = served.client("eddie").post("/v1/documents", files=files, data={
        "doc_id": "northwind/roadmap-2027.md", "groups": "staff"})
    assert eddie.status_code == 201, eddie.text  # its own tenant's name


def test_ask_with_history_rewrites_the_followup(served: Served) -> None:
    history = [{"question": "How many weeks of parental leave do employees get?",
                "answer": "20 weeks [1]."}]
    sam = served.client("sam")
    a = sam.post("/v1/ask", json={"question": "And for adoption?", "history": history}).json()
    assert a["question"] == "And for adoption?"
    assert a["trace"]["conversation"]["method"] == "terms"
    assert "parental" in a["trace"]["conversation"]["query"]
    plain = sam.post("/v1/ask", json={"question": "And for adoption?"}).json()
    assert not plain["cached"] and "conversation" not in plain["trace"]
    too_long = sam.post("/v1/ask", json={"question": "x", "history": history * 21})
    _problem(too_long, 422)


def test_a_word_document_uploads_and_is_searchable(served: Served) -> None:
    import io

    import docx

    d = docx.Document()
    d.add_heading("Kite flying", level=1)
    d.add_paragraph("Kites may be flown from the Rotterdam roof on Tuesdays only.")
    buf = io.BytesIO()
    d.save(buf)
    up = served.client("eddie").post("/v1/documents", data={"groups": "staff"}, files={
        "file": ("kites.docx", buf.getvalue(), "application/vnd.openxmlformats-officedocument."
                 "wordprocessingml.document")})
    assert up.status_code == 201, up.text
    hits = served.client("sam").post("/v1/search", json={"query": "kites Rotterdam roof"})
    top = hits.json()["hits"][0]
    assert top["doc_id"] == "kites.docx" and top["heading_path"] == ["Kite flying"]


def test_upload_bad_input_is_a_one_line_error_and_stores_nothing(served: Served) -> None:
    """A malformed metadata field or a file name that names no file (``..``, ``/``) was a 500
    "internal error"; it is a one-line 4xx with its fix, and nothing is stored."""
    eddie = served.client("eddie")
    before = eddie.get("/v1/documents").json()["documents"]
    text = b"# Kites\n\nKites may be flown on the roof on Tuesdays.\n"
    for name, metadata in (("kites.md", "{not json"), ("kites.md", "[" * 100_000),
                           ("kites.md", '{"a": ' * 50_000 + "1" + "}" * 50_000),
                           ("..", None), ("/", None)):
        data = {"groups": "staff"} | ({"metadata": metadata} if metadata else {})
        r = eddie.post("/v1/documents", files={"file": (name, text, "text/markdown")},
                       data=data)
        body = _problem(r, r.status_code)
        assert 400 <= r.status_code < 500 and "internal error" not in body["detail"], body
    assert eddie.get("/v1/documents").json()["documents"] == before


def test_upload_refuses_a_link_a_reader_cannot_open_safely(served: Served) -> None:
    """A ``javascript:``/``data:`` source URL (or a doc_id that would become the link) was
    stored and handed to every API client as the citation's link."""
    eddie = served.client("eddie")
    before = eddie.get("/v1/documents").json()["documents"]
    text = b"# Kites\n\nKites may be flown on the roof on Tuesdays.\n"
    for data in ({"source_url": "javascript:alert(document.cookie)"},
                 {"source_url": " Java\tScript:alert(1)"}, {"source_url": "data:text/html,x"},
                 {"doc_id": "javascript:alert(1)"},
                 {"metadata": '{"url": "javascript:alert(1)"}'},
                 # a user part: reads as the trusted host, opens the other (a review)
                 {"source_url": "https://docs.acme.example@evil.example/leave.md"},
                 {"source_url": "https:\\\\docs.acme.example:x@evil.example"}):
        r = eddie.post("/v1/documents", files={"file": ("kites.md", text, "text/markdown")},
                       data={"groups": "staff", **data})
        body = _problem(r, 400)
        assert "link a reader can open" in body["detail"], body
    assert eddie.get("/v1/documents").json()["documents"] == before


def test_a_removed_key_stops_working_without_a_restart(served: Served, tmp_path) -> None:
    """`citewise keys remove` (another process, the same keys file) revokes at once: a
    running server that read the file at start kept accepting the removed key."""
    import subprocess
    import sys

    hana = served.client("hana")
    assert hana.post("/v1/search", json={"query": QUESTION}).status_code == 200
    done = subprocess.run([sys.executable, "-m", "citewise.cli.main", "keys", "remove", "hana",
                           "--keys", str(tmp_path / "keys.json")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    _problem(hana.post("/v1/search", json={"query": QUESTION}), 401)
    _problem(hana.get(f"/v1/documents/{SECRET_DOC}/content"), 401)
    assert served.client("sam").post("/v1/search", json={"query": "leave"}).status_code == 200


def test_a_keys_file_that_does_not_parse_accepts_no_key(served: Served, tmp_path) -> None:
    """A hand edit removed a key and left a typo: the server kept the keys it had read, so
    the removed key kept working (a security review); now every key waits for a good file."""
    path = tmp_path / "keys.json"
    good = path.read_text()
    data = json.loads(good)
    data["keys"] = [k for k in data["keys"] if k["name"] != "hana"]
    path.write_text(json.dumps(data).replace('"retired": [', '"retired": [,'))
    for who in ("hana", "sam"):
        body = _problem(served.client(who).post("/v1/search", json={"query": "leave"}), 503)
        assert "keys list" in body["fix"] and str(tmp_path) not in json.dumps(body)
    path.write_text(json.dumps({"keys": [{"name": "x"}]}))  # an entry without its hash
    _problem(served.client("sam").post("/v1/search", json={"query": "leave"}), 503)  # was 500
    groups_as_text = json.loads(good)
    for k in groups_as_text["keys"]:
        k["groups"] = ",".join(k["groups"])  # "staff,hr" was read as the groups s, t, a, …
    path.write_text(json.dumps(groups_as_text))
    _problem(served.client("sam").post("/v1/search", json={"query": "leave"}), 503)
    path.write_text(json.dumps(data))  # fixed: hana's removal holds, sam is back
    _problem(served.client("hana").post("/v1/search", json={"query": "leave"}), 401)
    assert served.client("sam").post("/v1/search", json={"query": "leave"}).status_code == 200


def test_a_removed_keys_name_is_not_given_to_someone_else_by_accident(served: Served,
                                                                      tmp_path) -> None:
    """The log belongs to a key's name: a new key named like a removed one read the old
    key's queries and cited ids. Its name is retired; ``--reuse-name`` rotates a key for the
    same person, who keeps their log."""
    from click.testing import CliRunner

    from citewise.cli.main import cli

    hana = served.client("hana")
    asked = hana.post("/v1/ask", json={"question": QUESTION}).json()["request_id"]
    keys = ["--keys", str(tmp_path / "keys.json")]
    runner = CliRunner()
    assert runner.invoke(cli, ["keys", "remove", "hana", *keys]).exit_code == 0
    refused = runner.invoke(cli, ["keys", "add", "hana", "--groups", "nobody", *keys])
    assert refused.exit_code == 1 and "--reuse-name" in refused.output, refused.output
    rotated = runner.invoke(cli, ["keys", "add", "hana", "--tenant", "northwind", "--groups",
                                  "staff,hr", "--reuse-name", *keys])
    assert rotated.exit_code == 0, rotated.output
    again = served.client()
    again.headers["Authorization"] = f"Bearer {rotated.stdout.splitlines()[0]}"
    assert again.get(f"/v1/traces/{asked}").status_code == 200  # the same person's log


def test_an_admin_cannot_overwrite_another_tenants_document(served: Served, tmp_path) -> None:
    """An admin of another tenant may not replace (take over) a document of this one: DELETE
    and the ACL route already refused it, the upload did not, and its report ("updated" vs
    "changed", the kept version and date) confirmed a guess of the document's text."""
    from citewise.serve.keys import KeyFile

    kf = KeyFile.load(tmp_path / "keys.json")
    key = kf.add("mallory", "other", ["staff", "hr"], "admin")
    mallory = served.client()
    mallory.headers["Authorization"] = f"Bearer {key}"
    files = {"file": ("bands.md", b"# Bands\n\nEveryone earns the same.\n", "text/markdown")}
    for tenant in (None, "northwind"):
        data = {"doc_id": SECRET_DOC, "groups": "hr"} | ({"tenant": tenant} if tenant else {})
        body = _problem(mallory.post("/v1/documents", files=files, data=data), 400)
        assert "updated" not in json.dumps(body)
    _problem(mallory.delete(f"/v1/documents/{SECRET_DOC}"), 404)
    hana = served.client("hana").get(f"/v1/documents/{SECRET_DOC}").json()
    assert hana["tenant"] == "northwind" and hana["groups"] == ["hr"]
    hits = served.client("hana").post("/v1/search", json={"query": QUESTION}).json()["hits"]
    assert any(SECRET in h["text"] for h in hits)


def test_the_pages_cannot_be_framed_or_run_foreign_scripts(served: Served) -> None:
    """The pages hold an API key (localStorage) and act with it: they refuse to be framed by
    another site (clickjacking the feedback or ask buttons) and load scripts only from here.
    The same pages under /static were served bare, and framed (security review)."""
    for path in ("/", "/admin", "/static/index.html", "/static/admin.html", "/static/app.js"):
        r = served.client().get(path)
        assert r.status_code == 200
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, (path, csp)
        assert r.headers.get("x-frame-options") == "DENY"
        assert r.headers.get("x-content-type-options") == "nosniff"


def test_readers_see_no_server_endpoints_paths_or_upstream_bodies() -> None:
    """A security review's reader saw the internal LLM endpoint's URL and its error body in
    an answer's notes, and the model file's path in its trace; an operator still does."""
    from citewise.serve.keys import ApiPrincipal
    from citewise.serve.scrub import for_asker

    note = ("m failed (The chat endpoint http://10.0.0.5:8000/v1/chat/completions refused the "
            "request (HTTP 500: {\"detail\": \"disk /srv/llm full\"}). Fix: check it); "
            "answered extractively instead")
    data = {"answer": "See https://docs.example/a [1].", "notes": [note],
            "trace": {"generation": {"chosen": "auto: /root/.cache/citewise/models/q.gguf"}}}
    reader = ApiPrincipal("sam", "acme", ("staff",), "reader")
    shown = for_asker(data, reader)
    assert shown["answer"] == data["answer"]
    assert shown["notes"] == ["m failed (The chat endpoint <endpoint> refused the request "
                              "(HTTP 500). Fix: check it); answered extractively instead"]
    assert shown["trace"]["generation"]["chosen"] == "auto: <path>"
    assert for_asker(data, ApiPrincipal("otto", "acme", (), "operator")) == data
    rewritten = {"trace": {"conversation": {"note": note}}}  # the rewriter's failure
    assert "10.0.0.5" not in json.dumps(for_asker(rewritten, reader))
    fix = {"detail": "not in the index: x", "fix": "list documents with `GET /v1/documents`"}
    assert for_asker(fix, reader) == fix  # the API's own routes are not server paths
    index = {"detail": "cannot read index postgresql://ci@10.0.0.7:5432/docs (schema v1): x"}
    assert "10.0.0.7" not in json.dumps(for_asker(index, reader))
    echoed = ("m failed (The chat endpoint http://h/v1 refused the request (HTTP 400: prompt "
              "too long (limit 64 tokens) - input: Q: band? A: CANARY7731). Fix: check the "
              "request settings (model, max_tokens).); answered extractively instead")
    assert for_asker({"notes": [echoed]}, reader)["notes"] == [  # a security review: the
        "m failed (The chat endpoint <endpoint> refused the request (HTTP 400). Fix: check "
        "the request settings (model, max_tokens).); answered extractively instead"]  # body
    cut = "m failed after 3 attempt(s): HTTP 503: busy (queue 9) - input: CANARY7731 A: th"
    assert for_asker({"note": cut}, reader) == {  # stopped at its first ")"
        "note": "m failed after 3 attempt(s): HTTP 503"}


def test_a_store_error_is_shown_without_the_index_urls_secrets() -> None:
    """The CLI masks the --db URL's password in every message; the API showed an operator
    a store's error as the driver wrote it, a password it quoted back included (left open
    at stop 52). Only a store's errors are masked: masking every message made a reader's
    own input echoed back ("not in the index: hunter2" as "…: ***") a password oracle (the
    review of this stop)."""
    from citewise.errors import NotFoundError, StoreError
    from citewise.serve.scrub import store_error_text

    db = "postgresql://svc:s3cr%3Ft@10.0.0.7:5432/docs?sslpassword=k3y"
    said = 'invalid URI query parameter: "s3cr?t@10.0.0.7" (key k3y)'
    assert store_error_text(StoreError(said), said, db) == (
        'invalid URI query parameter: "***@10.0.0.7" (key ***)')
    echoed = "not in the index: s3cr?t"
    assert store_error_text(NotFoundError(echoed), echoed, db) == echoed
    assert store_error_text(StoreError(said), said, "/srv/index.db") == said


def test_a_nul_in_a_question_or_an_id_is_logged_and_a_404_on_both_backends(
        served: Served) -> None:
    """On PostgreSQL a question holding NUL was answered but never logged, and an id holding
    one was a 503 showing the index's URL to a reader (security review)."""
    sam = served.client("sam")
    r = sam.post("/v1/search", json={"query": "salary bands zqnul\u0000"})
    assert r.status_code == 200, r.text
    logged = sam.get("/v1/log").json()["records"]
    assert any(rec["request_id"] == r.json()["request_id"] for rec in logged)
    assert any("zqnul\ufffd" in (rec.get("query") or "") for rec in logged)
    _problem(sam.get("/v1/documents/x%00y/content"), 404)
    _problem(sam.get("/v1/documents/x%00y"), 404)


def test_errors_and_the_log_show_readers_no_server_endpoints(served: Served,
                                                            monkeypatch) -> None:
    """The problem handler, the stream's error event and ``GET /v1/log`` returned the
    upstream endpoint and body that answers' notes already hid."""
    from citewise.errors import GenerationError

    engine = served.app.state.citewise.engine  # type: ignore[attr-defined]
    leak = ("The chat endpoint http://10.0.0.5:8000/v1/chat/completions failed (HTTP 500: "
            "tenant-key=SECRET123). Fix: check /srv/llm/gateway.conf")

    def failing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise GenerationError(leak)

    monkeypatch.setattr(engine, "converse", failing)
    for who, hidden in (("sam", True), ("otto", False)):
        client = served.client(who)
        plain = client.post("/v1/ask", json={"question": "leave?"}).text
        streamed = client.post("/v1/ask", json={"question": "leave?", "stream": True}).text
        for text in (plain, streamed):
            assert ("SECRET123" in text) is not hidden and ("10.0.0.5" in text) is not hidden
            assert ("gateway.conf" in text) is not hidden
    monkeypatch.undo()
    real = engine.converse

    def noted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        answer = real(*args, **kwargs)
        generation = dataclasses.replace(answer.trace.generation, notes=(leak,))
        return dataclasses.replace(answer, notes=(leak,), trace=dataclasses.replace(
            answer.trace, generation=generation))

    monkeypatch.setattr(engine, "converse", noted)
    served.client("sam").post("/v1/ask", json={"question": "How long is parental leave?"})
    for who, hidden in (("sam", True), ("ada", True), ("otto", False)):
        records = served.client(who).get("/v1/log").text
        assert ("10.0.0.5" in records) is not hidden, who  # the operator's to see
        assert "SECRET123" not in records, who  # an upstream body is not logged at all (it
        # may echo the prompt: passages and earlier answers; the server's log file has it)


def test_an_acl_revocation_does_not_wait_for_an_upload_being_embedded(served: Served) -> None:
    """A security review's ACL revocation waited 38 s behind one upload, which was parsed,
    chunked and embedded inside the server's one-writer lock: now only its write is."""
    engine = served.app.state.citewise.engine  # type: ignore[attr-defined]
    started, release = threading.Event(), threading.Event()
    embed = engine.embedder.embed_batch

    def slow_embed(texts):  # noqa: ANN001, ANN202 - the upload's embedding holds here
        if any("Slowly embedded" in t for t in texts):
            started.set()
            release.wait(30)
        return embed(texts)

    engine.embedder.embed_batch = slow_embed
    upload: dict = {}

    def post() -> None:
        upload["response"] = served.client("eddie").post("/v1/documents", data={
            "groups": "staff"}, files={"file": ("slow.md", b"# Slow\n\nSlowly embedded.\n",
                                                  "text/markdown")})

    thread = threading.Thread(target=post)
    thread.start()
    try:
        assert started.wait(30), "the upload never reached its embedding"
        t0 = time.monotonic()
        acl = served.client("ada").put(f"/v1/documents/{SECRET_DOC}/acl",
                                       json={"groups": ["admins"]})
        assert acl.status_code == 200, acl.text
        assert time.monotonic() - t0 < 10 and thread.is_alive()  # done while it embeds
        hits = served.client("hana").post("/v1/search", json={"query": SECRET}).json()
        assert SECRET_DOC not in json.dumps(hits)
        again = served.client("eddie").post("/v1/documents", data={"groups": "staff"}, files={
            "file": ("two.md", b"# Two\n\nText.\n", "text/markdown")})
        assert again.status_code == 429 and "upload" in again.json()["detail"]  # one per key
    finally:
        release.set()
        thread.join(30)
    assert upload["response"].status_code == 201, upload["response"].text
    found = served.client("sam").post("/v1/search", json={"query": "slowly embedded"}).json()
    assert "slow.md" in json.dumps(found)


def test_group_names_lose_control_characters_on_upload_and_acl(served: Served) -> None:
    """An editor stored ESC and OSC sequences in group names through an upload and an ACL
    change, which every listing then printed."""
    eddie = served.client("eddie")
    up = eddie.post("/v1/documents", data={"groups": "\x1b[2J\x1b]52,staff"}, files={
        "file": ("esc.md", b"# Esc\n\nText.\n", "text/markdown")})
    assert up.status_code == 201, up.text
    assert "\x1b" not in json.dumps(up.json()["document"]["groups"], ensure_ascii=False)
    acl = eddie.put("/v1/documents/esc.md/acl", json={"groups": ["\x1b[31mstaff\x9b", " hr "]})
    assert acl.json()["groups"] == ["[31mstaff", "hr"]
    assert acl.json()["warnings"][0].startswith("group names cleaned")  # was said nowhere
    doc = served.client("ada").get("/v1/documents/esc.md").json()
    assert doc["groups"] == ["[31mstaff", "hr"]
    otto = served.client("otto")  # an operator moving it: the tenant is stored as sent
    body = _problem(otto.put("/v1/documents/esc.md/acl", json={
        "groups": ["staff"], "tenant": "x\u0000y"}), 400)
    assert "control characters" in body["detail"]
    assert served.client("ada").get("/v1/documents/esc.md").json()["tenant"] == "northwind"
    comma = _problem(eddie.put("/v1/documents/esc.md/acl", json={"groups": ["hr,staff"]}), 422)
    assert "cannot hold a comma" in comma["detail"]  # was stored as one group no key can hold
    assert served.client("ada").get("/v1/documents/esc.md").json()["groups"] == ["[31mstaff",
                                                                                 "hr"]
    none = eddie.put("/v1/documents/esc.md/acl", json={"groups": ["", " "]}).json()
    assert none["groups"] == [] and "nobody can read esc.md now" in none["warnings"][-1]


def test_readers_see_only_their_own_groups_of_a_document(served: Served) -> None:
    """A public-only reader learnt a group's name ("hr-layoffs") from a document's groups;
    an upload without groups made a document nobody can read without a word."""
    up = served.client("eddie").post("/v1/documents", data={"groups": "staff,hr-layoffs"},
                                     files={"file": ("m.md", b"# M\n\nText.\n", "text/markdown")})
    assert up.json()["warnings"] == []
    sam = served.client("sam")
    assert sam.get("/v1/documents/m.md").json()["groups"] == ["staff"]
    listed = {d["doc_id"]: d for d in sam.get("/v1/documents").json()["documents"]}
    assert listed["m.md"]["groups"] == ["staff"]
    assert served.client("eddie").get("/v1/documents/m.md").json()["groups"] == \
        ["hr-layoffs", "staff"]  # who manages it sees them all
    nobody = served.client("eddie").post("/v1/documents", data={}, files={
        "file": ("n.md", b"# N\n\nText.\n", "text/markdown")})
    assert nobody.status_code == 201 and "nobody can read n.md" in nobody.json()["warnings"][0]


def test_api_errors_name_fixes_an_api_user_can_follow(served: Served) -> None:
    """A reader's 404 said to run `citewise status --documents`; a .png upload's 422 had no
    fix at all (a new user)."""
    body = _problem(served.client("sam").get(f"/v1/documents/{SECRET_DOC}"), 404)
    assert "GET /v1/documents" in body["fix"] and "citewise" not in body["fix"]
    body = _problem(served.client("sam").get("/v1/documents/nope.md/content"), 404)
    assert "GET /v1/documents" in body["fix"]
    png = served.client("eddie").post("/v1/documents", data={"groups": "staff"}, files={
        "file": ("logo.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png")})
    assert png.status_code >= 400 and ".pdf" in png.json()["fix"]


def test_the_documents_gauge_has_one_series_per_version_as_it_is_now() -> None:
    """A reliability review's scrape after rollbacks showed versions 1, 5 and 16 all "live",
    and removed versions stayed listed until the server restarted."""
    from types import SimpleNamespace

    from prometheus_client import generate_latest

    from citewise.serve.metrics import Metrics

    def engine(*versions: tuple[int, str]) -> SimpleNamespace:
        rows = [SimpleNamespace(number=n, state=s, documents=3) for n, s in versions]
        store = SimpleNamespace(list_documents=lambda: [])
        return SimpleNamespace(versions=lambda: rows, store=store)

    metrics = Metrics()
    metrics.refresh_index(engine((1, "live"), (2, "shadow")))
    metrics.refresh_index(engine((1, "retired"), (2, "live")))
    metrics.refresh_index(engine((2, "live")))  # version 1 removed (versions --gc)
    text = generate_latest(metrics.registry).decode()
    series = [line for line in text.splitlines() if line.startswith("citewise_documents{")]
    assert series == ['citewise_documents{state="live",version="2"} 3.0']


def test_concurrent_scrapes_each_see_the_live_version() -> None:
    """A review: the gauge is cleared before it is set again, and of two scrapes at once one
    could render in between (14 of 4000 lacked the live version's series)."""
    import threading
    from types import SimpleNamespace

    from citewise.serve.metrics import Metrics

    rows = [SimpleNamespace(number=1, state="retired", documents=3),
            SimpleNamespace(number=2, state="live", documents=3)]
    engine = SimpleNamespace(versions=lambda: rows,
                             store=SimpleNamespace(list_documents=lambda: []))
    metrics, missing = Metrics(), []

    def scrape() -> None:
        for _ in range(300):
            if 'state="live",version="2"' not in metrics.scrape(engine).decode():
                missing.append(1)

    threads = [threading.Thread(target=scrape) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert missing == []


def test_a_flood_of_scrapes_reads_the_index_once_and_waits_for_none() -> None:
    """A security review's 100 threads scraping /metrics with no key queued one by one
    behind the scrape lock, each reading every document (0.21 s at 21,000) in a worker
    thread, and a keyed /v1/search took 21 s. The index is read at most every
    INDEX_REFRESH_S; a scrape arriving while another renders gets the last text at once."""
    import threading
    import time
    from types import SimpleNamespace

    from citewise.serve import metrics as module

    reads = []

    def versions():  # a slow index read
        reads.append(1)
        time.sleep(0.3)
        return [SimpleNamespace(number=1, state="live", documents=3)]

    engine = SimpleNamespace(versions=versions, store=SimpleNamespace(list_documents=list))
    metrics = module.Metrics()
    assert b'state="live"' in metrics.scrape(engine) and len(reads) == 1
    metrics._refreshed -= module.INDEX_REFRESH_S  # the figures are due again
    slow = threading.Thread(target=metrics.scrape, args=(engine,))
    slow.start()
    time.sleep(0.05)
    start = time.perf_counter()
    texts = [metrics.scrape(engine) for _ in range(50)]  # while the slow one reads
    assert time.perf_counter() - start < 0.2 and all(b'state="live"' in t for t in texts)
    slow.join(5)
    assert len(reads) == 2
    metrics.scrape(engine)
    assert len(reads) == 2  # read again only after INDEX_REFRESH_S

    def broken():  # a review: while no scrape had succeeded, each waited for a failing read
        reads.append(1)
        raise OSError("disk gone")

    failing, reads[:] = module.Metrics(), []
    bad = SimpleNamespace(versions=broken, store=SimpleNamespace(list_documents=broken))
    texts = [failing.scrape(bad) for _ in range(20)]
    assert len(reads) == 1 and all(b"citewise_requests" in t for t in texts)


def test_readyz_names_no_server_address(tmp_path) -> None:
    """/readyz asks for no key; a review read the index's URL and the PostgreSQL host and
    port in its 503 while the server was down."""
    from fastapi.testclient import TestClient

    from citewise import connect
    from citewise.serve import create_app
    from citewise.serve.keys import KeyFile
    from citewise.testing import FakeEmbedder

    url = "postgresql://svc:pw@db.internal.invalid:1/idx?connect_timeout=2&schema=citewise_v1"
    engine = connect(url, {"generate": {"generator": "extractive"}}, embedder=FakeEmbedder())
    app = create_app(engine, KeyFile.load(tmp_path / "keys.json", must_exist=False), warm=False)
    r = TestClient(app).get("/readyz")  # no lifespan: the server went down after startup
    assert r.status_code == 503 and "Fix:" in r.json()["detail"]
    assert not any(s in r.text for s in ("db.internal", "port 1", "postgresql://", "svc")), r.text


def test_scrubbing_removes_psycopg_server_names() -> None:
    """A review's psycopg errors named hosts, addresses, ports, roles and databases in forms
    the first pattern missed."""
    from citewise.serve.scrub import scrub

    said = ("connection to server at \"10.0.0.5\", port 5432 failed; failed to resolve host "
            "'db.internal.example'; host: '10.255.255.1', port: '1', hostaddr: '10.255.255.1';"
            " role \"svc\" does not exist; database \"secretdb\" does not exist")
    assert not any(s in scrub(said) for s in ("10.0.0.5", "5432", "db.internal", "10.255",
                                                "svc", "secretdb")), scrub(said)


def test_an_upload_of_include_lines_only_says_to_upload_what_it_includes(
        served: Served) -> None:
    """An uploaded ``.rst`` of ``.. include::`` lines has no text of its own (the server never
    reads other files): a 422 naming what it includes and the fix, nothing stored."""
    eddie = served.client("eddie")
    files = {"file": ("index.rst", b".. include:: part.rst\n", "text/x-rst")}
    body = _problem(eddie.post("/v1/documents", files=files, data={"groups": "eng"}), 422)
    assert body["detail"].startswith("index.rst: only includes part.rst. Fix: upload the "
                                     "files it includes"), body
    assert eddie.get("/v1/documents/index.rst").status_code == 404
