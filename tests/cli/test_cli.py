"""The CLI end to end on the bundled corpus with the real shipped model (as `make demo`)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
META = ROOT / "examples" / "corpus.meta.jsonl"
RESTRICTED = "hr-compensation-bands-2026"  # compensation-bands.md, hr only
# A phrase only the restricted document contains.
SECRET = "68,000"

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "demo.db"
    result = invoke("ingest", str(CORPUS), "--db", str(path), "--tenant", "northwind",
                    "--groups", "staff", "--meta", str(META), "--no-progress")
    assert "13 new" in result.output and "0 failed" in result.output
    return path


def invoke(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args))
    if ok:
        assert result.exit_code == 0, result.output
    return result


def search_json(db, query, groups, *extra):
    out = invoke("search", query, "--db", str(db), "--tenant", "northwind", "--groups", groups,
                 "--json", *extra).output
    return json.loads(out)


def test_answerable_question_finds_the_right_section(db):
    hits = search_json(db, "How many days of parental leave do employees get?", "staff")
    assert hits[0]["doc_id"] == "hr-leave-policy"
    assert hits[0]["anchor"] == "parental-leave"
    assert hits[0]["source"].endswith("leave-policy.md#parental-leave")
    assert "100 working days" in hits[0]["text"]
    assert set(hits[0]) >= {"rank", "score", "doc_id", "chunk_id", "title", "heading_path",
                            "anchor", "source", "text"}


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_restricted_document_invisible_to_staff_visible_to_hr(db, mode):
    query = "What is the salary band for level L4?"
    staff = invoke("search", query, "--db", str(db), "--tenant", "northwind", "--groups",
                   "staff", "--mode", mode, "--top-k", "50", "--json", "--explain").output
    assert RESTRICTED not in staff and "compensation-bands" not in staff
    assert SECRET not in staff
    hr = search_json(db, query, "hr", "--mode", mode)
    assert hr and all(h["doc_id"] == RESTRICTED for h in hr)


def test_reingest_embeds_nothing(db):
    result = invoke("ingest", str(CORPUS), "--db", str(db), "--tenant", "northwind",
                    "--groups", "staff", "--meta", str(META), "--no-progress", "--json")
    report = json.loads(result.output)
    assert report["unchanged"] == 13 and report["chunks_embedded"] == 0


def test_explain_shows_filter_ranks_and_scores(db):
    out = invoke("search", "error code E42", "--db", str(db), "--tenant", "northwind",
                 "--groups", "staff", "--explain", "--top-k", "2").output
    assert "filter: tenant = 'northwind'" in out
    assert "bm25 #" in out and "dense #" in out and "fused" in out


def test_no_groups_sees_nothing(db):
    assert search_json(db, "parental leave", "") == []


def test_acl_and_delete_round_trip(tmp_path):
    db = tmp_path / "x.db"
    invoke("ingest", str(CORPUS / "leave-policy.md"), "--db", str(db), "--groups", "staff",
           "--no-progress")
    invoke("acl", "hr-leave-policy", "--groups", "hr", "--db", str(db))
    assert search_json_default(db, "parental leave", "staff") == []
    assert search_json_default(db, "parental leave", "hr")
    assert "deleted 1" in invoke("delete", "hr-leave-policy", "--db", str(db)).output
    assert search_json_default(db, "parental leave", "hr") == []
    missing = invoke("delete", "nope", "--db", str(db), ok=False)
    assert missing.exit_code == 1 and "not in the index: nope" in missing.output


def search_json_default(db, query, groups):
    return json.loads(invoke("search", query, "--db", str(db), "--groups", groups,
                             "--json").output)


def test_bad_files_get_one_line_errors(tmp_path, bad_docs):
    docs = bad_docs
    result = CliRunner().invoke(cli, ["ingest", str(docs), "--db", str(tmp_path / "b.db"),
                                      "--groups", "staff", "--no-progress"])
    assert result.exit_code == 0
    assert "1 new" in result.output and "3 failed" in result.output
    failures = [line for line in result.output.splitlines() if line.startswith("failed:")]
    assert len(failures) == 3
    assert any("image.md" in f for f in failures) and any("UTF-8" in f for f in failures)


def test_status_and_config(db):
    out = invoke("status", "--db", str(db), "--json").output
    status = json.loads(out)
    assert status["documents"] == 13 and status["manifest"]["embedder_dim"] == 384
    assert json.loads(invoke("config").output)["retrieve"]["rrf_k"] == 60


def test_status_text_lists_documents(db):
    out = invoke("status", "--db", str(db), "--documents").output
    assert "documents: 13" in out and "embedder: sentence-transformers/all-MiniLM-L6-v2" in out
    assert "hr-compensation-bands-2026" in out and "groups=hr" in out
    assert "documents: 13" in invoke("status", "--db", str(db)).output


def test_sql_shows_the_acl_inside_the_bm25_query(db):
    out = invoke("search", "parental leave", "--db", str(db), "--tenant", "northwind",
                 "--groups", "staff", "--sql").output
    assert "MATCH :allowed" in out and "acl: (" in out and "tenant:" in out
    # a group the index does not hold prints the same SQL as one it does (names swapped)
    unknown = invoke("search", "parental leave", "--db", str(db), "--tenant", "northwind",
                     "--groups", "nobody", "--sql").output
    assert unknown.replace("nobody", "staff") == out
    nothing = invoke("search", "parental leave", "--db", str(db), "--groups", "",
                     "--sql").output
    assert nothing.startswith("-- no query is run")


@pytest.mark.parametrize("command", [["search", "x", "--groups", "a"], ["status"],
                                     ["delete", "d"], ["acl", "d", "--groups", "a"]])
def test_reading_commands_refuse_a_missing_index(tmp_path, command):
    db = tmp_path / "missing.db"
    result = invoke(*command, "--db", str(db), ok=False)
    assert result.exit_code == 1 and "no index at" in result.output
    assert not db.exists()


def test_snippet_centres_on_the_rarest_query_term():
    from citewise.cli.search import snippet

    text = "error " * 80 + "E42 means lift overload. " + "error " * 80
    out = snippet(text, "what does error E42 mean", width=60)
    assert "E42 means lift overload" in out and out.startswith("…") and out.endswith("…")
    assert snippet("short text", "anything") == "short text"


def test_a_search_hit_names_and_links_the_section_its_snippet_is_in(tmp_path):
    """A chunk merging a glossary's small entries was listed under, and linked to, its first
    entry whatever the query matched (`citewise ask` already cited the quoted entry)."""
    (tmp_path / "glossary.md").write_text(
        "# Glossary\n\n## FPU\n\nFloating-point unit.\n\n## HAL\n\n"
        "A hardware abstraction layer crate.\n", encoding="utf-8")
    db = str(tmp_path / "g.db")
    invoke("ingest", str(tmp_path), "--groups", "g", "--db", db, "--no-progress")
    out = invoke("search", "hardware abstraction", "--groups", "g", "--db", db).output
    assert "[1] Glossary › HAL  (file://" in out and "glossary.md#hal" in out, out


def test_documents_without_groups_are_flagged(tmp_path):
    (tmp_path / "open.md").write_text("# Open\n\nNo groups were given for this file.\n")
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path / "open.md"), "--db",
                                      str(tmp_path / "g.db"), "--no-progress"])
    assert result.exit_code == 0
    assert "1 document(s) have no ACL group, so nobody can read them (open.md)" in result.output


def test_exclude_leaves_out_a_folders_translations_and_says_so(tmp_path):
    """Rust by Example ships es/, ja/, ko/ and zh/ beside its English pages; a new user could
    only leave them out by naming about 30 folders one by one."""
    book = tmp_path / "book"
    for rel, text in {"intro.md": "# Intro\n\nEnglish.\n", "es/intro.md": "# Intro\n\nTexto.\n",
                      "ch/c.md": "# C\n\nChapter.\n", "ch/es/x.md": "# X\n\nOtro.\n",
                      "LICENSE.txt": "licence\n"}.items():
        (book / rel).parent.mkdir(parents=True, exist_ok=True)
        (book / rel).write_text(text)
    db = str(tmp_path / "x.db")
    out = invoke("ingest", str(book), "--groups", "public", "--exclude", "es", "--exclude",
                 "*.txt", "--no-progress", "--json", "--db", db).output
    report = json.loads(out[out.index("{"):])
    assert report["new"] == 2, report
    assert any("--exclude left out 3" in w for w in report["warnings"]), report
    listed = invoke("status", "--documents", "--db", db).output
    assert "intro.md" in listed and "ch/c.md" in listed and "es/" not in listed
    assert "LICENSE" not in listed


def test_the_readers_changed_warning_names_this_index(tmp_path):
    """A new user re-ingested with ``--db`` and was told to run ``citewise acl … --db INDEX``,
    a placeholder to fill in; the command names the index the ingest wrote."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "po.md").write_text("# PO files\n\nTranslators edit PO files.\n")
    db = tmp_path / "my index.db"
    for groups in ("i18n", "users"):
        result = invoke("ingest", str(tmp_path / "docs"), "--groups", groups, "--db", str(db),
                        "--no-progress")
    assert f"citewise acl --groups i18n --db '{db}' -- po.md" in result.output
    assert "INDEX" not in result.output


def test_an_ingest_that_changes_web_links_says_so(tmp_path):
    """A new user of the AWS CLI's examples re-ingested one folder with their base URL, as a
    fix told them to, and 51 pages' links lost their folder, reported as "metadata-only"."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    args = ("ingest", str(tmp_path / "docs"), "--db", str(tmp_path / "i.db"), "--groups",
            "staff", "--no-progress", "--base-url")
    invoke(*args, "https://x.example/")
    result = invoke(*args, "https://y.example/")
    assert "changed the links of 1 document(s), e.g. a.md: https://x.example/a.md -> " \
           "https://y.example/a.md" in result.output
    assert "changed the links" not in invoke(*args, "https://y.example/").output


def test_migrate_names_the_url_form_of_an_absolute_path(db):
    """An operator's `--from sqlite:///work/ops/sqlite.db` read the relative path
    work/ops/sqlite.db: "no index at", with no word on the four-slash form."""
    relative = str(db).lstrip("/")
    result = CliRunner().invoke(cli, ["migrate", "--from", f"sqlite:///{relative}", "--to",
                                      "postgresql://u@127.0.0.1:1/none"])
    assert result.exit_code == 1
    assert f"Fix: --from sqlite:////{relative} (or --from /{relative})" in result.output
