"""A PDF that asks for hours of reading is refused at once (:mod:`citewise.ingest.pdf_work`):
a 300 KB file whose 1,500 pages all drew one 60 MiB stream took 5.7 s of CPU a page while a
server's uploads waited behind it (security review)."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from citewise.config import LimitSettings
from citewise.errors import LimitExceededError
from citewise.ingest import load_file
from citewise.testing.pdf import raw_pdf

MIB = 1024 * 1024


def _pdf(pages: int, stream: bytes, *, form: bool) -> bytes:
    """``pages`` pages that all draw one shared Flate stream: as their content, or through a
    form XObject."""
    packed = zlib.compress(stream, 9)
    body = b"<< /Length %d /Filter /FlateDecode%s >>\nstream\n" % (
        len(packed), b" /Type /XObject /Subtype /Form /BBox [0 0 612 792]" if form else b"")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
                b" ".join(b"%d 0 R" % (5 + i) for i in range(pages)), pages),
            body + packed + b"\nendstream",
            b"<< /Length 12 >>\nstream\nq /Fm1 Do Q\nendstream"]
    contents = b"4 0 R /Resources << /XObject << /Fm1 3 0 R >> >>" if form else b"3 0 R"
    objs += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %s >>"
             % contents] * pages
    return raw_pdf(objs)


@pytest.mark.parametrize("form", [False, True], ids=["content", "form-xobject"])
def test_pages_that_all_draw_one_huge_stream_are_refused_at_once(tmp_path: Path, form: bool):
    path = tmp_path / "bomb.pdf"
    path.write_bytes(_pdf(400, b"BT /F1 12 Tf 72 720 Td (pg) Tj ET " + b" " * MIB, form=form))
    assert path.stat().st_size < 100_000  # 400 MiB to read
    with pytest.raises(LimitExceededError, match="limits.max_pdf_content_bytes"):
        load_file(path, LimitSettings(max_pdf_content_bytes=64 * MIB))  # before any page


def test_the_real_manuals_hold_a_small_part_of_the_limit():
    """Valgrind's 397 pages: 3.8 MB of content; the default limit is 128 MiB."""
    path = Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf")
    assert path.is_file(), f"{path} missing. Fix: run .ci/docsites (installs the Debian packages)"
    assert load_file(path, LimitSettings(max_pdf_content_bytes=MIB)).title


def test_a_stream_past_pypdfs_own_limit_is_named_not_taken_for_scanned_images(tmp_path: Path):
    """An 80 KB file whose one stream inflates to 80 MiB, past pypdf's decompression limit,
    was reported as "the PDF may be scanned images; run OCR on it" (new user, stop 40)."""
    path = tmp_path / "deep.pdf"
    path.write_bytes(_pdf(1, b"BT /F1 12 Tf 72 720 Td (pg) Tj ET " + b" " * 80 * MIB, form=False))
    with pytest.raises(LimitExceededError, match="past one of pypdf's limits .*decompress"
                       ".*re-export the PDF"):
        load_file(path, LimitSettings())
