"""End-to-end over real SQLite and the real loaders/chunker, with the deterministic fake
embedder: ACL inside every search mode, delete, incremental ingest, ACL change, crash."""

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder
from citewise.types import Principal

MODES = ["bm25", "dense", "hybrid"]
STAFF = Principal.of("staff", tenant="acme")
HR = Principal.of("hr", tenant="acme")
# The operator grants both groups; each file's front matter narrows them to one.
OPERATOR = {"tenant": "acme", "groups": ["staff", "hr"]}

PUBLIC = """---
title: Travel policy
groups: [staff]
---
# Travel policy

## Booking
Book flights through the travel desk at least 14 days ahead.

## Per diem
The daily meal allowance is 45 euros in Europe.
"""
# The canary: the best match for "salary band" lives in a document only HR may read.
SECRET = """---
title: Salary bands
groups: [hr]
---
# Salary bands

Level 5 salary band: 98,000 to 120,000 euros. Salary band review happens in March.
"""


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    write(root, "travel.md", PUBLIC)
    write(root, "salary.md", SECRET)
    return root


@pytest.fixture
def engine(tmp_path):
    eng = Engine(tmp_path / "index.db", Settings(), embedder=FakeEmbedder())
    yield eng
    eng.close()


def doc_ids(result):
    return [h.document.doc_id for h in result.hits]


@pytest.mark.parametrize("mode", MODES)
def test_canary_never_returned_without_group(engine, corpus, mode):
    report = engine.ingest_paths([corpus], OPERATOR)
    assert report.count("new") == 2
    assert "salary.md" not in doc_ids(engine.search("salary band", STAFF, mode=mode, top_k=50))
    assert doc_ids(engine.search("salary band", HR, mode=mode))[0] == "salary.md"


@pytest.mark.parametrize("mode", MODES)
def test_tenant_isolation_and_no_groups(engine, corpus, mode):
    engine.ingest_paths([corpus], OPERATOR)
    assert engine.search("travel flights", Principal.of("staff", tenant="other"),
                         mode=mode).hits == ()
    assert engine.search("travel flights", Principal.of("", tenant="acme"), mode=mode).hits == ()
    assert "travel.md" in doc_ids(engine.search("travel flights", STAFF, mode=mode))


@pytest.mark.parametrize("mode", MODES)
def test_delete_is_immediate(engine, corpus, mode):
    engine.ingest_paths([corpus], OPERATOR)
    assert engine.delete(["salary.md"]) == 1
    assert engine.search("salary band", HR, mode=mode, top_k=50).hits == ()
    assert engine.store.get_document("salary.md") is None


def test_unchanged_reingest_embeds_nothing(engine, corpus):
    first = engine.ingest_paths([corpus], OPERATOR)
    assert first.embedded > 0
    calls = len(engine.embedder.embedded)
    again = engine.ingest_paths([corpus], OPERATOR)
    assert again.count("unchanged") == 2
    assert again.embedded == 0
    assert len(engine.embedder.embedded) == calls


def test_changed_file_reembeds_only_new_chunks(engine, corpus):
    engine.ingest_paths([corpus], OPERATOR)
    before = len(engine.embedder.embedded)
    write(corpus, "travel.md", PUBLIC.replace("45 euros", "50 euros"))
    report = engine.ingest_paths([corpus], OPERATOR)
    assert report.count("changed") == 1 and report.count("unchanged") == 1
    new_texts = engine.embedder.embedded[before:]
    assert new_texts and all("50 euros" in t for t in new_texts)
    assert engine.store.get_document("travel.md").version == 2
    hits = engine.search("meal allowance", STAFF, mode="bm25").hits
    assert "50 euros" in hits[0].chunk.text
    assert not any("45 euros" in h.chunk.text for h in hits)


@pytest.mark.parametrize("mode", MODES)
def test_acl_change_without_reembedding(engine, corpus, mode):
    engine.ingest_paths([corpus], OPERATOR)
    calls = len(engine.embedder.embedded)
    vectors = engine.store.count().vectors
    engine.set_acl("salary.md", ["staff"])
    assert doc_ids(engine.search("salary band", STAFF, mode=mode))[0] == "salary.md"
    assert engine.search("salary band", HR, mode=mode, top_k=50).hits == ()
    assert len(engine.embedder.embedded) == calls
    assert engine.store.count().vectors == vectors


def test_crash_mid_ingest_keeps_previous_state(tmp_path, corpus):
    db = tmp_path / "crash.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as eng:
        eng.ingest_paths([corpus], OPERATOR)
        before = eng.store.count()
    write(corpus, "travel.md", PUBLIC.replace("45 euros", "70 euros"))
    write(corpus, "new.md", "# New\n\nA brand new onboarding checklist for staff.\n")
    crashing = FakeEmbedder(fail_after=0)
    with Engine(db, Settings(), embedder=crashing) as eng, \
            pytest.raises(RuntimeError, match="simulated"):
        eng.ingest_paths([corpus], {"tenant": "acme", "groups": ["staff"]})
    with Engine(db, Settings(), embedder=FakeEmbedder()) as eng:
        assert eng.store.count() == before
        assert eng.store.get_document("new.md") is None
        assert eng.store.get_document("travel.md").version == 1
        hits = eng.search("meal allowance", STAFF, mode="bm25").hits
        assert "45 euros" in hits[0].chunk.text


def test_bad_files_reported_rest_ingested(engine, corpus):
    (corpus / "broken.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (corpus / "latin1.txt").write_bytes("café menu".encode() + b" \xe9")  # UTF-8 + a stray byte
    (corpus / "short.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<<")
    report = engine.ingest_paths([corpus], OPERATOR)
    failed = {Path(o.label).name: o.error for o in report.outcomes if o.status == "failed"}
    assert set(failed) == {"broken.md", "latin1.txt", "short.pdf"}
    assert all(err and "\n" not in err for err in failed.values())
    assert report.count("new") == 2


def test_query_with_other_embedder_is_refused(tmp_path, corpus):
    from citewise.errors import IndexMismatchError

    db = tmp_path / "m.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as eng:
        eng.ingest_paths([corpus], OPERATOR)
    with Engine(db, Settings(), embedder=FakeEmbedder(model_id="other")) as eng:
        with pytest.raises(IndexMismatchError, match="other"):
            eng.search("travel", STAFF, mode="dense")
        with pytest.raises(IndexMismatchError):
            eng.ingest_paths([corpus], OPERATOR)


def test_warm_up_loads_the_embedder_and_reports_a_generator_that_cannot_load(
        tmp_path: Path) -> None:
    broken = tmp_path / "mine.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)  # a user's model file that does not load
    local = {"generator": "local", "local_model": str(broken)}
    with Engine(tmp_path / "a.db", Settings.model_validate({"generate": local}),
                embedder=FakeEmbedder()) as engine:
        failed = engine.warm_up()  # serve goes on: answers fall back and say so
        assert failed and "Fix:" in failed
        assert engine.query_embedder()[1] == 0.0  # already loaded: no load time left
    absent = {"generator": "local", "local_model": str(tmp_path / "absent.gguf")}
    with Engine(tmp_path / "c.db", Settings.model_validate({"generate": absent}),
                embedder=FakeEmbedder()) as engine:
        failed = engine.warm_up()  # reported (serve logs it and goes on), not raised
        assert failed and "Fix:" in failed
    extractive = Settings.model_validate({"generate": {"generator": "extractive"}})
    with Engine(tmp_path / "b.db", extractive, embedder=FakeEmbedder()) as engine:
        assert engine.warm_up() is None


def test_front_matter_cannot_set_citewise_own_keys(tmp_path):
    """``_file_mtime``/``_file_path`` are the loader's: front matter setting them stored
    ``updated_at`` unchecked and steered the same-id-another-file check."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("---\n_file_mtime: not-a-date\n_file_path: /etc/passwd\n"
                                 "_home: /etc/passwd\n---\n# A\n\nText of a.\n")
    with Engine(tmp_path / "m.db", Settings(), embedder=FakeEmbedder()) as eng:
        assert eng.ingest_paths([folder], OPERATOR).count("new") == 1
        doc = eng.store.get_document("a.md")
    assert doc is not None and doc.updated_at and doc.updated_at[:2] == "20"
    # the internal keys are citewise's own records of the file read (ingest/ownership.py)
    # and of the groups the ingest gave and where they came from (ingest/hand_readers.py)
    assert {k: v for k, v in doc.metadata.items() if k.startswith("_")} == {
        "_home": str((folder / "a.md").resolve()), "_ingest_groups": sorted(
            doc.acl_groups), "_readers_from": "batch"}


def test_a_title_is_kept_on_one_line_and_cut_to_a_bounded_length(tmp_path: Path) -> None:
    """A security review: front matter's `title: |` kept 3,000 newlines and an upload's title
    980 KB, fenced into the prompt with every passage of the page at each ask."""
    from citewise.records import TITLE_CHARS

    (tmp_path / "docs").mkdir()
    lines = "".join(f"  line {i}\n" for i in range(3000))
    (tmp_path / "docs" / "a.md").write_text(f"---\ntitle: |\n{lines}---\n\nLockers.\n")
    (tmp_path / "docs" / "b.md").write_text(
        "---\ntitle: \"Lockers\\n\\n and  keys\"\n---\n\nKeys.\n")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([tmp_path / "docs"], {"groups": ["staff"]})
        long, short = (engine.store.get_document(d) for d in ("a.md", "b.md"))
        assert long is not None and short is not None
        assert long.title.startswith("line 0 line 1 ") and long.title.endswith("…")
        assert "\n" not in long.title and len(long.title) <= TITLE_CHARS + 1
        assert short.title == "Lockers and keys"
