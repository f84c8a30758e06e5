"""The gate's lookup of names in every readable document (:mod:`citewise.answer.word_evidence`):
the index stems with Porter's original algorithm, which folds "LFS" to "lf"; a new user of
git's documentation asked about Git LFS and was answered about LF line endings."""

from __future__ import annotations

from pathlib import Path

from citewise.answer.word_evidence import word_lookup
from citewise.config import Settings
from citewise.engine import Engine
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
                            generator="extractive")
    assert answer.declined, answer.answer
    assert answer.trace.gate.missing == ("lfs",), answer.trace.gate
