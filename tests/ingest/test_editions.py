"""A PDF or text edition of a folder's HTML pages is its pages' copy, not a document of its own.

Debian's debian-reference-en ships the book as HTML chapters, a PDF and a ``.txt.gz``: a new
user's index held it three times, and the two chapters a sidecar restricted stayed readable
in the PDF and the text edition."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from click.testing import CliRunner

from citewise.cli import ingest as ingest_module
from citewise.cli.main import cli
from citewise.config import Settings
from citewise.engine import Engine
from citewise.ingest.editions import MIN_SAMPLES, format_editions, shingles
from citewise.ingest.html import HtmlLoader
from citewise.testing import FakeEmbedder
from citewise.types import Principal

WORDS = [f"{a}{b}" for a in ("quor", "sel", "dram", "vint", "op", "lek", "tarn", "bis")
         for b in ("ant", "ex", "ium", "olt", "ra", "une", "ef", "ish")]


def _prose(seed: int, sentences: int = 40) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."
            for _ in range(sentences)]


CHAPTERS = {name: _prose(seed) for seed, name in enumerate(["intro", "keys", "backup"])}
CHAPTERS["keys"][5] = "Rotate the zqvaultkey every ninety days with the keyring tool."


def _page(title: str, sentences: list[str]) -> str:
    paras = "".join(f"<p>{' '.join(sentences[i:i + 5])}</p>"
                    for i in range(0, len(sentences), 5))
    return (f"<!doctype html><html><head><title>{title}</title></head><body><main>"
            f"<h1>{title}</h1>{paras}</main></body></html>")


def _book(root: Path, make_pdf) -> Path:
    root.mkdir()
    for name, sentences in CHAPTERS.items():
        (root / f"{name}.html").write_text(_page(name.title(), sentences))
    text = "\n\n".join(f"{name.upper()}\n\n" + "\n".join(s) for name, s in CHAPTERS.items())
    (root / "book.txt.gz").write_bytes(gzip.compress(f"The Book\n\n{text}\n".encode()))
    lines = [[s[i:i + 80].replace("um ", "um") for i in range(0, len(s), 80)]  # glued
             for sentences in CHAPTERS.values() for s in sentences]  # words, as dblatex's
    (root / "book.pdf").write_bytes(make_pdf([sum(lines[i:i + 40], [])
                                              for i in range(0, len(lines), 40)]))
    (root / "NOTES.txt").write_text("\n".join(_prose(99)))  # a file of its own
    return root


def test_an_edition_is_told_from_a_file_of_its_own() -> None:
    loader = HtmlLoader()
    pages = [(Path(f"{n}.html"), loader.load(_page(n, s).encode(), Path(f"{n}.html")))
             for n, s in CHAPTERS.items()]
    whole = "\n".join(s for sentences in CHAPTERS.values() for s in sentences)
    glued = whole.replace("ex ", "ex")
    own = "\n".join(_prose(7, 80))
    half = "\n".join(CHAPTERS["intro"] + _prose(8))  # quotes one page, adds as much again
    assert len(shingles(whole)) >= MIN_SAMPLES and len(shingles(own)) >= MIN_SAMPLES
    chapters = ["\n".join(s) for s in CHAPTERS.values()]
    own_part = chapters + ["\n".join(_prose(9 + i)) for i in range(2)]  # 2 of 5 its own
    found, _ = format_editions(pages, [(Path("a.txt"), [whole]), (Path("b.pdf"), [glued]),
                                    (Path("c.txt"), [own]), (Path("d.txt"), [half]),
                                    (Path("e.txt"), [CHAPTERS["keys"][0]]),  # too short
                                    (Path("f.pdf"), own_part)])
    assert set(found) == {Path("a.txt"), Path("b.pdf")}


def test_an_edition_other_readers_get_is_kept_and_one_holding_restricted_text_named(
        ) -> None:
    """A review: a PDF the sidecar gave another tenant was skipped, and that tenant had no
    documents left. A copy given other readers than its pages is kept; one kept that holds
    a restricted page's text is named."""
    loader = HtmlLoader()
    pages = [(Path(f"{n}.html"), loader.load(_page(n, s).encode(), Path(f"{n}.html")))
             for n, s in CHAPTERS.items()]
    whole = ["\n".join(s) for s in CHAPTERS.values()]
    readers = {Path("keys.html"): '{"groups": ["admins"]}', Path("other.pdf"):
               '{"tenant": "globex"}', Path("wide.pdf"): '{"groups": ["everyone"]}'}
    found, exposed = format_editions(pages, [(Path(n), whole) for n in ("same.pdf", "other.pdf",
                                                                "wide.pdf")],
                            readers)
    assert set(found) == {Path("same.pdf")}  # its pages' readers, or fewer
    assert exposed[Path("other.pdf")] == [Path("backup.html"), Path("intro.html"),
                                          Path("keys.html")]
    assert exposed[Path("wide.pdf")] == [Path("backup.html"), Path("intro.html"),
                                         Path("keys.html")]
    same = {p: '{"groups": ["admins", "staff"]}' for p in (Path("intro.html"),
                                                          Path("backup.html"))}
    same.update({Path("keys.html"): '{"groups": ["staff", "admins"]}',
                 Path("book.pdf"): '{"groups": ["staff", "admins"]}'})
    # a review: the same groups in another order were "other readers"
    assert format_editions(pages, [(Path("book.pdf"), whole[:1] + ["\n".join(_prose(5))] * 2)],
                           same) == ({}, {})


def test_ingest_skips_a_pdf_and_a_text_edition_of_the_pages_and_names_them(
        tmp_path, make_pdf, monkeypatch) -> None:
    root, db = _book(tmp_path / "book", make_pdf), tmp_path / "i.db"
    (tmp_path / "acl.jsonl").write_text('{"path": "keys.html", "groups": ["admins"]}\n')
    monkeypatch.setattr(ingest_module, "engine_from", lambda *a, **k: Engine(
        db, Settings(), embedder=FakeEmbedder()))
    run = CliRunner()
    out = run.invoke(cli, ["ingest", str(root), "--db", str(db), "--groups", "users",
                           "--meta", str(tmp_path / "acl.jsonl"), "--no-progress", "--json"])
    assert out.exit_code == 0, out.output
    copies = json.loads(out.output)["source_copies"]
    assert sorted(c["path"] for c in copies) == ["book.pdf", "book.txt.gz"]
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        ids = {d.doc_id for d in engine.store.list_documents()}
        assert ids == {"intro.html", "keys.html", "backup.html", "NOTES.txt"}
        users = engine.search("zqvaultkey", Principal.of("users"), mode="bm25")
        assert not users.hits  # the restricted chapter is not readable in a copy
        admins = engine.search("zqvaultkey", Principal.of("admins"), mode="bm25")
        assert [h.document.doc_id for h in admins.hits] == ["keys.html"]
    said = run.invoke(cli, ["ingest", str(root), "--db", str(db), "--groups", "users",
                            "--meta", str(tmp_path / "acl.jsonl"), "--no-progress"])
    assert "a PDF or text edition of the HTML pages), e.g. book" in said.output, said.output
    named = run.invoke(cli, ["ingest", str(root / "book.pdf"), "--db", str(db), "--groups",
                             "admins", "--no-progress"])
    assert named.exit_code == 0 and "1 new" in named.output, named.output
