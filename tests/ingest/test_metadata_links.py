"""A document's link is one a reader can open safely: ``javascript:``/``data:`` source URLs
from a sidecar or front matter fail the file in one line; a page's own canonical link with
such a scheme is ignored (the file's path stays the link)."""

from __future__ import annotations

import json

import pytest

from citewise.config import LimitSettings, Settings
from citewise.engine import Engine
from citewise.errors import IngestError
from citewise.ingest import load_file
from citewise.ingest.metadata import is_openable_link
from citewise.ingest.sidecar import read_sidecar
from citewise.testing import FakeEmbedder


@pytest.mark.parametrize("url", ["https://docs.example/a#b", "http://x", "file:///srv/a.md",
                                 "guide/intro.html", "./notes:v2.md", "page.html#x:y",
                                 "C:\\docs\\a.html", "//docs.example/a"])
def test_openable(url):
    assert is_openable_link(url)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JavaScript:alert(1)",
                                 " java\tscript:alert(1)", "\x01javascript:x", "data:text/html,x",
                                 "vbscript:msgbox", "mailto:a@b.example"])
def test_not_openable(url):
    assert not is_openable_link(url)


def test_a_javascript_canonical_link_is_ignored(tmp_path):
    page = tmp_path / "p.html"
    page.write_text('<html><head><link rel="canonical" href="javascript:alert(1)"></head>'
                    "<body><h1>T</h1><p>Body text here.</p></body></html>")
    assert "source_url" not in load_file(page, LimitSettings()).metadata
    page.write_text('<html><head><link rel="canonical" href="https://docs.example/p">'
                    "</head><body><h1>T</h1><p>Body text here.</p></body></html>")
    assert load_file(page, LimitSettings()).metadata["source_url"] == "https://docs.example/p"


def test_front_matter_data_url_fails_that_file_alone(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Fine\n\nThis document is fine.\n")
    (docs / "front.md").write_text("---\nurl: 'data:text/html,<script>x</script>'\n---\n"
                                   "# Front\n\nFront matter gives the link.\n")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], {"groups": ["staff"]})
        failed = [o.error for o in report.outcomes if o.status == "failed"]
        assert report.count("new") == 1
        assert len(failed) == 1 and "link a reader can open" in failed[0]
        assert engine.store.get_document("ok.md").source_url.endswith("ok.md")


def test_a_sidecar_javascript_url_is_a_one_line_error_naming_its_line(tmp_path):
    sidecar = tmp_path / "meta.jsonl"
    sidecar.write_text(json.dumps({"path": "a.md", "groups": ["staff"]}) + "\n"
                       + json.dumps({"path": "side.md", "source_url": "javascript:alert(1)"}))
    with pytest.raises(IngestError, match="line 2: 'source_url' 'javascript:alert.1.' is not "
                                          "a link a reader can open"):
        read_sidecar(sidecar)
