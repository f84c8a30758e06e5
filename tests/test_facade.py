"""``citewise.connect``: the façade's verbs and their typed results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import citewise
from citewise.errors import ConfigError, NotFoundError, VersionError
from citewise.testing import FakeEmbedder

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
SETTINGS = {"generate": {"generator": "extractive"}, "gate": {"threshold": 0.0}}


@pytest.fixture
def engine(tmp_path: Path):  # noqa: ANN201
    with citewise.connect(tmp_path / "index.db", SETTINGS, embedder=FakeEmbedder()) as e:
        e.ingest_files([CORPUS], {"tenant": "northwind", "groups": ["staff"]})
        yield e


def test_connect_validates_settings(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="citewise config"):
        citewise.connect(tmp_path / "x.db", {"retrieve": {"top_k": 0}})
    with pytest.raises(ConfigError):
        citewise.connect(tmp_path / "x.db", {"no_such_section": {}})
    assert isinstance(citewise.connect(tmp_path / "x.db"), citewise.Engine)


def test_catalog_verbs(engine) -> None:  # noqa: ANN001
    status = engine.status(documents=True)
    assert status.documents == 13 and status.manifest is not None
    assert len(json.loads(json.dumps(status.to_dict()))["document_list"]) == 13
    staff = citewise.Principal.of("staff", tenant="northwind")
    assert len(engine.documents(staff)) == 12  # compensation-bands.md is hr only
    assert engine.documents(citewise.Principal.of("staff", tenant="elsewhere")) == []
    doc = engine.documents()[0]
    assert engine.document(doc.doc_id, staff) == doc
    with pytest.raises(NotFoundError):
        engine.document(doc.doc_id, citewise.Principal.of("eng", tenant="northwind"))
    versions = engine.versions()
    assert [v.state for v in versions] == ["live"] and versions[0].documents == 13
    with pytest.raises(VersionError, match="citewise versions"):
        engine.rollback()


def test_results_serialise(engine) -> None:  # noqa: ANN001
    staff = citewise.Principal.of("staff", tenant="northwind", name="sam")
    result = engine.search("parental leave", staff)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["hits"][0]["doc_id"] == result.hits[0].document.doc_id
    answer = engine.ask("How many weeks of parental leave do employees get?", staff)
    assert json.loads(json.dumps(answer.to_dict()))["citations"]


def test_ask_stream_yields_tokens_then_the_answer(engine) -> None:  # noqa: ANN001
    staff = citewise.Principal.of("staff", tenant="northwind")
    events = list(engine.ask_stream("How many weeks of parental leave?", staff))
    assert [e.kind for e in events][-1] == "answer" and events[0].kind == "token"
    assert events[-1].answer.citations
    with pytest.raises(ConfigError):
        list(engine.ask_stream("  ", staff))


def test_evaluate_writes_its_outputs(engine, tmp_path: Path) -> None:  # noqa: ANN001
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "parental leave weeks",
                                     "relevant": [{"doc": "hr-leave-policy"}]}) + "\n")
    personas = tmp_path / "p.json"
    personas.write_text(json.dumps({"default": {"groups": ["staff"], "tenant": "northwind"}}))
    result = engine.evaluate(questions, personas, out=tmp_path / "out")
    assert result.summary["questions"] == 1
    assert all(Path(p).is_file() for p in result.written)
    assert json.loads(json.dumps(result.to_dict()))["written"]


def test_closing_a_stream_stops_its_generation(engine) -> None:  # noqa: ANN001
    """A security review's abandoned streams each ran the model to the end (45 of 45); the
    stream stops also while the citation check holds every token back."""
    import threading
    import time

    from citewise.testing.fakes import SlowGenerator

    slow = engine._generator = SlowGenerator(tokens=200, delay_s=0.01)
    gone = threading.Event()
    threading.Timer(0.05, gone.set).start()  # nothing was shown: the check holds "w0 w1…"
    with pytest.raises(Exception, match="nobody reads this answer"):
        list(engine.ask_stream("How many weeks of parental leave?",
                               citewise.Principal.of("staff", tenant="northwind"), gone=gone))
    time.sleep(0.5)
    assert slow.written < 30  # it stopped at the next token after the reader left, not at 200


def test_section_opens_what_a_citation_links_to(engine) -> None:  # noqa: ANN001
    staff = citewise.Principal.of("staff", tenant="northwind")
    doc = engine.document("sec-data-classification", staff)
    whole = engine.section(doc.doc_id, staff)
    assert whole.found and whole.first_block == 0 and len(whole.blocks) == whole.total_blocks
    anchor = next(b.anchor for b in whole.blocks if b.text == "Handling rules")
    cited = engine.section(f"{doc.source_url}#{anchor}", staff)  # the link `ask` prints
    assert cited.found and cited.blocks[0].text == "Handling rules"
    assert 0 < len(cited.blocks) < whole.total_blocks
    local = str(CORPUS / "data-classification.md")
    assert engine.section(local, staff, anchor=anchor) == cited  # the path it was read from
    assert engine.section(f"{doc.doc_id}#{anchor}", staff) == cited
    missing = engine.section(doc.doc_id, staff, anchor="no-such-section")
    assert not missing.found and len(missing.blocks) == missing.total_blocks
    assert json.loads(json.dumps(cited.to_dict()))["blocks"][0]["kind"] == "heading"
    hr_only = engine.document("hr-compensation-bands-2026")
    for ref in (hr_only.doc_id, hr_only.source_url, f"{hr_only.source_url}#equity"):
        with pytest.raises(NotFoundError, match="not in the index"):  # as if it did not exist
            engine.section(ref, staff)


def test_a_link_two_readable_documents_share_opens_neither(tmp_path: Path) -> None:
    """A security review's upload took the official handbook's link (and a later date), and
    the `citewise show LINK` pasted from the answer printed the upload's text."""
    (tmp_path / "leave.md").write_text("# Leave\n\nStaff get 30 days of leave.\n")
    (tmp_path / "fake.md").write_text("# Leave\n\nStaff get 60 days of leave.\n")
    link = "https://docs.acme.example/leave-policy.md"
    with citewise.connect(tmp_path / "index.db", SETTINGS, embedder=FakeEmbedder()) as e:
        e.ingest_files([tmp_path / "leave.md"], {"groups": ["staff"], "source_url": link})
        staff = citewise.Principal.of("staff")
        assert e.section(f"{link}#leave", staff).document.doc_id == "leave.md"
        e.ingest_files([tmp_path / "fake.md"], {"groups": ["staff"], "source_url": link})
        shown = r"link of 2 documents .*fake\.md, leave\.md.*show .fake\.md#leave."
        with pytest.raises(ConfigError, match=shown):
            e.section(f"{link}#leave", staff)
        assert e.section("leave.md", staff).document.doc_id == "leave.md"
        e.set_acl("fake.md", ["hr"])  # one the reader may not read is no match
        assert e.section(link, staff).document.doc_id == "leave.md"
