"""The gate's lookup of names in every readable document (:mod:`citewise.answer.word_evidence`):
the index stems with Porter's original algorithm, which folds "LFS" to "lf"; a new user of
git's documentation asked about Git LFS and was answered about LF line endings."""

from __future__ import annotations

from pathlib import Path

from citewise.answer.word_evidence import word_lookup
from citewise.config import Settings
from citewise.engine import Engine
from citewise.generate.extractive import ExtractiveGenerator
from citewise.testing import FakeEmbedder
from citewise.types import Principal

DEV = Principal.of("dev")


def _engine(tmp_path: Path) -> Engine:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "attributes.md").write_text(
        "# gitattributes\n\nIn Git, set text=auto to convert CRLF to LF line endings. A "
        "binary file keeps its LF bytes.\n", encoding="utf-8")
    (docs / "history.md").write_text(
        "# The Norman conquest\n\nThe Norman army landed at Pevensey. Café owners fled.\n",
        encoding="utf-8")
    (docs / "secret.md").write_text("# Storage\n\nUse zqstore for large files.\n",
                                    encoding="utf-8")
    engine = Engine(tmp_path / "x.db", Settings(), embedder=FakeEmbedder())
    engine.ingest_files([docs], {"groups": ["dev"]})
    engine.set_acl("secret.md", ["ops"])
    return engine


def test_an_acronym_the_index_stems_to_another_word_is_not_found(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        has_word = word_lookup(engine.store, DEV)
        assert engine.store.search_sparse("lfs", 5, DEV)  # what BM25 alone said
        assert not has_word("lfs")
        assert has_word("lf") and has_word("normans") and has_word("norman")
        assert has_word("cafe") and has_word("pevensey")
        assert not has_word("zqstore")  # in a document dev may not read
        assert word_lookup(engine.store, Principal.of("ops"))("zqstore")


def test_a_question_about_an_acronym_no_document_holds_is_declined(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        answer = engine.ask("How do I set up Git LFS for large binary files?", DEV,
                            generator=ExtractiveGenerator())
    assert answer.declined, answer.answer
    assert answer.trace.gate.missing == ("lfs",), answer.trace.gate


def test_a_name_a_top_passage_holds_is_never_absent(tmp_path: Path) -> None:
    """The review of this stop: "HTTPS" is ``http`` to the index, and 80 pages of "HTTP"
    came before the one top passage that said it, so the question was declined."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(120):
        (docs / f"http{i:03d}.md").write_text(
            f"# HTTP note {i}\n\nThe HTTP client sends HTTP requests; HTTP status {200 + i} "
            "is logged by the HTTP layer.\n", encoding="utf-8")
    (docs / "gateway.md").write_text(
        "# Gateway connections\n\nThe gateway accepts HTTPS connections on port 443 with "
        "the certificate the operations team installed.\n", encoding="utf-8")
    with Engine(tmp_path / "x.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_files([docs], {"groups": ["dev"]})
        answer = engine.ask("Does the gateway accept HTTPS connections?", DEV,
                            generator=ExtractiveGenerator())
    assert answer.trace.gate.missing == (), answer.trace.gate
