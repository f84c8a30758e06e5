"""What a new user runs into in their first hour (issue 12): commands that silently do the
wrong thing must say so, and documents can be named the way the user ingested them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.hints import NO_GROUPS_HINT
from citewise.cli.main import cli

pytestmark = pytest.mark.model


def invoke(*args: str, code: int = 0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def manual(tmp_path: Path, monkeypatch) -> Path:
    """A product manual folder with pages, stylesheets, scripts and fonts, ingested from a
    sibling folder by its relative path (``../manual``), as a user does."""
    root = tmp_path / "manual"
    (root / "commands").mkdir(parents=True)
    (root / "commands" / "yank.html").write_text(
        "<html><head><title>yank</title></head><body><h1>cargo yank</h1>"
        "<p>Remove a pushed crate from the index. Yanking keeps existing lockfiles working."
        "</p></body></html>")
    (root / "commands" / "publish.html").write_text(
        "<html><head><title>publish</title></head><body><h1>cargo publish</h1>"
        "<p>Upload a package to the registry. Publishing is permanent.</p></body></html>")
    (root / "guide.md").write_text("# Guide\n\nStart with cargo new to create a package.\n")
    (root / "css").mkdir()
    (root / "css" / "site.css").write_text("body { color: black }")
    (root / "js").mkdir()
    (root / "js" / "search.js").write_text("console.log(1)")
    (root / "js" / "index.js").write_text("console.log(2)")
    (root / "fonts").mkdir()
    (root / "fonts" / "mono.woff2").write_bytes(b"wOF2\x00\x01")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return root


def test_ingest_counts_and_names_unsupported_files(manual):
    result = invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db", "--threads", "1")
    assert "3 new" in result.stdout
    assert "skipped 4 file(s)" in result.stderr
    assert "2 .js" in result.stderr and "1 .css" in result.stderr and ".woff2" in result.stderr
    data = json.loads(invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db",
                             "--json").stdout)
    assert data["skipped"] == 4
    assert sorted(Path(p).name for p in data["skipped_files"]) == [
        "index.js", "mono.woff2", "search.js", "site.css"]


def test_changelogs_and_licences_are_said_to_be_left_out_on_purpose(manual):
    """A new user of /usr/share/doc/bc read AUTHORS, copyright and changelog.Debian.gz counted
    among "file(s) of a type citewise does not read (2 (no suffix), 1 .debian.gz, …)"."""
    import gzip

    for name in ("AUTHORS", "copyright"):
        (manual / name).write_text("Ann Author\n")
    (manual / "changelog.Debian.gz").write_bytes(gzip.compress(b"bc (1.07) unstable\n"))
    result = invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db", "--threads", "1")
    assert "left out 3 changelog, author or licence file(s)" in result.stderr, result.stderr
    assert "skipped 4 file(s)" in result.stderr and "no suffix" not in result.stderr
    assert ".debian" not in result.stderr.lower()


def test_reingest_still_reports_documents_nobody_can_read(manual):
    first = json.loads(invoke("ingest", "../manual", "--db", "t.db", "--json").stdout)
    assert sorted(first["no_groups"]) == ["commands/publish.html", "commands/yank.html",
                                          "guide.md"]
    again = json.loads(invoke("ingest", "../manual", "--db", "t.db", "--json").stdout)
    assert again["unchanged"] == 3
    assert sorted(again["no_groups"]) == sorted(first["no_groups"])
    text = invoke("ingest", "../manual", "--db", "t.db")
    assert "3 document(s) have no ACL group" in text.stderr


def test_delete_and_acl_take_the_path_a_document_was_ingested_from(manual):
    invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db")
    result = invoke("delete", "../manual/commands/yank.html", "--db", "t.db")
    assert "deleted 1 document(s): commands/yank.html" in result.stdout
    absolute = manual / "commands" / "publish.html"
    acl = invoke("acl", str(absolute), "--groups", "hr", "--db", "t.db")
    assert acl.stdout.startswith("commands/publish.html: groups hr")
    assert invoke("acl", "guide.md", "--groups", "eng", "--db", "t.db").stdout.startswith(
        "guide.md: groups eng")  # the id still works
    status = json.loads(invoke("status", "--documents", "--json", "--db", "t.db").stdout)
    groups = {d["doc_id"]: d["groups"] for d in status["document_list"]}
    assert groups == {"commands/publish.html": ["hr"], "guide.md": ["eng"]}


def test_a_path_after_its_file_was_removed_still_names_the_document(manual):
    invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db")
    (manual / "guide.md").unlink()
    assert "deleted 1" in invoke("delete", "../manual/guide.md", "--db", "t.db").stdout


def test_a_path_with_a_space_or_accent_names_its_document(tmp_path, monkeypatch):
    """A source link is a percent-encoded file:// URI ("Product%20Manual"); the path a user
    types has the space. Naming such a document by its path failed ("not in the index")."""
    root = tmp_path / "Product Manual" / "Handbücher"
    root.mkdir(parents=True)
    (root / "setup.md").write_text("# Setup\n\nPlug in the unit before switching it on.\n")
    monkeypatch.chdir(tmp_path)
    invoke("ingest", "Product Manual", "--groups", "staff", "--db", "t.db")
    path = "Product Manual/Handbücher/setup.md"
    assert "deleted 1 document(s): Handbücher/setup.md" in invoke("delete", path, "--db",
                                                                 "t.db").stdout


def test_unknown_document_names_a_command_that_exists(manual):
    invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db")
    for args in (("acl", "no/such.html", "--groups", "x"), ("delete", "no/such.html")):
        result = invoke(*args, "--db", "t.db", code=1)
        assert "not in the index: no/such.html" in result.output
        assert "`citewise status --documents`" in result.output
        assert "citewise docs" not in result.output


def test_ambiguous_path_is_refused_with_the_candidates(tmp_path, monkeypatch):
    for site in ("a/docs", "y/docs"):
        (tmp_path / site).mkdir(parents=True)
        (tmp_path / site / "intro.md").write_text(f"# Intro {site}\n\nHello {site}.\n")
    monkeypatch.chdir(tmp_path)
    invoke("ingest", "a/docs", "--groups", "staff", "--db", "t.db")  # id intro.md
    invoke("ingest", "y", "--groups", "staff", "--db", "t.db")  # id docs/intro.md
    # the source paths themselves are exact
    assert "intro.md: groups hr" in invoke("acl", "a/docs/intro.md", "--groups", "hr",
                                           "--db", "t.db").stdout
    assert "docs/intro.md: groups hr" in invoke("acl", "y/docs/intro.md", "--groups", "hr",
                                                "--db", "t.db").stdout
    # a copy elsewhere whose path ends like both ids, under folders named like both roots
    result = invoke("delete", "z/y/docs/intro.md", "--db", "t.db", code=1)
    assert "ambiguous" in result.output
    assert "docs/intro.md, intro.md" in result.output
    # a same-named file under another folder is not taken for either document
    missing = invoke("delete", "other/intro.md", "--db", "t.db", code=1)
    assert "not in the index: other/intro.md" in missing.output
    assert json.loads(invoke("status", "--json", "--db", "t.db").stdout)["documents"] == 2


@pytest.fixture
def corpus_db(tmp_path: Path) -> Path:
    db = tmp_path / "c.db"
    root = Path(__file__).resolve().parents[2] / "examples"
    invoke("ingest", root / "corpus", "--db", db, "--tenant", "northwind", "--groups",
           "staff", "--meta", root / "corpus.meta.jsonl", "--threads", "1")
    return db


def test_search_and_ask_without_groups_say_why_nothing_matches(corpus_db):
    search = invoke("search", "parental leave", "--tenant", "northwind", "--db", corpus_db)
    assert "No results visible to this principal." in search.stdout
    assert NO_GROUPS_HINT in search.stderr and "--groups" in search.stderr
    ask = invoke("ask", "How long is parental leave?", "--tenant", "northwind", "--db",
                 corpus_db, "--generator", "extractive", code=3)  # 3: declined
    assert "declined" in ask.stdout
    assert NO_GROUPS_HINT in ask.stderr
    with_groups = invoke("search", "parental leave", "--tenant", "northwind", "--groups",
                         "staff", "--db", corpus_db)
    assert "note: no --groups" not in with_groups.output


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_an_empty_search_is_refused(corpus_db, query):
    result = invoke("search", query, "--groups", "staff", "--tenant", "northwind", "--db",
                    corpus_db, code=1)
    assert "the query is empty" in result.output and "Fix:" in result.output
    assert "[1]" not in result.output


@pytest.mark.parametrize(("args", "shown"), [
    (("search", "caf\udce9"), "caf\\xe9 is not UTF-8 text"),
    (("ask", "\udcff\udcfe what", "--generator", "extractive"), "\\xff\\xfe what is not"),
    (("ask", "a \ud800 b", "--generator", "extractive"), "a \\ud800 b is not UTF-8 text"),
    (("search", "leave", "--tenant", "t\udcff"), "t\\xff is not UTF-8 text"),
    (("show", "a\udcff.md"), "a\\xff.md is not UTF-8 text")])
def test_an_argument_of_bytes_that_are_not_utf8_gets_one_line(corpus_db, args, shown):
    """Bytes that are not UTF-8 on the command line reach Python as lone surrogates, which
    no tokenizer reads and SQLite refuses: a security review's `ask $'\\xff\\xfe what'`, and
    a tenant or document id of such bytes, were tracebacks."""
    verb, *rest = args
    result = invoke(verb, *rest, "--groups", "staff", "--db", corpus_db, code=1)
    assert shown in result.output and "Fix:" in result.output
    assert "Traceback" not in result.output


def test_the_library_refuses_a_question_that_is_not_text(corpus_db):
    from citewise import connect
    from citewise.errors import ConfigError
    from citewise.types import Principal

    with connect(corpus_db) as engine, pytest.raises(ConfigError, match="not UTF-8 text"):
        engine.search("caf\udce9", Principal.of("staff", tenant="northwind"))


def test_calibrate_as_a_user_who_may_read_nothing_says_so(corpus_db, tmp_path):
    labelled = Path(__file__).resolve().parents[1] / "data" / "reindex_eval.jsonl"
    rows = [r for r in labelled.read_text().splitlines() if '"persona"' not in r]
    questions = tmp_path / "set.jsonl"
    questions.write_text("\n".join(rows) + "\n")
    result = invoke("calibrate", "--questions", questions, "--groups", "staff", "--db",
                    corpus_db, code=1)  # the documents are in tenant northwind, not default
    assert "tenant default, groups staff" in result.output
    assert "Fix: pass the --tenant and --groups" in result.output


def test_a_generator_failure_is_said_not_hidden_behind_the_fallback(corpus_db, tmp_path):
    config = tmp_path / "api.json"
    config.write_text(json.dumps({"generate": {"openai": {
        "base_url": "http://127.0.0.1:9/v1", "model": "none", "timeout_s": 5}}}))
    result = invoke("ask", "How long is parental leave?", "--groups", "staff", "--tenant",
                    "northwind", "--db", corpus_db, "--generator", "openai", "--config", config)
    assert "[1] Leave Policy" in result.stdout  # the extractive fallback still answers
    assert "answered extractively instead" in result.output  # a note line (answer.notes)


def test_a_wrong_tenant_is_named_when_nothing_is_readable(corpus_db):
    search = invoke("search", "parental leave", "--groups", "staff", "--db", corpus_db)
    assert "No results visible to this principal." in search.stdout
    assert "no document in tenant 'default' may be read by groups staff" in search.stderr
    assert "northwind" not in search.stderr  # never names a tenant the user does not hold
    ask = invoke("ask", "How long is parental leave?", "--groups", "staff", "--db", corpus_db,
                 "--generator", "extractive", code=3)
    assert "tenant 'default'" in ask.stderr and "--tenant" in ask.stderr
    right = invoke("search", "zebra quantum xylophone", "--groups", "staff", "--tenant",
                   "northwind", "--db", corpus_db, "--mode", "bm25")
    assert "No results" in right.stdout and "note:" not in right.stderr


def test_an_extractive_answer_in_a_terminal_is_shown_once(corpus_db):
    """The path a user takes: a terminal, no --stream flag. Extractive answers come whole, so
    nothing is streamed ahead of the printed answer (it used to appear twice, once with
    [S1] ids), and a decline is not announced as a replaced stream."""
    import sys

    from citewise.testing.terminal import run_in_pty

    citewise = str(Path(sys.executable).with_name("citewise"))
    base = [citewise, "ask", "--groups", "staff", "--tenant", "northwind", "--db",
            str(corpus_db), "--generator", "extractive"]
    run = run_in_pty([*base, "How many weeks of parental leave do employees get?"],
                     timeout=120)
    assert run.returncode == 0, run.output
    assert run.output.count("receives 100 working days") == 1 and "[S1]" not in run.output
    declined = run_in_pty([*base, "What is the share price target for 2030?"], timeout=120)
    assert declined.returncode == 3, declined.output
    assert "not the final answer" not in declined.output


def test_a_streamed_draft_that_differs_only_in_citation_numbers_is_the_same_answer():
    from citewise.cli.ask import _bare

    assert _bare("Leave is 20 weeks [S1]. Pay continues [S1, S3].") == \
        _bare("Leave is 20 weeks [1].  Pay continues [1, 2].")
    assert _bare("PWNED-7731") != _bare("Leave is 20 weeks [1].")


def test_an_id_that_is_another_documents_path_is_ambiguous(tmp_path, monkeypatch):
    """A security review: another tenant's upload took the id "docs/hr/pay.md", and an
    operator's `citewise acl docs/hr/pay.md` (meaning the file) changed that upload instead."""
    (tmp_path / "docs" / "hr").mkdir(parents=True)
    (tmp_path / "docs" / "hr" / "pay.md").write_text("# Pay\n\nBands are reviewed in March.\n")
    (tmp_path / "decoy.md").write_text("# Decoy\n\nNothing here.\n")
    (tmp_path / "decoy.jsonl").write_text(
        '{"path": "decoy.md", "doc_id": "docs/hr/pay.md", "tenant": "globex"}\n')
    monkeypatch.chdir(tmp_path)
    invoke("ingest", "docs/hr", "--groups", "hr", "--db", "t.db")  # id pay.md
    invoke("ingest", "decoy.md", "--meta", "decoy.jsonl", "--groups", "staff", "--db", "t.db")
    result = invoke("acl", "docs/hr/pay.md", "--groups", "staff", "--db", "t.db", code=1)
    assert "ambiguous" in result.output and "pay.md of tenant default" in result.output
    assert "docs/hr/pay.md of tenant globex" in result.output
    # the id alone names the file's document; nothing was changed by the refused command
    assert "pay.md: groups staff" in invoke("acl", "pay.md", "--groups", "staff",
                                            "--db", "t.db").stdout


def test_an_upload_or_front_matter_id_cannot_look_like_a_path_elsewhere() -> None:
    from citewise.errors import IngestError
    from citewise.ingest.metadata import normalize_metadata

    for bad in ("/srv/docs/it.md", "../it.md", "a/./b.md", "C:\\docs\\it.md", "a\nb",
                "guide.md/content", "guide.md/acl"):
        with pytest.raises(IngestError, match="doc_id"):
            normalize_metadata({"doc_id": bad})
    for good in ("it.md", "guides/it.md", "q:1", "notes.acl", "a b.md"):
        assert normalize_metadata({"doc_id": good}) == {"doc_id": good}


def test_documents_ingested_without_groups_are_named_as_the_reason(manual):
    """A new user ingested with the defaults (no --groups), then passed the groups the hint
    suggested and was told to pass --tenant and --groups again: no document had a group."""
    invoke("ingest", "../manual", "--db", "t.db", "--threads", "1")
    for groups in ((), ("--groups", "staff")):
        ask = invoke("ask", "How do I remove a pushed crate?", *groups, "--db", "t.db",
                     "--generator", "extractive", code=3)
        assert "no document of this index has an ACL group" in ask.stderr, ask.stderr
        assert "ingest them again with --groups GROUP" in ask.stderr
    invoke("ingest", "../manual", "--groups", "staff", "--db", "t.db", "--threads", "1")
    ask = invoke("ask", "How do I remove a pushed crate?", "--db", "t.db",
                 "--generator", "extractive", code=3)
    assert "no --groups given" in ask.stderr
