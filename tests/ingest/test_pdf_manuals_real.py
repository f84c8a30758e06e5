"""Real PDF manuals made by two different tool chains, from Debian packages (never bundled in
the repo; `.ci/docsites` installs them): libtasn1's manual (GNU Texinfo → pdfTeX: "Chapter N:
Title PAGE" headers, bare page numbers on chapter pages, a table of contents) and the Shared
MIME-info spec (DocBook → LaTeX: the spec's name on top of every page, page numbers below).
Every outline entry becomes a heading, no running header or table-of-contents line is
indexed, and a passage found by search names the section and page it is on. The libtasn1
manual's printed table of contents, read as a PDF without bookmarks would be, gives the same
sections on the same pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from citewise.config import Settings
from citewise.engine import Engine
from citewise.ingest.pdf import PdfLoader
from citewise.ingest.pdf_layout import body_lines, furniture_shapes, outline, toc_outline
from citewise.testing import FakeEmbedder
from citewise.types import Principal

pytestmark = pytest.mark.slow
MANUALS = {  # path, a running header, (a quoted passage, its section path, its page)
    "texinfo-libtasn1": (Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
                         re.compile(r"Chapter \d+: [A-Z]"),
                         ("ASN1_TAG_ERROR or ASN1_DER_ERROR if the der encoding",
                          ("4 Function reference", "4.3 DER functions"), 23)),
    "docbook-mime": (Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
                     re.compile(r"^Shared MIME-info Database$", re.MULTILINE),
                     ("except when glob-deleteall or",  # page 3, in a paragraph from page 2
                      ("2. Unified system", "2.1. Directory layout"), 2)),
}


@pytest.mark.parametrize("name", sorted(MANUALS))
def test_real_pdf_manual_has_its_sections_and_no_page_furniture(tmp_path: Path, name: str):
    path, header, (quote, section, page) = MANUALS[name]
    assert path.is_file(), f"{path} missing. Fix: run .ci/docsites (installs the Debian packages)"
    entries = outline(PdfReader(path))
    assert len(entries) >= 15
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([path], {"groups": ["public"]})
        assert report.count("failed") == 0
        doc = engine.store.list_documents()[0]
        parsed = engine.store.get_parsed(doc.doc_id)
        headings = [b for b in parsed.blocks if b.kind == "heading"]
        assert len(headings) == len(entries)  # every bookmark found its line, none invented
        assert [b.level for b in headings] == [e.level for e in entries]
        body = [b.text for b in parsed.blocks if b.kind == "text"]
        assert not [t for t in body if header.search(t)], "a running header was indexed"
        assert not [t for t in body if re.search(r"(?:\s?\.){4,}\s*\d+$", t, re.MULTILINE)]
        hits = engine.search(quote, Principal.of("public"), mode="bm25", top_k=3).hits
        assert quote in " ".join(hits[0].chunk.text.split())
        assert hits[0].chunk.heading_path[-2:] == section
        assert hits[0].source.endswith(f"#page={page}")


def test_a_printed_table_of_contents_finds_the_bookmarked_sections():
    path = MANUALS["texinfo-libtasn1"][0]
    assert path.is_file(), f"{path} missing. Fix: run .ci/docsites (installs the Debian packages)"
    reader = PdfReader(path)
    pages = [(page.extract_text() or "").split("\n") for page in reader.pages]
    furniture = furniture_shapes(pages)
    printed = toc_outline(pages, [body_lines(lines, furniture) for lines in pages])
    bookmarks = outline(reader)
    assert len(bookmarks) >= 15
    assert [(e.level, e.page) for e in printed] == [(e.level, e.page) for e in bookmarks]
    assert all(e.title.endswith(b.title.split(" ", 1)[-1])
               for e, b in zip(printed, bookmarks, strict=True))


CODE = {  # an example each manual prints in a monospaced font, as its code block holds it
    "texinfo-libtasn1": "Group ::= SEQUENCE {\n   id OBJECT IDENTIFIER,\n   value Value\n}",
    "docbook-mime": '    <magic priority="50">\n      <match type="string" offset="0" '
                    'value="diff\\t"/>',
}


@pytest.mark.parametrize("name", sorted(CODE))
def test_a_real_manuals_example_is_a_code_block_with_its_indentation(name: str):
    path = MANUALS[name][0]
    assert path.is_file(), f"{path} missing. Fix: run .ci/docsites (installs the Debian packages)"
    parsed = PdfLoader().load(path.read_bytes(), path)
    code = [b.text for b in parsed.blocks if b.kind == "code"]
    assert [text for text in code if CODE[name] in text]
    prose = "\n".join(b.text for b in parsed.blocks if b.kind == "text")
    assert CODE[name].split("\n")[1].strip() not in prose
