"""The request log keeps ids, scores and the query as ``log.query`` says, never passage text:
checked through a real server, by reading the records back over ``/v1/traces`` and ``/v1/log``
as the asker and as a tenant admin outside the asker's groups."""

from __future__ import annotations

import json
from pathlib import Path

from tests.serve.conftest import SECRET, SECRET_DOC, Served, serve_index

from citewise.serve.keys import KeyFile
from citewise.testing import FakeGenerator
from citewise.testing.server import serving

EMAIL, PHONE = "alice.smith@northwind.example", "+1 415 555 0199"
KEY = "cw_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def _with_staff_admin(served: Served, tmp_path: Path) -> None:
    """An admin of the tenant who is not in hr (reads everyone's log records)."""
    kf = KeyFile.load(tmp_path / "keys.json")
    served.keys["olga"] = kf.add("olga", "northwind", ["staff"], "admin")
    served.app.state.citewise.keys = KeyFile.load(tmp_path / "keys.json")


def _hana_asks_the_director_band(served: Served) -> str:
    """hana (in hr) asks for an hr figure; the request's id."""
    answer = served.client("hana").post(
        "/v1/ask", json={"question": "What is the salary band midpoint for a Director?"})
    assert answer.status_code == 200, answer.text
    return answer.json()["request_id"]


def test_removed_model_sentences_do_not_reach_the_log(tmp_path: Path) -> None:
    """An uncited model sentence quoting an hr passage is removed from the answer; the log
    record (read by admins outside hr, exported) must not keep its text either."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    app.state.citewise.engine._generator = FakeGenerator(
        f"Directors sit at {SECRET} at the midpoint of their band.")
    with serving(app) as url:
        served = Served(url, keys, "", app)
        _with_staff_admin(served, tmp_path)
        rid = _hana_asks_the_director_band(served)
        trace = served.client("olga").get(f"/v1/traces/{rid}")
        assert trace.status_code == 200 and trace.json()["principal"] == "hana"
        assert SECRET_DOC in json.dumps(trace.json()["cited"])  # ids are kept
        assert SECRET not in trace.text
        assert SECRET not in served.client("olga").get("/v1/log").text
        removed = trace.json()["trace"]["enforce"]["removed"]
        assert removed and all(set(r) == {"why", "status"} for r in removed)


def test_redacted_query_is_not_kept_in_the_trace(tmp_path: Path) -> None:
    """``log.query: redact`` (the default) masks emails, phones and keys in the query column;
    the stored trace (rewritten follow-up, gate terms) must not keep them unmasked."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    question = f"What leave does {EMAIL} get, phone {PHONE}, key {KEY}?"
    history = [{"question": f"Tell me about {EMAIL} and the {KEY} parental leave",
                "answer": ""}]
    with serving(app) as url:
        served = Served(url, keys, "", app)
        sam = served.client("sam")
        for body in ({"question": question}, {"question": question, "history": history},
                     {"question": question, "dry_run": True}):
            r = sam.post("/v1/ask", json=body)
            assert r.status_code == 200, r.text
            record = sam.get(f"/v1/traces/{r.json()['request_id']}").json()
            assert "[email]" in record["query"]
            text = json.dumps(record)
            for secret in ("alice.smith", "alice", "0199", "AbCdEfGh", "abcdefgh"):
                assert secret not in text, (secret, body)
        # an email only in the history: the follow-up borrows its words, never the address's
        # ("alice smith acme com" was logged, past every mask)
        r = sam.post("/v1/ask", json={"question": "How many weeks is it?", "history": history})
        assert r.status_code == 200, r.text
        text = json.dumps(sam.get(f"/v1/traces/{r.json()['request_id']}").json())
        assert "parental" in text and "alice" not in text and "abcdefgh" not in text.lower()


def test_a_rewritten_followup_keeps_only_the_askers_words_in_the_log(tmp_path: Path) -> None:
    """A security review: the model rewrites a follow-up from the earlier answers too ("who
    approved it?" became "…the band is CANARYHR7731…"), and the log kept that rewrite, read by
    a tenant admin outside hr and kept after `acl` and `delete`."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    app.state.citewise.engine._generator = FakeGenerator(
        f"Who approved the Director band midpoint of {SECRET}?")
    history = [{"question": "What is the salary band midpoint for a Director?",
                "answer": f"Directors sit at {SECRET} [1]."}]
    with serving(app) as url:
        served = Served(url, keys, "", app)
        _with_staff_admin(served, tmp_path)
        answer = served.client("hana").post(
            "/v1/ask", json={"question": "Who approved it?", "history": history})
        assert answer.status_code == 200, answer.text
        asked = answer.json()["trace"]["conversation"]
        assert asked["method"].startswith("llm:") and SECRET in asked["query"]  # hana's own
        rid = answer.json()["request_id"]
        for reader in ("olga", "hana"):
            trace = served.client(reader).get(f"/v1/traces/{rid}")
            assert trace.status_code == 200 and SECRET not in trace.text, trace.text
            logged = trace.json()["trace"]["conversation"]["query"]
            assert logged.startswith("Who approved the Director band midpoint") and "…" in logged
        assert SECRET not in served.client("olga").get("/v1/log").text


def test_in_every_log_query_mode_the_gates_terms_and_notes_keep_no_hidden_text() -> None:
    """A review: in ``log.query: store`` the gate's missing terms of a rewritten follow-up
    (``canaryhr7731``, from an earlier answer the admin may not read) were kept, and the
    rewriter's note kept an upstream error body echoing the prompt."""
    from citewise.reqlog.record import loggable_trace

    trace = {"conversation": {"original": "who approved it?", "method": "llm:m",
                              "query": "Who approved the salary band CANARYHR7731?",
                              "note": "m failed: refused (HTTP 400: too long - input: A: the "
                                      "band is CANARYHR7731). Fix: check it"},
             "gate": {"missing": ["canaryhr7731", "approved"]},
             "generation": {"notes": ["refused (HTTP 400: A: CANARYHR7731). Fix: check it"]},
             "escalated": {"first_generation": {"notes": ["(HTTP 500: CANARYHR7731)"]}}}
    for mode in ("store", "redact", "hash"):
        logged = None if mode == "hash" else "who approved it?"
        kept = loggable_trace(trace, mode, logged, ("who approved it?",
                                                    "what is the salary band?"))
        assert "CANARYHR7731" not in json.dumps(kept).upper(), (mode, kept)
        assert kept["gate"]["missing"] == ([] if mode == "hash" else ["approved"]), mode
        assert kept["conversation"]["note"] == "m failed: refused (HTTP 400). Fix: check it"


def test_a_new_key_reads_its_names_records_from_its_creation_on(tmp_path: Path) -> None:
    """Servers over one PostgreSQL index share the log, not keys.json: a review's key made
    on a second server under a name the first had used read that name's hr questions. A
    key rotated with --reuse-name still reads its name's whole log."""
    import time

    from citewise.reqlog.record import LogRecord

    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    log = app.state.citewise.log
    log.write(LogRecord("old-q", time.time() - 3600, "pat", "northwind", "ask",
                        "What is the vault code?", "h"))
    kf = KeyFile.load(tmp_path / "keys.json")
    fresh = kf.add("pat", "northwind", ["staff"], "reader")  # "another server's" pat
    with serving(app) as url:
        app.state.citewise.keys = KeyFile.load(tmp_path / "keys.json")
        pat = Served(url, {"pat": fresh}, "", app).client("pat")
        assert pat.get("/v1/log").json()["records"] == []
        assert pat.get("/v1/traces/old-q").status_code == 404
        kf.remove("pat")
        rotated = kf.add("pat", "northwind", ["staff"], "reader", reuse=True)
        app.state.citewise.keys = KeyFile.load(tmp_path / "keys.json")
        same = Served(url, {"pat": rotated}, "", app).client("pat")
        assert [r["request_id"] for r in same.get("/v1/log").json()["records"]] == ["old-q"]
        assert same.get("/v1/traces/old-q").status_code == 200


def _hanas_request_as_seen(tmp_path: Path) -> tuple[dict, dict, list[dict], str]:
    """(hana's own trace of her hr question, the staff admin olga's view of it, olga's
    /v1/log records, its request id)."""
    keys, app = serve_index(str(tmp_path / "index.db"), tmp_path)
    with serving(app) as url:
        served = Served(url, keys, "", app)
        _with_staff_admin(served, tmp_path)
        rid = _hana_asks_the_director_band(served)
        own = served.client("hana").get(f"/v1/traces/{rid}").json()
        seen = served.client("olga").get(f"/v1/traces/{rid}").json()
        logged = served.client("olga").get("/v1/log").json()["records"]
    return own, seen, logged, rid


def test_an_admin_sees_pseudonyms_for_the_chunk_ids_of_someone_elses_request(tmp_path: Path):
    """A chunk id hashes its document's id, offsets and text with no secret: a security
    review's admin outside hr read an hr chunk's id in `GET /v1/log` and confirmed a guessed
    sentence of it offline. The asker still sees the real ids of their own request."""
    own, seen, logged, rid = _hanas_request_as_seen(tmp_path)
    real = {r["chunk_id"] for r in own["retrieved"]}
    assert real and all(len(c) == 32 for c in real)
    shown = {r["chunk_id"] for r in seen["retrieved"]}
    assert len(shown) == len(real) and not shown & real
    assert not any(c in json.dumps(seen) for c in real)  # nor in the trace's hits
    mine = next(r for r in logged if r["request_id"] == rid)
    assert {r["chunk_id"] for r in mine["retrieved"]} == shown  # stable pseudonyms
    assert SECRET_DOC in json.dumps(seen["retrieved"])  # which document: kept, as before


def test_an_admin_sees_no_scores_of_someone_elses_request(tmp_path: Path):
    """A security review's admin outside hr read an hr record's dense score to six decimals,
    embedded guesses of the passage with the same open model and the logged question, and
    only the true text gave that score. Someone else's record keeps ranks and timings, not
    the scores a passage's text decides; the asker still sees their own."""
    own, seen, _, _ = _hanas_request_as_seen(tmp_path)
    hits = own["trace"]["retrieval"]["hits"]
    assert hits and all(isinstance(h["score"], float) for h in hits)
    assert any(s.get("score") is not None for h in hits for s in h["signals"].values())
    assert all(v is not None for v in own["trace"]["gate"]["signals"].values())
    other = seen["trace"]["retrieval"]["hits"]
    assert [h["rank"] for h in other] == [h["rank"] for h in hits]
    assert all(h["score"] is None and all(s["score"] is None for s in h["signals"].values())
               for h in other)
    assert all(r["score"] is None for r in seen["retrieved"])
    assert set(seen["trace"]["gate"]["signals"].values()) == {None}
    assert seen["trace"]["gate"]["score"] is None
    assert seen["trace"]["timings_ms"] == own["trace"]["timings_ms"]
