"""Text files in the encodings documentation really ships in are read, not refused.

The order (``citewise.ingest.content``): byte-order mark, UTF-8, the charset an HTML/XML head
declares, then Windows-1252 when nothing in the file is multi-byte UTF-8. A file mixing UTF-8
with stray bytes is still refused, naming the first bad byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import LimitSettings
from citewise.errors import UnsupportedFormatError
from citewise.ingest import load_file

LIBXSLT_HTML = Path("/usr/share/doc/libxslt1-dev/html")


def _text(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    document = load_file(path, LimitSettings())
    return "\n".join(block.text for block in document.blocks)


def test_latin1_text_without_a_declaration_reads_as_windows_1252(tmp_path):
    text = _text(tmp_path, "NEWS.txt", b"Fix typos (Jan Pokorn\xfd)\nCopyright \xa9 2001, \x80 5\n")
    assert "Pokorný" in text and "© 2001" in text and "€ 5" in text


def test_undefined_windows_1252_bytes_fall_back_to_latin1(tmp_path):
    # read, not refused; Latin-1's 0x81 is a C1 control, which ingest drops (never text)
    assert "caf au lait" in _text(tmp_path, "a.txt", b"caf\x81 au lait")


def test_html_meta_charset_is_honoured(tmp_path):
    page = ('<html><head><meta charset="shift_jis"><title>t</title></head>'
            "<body><p>日本語の説明</p></body></html>").encode("shift_jis")
    assert "日本語の説明" in _text(tmp_path, "ja.html", page)


def test_http_equiv_iso_8859_1_reads_as_windows_1252_like_a_browser(tmp_path):
    page = (b'<html><head><meta content="text/html; charset=ISO-8859-1" '
            b'http-equiv="Content-Type"></head><body><p>\x93quoted\x94 caf\xe9</p></body></html>')
    assert "\u201cquoted\u201d café" in _text(tmp_path, "p.html", page)


def test_xml_declaration_names_the_encoding(tmp_path):
    page = (b'<?xml version="1.0" encoding="koi8-r"?><html><body><p>'
            + "Привет".encode("koi8-r") + b"</p></body></html>")
    assert "Привет" in _text(tmp_path, "ru.xhtml.html", page)


@pytest.mark.parametrize("codec", ["utf-16", "utf-32", "utf-8-sig"])
def test_byte_order_marks_decide(tmp_path, codec):
    assert "naïve café" in _text(tmp_path, "bom.md", "# T\n\nnaïve café\n".encode(codec))


def test_a_utf16_mark_before_8_bit_text_is_refused_not_read_as_cjk(tmp_path):
    """A security review: "\\xff\\xfe" before an ASCII file was indexed as a page of
    CJK-looking characters. Real UTF-16 in scripts without NUL bytes is still read."""
    path = tmp_path / "marked.md"
    path.write_bytes(b"\xff\xfe# Notes\n\nThe vault key rotates every Monday.\n")
    with pytest.raises(UnsupportedFormatError, match="8-bit text, not UTF-16; remove its first"):
        load_file(path, LimitSettings())
    path.write_bytes(b"\xff\xfe# Notes\n\nThe vault key\x00\x00 rotates every Monday.\n")
    with pytest.raises(UnsupportedFormatError, match="8-bit text"):  # one NUL: a bypass
        load_file(path, LimitSettings())
    chinese = "说明：中华人民共和国的根本制度是社会主义制度。" * 3  # no ASCII: no NUL byte
    for codec in ("utf-16", "utf-16-be"):
        data = chinese.encode(codec) if codec == "utf-16" else (
            b"\xfe\xff" + chinese.encode(codec))
        assert "根本制度" in _text(tmp_path, "zh.md", data)


def test_valid_utf8_wins_over_a_wrong_declaration(tmp_path):
    page = '<meta charset="iso-8859-1"><p>naïve café</p>'.encode()
    assert "naïve café" in _text(tmp_path, "u.html", page)


def test_utf8_mixed_with_a_stray_latin1_byte_is_refused(tmp_path):
    path = tmp_path / "prices.md"
    path.write_bytes(b"# Caf\xc3\xa9\n\nPrice: 10 \xe9uros\n")
    with pytest.raises(UnsupportedFormatError, match="invalid UTF-8 at byte 19; re-save"):
        load_file(path, LimitSettings())


def test_a_declared_charset_the_bytes_break_is_refused(tmp_path):
    path = tmp_path / "bad.html"
    path.write_bytes(b'<meta charset="shift_jis"><p>\xff\xff</p>')
    with pytest.raises(UnsupportedFormatError, match="invalid SHIFT-JIS at byte 29"):
        load_file(path, LimitSettings())


@pytest.mark.parametrize("codec", ["base64", "rot13", "zlib", "hex", "undefined"])
def test_a_declared_codec_that_is_no_charset_is_ignored_and_the_batch_goes_on(tmp_path, codec):
    """A robustness review: a page declaring <meta charset="base64"> (not UTF-8 bytes)
    stopped the whole folder's ingest with a LookupError traceback, nothing indexed."""
    from citewise.config import Settings
    from citewise.engine import Engine
    from citewise.testing import FakeEmbedder

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nThe good file is indexed.\n")
    (docs / "odd.html").write_bytes(f'<meta charset="{codec}"><p>caf\xe9 au lait</p>'.encode(
        "latin-1"))
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], {"groups": ["public"]})
        assert report.count("new") == 2, [(o.label, o.error) for o in report.outcomes]
        assert "café au lait" in engine.store.get_parsed("odd.html").text


@pytest.mark.slow  # .ci/docsites installs libxslt1-dev, whose manual has two Latin-1 pages
def test_real_libxslt_pages_in_latin1_are_read(tmp_path):
    tutorial = load_file(LIBXSLT_HTML / "tutorial" / "libxslttutorial.html", LimitSettings())
    assert any("Copyright © 2001 John Fleck" in b.text for b in tutorial.blocks)
    news = load_file(LIBXSLT_HTML / "news.html", LimitSettings())
    assert any("Pokorný" in b.text for b in news.blocks)


@pytest.mark.parametrize("codec", ["unicode_escape", "raw_unicode_escape", "utf_7", "cp037",
                                   "utf-16", "punycode"])
def test_only_a_charset_a_browser_knows_is_honoured(tmp_path, codec):
    """A security review's page declared ``unicode_escape``: with one stray byte, its
    ``\\u002d\\u002d\\u003e`` became ``-->``, closing a comment early, and the comment's "365
    days" was indexed and cited where a browser shows "14 days". A charset a browser would
    not use is ignored (a declared UTF-16 too: a browser reads that page as UTF-8)."""
    page = (f'<html><head><meta charset="{codec}"></head><body><p>Refunds within 14 '
            'days.</p><!-- \\u002d\\u002d\\u003e <p>Refunds within 365 days.</p> -->'
            '<p>caf\xe9</p></body></html>').encode("latin-1")
    path = tmp_path / "refund.html"
    path.write_bytes(page)
    text = load_file(path, LimitSettings()).text
    assert "365" not in text and "14 days" in text and "café" in text


def test_a_charset_named_in_a_markdown_or_text_file_is_not_used(tmp_path):
    """Only an HTML page declares its charset: a Latin-1 Markdown file that mentions
    ``<meta charset="utf-16">`` (or an EBCDIC one) was read in it, as CJK or garbage."""
    for name in ("notes.md", "notes.txt"):
        path = tmp_path / name
        path.write_bytes('# Notes\n\nWrite `<meta charset="cp037">` in the page; caf\xe9.\n'
                         .encode("latin-1"))
        assert "café" in load_file(path, LimitSettings()).text


@pytest.mark.parametrize(("label", "text", "codec"), [
    ("gb2312", "数据库", "gbk"), ("iso-8859-9", "sınırı Şirket", "cp1254"),
    ("big5-hkscs", "資料庫", "big5hkscs")])
def test_a_charset_label_is_read_as_a_browser_reads_it(tmp_path, label, text, codec):
    """The review of this stop: GB2312 pages were refused (Python's codec name was not in
    the list) and Turkish ISO-8859-9 ones read as Windows-1252 ("sýnýrý")."""
    path = tmp_path / "page.html"
    path.write_bytes(f'<html><head><meta charset="{label}"></head><body><p>{text}</p>'
                     '</body></html>'.encode(codec))
    assert text in load_file(path, LimitSettings()).text
