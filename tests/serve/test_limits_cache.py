"""Rate limits, size limits and the permission-keyed caches, through a real server."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import httpx
from tests.serve.conftest import SECRET_DOC, SETTINGS, Served, serve_index

from citewise.testing.server import serving


def test_rate_limit_and_body_limit(tmp_path: Path) -> None:
    settings = {**SETTINGS, "serve": {"rate_per_minute": 6, "burst": 3, "max_body_bytes": 2000}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)
    with serving(app) as url:
        s = Served(url, keys, "", app)
        sam = s.client("sam")
        codes = [sam.post("/v1/search", json={"query": f"leave {i}"}).status_code
                 for i in range(4)]
        assert codes == [200, 200, 200, 429]
        r = sam.post("/v1/search", json={"query": "leave"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert "serve.rate_per_minute" in r.json()["fix"]
        assert s.client("hana").post("/v1/search", json={"query": "leave"}).status_code == 200
        big = s.client("eddie").post("/v1/documents", files={"file": ("a.md", b"x" * 5000)},
                                     data={"groups": "staff"})
        assert big.status_code == 413 and "serve.max_body_bytes" in big.json()["fix"]
        long_q = s.client("ada").post("/v1/search", json={"query": "x" * 2500})
        assert long_q.status_code in (413, 429)


def test_cache_is_keyed_by_permissions_and_invalidated_by_writes(db_url: str,
                                                                 tmp_path: Path) -> None:
    keys, app = serve_index(db_url, tmp_path)
    query = {"query": "salary band midpoint Director", "top_k": 20}
    with serving(app) as url:
        s = Served(url, keys, "", app)

        def search(who: str) -> dict:
            return s.client(who).post("/v1/search", json=query).json()

        first = search("sam")
        assert not first["cached"] and search("sam")["cached"]
        hana = search("hana")  # another permission set: never sam's entry
        assert not hana["cached"]
        assert SECRET_DOC in {h["doc_id"] for h in hana["hits"]}
        assert SECRET_DOC not in {h["doc_id"] for h in search("sam")["hits"]}
        ada = search("ada")  # same tenant and groups as hana: the same readable chunks
        assert ada["cached"] and ada["hits"] == hana["hits"]
        ask = {"question": "What is the salary band midpoint for a Director?"}
        assert not s.client("hana").post("/v1/ask", json=ask).json()["cached"]
        assert s.client("hana").post("/v1/ask", json=ask).json()["cached"]
        assert not s.client("sam").post("/v1/ask", json=ask).json()["cached"]

        assert s.client("ada").delete(f"/v1/documents/{SECRET_DOC}").status_code == 200
        after = search("hana")
        assert not after["cached"] and SECRET_DOC not in {h["doc_id"] for h in after["hits"]}
        answer = s.client("hana").post("/v1/ask", json=ask).json()
        assert not answer["cached"]
        assert SECRET_DOC not in {c["doc_id"] for c in answer["citations"]}


_OTHER_PROCESS = """
import json, sys
from citewise import connect
from citewise.testing import FakeEmbedder
db, settings, verb, doc_id, groups = sys.argv[1:]
with connect(db, json.loads(settings), embedder=FakeEmbedder()) as other:
    if verb == "delete":
        other.delete([doc_id])
    else:
        other.set_acl(doc_id, groups.split(","))
"""


def _in_another_process(db: str, verb: str, doc_id: str, groups: str = "") -> None:
    """An Engine write in a separate Python process (as `citewise delete` would do it)."""
    subprocess.run([sys.executable, "-c", _OTHER_PROCESS, db, json.dumps(SETTINGS), verb,
                    doc_id, groups], check=True, timeout=120)


def test_cache_sees_writes_from_another_process(db_url: str, tmp_path: Path) -> None:
    """An ACL change and a delete by another process change the store's write generation
    (SQLite: meta.generation; PostgreSQL: citewise_catalog.generations), so the server's
    cached results for them are never served again."""
    keys, app = serve_index(db_url, tmp_path)
    query = {"query": "salary band midpoint Director", "top_k": 20}
    with serving(app) as url:
        hana = Served(url, keys, db_url, app).client("hana")
        assert SECRET_DOC in {h["doc_id"] for h in hana.post("/v1/search", json=query).json()[
            "hits"]}
        assert hana.post("/v1/search", json=query).json()["cached"]
        _in_another_process(db_url, "set_acl", SECRET_DOC, "finance")
        after_acl = hana.post("/v1/search", json=query).json()
        assert not after_acl["cached"]
        assert SECRET_DOC not in {h["doc_id"] for h in after_acl["hits"]}
        assert hana.post("/v1/search", json=query).json()["cached"]
        _in_another_process(db_url, "delete", SECRET_DOC)
        after = hana.post("/v1/search", json=query).json()
        assert not after["cached"]
        assert SECRET_DOC not in {h["doc_id"] for h in after["hits"]}


def test_drift_refuses_windows_of_too_many_buckets(tmp_path: Path) -> None:
    """One admin request of a long window in short buckets built a list per bucket (100000d
    by 1d: 10^5; 1000000000d: 10^9, the server's memory): refused with the fix, as is a
    bucket of 0 (it divided by zero: a 500)."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url:
        ada = Served(url, keys, "", app).client("ada")
        ada.post("/v1/search", json={"query": "parental leave"})
        ok = ada.get("/v1/admin/drift", params={"window": "30d", "bucket": "1d"})
        assert ok.status_code == 200 and len(ok.json()["series"]) == 30
        for window, bucket in (("1d", "1s"), ("100000d", "1d"), ("30d", "0s"),
                               ("9" * 400 + "d", "1d")):
            r = ada.get("/v1/admin/drift", params={"window": window, "bucket": bucket})
            assert r.status_code == 400, (window, bucket, r.status_code)
            assert "bucket" in r.json()["detail"] and r.json()["fix"]


def test_drift_reads_no_traces_and_runs_one_at_a_time_per_tenant(tmp_path: Path) -> None:
    """A security review's admin asked for a month of drift over 10,000 records ten times at
    once: each read every record's trace (about 7 KB) under the log's lock, which every
    request's write waits on, and another tenant's search took 20 s."""
    import threading

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    st = app.state.citewise
    with serving(app) as url:
        ada = Served(url, keys, "", app).client("ada")
        ada.post("/v1/ask", json={"question": "How long is parental leave?"})
        read, started, go = st.log.records, threading.Event(), threading.Event()

        def slow(*args, **kwargs):
            started.set()
            go.wait(10)
            return read(*args, **kwargs)

        st.log.records = slow
        first: list[httpx.Response] = []
        thread = threading.Thread(target=lambda: first.append(ada.get("/v1/admin/drift")))
        thread.start()
        assert started.wait(10)
        second = ada.get("/v1/admin/drift")
        go.set()
        thread.join(10)
        assert second.status_code == 429 and "one at a time" in second.json()["fix"]
        assert "of this tenant are still running" in second.json()["detail"]
        assert first[0].status_code == 200 and first[0].json()["total"]["asks"] == 1
        (light,) = [r for r in read(light=True) if r.kind == "ask"]
        assert light.trace == {} and light.query == "" and light.latencies_ms


def test_cache_scope_principal_keeps_each_askers_entries_apart(tmp_path: Path) -> None:
    """``serve.cache_scope: principal``: a colleague with the same permissions no longer
    gets a (fast, ``cached``) hit that tells them someone asked the same question; the
    asker's own repeat still hits."""
    settings = {**SETTINGS, "serve": {"cache_scope": "principal"}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)
    query = {"query": "salary band midpoint Director", "top_k": 20}
    ask = {"question": "Is anyone in my team about to be let go?"}
    with serving(app) as url:
        s = Served(url, keys, "", app)
        for route, body in (("/v1/search", query), ("/v1/ask", ask)):
            assert not s.client("hana").post(route, json=body).json()["cached"]
            assert not s.client("ada").post(route, json=body).json()["cached"], route
            assert s.client("hana").post(route, json=body).json()["cached"]
            assert s.client("ada").post(route, json=body).json()["cached"]


def test_a_cached_answer_never_shows_another_principals_question(tmp_path: Path) -> None:
    """Principals with the same permissions share cache entries; the answer served from the
    cache must not carry the first asker's own wording of the question."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    mine = "How many weeks of PARENTAL leave do I get? (asked by Eddie, on his own)"
    theirs = " ".join(mine.lower().split())
    history = [{"question": "What is the leave policy?", "answer": ""}]
    with serving(app) as url:
        s = Served(url, keys, "", app)
        for extra in ({}, {"history": history}, {"stream": True}):
            s.client("eddie").post("/v1/ask", json={"question": mine, **extra}).read()
            r = s.client("sam").post("/v1/ask", json={"question": theirs, **extra})
            assert r.status_code == 200, r.text
            assert "PARENTAL" not in r.text and "Eddie" not in r.text, extra


def test_a_chunked_body_over_the_limit_is_a_413(tmp_path: Path) -> None:
    """Without Content-Length the limit is counted as the body arrives; the refusal must be
    the 413 with its fix (it came back as 400 "error parsing the body")."""
    settings = {**SETTINGS, "serve": {"max_body_bytes": 2000, "max_json_bytes": 1000}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)

    def chunks(payload: bytes):  # a generator: httpx sends it chunked, without a length
        for i in range(0, len(payload), 500):
            yield payload[i:i + 500]

    with serving(app) as url:
        s = Served(url, keys, "", app)
        search = json.dumps({"query": "leave " * 1000}).encode()
        r = s.client("sam").post("/v1/search", content=chunks(search),
                                 headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and "serve.max_json_bytes" in r.json()["fix"], r.text
        boundary = "xYz"
        form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"big.md\"\r\n\r\n").encode() + b"x" * 5000 + \
            f"\r\n--{boundary}--\r\n".encode()
        r = s.client("eddie").post(
            "/v1/documents", content=chunks(form),
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert r.status_code == 413 and "serve.max_body_bytes" in r.json()["fix"], r.text
        assert s.client("sam").post("/v1/search", json={"query": "leave"}).status_code == 200


def test_no_key_is_refused_before_the_body_is_read(tmp_path: Path) -> None:
    """A route checked its key after FastAPI had read and parsed the body: a client with no
    key got 400 for malformed deep JSON, and made the server parse 25 MB before its 401."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, SETTINGS)
    deep = b'{"query": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    with serving(app) as url:
        s = Served(url, keys, "", app)
        r = s.client().post("/v1/search", content=deep,
                            headers={"Content-Type": "application/json"})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", r.text
        bad = httpx.post(f"{url}/v1/ask", content=deep, timeout=30,
                         headers={"Authorization": "Bearer nope", "Content-Type": "text/json"})
        assert bad.status_code == 401 and "unknown API key" in bad.json()["detail"]
        big = s.client("sam").post("/v1/search", json={"query": "leave", "pad": "x" * 300_000})
        assert big.status_code == 413 and "serve.max_json_bytes" in big.json()["fix"]
        assert s.client("sam").post("/v1/search", json={"query": "leave"}).status_code == 200


def test_reading_documents_is_rate_limited_like_search(tmp_path: Path) -> None:
    """Every document a reader may open could be copied whole in one loop of
    ``GET /v1/documents/{id}/content`` while search and ask were limited."""
    settings = {**SETTINGS, "serve": {"rate_per_minute": 6, "burst": 3}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)
    with serving(app) as url:
        sam = Served(url, keys, "", app).client("sam")
        docs = sam.get("/v1/documents").json()["documents"]
        codes = [sam.get(f"/v1/documents/{docs[0]['doc_id']}/content").status_code
                 for _ in range(3)]
        assert codes == [200, 200, 429]  # the listing spent the first token
        assert "serve.rate_per_minute" in sam.get("/v1/documents").json()["fix"]


class _HeldGenerator:
    """Writes one token, then waits for ``release`` (a model busy with a long answer)."""

    model_id = "held"

    def __init__(self) -> None:
        import threading

        self.release = threading.Event()
        self.finished = 0

    def generate(self, prompt, *, max_tokens=512, on_token=None, timeout_s=None):  # noqa: ANN001, ANN201
        from citewise.types import Generation

        if on_token is not None:
            on_token("Parental ")
        self.release.wait(30)
        if on_token is not None:
            on_token("leave [S1].")
        self.finished += 1
        return Generation(text="Parental leave [S1].", model_id=self.model_id)


def test_one_key_cannot_hold_every_worker_with_asks(tmp_path: Path) -> None:
    """A security review's one reader key sent 30 asks at once; each held a worker thread
    while it waited for the one model, and nobody got an answer (not even /healthz)."""
    import threading

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    held = _HeldGenerator()
    app.state.citewise.engine._generator = held  # type: ignore[attr-defined]
    with serving(app) as url:
        s = Served(url, keys, "", app)
        codes: list[int] = []

        def ask(i: int) -> None:
            codes.append(s.client("sam").post("/v1/ask", json={
                "question": f"How many weeks of parental leave? ({i})"}).status_code)

        running = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
        for t in running:
            t.start()
        try:
            for _ in range(100):  # both asks hold their slots
                if app.state.citewise.asks._running.get("sam") == 2:  # type: ignore[attr-defined]
                    break
                threading.Event().wait(0.05)
            third = s.client("sam").post("/v1/ask", json={"question": "And contractors?"})
            assert third.status_code == 429 and "serve.asks_per_key" in third.json()["fix"]
            assert s.client().get("/healthz").status_code == 200
            assert s.client("hana").get("/v1/me").status_code == 200
        finally:
            held.release.set()
            for t in running:
                t.join(30)
        assert codes == [200, 200]
        with s.client("sam").stream("POST", "/v1/ask", json={
                "question": "How many weeks of parental leave?", "stream": True}) as r:
            next(r.iter_lines())  # read the start, then go away
        for _ in range(100):  # the abandoned stream gave its slot back
            if "sam" not in app.state.citewise.asks._running:  # type: ignore[attr-defined]
                break
            threading.Event().wait(0.05)
        assert "sam" not in app.state.citewise.asks._running  # type: ignore[attr-defined]
        assert s.client("sam").post("/v1/ask", json={"question": "Leave?"}).status_code == 200


def test_an_abandoned_stream_stops_the_model_while_the_check_holds_its_text(
        tmp_path: Path) -> None:
    """Run through a real server: once the stream showed only checked sentences, a client
    that went away while the model's text was held back (nothing written to it) was noticed
    only when the answer was done, and the model ran to the end."""
    import threading

    from citewise.testing.fakes import SlowGenerator

    unsupported = SlowGenerator(tokens=300, delay_s=0.02)
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    app.state.citewise.engine._generator = unsupported  # type: ignore[attr-defined]
    with serving(app) as url:
        s = Served(url, keys, "", app)
        with s.client("sam").stream("POST", "/v1/ask", json={
                "question": "How many weeks of parental leave?", "stream": True}) as r:
            next(r.iter_lines())  # read the start, then go away
        for _ in range(100):
            if unsupported.written:
                break
            threading.Event().wait(0.05)
        threading.Event().wait(4)  # 200 tokens' time: had it gone on, it would be past 200
        assert unsupported.written < 100  # stopped soon after the client left


def test_a_streamed_ask_whose_client_leaves_is_still_logged(tmp_path: Path) -> None:
    """A reliability review: a client that read the answer's text (the ``token`` event) and
    closed the stream before the ``answer`` event left no log record (46 of 359 answered
    asks under load), so closing the connection early kept an ask out of the audit log."""
    import threading

    from citewise.testing.fakes import SlowGenerator

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    log = app.state.citewise.log  # type: ignore[attr-defined]
    with serving(app) as url:
        s = Served(url, keys, "", app)
        question = {"question": "How many weeks of parental leave?", "stream": True}
        with s.client("sam").stream("POST", "/v1/ask", json=question) as r:
            list(r.iter_lines())  # read to the end: the answer is cached, one token event
        with s.client("sam").stream("POST", "/v1/ask", json=question) as r:
            rid = r.headers["x-request-id"]
            lines = r.iter_lines()
            for line in lines:
                if line.startswith("event: token"):
                    assert "20 weeks" in next(lines)  # the whole text: now go away
                    break
        app.state.citewise.engine._generator = SlowGenerator(  # type: ignore[attr-defined]
            tokens=300, delay_s=0.02)
        with s.client("sam").stream("POST", "/v1/ask", json={
                "question": "And for contractors?", "stream": True}) as r:
            cut = r.headers["x-request-id"]
            next(r.iter_lines())  # the start only: the model is still writing
        for _ in range(100):
            if "sam" not in app.state.citewise.asks._running:  # type: ignore[attr-defined]
                break
            threading.Event().wait(0.05)
    for _ in range(100):  # written by a thread of its own, off the event loop
        if {r.request_id for r in log.records()} >= {rid, cut}:
            break
        threading.Event().wait(0.05)
    answered = log.get(rid)
    assert answered.cached and answered.cited and answered.validation == "ok"
    gone = log.get(cut)
    assert gone.reason == "client_gone" and not gone.declined and gone.validation is None
    from citewise.reqlog.monitor import rates

    drift = rates([answered, gone])  # the cut ask found nothing: not an empty retrieval
    assert drift.asks == 1 and drift.rates["empty_retrieval"] == 0.0


@contextlib.contextmanager
def _one_ask_held(tmp_path: Path, serve: dict, extra_keys: dict | None = None):  # noqa: ANN202
    """A served index (``serve`` settings) whose key ``sam`` holds one ask, its model held
    until ``finish()`` (or the block's end); yields the :class:`Served`, the codes the held
    ask got and ``finish``."""
    import threading

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, {**SETTINGS, "serve": serve})
    if extra_keys:
        from citewise.serve.keys import KeyFile

        for name, tenant in extra_keys.items():
            keys[name] = KeyFile.load(tmp_path / "keys.json").add(name, tenant, ["staff"],
                                                                  "reader")
    held = _HeldGenerator()
    app.state.citewise.engine._generator = held  # type: ignore[attr-defined]
    with serving(app) as url:
        s = Served(url, keys, "", app)
        codes: list[int] = []
        first = threading.Thread(target=lambda: codes.append(s.client("sam").post(
            "/v1/ask", json={"question": "How many weeks of parental leave?"}).status_code))
        first.start()
        try:
            for _ in range(100):
                if app.state.citewise.asks._running.get("sam"):  # type: ignore[attr-defined]
                    break
                threading.Event().wait(0.05)

            def finish() -> None:
                held.release.set()
                first.join(30)
            yield s, codes, finish
        finally:
            held.release.set()
            first.join(30)


def test_many_keys_cannot_hold_every_worker_with_asks_either(tmp_path: Path) -> None:
    """A reliability review: asks were capped per key only, so many keys, each within its
    own limit, could hold every worker thread. ``serve.asks_total`` caps them all."""
    with _one_ask_held(tmp_path, {"asks_total": 1}) as (s, codes, finish):
        other = s.client("hana").post("/v1/ask", json={"question": "And contractors?"})
        assert other.status_code == 429 and "serve.asks_total" in other.json()["fix"]
        assert s.client("hana").post("/v1/search", json={"query": "leave"}).status_code == 200
        finish()
        assert codes == [200]
        assert s.client("hana").post("/v1/ask", json={"question": "Leave?"}).status_code == 200


def test_reading_the_request_log_is_rate_limited_and_paged(tmp_path: Path) -> None:
    """A security review: one reader key asking 50 times at once for 1,000 of its own log
    records (3.2 MB, 0.7 s each; no rate limit) made another key's search take 20 s."""
    settings = {**SETTINGS, "serve": {"rate_per_minute": 6, "burst": 6}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)
    with serving(app) as url:
        sam = Served(url, keys, "", app).client("sam")
        for _ in range(3):
            sam.post("/v1/search", json={"query": "leave"})
        page = sam.get("/v1/log", params={"limit": 2}).json()
        older = sam.get("/v1/log", params={"before": page["next_before"]}).json()
        assert len(page["records"]) == 2 and len(older["records"]) == 1
        assert older["records"][0]["at"] < page["records"][0]["at"]
        assert len(sam.get("/v1/log", params={"limit": 1000}).json()["records"]) == 3  # <= 200
        assert sam.get("/v1/traces/x").status_code == 429
        assert sam.post("/v1/feedback", json={"request_id": "0" * 32, "rating": "up"}
                        ).status_code == 429


def test_the_search_cache_keeps_the_query_s_case() -> None:
    """A security review: "-S" was served the cached ranking of a colleague's "-s" (exact
    identifiers match as written), while blanks still do not make another query."""
    from citewise.config import Settings
    from citewise.serve.cache import PermissionCache
    from citewise.types import Principal

    cache, staff = PermissionCache(8), Principal.of("staff")
    key = lambda query: cache.key("search", 1, staff, query, Settings())  # noqa: E731
    assert key("what does tar -s do?") != key("what does tar -S do?")
    assert key("what does  tar -s do?") == key("what does tar -s do? ")


def test_a_streamed_model_answer_cites_numbers_as_its_answer_does(tmp_path: Path) -> None:
    """A new user's streaming ``/v1/ask``: the ``token`` events carried the model's ``[S1]``
    and the ``answer`` event ``[1]``, the same answer in two numberings."""
    from citewise.testing import FakeGenerator

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    app.state.citewise.engine._generator = FakeGenerator(  # type: ignore[attr-defined]
        "Parental leave is 20 weeks of fully paid leave [{sid:20 weeks}].")
    with serving(app) as url:
        s = Served(url, keys, "", app)
        with s.client("sam").stream("POST", "/v1/ask", json={
                "question": "How many weeks of parental leave?", "stream": True}) as r:
            events = [(block.split("\n")[0][7:], json.loads(block.split("\n")[1][6:]))
                      for block in r.read().decode().strip().split("\n\n")
                      if block.startswith("event:")]
    final = events[-1][1]
    drafted = "".join(data["text"] for kind, data in events if kind == "token")
    assert not final["declined"] and "[1]" in final["answer"], final
    assert "[S" not in drafted and drafted.strip() == final["answer"].strip()


def test_an_upload_with_more_passages_than_allowed_is_a_413(tmp_path: Path) -> None:
    """Uploads embed one at a time: a security review's 2 MB text (4,405 passages) held
    the one upload slot for 549 s, every tenant's uploads waiting. More than
    ``serve.max_upload_chunks`` passages is refused before any is embedded, nothing stored,
    those the index has vectors of included (a second review's one paragraph repeated
    stored 19,600 passages, one embedded); a re-upload embeds only the new ones."""
    settings = {**SETTINGS, "serve": {"max_upload_chunks": 5}}
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path, settings)
    paragraphs = [f"Paragraph {i} on zqtopic{i}: " + " ".join(
        f"w{i}x{j}" for j in range(60)) + "." for i in range(30)]
    with serving(app) as url:
        eddie = Served(url, keys, "", app).client("eddie")
        r = eddie.post("/v1/documents", data={"groups": "staff"},
                       files={"file": ("long.md", "\n\n".join(paragraphs).encode())})
        assert r.status_code == 413, r.text
        assert "serve.max_upload_chunks" in r.json()["fix"] and "long.md" in r.json()["detail"]
        assert eddie.get("/v1/documents/long.md").status_code == 404
        for end, status in ((12, 201), (15, 201), (24, 413)):  # 4 passages, 5, then 8
            r = eddie.post("/v1/documents", data={"groups": "staff"}, files={
                "file": ("part.md", "\n\n".join(paragraphs[:end]).encode())})
            assert r.status_code == status, r.text
        assert r.json()["detail"].startswith("part.md: more than 5 passages")
        r = eddie.post("/v1/documents", data={"groups": "staff"}, files={
            "file": ("same.md", "\n\n".join([paragraphs[0]] * 24).encode())})
        assert r.status_code == 413, r.text


def test_reindex_through_the_api_reads_no_server_file_outside_serve_eval_dir(
        tmp_path: Path) -> None:
    """A security review's operator key sent ``{"questions": "/etc/shadow"}`` and was told
    "shadow line 1: not valid JSON" (the server ran as root), and "No such file" for a
    missing one: whether any file on the server exists and is readable. The API reads an
    eval set only from ``serve.eval_dir``, and an embedder only by a shipped name."""
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "broken.jsonl").write_text("not json\n")
    (tmp_path / "outside.jsonl").write_text("not json either\n")
    for n, eval_dir in enumerate((None, str(evals))):
        settings = {**SETTINGS, "serve": {"eval_dir": eval_dir}}
        (tmp_path / str(n)).mkdir()
        keys, app = serve_index(str(tmp_path / f"i{n}.db"), tmp_path / str(n), settings)
        with serving(app) as url:
            otto = Served(url, keys, "", app).client("otto")
            for body in ({"questions": "/etc/passwd"}, {"questions": "../outside.jsonl"},
                         {"questions": "broken.jsonl", "personas": "/etc/shadow"},
                         {"embedder": "/etc"}):
                r = otto.post("/v1/versions/reindex", json={**body, "force": True})
                assert r.status_code == 400, (body, r.text)
                text = r.json()["detail"]
                assert "passwd" not in text.split("'")[0] and "No such file" not in text
                assert "serve.eval_dir" in text or "shipped model" in text, text
            if eval_dir is not None:
                r = otto.post("/v1/versions/reindex",
                              json={"questions": "broken.jsonl", "force": True}, timeout=120)
                assert r.status_code in (400, 422) and "broken.jsonl" in r.text, r.text


def test_readers_set_through_the_api_outlive_a_reupload(tmp_path: Path) -> None:
    """Readers set with PUT …/acl are kept by a re-upload with other groups, said in a
    warning naming the API's own fix (the review of this stop: the warning showed the
    CLI's "--db INDEX" placeholder)."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url:
        eddie = Served(url, keys, "", app).client("eddie")
        page = {"file": ("plan.md", b"# Plan\n\nThe zqplan budget is 7 million.\n")}
        assert eddie.post("/v1/documents", data={"groups": "staff"}, files=page
                          ).status_code == 201
        assert eddie.put("/v1/documents/plan.md/acl", json={"groups": ["hr"]}
                         ).status_code == 200
        r = eddie.post("/v1/documents", data={"groups": "staff"}, files=page)
        assert r.status_code == 201, r.text
        assert r.json()["document"]["groups"] == ["hr"]
        [warning] = [w for w in r.json()["warnings"] if "keeps the readers" in w]
        assert "--db INDEX" not in warning and "PUT /v1/documents/plan.md/acl" in warning


def test_one_tenants_keys_cannot_hold_every_ask_slot(tmp_path: Path) -> None:
    """A security review: asks were capped per key and in all, so one tenant's keys, each
    within its own limit, could hold every slot while the other tenants' asks waited for
    the one model behind them. ``serve.asks_per_tenant`` caps a tenant's."""
    with _one_ask_held(tmp_path, {"asks_per_tenant": 1}, {"gus": "globex"}) as (
            s, codes, finish):
        same = s.client("hana").post("/v1/ask", json={"question": "And contractors?"})
        assert same.status_code == 429 and "serve.asks_per_tenant" in same.json()["fix"]
        other = s.client("gus").post("/v1/ask", json={"question": "Leave?", "dry_run": True})
        assert other.status_code == 200, other.text  # globex's slot is its own
        finish()
        assert codes == [200]
        assert s.client("hana").post("/v1/ask", json={"question": "Leave?"}).status_code == 200


def test_a_server_of_one_tenant_keeps_every_ask_slot(tmp_path: Path) -> None:
    """The review of this stop: with the tenant cap, a one-tenant server's asks were capped at
    8 of its 16. The cap applies when the keys name two tenants or more."""
    with _one_ask_held(tmp_path, {"asks_per_tenant": 1}) as (s, _, _finish):
        same = s.client("hana").post("/v1/ask", json={"question": "Leave?", "dry_run": True})
        assert same.status_code == 200, same.text
