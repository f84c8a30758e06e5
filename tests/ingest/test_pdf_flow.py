"""Text and code that run on across a PDF page break are one block
(:mod:`citewise.ingest.pdf_flow`): 83 of the Valgrind manual's paragraphs were cut in two at
a page's foot, so chunks began mid-sentence and quotes held half a sentence."""

from __future__ import annotations

from pathlib import Path

from citewise.ingest import load_file
from citewise.ingest.pdf_flow import Part, run_on, runs_on


def _text(text: str, page: int) -> Part:
    return Part("text", text, page)


def test_a_sentence_cut_by_a_page_break_is_one_block_cited_at_its_start(tmp_path: Path,
                                                                       make_pdf, check_offsets):
    pages = [["The commentary is intended"], ["to be a low-bandwidth, human-readable channel."],
             ["Profiling data goes to the out-"], ["put file named by --log-file."]]
    path = tmp_path / "manual.pdf"
    path.write_bytes(make_pdf(pages))
    parsed = load_file(path)
    check_offsets(parsed)
    blocks = [(b.text, b.page, b.anchor) for b in parsed.blocks]
    assert ("The commentary is intended\nto be a low-bandwidth, human-readable channel.", 1,
            "page=1") in blocks
    assert ("Profiling data goes to the output\nfile named by --log-file.", 3,
            "page=3") in blocks  # a word hyphenated across the break is whole again


def test_a_finished_sentence_a_new_item_or_a_heading_keeps_the_pages_apart():
    for last, first in [("It ends here.", "the next starts in lowercase"),
                        ("Returns: 0 on success:", "asn1 copy node"),
                        ("A list item without a stop", "• the next item"),
                        ("A caption without a stop", "Note the capital"),
                        ("", "anything")]:
        assert not runs_on(_text(last, 1), _text(first, 2)), (last, first)
    assert not runs_on(Part("code", "int x;", 1), _text("then text", 2))
    heading = Part("heading", "2.5 Suppressing errors", 2, 2)
    assert list(run_on([[_text("cut at the", 1)], [heading, _text("rest", 2)]])) == [
        _text("cut at the", 1), heading, _text("rest", 2)]


def test_what_goes_on_joins_and_keeps_the_first_page():
    for last, first in [("it is intended", "to be read"), ("either directly,", "Or else"),
                        ("the path up to the", "Valgrind core"), ("a long com-", "pound")]:
        assert runs_on(_text(last, 1), _text(first, 2)), (last, first)
    code = [[_text("Example:", 3), Part("code", "int\nmain(void)\n{", 3)],
            [Part("code", "  return 0;\n}", 4), _text("That is all.", 4)]]
    assert list(run_on(code)) == [_text("Example:", 3),
                                  Part("code", "int\nmain(void)\n{\n  return 0;\n}", 3),
                                  _text("That is all.", 4)]
    one_line_pages = [[_text("a sentence that", 1)], [_text("spans", 2)], [_text("pages.", 3)]]
    assert list(run_on(one_line_pages)) == [_text("a sentence that\nspans\npages.", 1)]
