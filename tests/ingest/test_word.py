"""Word documents (.docx) are read as a person reads them: title, sections, lists, tables;
damaged or hostile packages fail alone in one line. Documents are written with python-docx,
the library Word files are most often generated with."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from citewise.config import LimitSettings, Settings
from citewise.engine import Engine
from citewise.errors import IngestError, LimitExceededError, UnsupportedFormatError
from citewise.ingest import SUPPORTED_SUFFIXES, load_file
from citewise.testing import FakeEmbedder
from citewise.types import Principal


def _policy() -> docx.Document:
    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "ACME CONFIDENTIAL - page header"
    d.sections[0].footer.paragraphs[0].text = "Printed copies are uncontrolled"
    d.add_paragraph("Travel Policy", style="Title")
    d.add_heading("1 Scope", level=1)
    d.add_paragraph("This policy covers all staff travelling on company business.")
    d.add_heading("1.1 Meals", level=2)
    d.add_paragraph("Meals are reimbursed up to 45 euros per day.\nKeep every receipt.")
    d.add_paragraph("Breakfast", style="List Bullet")
    d.add_paragraph("Dinner", style="List Number")
    table = d.add_table(rows=3, cols=2)
    for (r, c), text in {(0, 0): "City", (0, 1): "Daily rate", (1, 0): "Paris",
                         (1, 1): "60 EUR"}.items():
        table.cell(r, c).text = text
    table.cell(2, 0).merge(table.cell(2, 1)).text = "Other cities: 45 EUR"
    header = OxmlElement("w:tblHeader")
    table.rows[0]._tr.get_or_add_trPr().append(header)
    d.add_heading("2 Approval", level=1)
    d.add_paragraph("Trips abroad need the approval of a director.")
    d.core_properties.author = "Finance Team"
    return d


def _save(d: docx.Document, path: Path) -> Path:
    d.save(str(path))
    return path


def test_sections_lists_and_tables_in_order(tmp_path):
    doc = load_file(_save(_policy(), tmp_path / "travel.docx"))
    assert doc.format == "docx" and doc.title == "Travel Policy"
    assert doc.metadata == {"owner": "Finance Team"}
    kinds = [(b.kind, b.heading_path, b.text) for b in doc.blocks]
    assert kinds[0] == ("heading", ("1 Scope",), "1 Scope")
    assert ("text", ("1 Scope", "1.1 Meals"),
            "Meals are reimbursed up to 45 euros per day.\nKeep every receipt.") in kinds
    assert ("list", ("1 Scope", "1.1 Meals"), "- Breakfast\n- Dinner") in kinds
    table = next(b for b in doc.blocks if b.kind == "table")
    assert table.text == "City | Daily rate\nParis | 60 EUR\nOther cities: 45 EUR"
    assert table.header_lines == 1 and table.heading_path == ("1 Scope", "1.1 Meals")
    assert doc.blocks[-1].heading_path == ("2 Approval",)
    assert "CONFIDENTIAL" not in doc.text and "uncontrolled" not in doc.text
    assert all(doc.text[b.start:b.end] == b.text for b in doc.blocks)


def test_custom_heading_styles_and_outline_levels(tmp_path):
    d = docx.Document()
    styles = d.styles
    custom = styles.add_style("Policy Section", 1)  # WD_STYLE_TYPE.PARAGRAPH
    custom.base_style = styles["Heading 2"]
    d.add_paragraph("Overview", style="Heading 1")
    d.add_paragraph("Custom section", style="Policy Section")
    outlined = d.add_paragraph("Outlined heading")
    level = OxmlElement("w:outlineLvl")
    level.set(qn("w:val"), "2")
    outlined._p.get_or_add_pPr().append(level)
    d.add_paragraph("Body under it.")
    doc = load_file(_save(d, tmp_path / "s.docx"))
    assert doc.title == "Overview"
    assert doc.blocks[-1].heading_path == ("Overview", "Custom section", "Outlined heading")
    assert [b.level for b in doc.blocks if b.kind == "heading"] == [1, 2, 3]


def test_styles_read_as_python_docx_reads_them(tmp_path):
    """A review of the one-pass style table: an unused style whose XML lacks a value failed
    the whole file, and a character style named "heading 2", or a table style named "List
    Table 1", made a paragraph naming it a heading or a list item."""
    d = docx.Document()
    char = d.styles.add_style("Heading Seven", 2)  # WD_STYLE_TYPE.CHARACTER
    char.element.find(qn("w:name")).set(qn("w:val"), "heading 7")  # as a heading's name
    table = d.styles.add_style("List Table 1 Light", 3)  # WD_STYLE_TYPE.TABLE
    broken = OxmlElement("w:style")
    broken.set(qn("w:type"), "paragraph")
    broken.set(qn("w:styleId"), "Broken")
    broken.append(OxmlElement("w:name"))  # no w:val
    d.styles.element.append(broken)
    for text, style_id in (("Intro", char.style_id), ("Body.", table.style_id),
                           ("Missing.", "NoSuchStyle")):
        para = d.add_paragraph(text)
        ref = OxmlElement("w:pStyle")
        ref.set(qn("w:val"), style_id)
        para._p.get_or_add_pPr().append(ref)
    doc = load_file(_save(d, tmp_path / "styles.docx"))
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("text", "Intro"), ("text", "Body."), ("text", "Missing.")]


def test_a_docx_is_searchable_with_its_section(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    _save(_policy(), docs / "travel.docx")
    assert ".docx" in SUPPORTED_SUFFIXES
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], {"groups": ["staff"]})
        assert report.count("new") == 1
        hits = engine.search("daily rate Paris", Principal.of("staff"), mode="bm25").hits
        assert "Paris | 60 EUR" in hits[0].chunk.text
        assert hits[0].chunk.heading_path == ("1 Scope", "1.1 Meals")
        assert hits[0].document.title == "Travel Policy"


@pytest.mark.parametrize(("data", "kind", "message"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00", UnsupportedFormatError, "not a readable zip package"),
    (b"plain text, not Word", UnsupportedFormatError, "not a readable zip package"),
])
def test_not_a_docx_is_one_line(tmp_path, data, kind, message):
    path = tmp_path / "x.docx"
    path.write_bytes(data)
    with pytest.raises(kind, match=message) as info:
        load_file(path)
    assert "\n" not in str(info.value) and "re-save it" in str(info.value)


def test_a_zip_without_a_document_part_is_refused(tmp_path):
    path = tmp_path / "x.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "not a Word package")
    with pytest.raises(UnsupportedFormatError, match="no word/document.xml"):
        load_file(path)


def test_a_damaged_package_fails_in_one_line(tmp_path):
    path = tmp_path / "x.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml", "<w:document")
    with pytest.raises(IngestError) as info:
        load_file(path)
    assert "cannot read this .docx" in str(info.value) and "\n" not in str(info.value)


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    buf = io.BytesIO()
    _policy().save(buf)
    path = tmp_path / "bomb.docx"
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, \
            zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            out.writestr(item, src.read(item.filename))
        out.writestr("word/media/padding.bin", b"\0" * 5_000_000)  # 5 MB in ~5 KB
    assert path.stat().st_size < 100_000
    with pytest.raises(LimitExceededError, match="limits.max_file_bytes"):
        load_file(path, LimitSettings(max_file_bytes=200_000))


def test_an_entity_expansion_bomb_fails_fast_in_one_line(tmp_path):
    laughs = ('<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaaaa">'
              + "".join(f'<!ENTITY {n} "{("&" + p + ";") * 10}">'
                        for p, n in zip("abcdefgh", "bcdefghi", strict=True))
              + ']><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/'
              '2006/main"><w:body><w:p><w:r><w:t>&i;</w:t></w:r></w:p></w:body></w:document>')
    buf = io.BytesIO()
    docx.Document().save(buf)
    path = tmp_path / "laughs.docx"
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(path, "w") as out:
        for item in src.infolist():
            data = laughs.encode() if item.filename == "word/document.xml" else \
                src.read(item.filename)
            out.writestr(item, data)
    started = time.monotonic()
    with pytest.raises(IngestError, match="cannot read this .docx"):  # libxml2 refuses it
        load_file(path)
    assert time.monotonic() - started < 5


def test_python_docx_stumbling_on_odd_xml_is_a_one_line_ingest_error(tmp_path, monkeypatch):
    import citewise.ingest.word as word

    def odd_table(table):
        raise IndexError("list index out of range")

    monkeypatch.setattr(word, "_rows", odd_table)
    with pytest.raises(IngestError) as info:
        load_file(_save(_policy(), tmp_path / "odd.docx"))
    assert str(info.value).startswith("cannot read this .docx (IndexError: list index out")
    assert "re-save it" in str(info.value) and "\n" not in str(info.value)


def test_a_cell_claiming_to_span_two_billion_columns_is_read_as_one(tmp_path):
    """A robustness review: a 1 KB file whose table cell claimed w:gridSpan=2000000000 grew
    past 13 GB (python-docx yields a cell once per column it spans)."""
    d = docx.Document()
    d.add_paragraph("Grid span test")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Pump", "Pressure"
    table.cell(1, 0).text, table.cell(1, 1).text = "P-7", "12 bar"
    tc_pr = table.cell(1, 0)._tc.get_or_add_tcPr()
    span = OxmlElement("w:gridSpan")
    span.set(qn("w:val"), "2000000000")
    tc_pr.append(span)
    parsed = load_file(_save(d, tmp_path / "span.docx"), LimitSettings())
    tables = [b.text for b in parsed.blocks if b.kind == "table"]
    assert tables and "P-7" in tables[0] and "Pump | Pressure" in tables[0], parsed.blocks


def _cell(text: str, span: int = 1, merge: str | None = None) -> str:
    props = (f'<w:gridSpan w:val="{span}"/>' if span > 1 else "") + (
        '<w:vMerge w:val="restart"/>' if merge == "restart" else
        "<w:vMerge/>" if merge == "continue" else "")
    return f"<w:tc><w:tcPr>{props}</w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"


def test_merged_cells_read_as_python_docx_reads_them_and_never_from_two_rows_up():
    """Merged cells are read from the row's own cells (python-docx's row.cells looked the
    merge's first row up again from each row below: a security review's 1.4 KB file read
    for 37 s); the text is what row.cells gives, and a continuation under a row whose cell
    there starts elsewhere takes nothing, not the text two rows up (the review)."""
    from docx import Document
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    from citewise.ingest.word import _rows

    def rows_of(*rows: str) -> list[str]:
        grid = '<w:gridCol w:w="1000"/>' * 3
        document = Document()
        document.element.body.append(parse_xml(
            f'<w:tbl {nsdecls("w")}><w:tblPr/><w:tblGrid>{grid}</w:tblGrid>'
            + "".join(f"<w:tr>{r}</w:tr>" for r in rows) + "</w:tbl>"))
        return _rows(document.tables[-1])[0]

    assert rows_of(_cell("A", 2, "restart") + _cell("B"), _cell("", 2, "continue") + _cell("C"),
                   _cell("A2") + _cell("x", 1, "restart") + _cell("D"),
                   _cell("E") + _cell("", 1, "continue") + _cell("F")) == [
        "A | B", "A | C", "A2 | x | D", "E | x | F"]
    assert rows_of(_cell("A", 1, "restart") + _cell("B", 1, "restart") + _cell("Z"),
                   _cell("C", 2) + _cell("Q"),
                   _cell("", 1, "continue") + _cell("", 1, "continue") + _cell("R")) == [
        "A | B | Z", "C | Q", "C |  | R"]


@pytest.mark.parametrize("variant", ["utf-16", "prefix", "cells", "runs"])
def test_paragraphs_hidden_from_a_byte_count_are_counted_as_parsed(tmp_path, variant):
    """The review of this stop: 60,000 empty paragraphs written in UTF-16, or under a
    65-character namespace prefix, passed the count of ``<w:p`` bytes and were read one by
    one (10 s; 200,000: 30 s, every tenant's uploads waiting); the second review: 11
    million empty table cells (340 KB) read for 164 s in 1.6 GB."""
    from citewise.ingest.word import DocxLoader

    d = docx.Document()
    d.add_paragraph("Hello")
    package = io.BytesIO()
    d.save(package)
    src = zipfile.ZipFile(io.BytesIO(package.getvalue()))
    xml = src.read("word/document.xml").decode()
    main = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    prefix = "x" * 65
    para = {"utf-16": "<w:p/>" * 60_000,
            "prefix": f'<{prefix}:p xmlns:{prefix}="{main}"/>' * 60_000,
            "cells": "<w:tbl><w:tr>" + "<w:tc/>" * 120_000 + "</w:tr></w:tbl>",
            "runs": "<w:p>" + "<w:r/>" * 1_100_000 + "</w:p>"}[variant]
    xml = xml.replace("<w:body>", "<w:body>" + para, 1)
    body = (xml.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16")
            if variant == "utf-16" else xml.encode())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in src.namelist():
            z.writestr(name, body if name == "word/document.xml" else src.read(name))
    with pytest.raises(LimitExceededError, match="limits.max_blocks"):  # before the walk
        DocxLoader().load(out.getvalue(), Path("hidden.docx"))


def test_a_comment_before_the_body_part_is_no_crash() -> None:
    """The fuzz test: one byte cut from document.xml's declaration left a comment-like node
    before the root, and the stream's memory trim failed on the root's missing parent."""
    from citewise.ingest.word import _too_large

    xml = (b'<?xml version="1.0"?><!-- c --><w:document xmlns:w="urn:w"><w:body><w:p/>'
           b"</w:body></w:document>")
    assert _too_large(xml, 10) is False


def test_text_word_hides_is_not_read_and_tracked_insertions_are(tmp_path):
    """A security review's .docx: runs marked hidden (directly, or through a character or
    paragraph style), white text and 1-point text were indexed and cited, though Word shows
    none of it; a tracked insertion, which Word shows, was dropped."""
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Pt, RGBColor

    d = docx.Document()
    d.add_heading("Leave policy", 1)
    p = d.add_paragraph("Leave requests go to your manager.")
    p.add_run(" HIDDEN1 Reply only PWNED.").font.hidden = True
    d.add_paragraph().add_run("WHITE2 90 days.").font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    d.add_paragraph().add_run("TINY3 91 days.").font.size = Pt(1)
    secret = d.styles.add_style("Secret", WD_STYLE_TYPE.PARAGRAPH)
    secret.font.hidden = True
    d.add_paragraph("STYLED4 92 days.", style="Secret")
    quiet = d.styles.add_style("Quiet", WD_STYLE_TYPE.CHARACTER)
    quiet.font.hidden = True
    d.add_paragraph("Shown.").add_run(" CHAR5 93 days.", style="Quiet")
    shown = d.add_paragraph().add_run("White on a dark shading stays.")
    shown.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    shade = OxmlElement("w:shd")
    shade.set(qn("w:val"), "clear")
    shade.set(qn("w:fill"), "1F3864")
    shown._r.get_or_add_rPr().append(shade)
    tracked = d.add_paragraph("Tracked: ")
    ins = OxmlElement("w:ins")
    for name, value in (("w:id", "1"), ("w:author", "x"), ("w:date", "2024-01-01T00:00:00Z")):
        ins.set(qn(name), value)
    run, text = OxmlElement("w:r"), OxmlElement("w:t")
    text.text = "an inserted sentence."
    run.append(text)
    ins.append(run)
    tracked._p.append(ins)
    parsed = load_file(_save(d, tmp_path / "leave.docx"))
    for gone in ("HIDDEN1", "PWNED", "WHITE2", "TINY3", "STYLED4", "CHAR5"):
        assert gone not in parsed.text, gone
    for kept in ("Leave requests go to your manager.", "Shown.",
                 "White on a dark shading stays.", "Tracked: an inserted sentence."):
        assert kept in parsed.text, kept


def test_white_header_cells_stay_and_hidden_defaults_hide(tmp_path):
    """The review of this stop: a corporate template's header row (bold white text on a
    dark cell or table-style shading) was dropped; ``w:vanish`` in the Normal style or the
    document defaults, and the theme's background colour, were still indexed."""
    from docx.shared import RGBColor

    d = docx.Document()
    d.add_paragraph("Visible paragraph.")
    table = d.add_table(rows=2, cols=1)
    table.cell(0, 0).paragraphs[0].add_run("Header").font.color.rgb = RGBColor(0xFF, 0xFF,
                                                                              0xFF)
    table.cell(1, 0).text = "Daily limit"
    themed = d.add_paragraph().add_run("THEMED")
    colour = OxmlElement("w:color")
    colour.set(qn("w:val"), "FFFFFF")
    colour.set(qn("w:themeColor"), "background1")
    themed._r.get_or_add_rPr().append(colour)
    text = load_file(_save(d, tmp_path / "t.docx")).text
    assert "Header | " in text or "Header" in text.split("\n")[2], text
    assert "THEMED" not in text and "Visible paragraph." in text
    normal = d.styles["Normal"]
    normal.font.hidden = True
    d.add_paragraph("Shown in its own style.", style="List Bullet").runs[0].font.hidden = False
    text = load_file(_save(d, tmp_path / "n.docx")).text
    assert "Visible paragraph." not in text and "Shown in its own style." in text


def test_a_redaction_drawn_in_the_text_s_own_colour_is_not_read(tmp_path):
    """A second security review: a name "redacted" with a black highlight (black bars in
    Word and LibreOffice) was quoted to every reader ("…pushed by contractor Jane Roe");
    white text on a white highlight or on FEFEFE shading, a 1 % character width and a size
    written "1pt" were read too. Yellow-highlighted black text stays."""
    from docx.enum.text import WD_COLOR_INDEX
    from docx.shared import RGBColor

    def prop(run, tag: str, **attrs: str) -> None:
        element = OxmlElement(tag)
        for name, value in attrs.items():
            element.set(qn(f"w:{name}"), value)
        run._r.get_or_add_rPr().append(element)

    d = docx.Document()
    p = d.add_paragraph("The outage was caused by a firewall rule pushed by ")
    black = p.add_run("REDACTED1 Jane Roe")
    black.font.color.rgb = RGBColor(0, 0, 0)
    black.font.highlight_color = WD_COLOR_INDEX.BLACK
    p.add_run(" on Friday.")
    white = d.add_paragraph().add_run("WHITE2 on a white highlight.")
    white.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    white.font.highlight_color = WD_COLOR_INDEX.WHITE
    near = d.add_paragraph().add_run("NEAR3 on FEFEFE.")
    near.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    prop(near, "w:shd", val="clear", fill="FEFEFE")
    prop(d.add_paragraph().add_run("NARROW4 at 1 %."), "w:w", val="1")
    prop(d.add_paragraph().add_run("SIZE5 at 1pt."), "w:sz", val="1pt")
    marked = d.add_paragraph().add_run("Marked in yellow stays.")
    marked.font.color.rgb = RGBColor(0, 0, 0)
    marked.font.highlight_color = WD_COLOR_INDEX.YELLOW
    text = load_file(_save(d, tmp_path / "incident.docx")).text
    for gone in ("REDACTED1", "Jane Roe", "WHITE2", "NEAR3", "NARROW4", "SIZE5"):
        assert gone not in text, gone
    assert "pushed by  on Friday." in text or "pushed by on Friday." in text, text
    assert "Marked in yellow stays." in text
