"""Exact identifiers (:mod:`citewise.retrieve.exact`): a question naming an option finds the
chunk that names it, a third run for RRF. A new user's "What does the --small flag of bzip2
do?" missed bzip2's ``'-s --small'`` entry in its top 16 (BM25 reads "--small" as "small"),
and the gate declined it as naming something no top passage mentions."""

from __future__ import annotations

from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.retrieve.exact import exact_run, identifiers
from citewise.testing import FakeEmbedder
from citewise.types import Principal


def test_identifiers_are_options_and_names_from_code_not_words() -> None:
    assert identifiers("What does the --small flag of bzip2 do?") == ["--small"]
    assert identifiers("set max_keepalive_connections on httpx.Client or `pool limits`") == [
        "pool limits", "max_keepalive_connections"]
    assert identifiers("is a well-known ext4 option up-to-date?") == []
    assert identifiers("Does mRNA of H2A.Z bind TCR/CD8 or p53?") == []  # SciFact's claims


def test_the_rarer_name_ranks_first_and_a_name_most_candidates_hold_counts_for_nothing():
    texts = {"a": "bzip2 compresses files.", "b": "bzip2 -s --small reduces memory.",
             "c": "Use --smaller-blocks.", "d": "bzip2 again."}
    run = exact_run(["--small", "bzip2"], texts)
    assert [(s.chunk_id, s.rank) for s in run] == [("b", 1)]  # bzip2 is in 3 of 4
    run = exact_run(["--small", "bzip2"], {**texts, "e": "x", "f": "y", "g": "z"})
    assert [s.chunk_id for s in run] == ["b", "a", "d"]  # --small (1 of 7) above bzip2 (3)


def test_the_chunk_naming_the_option_is_found_and_read_as_the_asker(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):  # pages about small things, which BM25 and the embedder like
        (docs / f"small-{i}.md").write_text(
            f"# Small things {i}\n\nA small flag makes small files smaller for small disks.\n",
            encoding="utf-8")
    (docs / "options.md").write_text(
        "# Options\n\n'-s --small' Reduce memory usage when decompressing.\n", encoding="utf-8")
    (docs / "secret.md").write_text("# Hidden\n\nThe --small switch is secret.\n",
                                    encoding="utf-8")
    settings = Settings.model_validate({})
    with Engine(tmp_path / "x.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([docs], {"groups": ["public"]})
        engine.set_acl("secret.md", ["hr"])
        result = engine.search("What does the --small flag do?", Principal.of("public"),
                               top_k=5)
    ids = [h.document.doc_id for h in result.hits]
    assert ids[0] == "options.md", ids
    assert "secret.md" not in ids and result.candidates["exact"] == 1
    assert result.hits[0].signals["exact"].rank == 1


def test_a_one_letter_option_is_an_identifier_and_keeps_its_case() -> None:
    """A new user's "What does the -u option do in diff?" missed diffutils' ``'-u'`` entry
    and its Unified Format section (BM25 reads one letter as nothing) and was declined."""
    assert identifiers("What does the -u option do in diff?") == ["-u"]
    assert identifiers("is an e-mail an x-ray? -1 is a value, IL-6 a cytokine") == []
    texts = {"a": "'-u' Use the unified output format.", "b": "'-U' unified with LINES.",
             "c": "Use diff to compare.", "d": "diff -un"}
    assert [s.chunk_id for s in exact_run(["-u"], texts)] == ["a"]
