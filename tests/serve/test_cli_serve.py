"""The user's path: `citewise ingest`, `citewise keys add`, `citewise serve` as a subprocess
with the shipped model and default settings; then the log, monitor and feedback commands."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.serve.conftest import CORPUS, ROOT

from citewise.errors import NotFoundError
from citewise.reqlog import open_log
from citewise.reqlog.record import LogRecord
from citewise.testing.server import free_port

CW = [sys.executable, "-m", "citewise.cli.main"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run([*CW, *args], capture_output=True, text=True, cwd=ROOT, timeout=300)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def wait_ready(url: str) -> None:
    """Until the server at ``url`` answers /readyz (at most 30 s of refused connections)."""
    for _ in range(300):
        try:
            if httpx.get(f"{url}/readyz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)


@pytest.mark.model
def test_serve_from_the_command_line(tmp_path: Path) -> None:
    db, keys = str(tmp_path / "index.db"), str(tmp_path / "keys.json")
    run("ingest", str(CORPUS), "--db", db, "--tenant", "northwind", "--groups", "staff",
        "--meta", str(ROOT / "examples" / "corpus.meta.jsonl"), "--no-progress")
    key = run("keys", "add", "sam", "--tenant", "northwind", "--groups", "staff",
              "--keys", keys).stdout.strip()
    stored = json.loads(Path(keys).read_text())
    assert key not in json.dumps(stored) and len(stored["keys"][0]["sha256"]) == 64
    assert "sam" in run("keys", "list", "--keys", keys).stdout
    port = free_port()
    env = {**os.environ, "CITEWISE_MODELS_DIR": str(tmp_path / "no-models")}  # extractive
    proc = subprocess.Popen([*CW, "serve", "--db", db, "--keys", keys, "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_ready(url)
        auth = {"Authorization": f"Bearer {key}"}
        r = httpx.post(f"{url}/v1/ask", headers=auth, timeout=60,
                       json={"question": "How many weeks of parental leave do employees get?"})
        assert r.status_code == 200, r.text
        assert not r.json()["declined"] and r.json()["citations"]
        assert httpx.get(url).text.startswith("<!doctype html>")
    finally:
        proc.terminate()
        proc.wait(30)
    export = run("log", "export", "--db", db).stdout.splitlines()
    assert json.loads(export[-1])["principal"] == "sam"
    assert "parental leave" in json.loads(export[-1])["query"]


@pytest.mark.model
def test_the_banner_names_the_port_served_and_a_taken_port_is_one_line(tmp_path: Path):
    """A new user's ``--port 0`` banner said ":0"; with the port taken the banner came
    first, then uvicorn's bind error, and their requests went to the other process."""
    db, keys = str(tmp_path / "index.db"), str(tmp_path / "keys.json")
    run("ingest", str(CORPUS / "leave-policy.md"), "--db", db, "--no-progress")
    run("keys", "add", "sam", "--keys", keys)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run("serve", "--db", db, "--keys", keys, "--port", str(port), check=False)
    assert out.returncode != 0 and "citewise serve:" not in out.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr and "--port" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    env = {**os.environ, "CITEWISE_MODELS_DIR": str(tmp_path / "no-models")}  # extractive
    proc = subprocess.Popen([*CW, "serve", "--db", db, "--keys", keys, "--port", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        banner = proc.stderr.readline()
        served = int(re.search(r"http://127\.0\.0\.1:(\d+)/", banner).group(1))
        assert served != 0, banner
        wait_ready(f"http://127.0.0.1:{served}")
        assert httpx.get(f"http://127.0.0.1:{served}/healthz").status_code == 200
    finally:
        proc.terminate()
        proc.wait(30)


def test_log_purge_monitor_and_feedback_export(tmp_path: Path) -> None:
    db = str(tmp_path / "index.db")
    log = open_log(db)
    now = time.time()

    def rec(i: int, at: float, declined: bool, feedback: int | None = None) -> LogRecord:
        return LogRecord(f"r{i}", at, "sam", "northwind", "ask", f"question {i % 7}?", "h",
                         (("c1", "doc-a", 0.5),), 1, declined=declined,
                         reason="weak_evidence" if declined else None,
                         gate_passed=not declined, feedback=feedback,
                         validation=None if declined else "ok")

    for i in range(40):  # baseline week: 10 % declined
        log.write(rec(i, now - 10 * 86400 + i, declined=i % 10 == 0))
    for i in range(40, 80):  # this week: 40 % declined, one thumbs-down
        log.write(rec(i, now - 86400 + i, declined=i % 5 < 2, feedback=-1 if i == 42 else None))
    log.write(rec(99, now - 90 * 86400, declined=False))
    log.close()
    assert run("log", "purge", "--db", db).stdout.startswith("purged 1 record")
    out = run("monitor", "--window", "7d", "--db", db, check=False)
    assert out.returncode == 1 and "ALERT abstention" in out.stdout
    quiet = run("monitor", "--window", "7d", "--db", db, "--factor", "10", "--floor", "0.9",
                check=False)
    assert quiet.returncode == 0 and "no alerts" in quiet.stdout
    fresh = run("monitor", "--window", "3d", "--db", db, check=False)  # nothing 3-6 days ago
    assert fresh.returncode == 0 and "no baseline yet: 0 requests" in fresh.stdout
    searches = open_log(db)  # a week of searches before the asks began: compared (a review)
    for i in range(30):
        searches.write(LogRecord(f"s{i}", now - 4 * 86400 + i, "sam", "northwind", "search",
                                 "q", "h", (("c1", "doc-a", 0.5),)))
    searches.close()
    thin = run("monitor", "--window", "3d", "--db", db, check=False)
    assert thin.returncode == 1 and "ALERT abstention" in thin.stdout, thin.stdout
    target = tmp_path / "candidates.jsonl"
    run("feedback", "export", "--db", db, "--out", str(target), "--since", "7d")
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert rows and all(r["unconfirmed"] and r["relevant"][0]["doc"] == "doc-a" for r in rows)
    assert {r["kind"] for r in rows} <= {"feedback:thumbs_down", "feedback:declined"}
    assert len({r["question"] for r in rows}) == len(rows)
    refused = run("calibrate", "--questions", str(target), "--db", db, check=False)
    assert refused.returncode != 0 and "unconfirmed candidate" in refused.stderr, refused


def test_masking_a_huge_word_takes_linear_time() -> None:
    """A robustness review: one 80,000-character word in an ask's history took 18 s to mask
    (each pattern tried again from every position of the run)."""
    from citewise.text import mask_personal

    started = time.perf_counter()
    for word in ("a" * 80_000, "a-" * 40_000, "ab.cd" * 16_000, "x:" * 40_000):
        assert mask_personal(word) == word
    assert time.perf_counter() - started < 10.0  # a hang check: linear ~0.1 s, quadratic 30+
    assert mask_personal("ann@corp.example at foo-ABCDEFGHIJ1234567890abc") == "[email] at [key]"
    assert mask_personal("url:.ftp://bob:pw123@host -https://admin:hunter2@db.example.com") \
        == "url:.ftp://[secret]@host -https://[secret]@db.example.com"  # as before (a review)


def test_query_redaction_and_hashing() -> None:
    from citewise.reqlog import redact_query

    logged, digest = redact_query("mail ann@corp.example or +31 20 123 4567, key "
                                  "sk_live_4f9a8b7c6d5e4f3a2b1c", "redact")
    assert logged == "mail [email] or [phone], key [key]" and len(digest) == 64
    assert redact_query("anything", "hash")[0] is None
    assert redact_query("as asked 42", "store")[0] == "as asked 42"
    # the hash is of what is stored: hashing guesses for a masked email found it (an audit)
    assert digest == hashlib.sha256(logged.encode()).hexdigest()
    # a security review's secrets that stayed in the log
    logged, _ = redact_query("my password hunter2, token: abc, sk-SECRETKEY-123, jwt "
                             "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "redact")
    assert logged == "my password [secret], token: [secret], [key], jwt [key]"
    assert redact_query("how do I reset a password in the config?", "redact")[0] == \
        "how do I reset a password in the config?"
    # a second review's forms that stayed in clear text, or masked the wrong word
    leaked = {"my password is: hunter2": "my password is: [secret]",
              "the secret is: Bluefalcon": "the secret is: [secret]",
              "my password is Hunter": "my password is [secret]",
              "Passwort: geheim123": "Passwort: [secret]",
              "pass-word hunter2": "pass-word [secret]",
              "token\u200b: abc123456789": "token: [secret]",
              "https://user:pass123@host/x": "https://[secret]@host/x",
              "Bearer abc123def456ghi789": "Bearer [key]",
              "secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "secret [key]",
              "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA -----END RSA PRIVATE KEY-----"
              " ok": "[key] ok"}
    assert {q: redact_query(q, "redact")[0] for q in leaked} == leaked
    for kept in ("what is the password policy?", "which pass is best?",
                 "How do I pass the --token flag?", "Is the password required for ssh?",
                 "password issues after the upgrade?", "token issuer", "api key issuance",
                 "secret wasn't here", "basic authentication", "spinning pinned pins"):
        assert redact_query(kept, "redact")[0] == kept
    named = {"client_secret=abcd": "client_secret=[secret]",  # a third review's misses
             "DB_PASSWORD=hunter2": "DB_PASSWORD=[secret]", "pw: hunter2": "pw: [secret]",
             "password\uff1ahunter2": "password\uff1a[secret]",
             "passwort ist geheim": "passwort ist [secret]",
             "https://user:p@ss@host/x": "https://[secret]@host/x"}
    assert {q: redact_query(q, "redact")[0] for q in named} == named


def test_retention_is_applied_automatically(tmp_path: Path) -> None:
    db = str(tmp_path / "index.db")
    first = open_log(db, retention_days=1)
    first.write(LogRecord("old", time.time() - 3 * 86400, "sam", "t", "search", "q", "h"))
    first.close()  # a new server process: its first write purges what is past retention
    log = open_log(db, retention_days=1)
    log.write(LogRecord("new", time.time(), "sam", "t", "search", "q", "h"))
    assert [r.request_id for r in log.records()] == ["new"]


def test_the_server_records_its_retention_as_it_starts(tmp_path: Path) -> None:
    """An operator's server kept 86 s of log; for the first hour after each start `log
    export` without its --config read older records and `log purge` said "older than 30d".
    A log the server cannot write (a read-only index) no longer stops it starting."""
    from tests.serve.conftest import SETTINGS, build_index, make_keys

    from citewise import connect
    from citewise.reqlog import RequestLog
    from citewise.serve import create_app
    from citewise.serve.keys import KeyFile
    from citewise.testing import FakeEmbedder
    from citewise.testing.server import serving

    db = str(tmp_path / "index.db")
    build_index(db)
    keys = make_keys(tmp_path / "keys.json")
    old = open_log(db)
    old.write(LogRecord("old", time.time() - 2 * 86400, "sam", "t", "search", "q", "h"))
    old.close()

    def unwritable() -> None:
        raise OSError("attempt to write a readonly database")

    for log in (open_log(db, retention_days=1), RequestLog(unwritable, "request_log", "?")):
        engine = connect(db, SETTINGS, embedder=FakeEmbedder())
        with serving(create_app(engine, KeyFile.load(tmp_path / "keys.json"), log,
                                warm=False)) as url:
            found = httpx.post(f"{url}/v1/search", json={"query": "leave"}, timeout=30.0,
                               headers={"Authorization": f"Bearer {keys['sam']}"})
            assert found.status_code == 200, found.text
            reader = open_log(db)  # `log export` without the server's --config
            assert reader.effective_days() == 1.0
            assert [r.request_id for r in reader.records()] != ["old"]
            reader.close()


def test_a_record_past_retention_is_never_read_back(tmp_path: Path) -> None:
    """A security review: with no write since, a 40-day-old record (its question and a
    feedback comment quoting a since deleted document) was still exported and served."""
    db = str(tmp_path / "index.db")
    log = open_log(db)
    log.write(LogRecord("new", time.time(), "sam", "t", "ask", "new question?", "h"))
    log.write(LogRecord("old", time.time() - 40 * 86400, "sam", "t", "ask", "old band?", "h",
                        (("c1", "doc-a", 0.5),), declined=True, reason="weak_evidence",
                        feedback=-1, feedback_note="the band CANARY7731 looks wrong"))
    log.close()  # written after the first write's purge: still on disk
    reopened = open_log(db)  # a read-only look, as `log export` takes: nothing is purged
    assert [r.request_id for r in reopened.records()] == ["new"]
    with pytest.raises(NotFoundError):
        reopened.get("old")
    reopened.close()
    exported = run("log", "export", "--db", db).stdout
    assert "CANARY7731" not in exported and "old band" not in exported and "new question" \
        in exported
    target = tmp_path / "candidates.jsonl"
    run("feedback", "export", "--db", db, "--out", str(target))
    assert "old band" not in target.read_text()
    assert run("log", "purge", "--db", db).stdout.startswith("purged 1 record")


def test_the_servers_retention_holds_for_commands_run_without_its_config(
        tmp_path: Path) -> None:
    """An operator's trial: the server kept records 432 s (its --config), and `log export`
    run as the README shows (no --config) read 849 records past that, while `log purge`
    purged none "older than 30d"."""
    db = str(tmp_path / "index.db")
    server = open_log(db, retention_days=0.01)  # the server's writes record its retention
    server.write(LogRecord("new", time.time(), "sam", "t", "ask", "new question?", "h"))
    server.write(LogRecord("old", time.time() - 3600, "sam", "t", "ask", "hour-old?", "h"))
    server.close()
    exported = run("log", "export", "--db", db).stdout  # the default config's 30 days
    assert "hour-old" not in exported and "new question" in exported
    assert run("log", "purge", "--db", db).stdout == "purged 1 record(s) older than 0.01d\n"
    longer = open_log(db, retention_days=0.001)  # a reader's own shorter retention holds too
    assert longer.effective_days() == 0.001


def test_serving_beyond_loopback_warns_that_keys_travel_in_clear() -> None:
    from citewise.cli.serve import _loopback

    assert all(_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"))
    assert not any(_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "docs.example.com"))


def test_log_export_escapes_what_a_terminal_would_obey(tmp_path: Path) -> None:
    """A reader's query with the 8-bit CSI (U+009B) and a bidi override reached an admin's
    terminal raw through `citewise log export` (and the feedback export's file)."""
    db = str(tmp_path / "index.db")
    query = "parental leave \u009b2J\u009b31mRED \u202eevil\u202c"
    open_log(db).write(LogRecord("r1", time.time(), "sam", "northwind", "ask", query, "h",
                                 (("c1", "doc-a", 0.5),), 1, declined=True, feedback=-1,
                                 feedback_note="\u009b31m \u202eRTL"))
    out = run("log", "export", "--db", db).stdout
    assert "\u009b" not in out and "\u202e" not in out and "\\u009b" in out
    assert json.loads(out.splitlines()[-1])["query"] == query  # the text itself is kept
    path = tmp_path / "candidates.jsonl"
    run("feedback", "export", "--db", db, "--out", str(path))
    text = path.read_text(encoding="utf-8")
    assert "\u009b" not in text and "\u202e" not in text


def test_serve_listens_on_every_address_its_host_names(monkeypatch) -> None:
    """A review: binding only getaddrinfo's first address, ``--host localhost`` on a
    dual-stack machine (``::1 localhost`` first in /etc/hosts) listened on ::1 alone, and
    clients of 127.0.0.1 were refused; uvicorn binds them all."""
    from citewise.cli.serve import _listen

    real = socket.getaddrinfo

    def dual(host, port, *args, **kwargs):  # noqa: ANN001, ANN202
        if host != "localhost":
            return real(host, port, *args, **kwargs)
        six = [] if not socket.has_ipv6 else real("::1", port, *args, **kwargs)
        return six + real("127.0.0.1", port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", dual)
    sockets = _listen("localhost", 0)
    try:
        hosts = {s.getsockname()[0] for s in sockets}
        ports = {s.getsockname()[1] for s in sockets}
        assert "127.0.0.1" in hosts and len(ports) == 1 and ports != {0}
    finally:
        for s in sockets:
            s.close()


def test_redaction_masks_env_secrets_private_keys_ibans_tokens_and_passphrases() -> None:
    """A security review read these in a tenant admin's view of the request log."""
    from citewise.reqlog import redact_query

    cases = {"PGPASSWORD=Hunter2 psql": "PGPASSWORD=[secret] psql",
             "private_key: abcdEFGH1234": "private_key: [secret]",
             "IBAN NL91ABNA0417164300 salary": "IBAN [account] salary",
             "token xoxb-123456789012-1234567890123-abcdefghij": "token [key]",
             "my password: correct horse battery staple": "my password: [secret]",
             "my password is: hunter2": "my password is: [secret]",
             "how do I reset my password?": "how do I reset my password?"}
    assert {q: redact_query(q, "redact")[0] for q in cases} == cases


def test_redaction_of_a_passphrase_is_linear_in_a_run_of_spaces() -> None:
    """The review of this stop: "password: a" and 40,000 spaces took 20 s to mask."""
    import time

    from citewise.text import mask_personal

    started = time.perf_counter()
    assert mask_personal("password: a" + " " * 40_000 + "x").startswith("password: [secret]")
    assert time.perf_counter() - started < 5  # generous: 0.04 s here, 20 s before
