"""Code in a PDF comes back as code: lines set in a monospaced font, two or more in a row
(or one after a line ending in a colon), are a ``code`` block whose indentation, blank lines
and columns are laid out again from the glyphs' positions; prose, a definition list's terms
and code words inside a sentence stay text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from citewise.ingest.pdf import PdfLoader
from citewise.ingest.pdf_code import CODE_MARK, split_code

LEFT, LINE = 72, 14  # points; Courier at 10 pt is 6 pt a character


def _pdf(pages: list[list[tuple[str, int, str]]]) -> bytes:
    """Each page: (font, indent in Courier characters, text) lines, top down; an empty
    text leaves a blank line."""
    pytest.importorskip("reportlab")
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for lines in pages:
        y = 780
        for font, indent, text in lines:
            if text:
                pdf.setFont(font, 10)
                pdf.drawString(LEFT + 6 * indent, y, text)
            y -= LINE
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def _blocks(data: bytes) -> list[tuple[str, str]]:
    parsed = PdfLoader().load(data, Path("manual.pdf"))
    return [(b.kind, b.text) for b in parsed.blocks]


def _prose(text: str) -> tuple[str, int, str]:
    return ("Helvetica", 0, text)


def _code(indent: int, text: str) -> tuple[str, int, str]:
    return ("Courier", indent, text)


def test_an_example_keeps_its_indentation_and_blank_lines_and_is_not_prose():
    page = [_prose("A simple example program that prints its arguments."),
            _code(0, "int"), _code(0, "main(int argc, char **argv)"), _code(0, "{"),
            _code(2, "for (int i = 0; i < argc; i++)"), _code(4, 'puts(argv[i]);'),
            ("Courier", 0, ""), _code(2, "return 0;"), _code(0, "}"),
            _prose("Compile it with the usual flags.")]
    assert _blocks(_pdf([page])) == [
        ("text", "A simple example program that prints its arguments."),
        ("code", "int\nmain(int argc, char **argv)\n{\n  for (int i = 0; i < argc; i++)\n"
                 "    puts(argv[i]);\n\n  return 0;\n}"),
        ("text", "Compile it with the usual flags.")]


def test_an_option_set_at_the_margin_after_an_example_is_the_term_of_its_description():
    """The Valgrind manual sets an option's name at the margin right under an indented
    example: "--read-var-info=<yes|no>" was the example's last line, and the text saying what
    it does began without it."""
    page = [_prose("Here are the errors with it:"), _code(3, "==1== Invalid read of size 4"),
            _code(3, "==1==    at 0x8048: main (a.c:6)"), _code(3, "==1==    by 0x8049: f"),
            ("Courier", 0, ""), _code(0, "--read-var-info=<yes|no> [default: no]"),
            _prose("When enabled, Valgrind reads variable types from debug info."),
            _prose("One example, then the next option:"), _code(3, "--sort=DLmr:1"),
            ("Courier", 0, ""), _code(0, "--show-percs=<no|yes>"),
            _prose("When enabled, percentages are printed.")]
    assert _blocks(_pdf([page])) == [
        ("text", "Here are the errors with it:"),
        ("code", "==1== Invalid read of size 4\n==1==    at 0x8048: main (a.c:6)\n"
                 "==1==    by 0x8049: f"),
        ("text", "--read-var-info=<yes|no> [default: no]\n"
                 "When enabled, Valgrind reads variable types from debug info.\n"
                 "One example, then the next option:"),
        ("code", "--sort=DLmr:1"),  # one line after a colon: two lines without a spacing
        ("text", "--show-percs=<no|yes>\nWhen enabled, percentages are printed.")]


def test_one_monospaced_line_is_code_after_a_colon_and_a_term_elsewhere():
    page = [_prose("Use this command line:"), _code(1, "valgrind --leak-check=yes prog"),
            _prose("It runs the program under Memcheck."),
            _code(0, "-k --keep"), _prose("Keep input files."),
            _code(0, "-q --quiet"), _prose("Suppress warnings.")]
    blocks = _blocks(_pdf([page]))
    assert [(kind, text) for kind, text in blocks if kind == "code"] == [
        ("code", "valgrind --leak-check=yes prog")]
    assert "-k --keep\nKeep input files.\n-q --quiet" in blocks[-1][1]  # terms read as text


def test_code_words_inside_a_sentence_leave_it_text(tmp_path: Path):
    pytest.importorskip("reportlab")
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for y in (780, 766):
        text = pdf.beginText(LEFT, y)
        text.setFont("Helvetica", 10)
        text.textOut("Call ")
        text.setFont("Courier", 10)
        text.textOut("sha1_init")
        text.setFont("Helvetica", 10)
        text.textOut(" before hashing.")
        pdf.drawText(text)
    pdf.showPage()
    pdf.save()
    assert [kind for kind, _ in _blocks(buffer.getvalue())] == ["text"]


def test_a_closing_brace_at_the_foot_of_every_page_is_not_page_furniture():
    pages = [[_prose(f"Example {n} follows."), _code(0, f"void f{n}(void)"), _code(0, "{"),
              _code(2, f"step{n}();"), _code(0, "}")] for n in range(4)]
    code = [t for kind, t in _blocks(_pdf(pages)) if kind == "code"]
    assert code == [f"void f{n}(void)\n{{\n  step{n}();\n}}" for n in range(4)]


def test_a_private_use_character_in_the_text_marks_nothing():
    assert split_code(f"plain\n{CODE_MARK}  x = 1\n{CODE_MARK}\n{CODE_MARK}y") == [
        ("text", "plain"), ("code", "  x = 1\n\ny")]
    page = [_prose(f"{CODE_MARK}A private glyph starts this line."),
            _prose("And this line is prose too.")]
    blocks = _blocks(_pdf([page]))
    assert [kind for kind, _ in blocks] == ["text"]
    assert CODE_MARK not in blocks[0][1]


def _drawn(strokes: list[tuple[str, int, str]]) -> bytes:
    """One page; strokes are (font, y, text), drawn in the order given."""
    pytest.importorskip("reportlab")
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for font, y, text in strokes:
        pdf.setFont(font, 10)
        pdf.drawString(LEFT, y, text)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def test_examples_drawn_after_the_page_text_come_back_where_they_sit():
    """Chromium prints a page's text first and its code blocks after it, so every example of
    a printed mdBook came after the paragraphs around it, away from "or maybe:"."""
    text = [("Helvetica", 760, "A struct is laid out like this:"),
            ("Helvetica", 690, "or maybe:"),
            ("Helvetica", 620, "There is no indirection for these types.")]
    code = [("Courier", 740, "struct A {"), ("Courier", 726, "    a: u8,"),
            ("Courier", 712, "}"),
            ("Courier", 670, "struct B {"), ("Courier", 656, "    b: u32,"),
            ("Courier", 642, "}")]
    assert _blocks(_drawn(text + code)) == [
        ("text", "A struct is laid out like this:"),
        ("code", "struct A {\n    a: u8,\n}"),
        ("text", "or maybe:"),
        ("code", "struct B {\n    b: u32,\n}"),
        ("text", "There is no indirection for these types.")]


def test_runs_that_interleave_keep_the_order_they_were_drawn_in():
    """Two columns (or a table drawn column by column) are not put line by line in y order."""
    left = [("Helvetica", 760 - 14 * i, f"left column line {i}") for i in range(4)]
    right = [("Helvetica", 753 - 14 * i, f"right column line {i}") for i in range(4)]
    text = _blocks(_drawn(left + right))[0][1]
    assert text.split("\n") == [t for _, _, t in left + right]


def test_no_space_between_a_code_word_and_the_punctuation_after_it():
    """pypdf puts a space after a word set in a monospaced font: "BTreeMap ’s key",
    "traits unsafe .", "(struct sha256 ctx *ctx , size t length" (Chromium and Texinfo)."""
    from citewise.ingest.pdf_code import _Line, _Piece, mark_code

    def line(*pieces: tuple[str, bool]) -> _Line:
        return _Line([_Piece(text, 10.0 * i, mono, 6.0) for i, (text, mono) in
                      enumerate(pieces)], 700.0)

    lines = [line(("On the other hand, ", False), ("BTreeMap", True), (" ’s key type", False)),
             line(("traits ", False), ("unsafe", True), (" . And", False)),
             line(("(struct ctx *", False), ("ctx", True), (" , size", False)),
             line(("call ", False), ("f", True), (" with", False))]
    assert mark_code(lines) == ["On the other hand, BTreeMap’s key type", "traits unsafe. And",
                                "(struct ctx *ctx, size", "call f with"]


def test_a_page_drawn_line_by_line_upwards_is_left_as_drawn():
    """Every line a run of its own (drawn bottom to top): more runs than MAX_RUNS are not
    reordered, so a hostile page cannot make the reordering quadratic."""
    from citewise.ingest.pdf_code import MAX_RUNS, _Line, _Piece, reading_order

    lines = [_Line([_Piece(f"line {i}", 0.0, False, 6.0)], 10.0 + 12 * i)
             for i in range(MAX_RUNS + 50)]
    assert reading_order(lines) == lines
    few = lines[:3]
    assert reading_order(few) == few[::-1]  # a few runs drawn upwards: top to bottom
