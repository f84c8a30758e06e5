"""Gzip-compressed documents (Debian compresses most files in /usr/share/doc) are read as the
file inside them, within the same size limit, and a folder walk takes them."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from citewise.config import LimitSettings
from citewise.engine import Engine
from citewise.errors import IngestError, LimitExceededError, UnsupportedFormatError
from citewise.ingest import is_supported, load_file
from citewise.testing import FakeEmbedder
from citewise.types import Principal

GUIDE = "# Using a proxy server\n\nPass `--proxy scheme://host:port` to every command.\n"


def _gz(path: Path, text: str | bytes) -> Path:
    path.write_bytes(gzip.compress(text.encode() if isinstance(text, str) else text))
    return path


def test_a_compressed_markdown_file_loads_as_markdown(tmp_path):
    parsed = load_file(_gz(tmp_path / "user_guide.md.gz", GUIDE))
    assert parsed.format == "markdown" and parsed.title == "Using a proxy server"
    assert [b.kind for b in parsed.blocks] == ["heading", "text"]
    assert "--proxy scheme://host:port" in parsed.text
    plain = load_file(_gz(tmp_path / "notes.txt.gz", "line one\n\nline two\n"))
    assert plain.format == "text" and plain.title == "notes"  # the inner name, not notes.txt


def test_what_inflates_past_the_limit_is_refused(tmp_path):
    bomb = _gz(tmp_path / "bomb.txt.gz", b"a" * 5_000_000)  # ~5 KB on disk
    assert bomb.stat().st_size < 20_000
    with pytest.raises(LimitExceededError, match="decompresses to over limits.max_file_bytes"):
        load_file(bomb, LimitSettings(max_file_bytes=1_000_000))


@pytest.mark.parametrize(("name", "data", "error", "message"), [
    ("broken.md.gz", gzip.compress(GUIDE.encode(), mtime=0)[:30], IngestError,
     "not a readable gzip"),
    ("twice.md.gz.gz", gzip.compress(gzip.compress(b"x", mtime=0), mtime=0),
     UnsupportedFormatError, "gzip file inside a gzip file"),
    ("script.py.gz", gzip.compress(b"print(1)", mtime=0), UnsupportedFormatError, "unsupported"),
], ids=["broken", "twice", "script"])  # one id in every process (pytest-xdist collects twice)
def test_bad_compressed_files_fail_in_one_line(tmp_path, name, data, error, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(error, match=message) as info:
        load_file(path)
    assert "\n" not in str(info.value)


def test_a_folder_walk_takes_compressed_documents_and_search_finds_them(tmp_path):
    docs = tmp_path / "doc"
    docs.mkdir()
    _gz(docs / "user_guide.md.gz", GUIDE)
    _gz(docs / "conf.py.gz", "x = 1\n")
    assert is_supported(docs / "user_guide.md.gz") and is_supported(docs / "a.HTML.GZ")
    assert not is_supported(docs / "conf.py.gz") and not is_supported(docs / "changelog.gz")
    assert is_supported(docs / "NEWS.gz")  # a Debian doc folder's NEWS: plain text
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], {"groups": ["public"]})
        assert report.skipped == [(docs / "conf.py.gz").as_posix()]
        hits = engine.search("proxy server", Principal.of("public"), mode="bm25").hits
    assert hits and hits[0].source.endswith("user_guide.md.gz#using-a-proxy-server")
    assert hits[0].chunk.heading_path == ("Using a proxy server",)


def test_compressed_html_pages_share_the_site_boilerplate_and_link_by_stem(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    for name in ("install", "proxy", "cache"):
        _gz(site / f"{name}.html.gz", f"<html><body><div>Acme Docs home</div><h1>{name}</h1>"
                                      f"<p>How to {name} with acme, in detail.</p></body></html>")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]},
                            base_url="https://docs.example.org/{stem}.html")
        hit = engine.search("proxy", Principal.of("public"), mode="bm25").hits[0]
        parsed = engine.store.get_parsed(hit.document.doc_id)
    assert "Acme Docs home" not in parsed.text  # on every page: boilerplate, not indexed
    assert hit.source.startswith("https://docs.example.org/proxy.html")
