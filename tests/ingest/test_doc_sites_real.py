"""Real documentation sites built by two different generators, from Debian packages (never
bundled in the repo; `.ci/docsites` installs them): valgrind's manual (DocBook XSL) and
libffi's manual (GNU Texinfo). For a sample of passages, the citation link names a page that
exists and an anchor that exists in it, placed before the quoted text; no navigation chrome is
indexed as body text."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder
from citewise.types import Principal

pytestmark = pytest.mark.slow
BASE = "https://docs.example.org/site/"
SITES = {
    "docbook-valgrind": (Path("/usr/share/doc/valgrind/html"),
                         ["Valgrind User Manual", "Table of Contents"]),
    "texinfo-libffi": (Path("/usr/share/doc/libffi-dev/html"), ["Next:", "Previous:", "Up:"]),
}
_TAG = re.compile(r"<[^>]+>")


def page_text_after(raw: str, anchor: str) -> str:
    """The page's visible text after the element carrying ``anchor`` (id= or name=)."""
    found = re.search(rf"""(?:id|name)=["']{re.escape(anchor)}["']""", raw)
    assert found, f"#{anchor} does not exist in the page"
    return "".join(html.unescape(_TAG.sub("", raw[found.start():])).split())


@pytest.mark.parametrize("name", sorted(SITES))
def test_real_site_citations_open_the_section_holding_the_text(tmp_path: Path, name: str):
    root, chrome = SITES[name]
    assert root.is_dir(), f"{root} missing. Fix: run .ci/docsites (installs the Debian packages)"
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([root], {"groups": ["public"]}, base_url=BASE)
        assert report.count("failed") == 0
        docs = engine.store.list_documents()
        assert len(docs) >= 15
        for doc in docs:
            parsed = engine.store.get_parsed(doc.doc_id)
            for block in parsed.blocks:
                if block.kind in ("code", "heading"):
                    continue
                for text in chrome:
                    assert not block.text.startswith(text), (doc.doc_id, block.text[:120])
        rng = random.Random(0)
        sample = rng.sample(docs, 10)
        checked = 0
        for doc in sample:
            parsed = engine.store.get_parsed(doc.doc_id)
            blocks = [b for b in parsed.blocks if b.kind == "text" and len(b.text) > 60]
            if not blocks:
                continue
            block = rng.choice(blocks)
            hit = next(h for h in engine.search(block.text[:200], Principal.of("public"),
                                                mode="bm25", top_k=10).hits
                       if h.document.doc_id == doc.doc_id)
            url = urlparse(hit.source)
            assert hit.source.startswith(BASE)
            page = root / url.path[len(urlparse(BASE).path):]
            assert page.is_file(), hit.source
            raw = page.read_text(errors="replace")
            quote = "".join(block.text.split()[:6])  # compared without whitespace
            if url.fragment:
                assert quote in page_text_after(raw, url.fragment), (hit.source, quote)
            checked += 1
        assert checked >= 8


def test_a_site_laid_out_in_tables_is_read_as_pages_not_rows(tmp_path: Path) -> None:
    """libxslt's old site (.ci/docsites installs it) nests each page in layout tables with a
    menu beside the text; its FAQ was one table row that began with 30 menu links."""
    root = Path("/usr/share/doc/libxslt1-dev/html")
    assert root.is_dir(), f"{root} missing. Fix: run .ci/docsites (installs the Debian packages)"
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([root], {"groups": ["public"]})
        faq = engine.store.get_parsed("FAQ.html")
        texts = [engine.store.get_parsed(d.doc_id).text for d in engine.store.list_documents()]
    assert [b.kind for b in faq.blocks] == ["heading", "list"]  # its signature is on every page
    assert faq.blocks[1].text.startswith("1. Troubles compiling or linking programs")
    assert all("Main Menu" not in t and "- Home\n- Introduction" not in t for t in texts)
