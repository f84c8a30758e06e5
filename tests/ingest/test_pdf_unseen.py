"""Text a PDF draws where no reader sees it is not indexed (:mod:`citewise.ingest.pdf_unseen`);
a scan's invisible OCR layer is."""

from __future__ import annotations

import zlib
from pathlib import Path

from citewise.ingest import load_file
from citewise.testing.pdf import raw_pdf


def _pdf(ops: str, image: bool = False, font: bytes = b"") -> bytes:
    body = zlib.compress(ops.encode())
    xobject = b" /XObject << /Im1 6 0 R >>" if image else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >>%s >> >>" % xobject,
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>" % font,
        b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length 1 >>\nstream\n\xff\nendstream"]
    return raw_pdf(objects)


def _line(y: int, text: str, before: str = "", size: float = 11) -> str:
    return f"BT /F1 {size} Tf {before} 1 0 0 1 72 {y} Tm ({text}) Tj ET"


VISIBLE = [_line(760, "Hard hats are required in zone A at all times."),
           _line(600, "Report incidents to the site supervisor.")]
UNSEEN = [_line(740, "PDFINVISIBLE zone B is optional.", "3 Tr") + " BT 0 Tr ET",
          "q " + _line(720, "PDFCLIPLAYER zone C is optional.", "7 Tr") + " Q",
          _line(700, "PDFTINY zone D is optional.", size=0.5)]


def test_invisible_tiny_and_off_page_text_is_not_indexed(tmp_path: Path) -> None:
    """A security review's PDF: render mode 3 text and half-point text were indexed and
    cited; a reader sees none of it."""
    path = tmp_path / "safety.pdf"
    path.write_bytes(_pdf("\n".join([VISIBLE[0], *UNSEEN, VISIBLE[1]])))
    text = load_file(path).text
    assert "zone A at all times" in text and "site supervisor" in text
    for gone in ("PDFINVISIBLE", "PDFCLIPLAYER", "PDFTINY"):
        assert gone not in text, gone


def test_text_of_no_size_at_all_is_not_indexed(tmp_path: Path) -> None:
    """A second security review: text at font size 0, or squeezed by ``0 Tz``, draws
    nothing, and was indexed (only sizes above 0 and under 1 pt were judged)."""
    path = tmp_path / "zero.pdf"
    path.write_bytes(_pdf("\n".join([VISIBLE[0], _line(740, "PDFZERO zone E.", size=0),
                                      _line(720, "PDFNOWIDTH zone F.", "0 Tz") + " BT 100 Tz ET",
                                      VISIBLE[1]])))
    text = load_file(path).text
    assert "zone A at all times" in text and "site supervisor" in text
    assert "PDFZERO" not in text and "PDFNOWIDTH" not in text


def test_a_scan_s_invisible_ocr_layer_is_read(tmp_path: Path) -> None:
    """A scanned page draws its image and lays invisible OCR text over it: the only text
    there is."""
    path = tmp_path / "scan.pdf"
    path.write_bytes(_pdf("q 612 0 0 792 0 0 cm /Im1 Do Q\n"
                          + _line(740, "Scanned invoice total is 42 euros.", "3 Tr"),
                          image=True))
    assert "Scanned invoice total is 42 euros." in load_file(path).text


def test_squashed_text_an_undrawn_image_and_a_broken_layout_hide_nothing(tmp_path: Path
                                                                         ) -> None:
    """The review of this stop: text squashed to 0.012 points tall (``Tm 1 0 0 0.001``) or
    to 1 % of its width (``1 Tz``) was indexed; an image listed in the page's resources but
    never drawn kept render-mode-3 text; a font whose ``/Widths`` is a number broke the
    layout, and the fallback, pypdf's plain text, brought the hidden sentence back."""
    cases = {
        "squash": (VISIBLE[0] + " BT /F1 12 Tf 1 0 0 0.001 72 650 Tm (SECRET1) Tj ET", {}),
        "tz": (VISIBLE[0] + " BT /F1 12 Tf 1 Tz 1 0 0 1 72 650 Tm (SECRET2) Tj ET", {}),
        "undrawn": (VISIBLE[0] + " " + UNSEEN[0].replace("PDFINVISIBLE", "SECRET3"),
                    {"image": True}),
        "widths": (VISIBLE[0] + " " + UNSEEN[0].replace("PDFINVISIBLE", "SECRET4"),
                   {"font": b" /Widths 5"})}
    for name, (ops, options) in cases.items():
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(_pdf(ops, **options))
        text = load_file(path).text
        assert "zone A at all times" in text, name
        assert "SECRET" not in text, (name, text)


def test_a_scan_drawn_as_an_inline_image_keeps_its_ocr_layer(tmp_path: Path) -> None:
    path = tmp_path / "inline.pdf"
    path.write_bytes(_pdf("q 612 0 0 792 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \xff EI Q\n"
                          + _line(740, "Scanned invoice total is 42 euros.", "3 Tr")))
    assert "Scanned invoice total is 42 euros." in load_file(path).text
