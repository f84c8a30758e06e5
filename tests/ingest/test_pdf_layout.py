"""A PDF manual's page furniture is not indexed, and its outline gives the sections
(:mod:`citewise.ingest.pdf_layout`)."""

from __future__ import annotations

from pathlib import Path

from citewise.ingest import load_file
from citewise.ingest.pdf_headings import page_blocks
from citewise.ingest.pdf_layout import (
    OutlineEntry,
    body_lines,
    dehyphenate,
    family,
    furniture_shapes,
    is_page_number,
    outline,
    vocabulary,
)


def _manual(make_pdf, outline_entries=()) -> bytes:
    """Six pages: a running header and a page-number footer on each; chapter 1 (pages 1-4)
    and chapter 2 (pages 5-6: too short for its header to repeat 3 times)."""
    pages = []
    colours = ["red", "green", "blue", "black", "white", "grey"]
    for n in range(1, 7):
        chapter = "Chapter 1: Installing 12" if n <= 4 else "Chapter 2: Backups 12"
        body = [f"Body text of page {n} about the frobnicator.",
                f"Step {n}: press the {colours[n - 1]} button."]
        if n == 2:
            body = ["1.2 Network setup", "Set the proxy in settings.toml.", *body]
        if n == 5:
            body = ["2 Backups", "Snapshots are taken every night at 02:00.", *body]
        pages.append([chapter.replace("12", str(10 + n)), "Acme Frobnicator Manual", "",
                      *body, "", str(10 + n)])
    return make_pdf(pages, title="Acme Frobnicator", outline=list(outline_entries))


def _load(tmp_path: Path, data: bytes):
    path = tmp_path / "manual.pdf"
    path.write_bytes(data)
    return load_file(path)


def test_running_headers_footers_and_page_numbers_are_not_indexed(tmp_path, make_pdf,
                                                                   check_offsets):
    parsed = _load(tmp_path, _manual(make_pdf))
    check_offsets(parsed)
    for furniture in ("Chapter 1: Installing", "Chapter 2: Backups", "Acme Frobnicator Manual"):
        assert furniture not in parsed.text
    assert not any(is_page_number(line) for line in parsed.text.split("\n"))
    for n, colour in enumerate(["red", "green", "blue", "black", "white", "grey"], start=1):
        # the body stays, "Step N: ..." lines at the page edges included
        assert f"Body text of page {n} about the frobnicator." in parsed.text
        assert f"Step {n}: press the {colour} button." in parsed.text
    assert {b.page for b in parsed.blocks} == set(range(1, 7))


def test_a_short_document_keeps_its_lines(tmp_path, make_pdf):
    """Two pages cannot show that a line repeats: only bare page numbers go."""
    data = make_pdf([["Acme notice", "Keep the lid closed.", "1"],
                     ["Acme notice", "Open it only to refill.", "2"]])
    parsed = _load(tmp_path, data)
    assert parsed.text.count("Acme notice") == 2
    assert "Keep the lid closed." in parsed.text and "\n1" not in parsed.text


def test_outline_entries_become_headings_of_their_level(tmp_path, make_pdf):
    entries = [("1 Installing", 1, 0), ("Network setup", 2, 1), ("2 Backups", 5, 0),
               ("Restoring", 6, 1)]  # "Restoring" is on no line of page 6: no heading
    parsed = _load(tmp_path, _manual(make_pdf, entries))
    headings = [(b.text, b.level, b.page, b.anchor) for b in parsed.blocks
                if b.kind == "heading"]
    assert headings == [("1.2 Network setup", 2, 2, "page=2"), ("2 Backups", 1, 5, "page=5")]
    proxy = next(b for b in parsed.blocks if "proxy" in b.text)
    assert proxy.kind == "text" and proxy.heading_path == ("1.2 Network setup",)
    night = next(b for b in parsed.blocks if "every night" in b.text)
    assert night.heading_path == ("2 Backups",) and night.anchor == "page=5"


def test_a_passage_printed_again_at_page_edges_is_not_furniture():
    """A printed book repeats its "Migration" paragraph on three pages of style changes; at
    each page's foot (the browser drew the examples after it), its lines were dropped from
    all three. A running footer has other body lines beside it from page to page; a part's
    title page (nothing beside its lines) says nothing either way."""
    paragraph = ["The change can be applied by running cargo fmt with the 2024",
                 "Edition. See the Style edition chapter for more information.", "work."]
    pages = [[f"Rustfmt: change {n}", "Summary", f"What change {n} does.", "Details",
              *paragraph] for n in range(3)]
    shapes = furniture_shapes(pages)
    assert body_lines(pages[0], shapes)[-2:] == paragraph[-2:]
    footer = [[f"Chapter {n}", "Summary", f"body {'abc'[n]}", f"more {'xyz'[n]}",
               "Copyright ACME", "Page"] for n in range(3)]
    title_pages = [["ACME Guide", "Release 3", "Copyright ACME", "Email us"]] * 3
    assert "copyright acme" in furniture_shapes(footer)
    assert "copyright acme" in furniture_shapes(title_pages)


def test_table_of_contents_lines_are_dropped():
    lines = ["Table of Contents", "1 Introduction . . . . . . . . . 1",
             "2 Usage .................. 4", "Appendix A Licence . . . . . . iv",
             "The price is 5 dollars."]
    assert body_lines(lines, frozenset()) == ["Table of Contents", "The price is 5 dollars."]


def test_furniture_needs_the_page_edges_and_repeats():
    pages = [["Manual", f"line {n}", f"text {'abc'[n]}", "Keep calm", "more", "end"]
             for n in range(3)]
    shapes = furniture_shapes(pages)
    assert "manual" in shapes and "line #" in shapes  # both at the top of 3 pages
    assert "keep calm" not in shapes  # the middle of a page is never furniture
    assert body_lines(["Manual", "a", "b", "Keep calm", "c", "d"], shapes) == \
        ["a", "b", "Keep calm", "c", "d"]
    assert family("Chapter 4: Function reference 21") == "chapter #:"
    assert family("Step 2: install it") is None and family("Note: see page 4") is None
    assert is_page_number("- 12 -") and is_page_number("Page 3 of 9") and is_page_number("iv")
    assert not is_page_number("Version 2") and not is_page_number("Mix")


def test_page_blocks_split_a_page_at_its_headings_in_outline_order():
    entries = [OutlineEntry("Usage", 1, 3), OutlineEntry("Non-regular files", 2, 3)]
    blocks = list(page_blocks(["end of intro", "3 Usage", "Run it.", "3.1 Nonregular files",
                               "Sockets are skipped."], entries))
    assert blocks == [("text", "end of intro", 0), ("heading", "3 Usage", 1),
                      ("text", "Run it.", 0), ("heading", "3.1 Nonregular files", 2),
                      ("text", "Sockets are skipped.", 0)]


def test_a_line_naming_a_later_heading_does_not_take_it_and_the_headings_between():
    """The Edition Guide's page 113 lists ``…CommandExt::before_exec`` under "Summary"
    before the section of that name: taken as its heading, it also lost "Details" and
    "std::env::{set_var, remove_var}" between them, and their text was filed under it."""
    entries = [OutlineEntry("Unsafe functions", 1, 113), OutlineEntry("Summary", 2, 113),
               OutlineEntry("Details", 2, 113), OutlineEntry("env::set_var", 3, 113),
               OutlineEntry("before_exec", 3, 113)]
    blocks = list(page_blocks(["Unsafe functions", "Summary", "These are unsafe:",
                               "env::set_var", "before_exec", "Details", "Over time.",
                               "env::set_var", "It can be unsound.", "before_exec",
                               "It was deprecated."], entries))
    assert [text for kind, text, _ in blocks if kind == "heading"] == [
        "Unsafe functions", "Summary", "Details", "env::set_var", "before_exec"]
    assert blocks[2] == ("text", "These are unsafe:\nenv::set_var\nbefore_exec", 0)
    assert blocks[-1] == ("text", "It was deprecated.", 0)


def test_roman_page_numbers_of_long_front_matter_are_page_numbers():
    """The Valgrind manual's FAQ pages end in "clxxix": only i, v and x were known."""
    for number in ("clxxix", "xiv", "iv", "mmxxvi", "- xiv -"):
        assert is_page_number(number), number
    for word in ("civic", "dim", "Introduction", "c", "cd"):
        assert not is_page_number(word), word


def test_a_title_wrapped_onto_two_lines_is_still_its_heading():
    """25 of the Valgrind manual's 283 bookmarks, chapters among them, wrapped onto two
    lines and made no heading: their text was filed under the chapter before."""
    entries = [OutlineEntry("5. Cachegrind: a cache and branch-prediction profiler", 1, 9),
               OutlineEntry("5.1. Overview", 2, 9)]
    blocks = list(page_blocks(["5. Cachegrind: a cache and branch-",
                               "prediction profiler", "5.1. Overview", "It simulates."],
                              entries))
    assert blocks == [
        ("heading", "5. Cachegrind: a cache and branch-prediction profiler", 1),
        ("heading", "5.1. Overview", 2), ("text", "It simulates.", 0)]


def test_a_damaged_outline_loses_the_headings_not_the_text():
    class Broken:
        @property
        def outline(self):
            raise ValueError("bad /Outlines")

    assert outline(Broken()) == []


def test_words_broken_at_line_ends_are_joined(tmp_path, make_pdf):
    assert dehyphenate("for manip-\nulation of data") == "for manipulation\nof data"
    assert dehyphenate("the manip-\nulation\nnext") == "the manipulation\nnext"  # no new gap
    for kept in ("ASN1_DER-\nerror", "the x-\naxis", "pages 3-\n4", "YYMMDDhhmm-\nhh",
                 "an in-\nHouse", "x _\nvalue", "_private_\nnext"):
        assert dehyphenate(kept) == kept
    assert dehyphenate("the function asn1_der_\ndecoding() to fill") == \
        "the function asn1_der_decoding()\nto fill"  # TeX breaks @code after an underscore
    parsed = _load(tmp_path, make_pdf([["The library is for the manip-",
                                        "ulation of certificates."]]))
    assert parsed.text == "The library is for the manipulation\nof certificates."


def test_a_hyphen_the_document_spells_elsewhere_is_kept(tmp_path, make_pdf):
    """Apache FOP breaks lines only at hyphens: the Valgrind manual's `--gen-` / `suppressions`
    became --gensuppressions (40 options like it), and answers quoted the broken name."""
    words = vocabulary(["use --gen-suppressions=yes here", "a show-leak-kinds list",
                        "the manipulation of data"])
    assert dehyphenate("with --gen-\nsuppressions=yes", words) == \
        "with --gen-suppressions=yes"
    assert dehyphenate("the show-leak-\nkinds option", words) == "the show-leak-kinds\noption"
    assert dehyphenate("for manip-\nulation", words) == "for manipulation"
    assert dehyphenate("an --error-\nexitcode", words) == "an --error-exitcode"  # an option
    assert dehyphenate("some docu-\nment", words) == "some document"  # neither: joined
    parsed = _load(tmp_path, make_pdf([["Pass --gen-", "suppressions=yes to see them.",
                                        "", "Also --gen-suppressions=all works."]]))
    assert "--gen-suppressions=yes" in parsed.text and "gensuppressions" not in parsed.text


def test_without_bookmarks_the_printed_table_of_contents_gives_the_sections(tmp_path,
                                                                            make_pdf):
    """Printed page numbers are not PDF page indexes (front matter shifts them), so entries
    are found as lines, in order, after the contents page."""
    pages = [["Acme Frobnicator", "User guide"],
             ["Contents", "1 Installing . . . . . . . . 1", "1.1 Network setup . . . . . . 1",
              "2 Backups . . . . . . . . . 2", "2.1 Restoring . . . . . . . 2"],
             ["1 Installing", "Run the installer first.", "1.1 Network setup",
              "Set the proxy in settings.toml."],
             ["2 Backups", "Snapshots are taken every night.", "Restore with acme restore."]]
    parsed = _load(tmp_path, make_pdf(pages))
    headings = [(b.text, b.level, b.page) for b in parsed.blocks if b.kind == "heading"]
    assert headings == [("1 Installing", 1, 3), ("1.1 Network setup", 2, 3),
                        ("2 Backups", 1, 4)]  # "2.1 Restoring" has no line: not invented
    proxy = next(b for b in parsed.blocks if "proxy" in b.text)
    assert proxy.heading_path == ("1 Installing", "1.1 Network setup")
    assert ". . ." not in parsed.text


def test_bookmarks_win_over_the_printed_table_of_contents(tmp_path, make_pdf):
    pages = [["Contents", "1 Installing . . . . . 1", "2 Backups . . . . . 2",
              "3 Upgrading . . . . . 3"],
             ["1 Installing", "Run the installer first."],
             ["2 Backups", "Snapshots are taken every night."]]
    parsed = _load(tmp_path, make_pdf(pages, outline=[("2 Backups", 3, 0)]))
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == ["2 Backups"]


def test_an_options_dashes_left_at_a_line_end_rejoin_it():
    """94 lines of the Valgrind manual end in "--" with the option on the next line; answers
    quoted "the -- track-origins=yes"."""
    words = vocabulary(["pass --quiet to silence it"])
    assert dehyphenate("use the --\ntrack-origins=yes option\nnext", words) == \
        "use the --track-origins=yes\noption\nnext"
    assert dehyphenate("(see --\nlog-file).", words) == "(see --log-file)."
    assert dehyphenate("a --\nquiet run", words) == "a --quiet\nrun"  # the manual says --quiet
    for prose in ("prose --\nin the end", "x <!--\nuse it"):
        assert dehyphenate(prose, words) == prose


def test_ligatures_are_their_letters(tmp_path):
    """Chromium and pdfTeX set "ﬁrst" and "diﬀerent" with one glyph each (449 words of a
    printed mdBook), which no search for "first" or "different" found."""
    import io

    import pytest
    pytest.importorskip("reportlab")
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    assert font.is_file(), "DejaVu fonts missing. Fix: apt-get install fonts-dejavu-core"
    pdfmetrics.registerFont(TTFont("DejaVu", str(font)))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    pdf.setFont("DejaVu", 11)
    pdf.drawString(72, 700, "The \ufb01rst di\ufb00erent \ufb02ag is e\ufb03cient.")
    pdf.showPage()
    pdf.save()
    parsed = _load(tmp_path, buffer.getvalue())
    assert parsed.text == "The first different flag is efficient."


def test_a_line_the_pages_outline_names_is_a_heading_not_furniture():
    """A printed book's "Summary" and "Migration" sections (34 and 10 of them) sat at page
    edges often enough to be taken for running headers: 48 of its headings were dropped."""
    pages = [["Summary", f"Point {n} of the summary.", "", "More text.", "Migration"]
             for n in range(4)]
    furniture = furniture_shapes(pages)
    assert "summary" in furniture  # at the edges of four pages
    entries = [OutlineEntry("Summary", 2, 1), OutlineEntry("Migration", 2, 1)]
    assert body_lines(pages[0], furniture, entries)[0] == "Summary"
    assert body_lines(pages[0], furniture, entries)[-1] == "Migration"
    assert "Summary" not in body_lines(pages[1], furniture)  # no entry names it there


def test_a_page_naming_entries_on_every_line_is_matched_first_come():
    """The in-order matching is quadratic (named lines x entries); a hostile page past
    MAX_ALIGN is matched first come, first served, in linear time."""
    from citewise.ingest.pdf_headings import MAX_ALIGN

    entries = [OutlineEntry("Same title", 2, 1)] * 1000
    lines = ["Same title"] * 300
    assert len(lines) * len(entries) > MAX_ALIGN
    blocks = list(page_blocks(lines, entries))
    assert [kind for kind, _, _ in blocks] == ["heading"] * 300
