"""chunk_document on small literal documents, counted in whitespace words (exact by hand)."""

from __future__ import annotations

import hashlib

import pytest

from citewise.chunk import chunk_document
from citewise.config import ChunkSettings
from citewise.testing.fakes import FakeEmbedder


def settings(chunk: int = 16, overlap: int = 0, min_tokens: int = 0) -> ChunkSettings:
    return ChunkSettings(chunk_tokens=chunk, overlap_tokens=overlap, min_tokens=min_tokens)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def section_id(doc_id: str, start: int) -> str:
    return sha(f"{doc_id}\x00section\x00{start}")[:16]


def texts(chunks) -> list[str]:
    return [c.text for c in chunks]


# --- empty input -----------------------------------------------------------------------------

def test_no_blocks_or_only_blank_blocks_give_no_chunks(make_doc, words):
    assert chunk_document(make_doc(), "d", settings(), words) == []
    blank = make_doc(("text", "   "), ("text", "\n\t"))
    assert chunk_document(blank, "d", settings(), words) == []


def test_blank_blocks_are_skipped_between_real_ones(make_doc, words):
    doc = make_doc(("heading", "Usage", 1), ("text", "  "), ("text", "Call search."))
    [chunk] = chunk_document(doc, "d", settings(), words)
    assert chunk.text == "Usage\n\n  \n\nCall search." == doc.text
    assert chunk.token_count == 3


# --- sections --------------------------------------------------------------------------------

def test_sections_are_never_mixed_even_when_they_would_fit(make_doc, words):
    doc = make_doc(("heading", "Install", 1), ("text", "Run pip install citewise."),
                   ("heading", "Usage", 1), ("text", "Call the search command."))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["Install\n\nRun pip install citewise.",
                             "Usage\n\nCall the search command."]
    assert [c.heading_path for c in chunks] == [("Install",), ("Usage",)]
    assert [(c.start, c.end) for c in chunks] == [(0, 34), (36, 67)]
    assert [c.section_id for c in chunks] == [section_id("d", 0), section_id("d", 36)]
    assert [c.ordinal for c in chunks] == [0, 1]


def test_heading_only_section_merges_forward_with_the_deeper_path(make_doc, words):
    doc = make_doc(("heading", "Guide", 1), ("heading", "Install", 2),
                   ("text", "Run pip install citewise."),
                   ("heading", "Usage", 2), ("text", "Call search."),
                   ("heading", "Appendix", 2))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["Guide\n\nInstall\n\nRun pip install citewise.",
                             "Usage\n\nCall search.", "Appendix"]
    assert [c.heading_path for c in chunks] == [
        ("Guide", "Install"), ("Guide", "Usage"), ("Guide", "Appendix")]
    assert chunks[0].section_id == section_id("d", 0)
    assert chunks[0].anchor == "install"  # the section its heading path names
    assert [c.kind for c in chunks] == ["text", "text", "heading"]  # a trailing heading stays


def test_a_run_of_empty_headings_links_to_the_section_with_the_text(make_doc, words):
    """Node's CLI page lists 13 V8 options as headings with nothing under them before
    "--max-old-space-size": the chunk is listed under that option's heading, and its link
    opened at the first empty one ("--abort-on-uncaught-exception")."""
    doc = make_doc(("heading", "Options", 1), ("heading", "--expose-gc", 2),
                   ("heading", "--jitless", 2), ("heading", "--max-old-space-size", 2),
                   ("text", "Sets the max memory size of V8's old memory section."))
    chunk, = chunk_document(doc, "d", settings(), words)
    assert chunk.heading_path == ("Options", "--max-old-space-size")
    assert chunk.anchor == "--max-old-space-size"
    assert chunk.section_at(0).anchor == "options"  # a quote of a heading still opens it


def test_empty_heading_followed_by_a_sibling_takes_the_siblings_path(make_doc, words):
    doc = make_doc(("heading", "Guide", 1), ("text", "About it."),
                   ("heading", "Empty", 2), ("heading", "Full", 2), ("text", "Has text."))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["Guide\n\nAbout it.", "Empty\n\nFull\n\nHas text."]
    assert chunks[1].heading_path == ("Guide", "Full")


def test_preamble_before_the_first_heading_is_its_own_section(make_doc, words):
    doc = make_doc(("text", "Before any heading.", {"heading_path": ("Guide",)}),
                   ("heading", "Usage", 1), ("text", "Call search."))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["Before any heading.", "Usage\n\nCall search."]
    assert chunks[0].heading_path == ("Guide",)
    assert chunks[0].text_for_embedding == "Guide\n\nBefore any heading."


def _siblings(make_doc):
    return make_doc(("heading", "Guide", 1), ("text", "A guide to citewise."),
                    ("heading", "A", 2), ("text", "x."), ("heading", "B", 2), ("text", "y."),
                    ("heading", "C", 2), ("text", "z."), ("heading", "D", 2), ("text", "w."))


def test_small_sibling_sections_merge_under_their_common_parent_path(make_doc, words):
    # Guide = 5 tokens (not < 5). A = 2 < 5 absorbs B (4 < 5), then C (6 >= 5): D stays alone.
    chunks = chunk_document(_siblings(make_doc), "d", settings(min_tokens=5), words)
    assert texts(chunks) == ["Guide\n\nA guide to citewise.", "A\n\nx.\n\nB\n\ny.\n\nC\n\nz.",
                             "D\n\nw."]
    assert [c.heading_path for c in chunks] == [("Guide",), ("Guide",), ("Guide", "D")]
    assert chunks[1].section_id == section_id("d", chunks[1].start)
    assert chunks[1].anchor == "a"
    # each merged entry keeps where it starts, its anchor and its own heading path
    assert [(m.offset, m.anchor, m.heading_path) for m in chunks[1].sections] == [
        (0, "a", ("Guide", "A")), (7, "b", ("Guide", "B")), (14, "c", ("Guide", "C"))]
    assert chunks[1].section_at(chunks[1].text.index("y.")).anchor == "b"
    assert chunks[0].sections == () and chunks[2].sections == ()  # one section each


def test_a_heading_merged_with_its_first_subsection_marks_both(make_doc, words):
    doc = make_doc(("heading", "Guide", 1), ("heading", "Install", 2),
                   ("text", "Run pip install citewise."))
    (chunk,) = chunk_document(doc, "d", settings(), words)
    assert [(m.offset, m.anchor) for m in chunk.sections] == [(0, "guide"), (7, "install")]
    assert chunk.section_at(chunk.text.index("Run")).heading_path == ("Guide", "Install")
    assert chunk.section_at(-1).anchor == "install"  # a text not found: the chunk's own


def test_no_small_section_merge_when_min_tokens_is_zero(make_doc, words):
    chunks = chunk_document(_siblings(make_doc), "d", settings(min_tokens=0), words)
    assert len(chunks) == 5


def test_small_section_does_not_merge_into_a_child_or_past_the_limit(make_doc, words):
    child = make_doc(("heading", "A", 2), ("text", "x."), ("heading", "A1", 3), ("text", "y."))
    assert len(chunk_document(child, "d", settings(min_tokens=5), words)) == 2
    big = make_doc(("heading", "A", 2), ("text", "x."),
                   ("heading", "B", 2), ("text", " ".join(["word"] * 14) + "."))
    # A (2) + B (15) = 17 > 16
    assert len(chunk_document(big, "d", settings(min_tokens=5), words)) == 2


# --- packing whole blocks --------------------------------------------------------------------

def test_whole_blocks_pack_greedily_up_to_chunk_tokens(make_doc, words):
    p1 = "one two three four five six."
    p2 = "seven eight nine ten eleven twelve."
    p3 = "a b c d e f."
    doc = make_doc(("heading", "Usage", 1), ("text", p1), ("text", p2), ("text", p3))
    chunks = chunk_document(doc, "d", settings(), words)
    # 1 + 6 + 6 = 13; + 6 = 19 > 16, so p3 starts a new chunk
    assert texts(chunks) == [f"Usage\n\n{p1}\n\n{p2}", p3]
    assert [c.token_count for c in chunks] == [13, 6]
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert chunks[1].start == doc.blocks[3].start
    assert {c.section_id for c in chunks} == {section_id("d", 0)}
    assert [c.heading_path for c in chunks] == [("Usage",), ("Usage",)]


def test_a_heading_is_never_alone_even_if_it_overflows_the_limit(make_doc, words):
    para = " ".join(f"w{i}" for i in range(16))
    doc = make_doc(("heading", "Usage", 1), ("text", para))
    [chunk] = chunk_document(doc, "d", settings(), words)
    assert chunk.text == f"Usage\n\n{para}"
    assert chunk.token_count == 17


# --- long prose: sentence windows ------------------------------------------------------------

def test_long_paragraph_becomes_overlapping_sentence_windows(make_doc, words):
    sents = [f"Sentence{i} has four words." for i in range(10)]
    doc = make_doc(("heading", "Long", 1), ("text", " ".join(sents)))
    chunks = chunk_document(doc, "d", settings(overlap=4), words)
    # units: heading (1), then 10 sentences of 4; windows ≤ 16, next starts 4 tokens back
    assert texts(chunks) == ["Long\n\n" + " ".join(sents[0:3]), " ".join(sents[2:6]),
                             " ".join(sents[5:9]), " ".join(sents[8:10])]
    assert [c.token_count for c in chunks] == [13, 16, 16, 8]
    for c in chunks:
        assert doc.text[c.start:c.end] == c.text
        assert c.heading_path == ("Long",) and c.anchor == "long" and c.kind == "text"
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        assert words(doc.text[nxt.start:prev.end]) == 4  # the overlap, in tokens


def test_overlap_is_the_closest_sentence_run_to_overlap_tokens(make_doc, words):
    sents = [f"S{i} a b." for i in range(12)]  # 3 words each
    doc = make_doc(("text", " ".join(sents)))
    chunks = chunk_document(doc, "d", settings(overlap=5), words)
    # windows of 5 sentences (15); tails 3 (|3-5|=2) vs 6 (|6-5|=1): 2 sentences overlap
    assert texts(chunks) == [" ".join(sents[0:5]), " ".join(sents[3:8]), " ".join(sents[6:11]),
                             " ".join(sents[9:12])]


def test_sentence_splitting_respects_abbreviations_and_decimals(make_doc, words):
    sents = ["See Fig. 2 and e.g. the 3.14 ratio now.", "Dr. Who wrote it in vs. mode.",
             "J. Smith agrees with this.", "Short one here."]
    doc = make_doc(("text", " ".join(sents)))
    chunks = chunk_document(doc, "d", settings(overlap=0), words)
    # counts 9, 7, 5, 3 under a 16 budget need 2 windows; the balanced plan (smallest budget
    # still giving 2 windows is 15) is 9 | 7 + 5 + 3, and no window cuts inside an abbreviation
    assert texts(chunks) == [sents[0], " ".join(sents[1:4])]


def test_a_sentence_longer_than_the_limit_falls_back_to_words(make_doc, words):
    ws = [f"w{i}" for i in range(40)]
    doc = make_doc(("text", " ".join(ws)))
    chunks = chunk_document(doc, "d", settings(overlap=4), words)
    assert texts(chunks) == [" ".join(ws[0:16]), " ".join(ws[12:28]), " ".join(ws[24:40])]
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert [c.heading_path for c in chunks] == [(), (), ()]


def test_long_list_is_cut_between_items(make_doc, words):
    items = [f"- item{i} has four words" for i in range(6)]  # 5 words each
    doc = make_doc(("heading", "List", 1), ("list", "\n".join(items)))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["List\n\n" + "\n".join(items[0:3]), "\n".join(items[3:6])]
    assert [c.kind for c in chunks] == ["list", "list"]


# --- tables ----------------------------------------------------------------------------------

def test_long_table_splits_by_rows_and_repeats_the_header(make_doc, words):
    header = "name | value"  # 3 words
    rows = [f"r{i} | v{i}" for i in range(10)]  # 3 words each
    doc = make_doc(("heading", "Data", 1), ("table", "\n".join([header, *rows]), 1))
    chunks = chunk_document(doc, "d", settings(overlap=8), words)
    # first: 1 (heading) + 3 (header) + 4 rows = 16; then 3 + 4 rows = 15; then 3 + 2 rows
    assert texts(chunks) == ["Data\n\n" + "\n".join([header, *rows[0:4]]),
                             "\n".join([header, *rows[4:8]]), "\n".join([header, *rows[8:10]])]
    assert [c.token_count for c in chunks] == [16, 15, 9]
    assert [c.kind for c in chunks] == ["table"] * 3
    assert doc.text[chunks[0].start:chunks[0].end] == chunks[0].text
    for c, first, last in [(chunks[1], 4, 7), (chunks[2], 8, 9)]:
        assert doc.text[c.start:c.end] == "\n".join(rows[first:last + 1])  # span = its rows
        assert c.text == header + "\n" + doc.text[c.start:c.end]
    covered = [line for c in chunks for line in c.text.split("\n") if line.startswith("r")]
    assert covered == rows  # every row exactly once, never cut


def test_a_table_too_wide_for_whole_rows_is_cut_within_the_budget(make_doc, words):
    """A security review's table of 300,000 cells was one 2.4 MB chunk (its header row alone
    was over the budget), returned whole by every search that hit it."""
    header = " | ".join(f"h{i}" for i in range(60))  # 119 words: over twice the budget
    row = " | ".join(f"v{i}" for i in range(60))
    doc = make_doc(("heading", "Wide", 1), ("table", f"{header}\n{row}", 1))
    chunks = chunk_document(doc, "d", settings(), words)
    assert len(chunks) > 2 and all(c.token_count <= 16 for c in chunks)
    assert " ".join(c.text for c in chunks).count("v59") == 1  # nothing lost
    headless = make_doc(("heading", "Wide", 1), ("table", header, 0))
    assert all(c.token_count <= 16 for c in chunk_document(headless, "d", settings(), words))


def test_table_that_fits_is_one_chunk(make_doc, words):
    table = "a | b\n1 | 2"
    doc = make_doc(("heading", "T", 1), ("table", table, 1))
    [chunk] = chunk_document(doc, "d", settings(), words)
    assert chunk.text == "T\n\na | b\n1 | 2" and chunk.kind == "table"


# --- code ------------------------------------------------------------------------------------

def test_code_that_fits_alone_is_kept_whole_in_its_own_chunk(make_doc, words):
    para = "This paragraph has exactly ten words in it for us."
    code = "x = 1\ny = 2\nz"  # 7 words: does not fit after heading + para (11)
    doc = make_doc(("heading", "Code", 1), ("text", para), ("code", code))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == [f"Code\n\n{para}", code]
    assert [c.kind for c in chunks] == ["text", "code"]


def test_code_alone_too_long_is_split_between_lines_without_overlap(make_doc, words):
    lines = [f"v{i} = {i}" for i in range(10)]  # 3 words each, every line a statement
    doc = make_doc(("heading", "Code", 1), ("code", "\n".join(lines)))
    chunks = chunk_document(doc, "d", settings(overlap=8), words)
    # heading + 5 lines = 16; then the last 5 lines = 15; the overlap setting is ignored
    assert texts(chunks) == ["Code\n\n" + "\n".join(lines[0:5]), "\n".join(lines[5:10])]
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert [c.kind for c in chunks] == ["code", "code"]


def test_a_long_line_cut_by_characters_gives_no_blank_chunk(make_doc, words):
    # a fuzz case: 274 spaces before "00" in an indented code block; the character cut of a
    # line too long for the budget gave a chunk of 257 spaces
    code = " " * 274 + "00"
    doc = make_doc(("code", code))
    chunks = chunk_document(doc, "d", settings(), words)
    assert chunks and all(c.text.strip() for c in chunks)
    assert "".join(c.text for c in chunks).strip() == "00"
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)


def test_long_code_is_cut_between_statements_never_inside_one(make_doc, words):
    code = ("client = make(\n    a,\n)\n"  # 4 words: one statement over three lines
            "# send it\nfor r in rs {\n    send r\n} else {\n    drop r\n}\n"  # comment: 15
            "@wrap\ndef f():\n    return 1")  # decorator with its function: 5
    doc = make_doc(("heading", "Code", 1), ("code", code))
    chunks = chunk_document(doc, "d", settings(chunk=16), words)
    assert texts(chunks) == ["Code\n\nclient = make(\n    a,\n)",
                             "# send it\nfor r in rs {\n    send r\n} else {\n    drop r\n}",
                             "@wrap\ndef f():\n    return 1"]


def test_a_statement_alone_over_the_limit_is_cut_between_its_lines(make_doc, words):
    lines = ["run {", *[f"    step {i}" for i in range(12)], "}"]  # 2 + 24 + 1 words
    doc = make_doc(("heading", "Code", 1), ("code", "\n".join(lines)))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == ["Code\n\n" + "\n".join(lines[0:7]), "\n".join(lines[7:])]
    assert chunks[1].text.startswith("    step 6")  # cut at a line start, indentation kept


def test_a_lead_in_stays_with_the_code_it_introduces(make_doc, words):
    para = "This paragraph has exactly ten words in it for us."
    lead = "Run it like this:"
    code = "x = 1\ny = 2"
    doc = make_doc(("heading", "Code", 1), ("text", para), ("text", lead), ("code", code))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == [f"Code\n\n{para}", f"{lead}\n\n{code}"]  # 4 + 6 words
    assert [c.kind for c in chunks] == ["text", "code"]  # the lead-in is not its kind


def test_the_last_sentence_of_a_long_block_stays_with_what_it_introduces(make_doc, words):
    """A PDF page's paragraphs are one block: the Edition Guide's "…Rust 2021 will use a new
    prelude. It's identical to the current one, except for three new additions:" ended one
    chunk and the three traits began the next."""
    para = ("This paragraph has exactly ten words in it for us. " * 2
            + "It adds three traits:")  # 24 words: too long to be a lead-in itself
    items = "std::convert::TryInto\nstd::convert::TryFrom\nstd::iter::FromIterator"
    doc = make_doc(("heading", "Prelude", 1), ("text", para), ("code", items))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks)[-1] == f"It adds three traits:\n\n{items}"
    assert texts(chunks)[0].endswith("ten words in it for us.")


def test_a_short_sentence_right_before_code_is_a_lead_in_without_a_colon(make_doc, words):
    para = "This paragraph has exactly ten words in it for us."
    lead = "Here is a trivial example."  # libffi's manual: no colon before its example
    code = "x = 1\ny = 2"
    doc = make_doc(("heading", "Code", 1), ("text", para), ("text", lead), ("code", code))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == [f"Code\n\n{para}", f"{lead}\n\n{code}"]
    assert [c.kind for c in chunks] == ["text", "code"]


def test_a_short_sentence_before_prose_or_ending_a_section_is_no_lead_in(make_doc, words):
    para = "This paragraph has exactly ten words in it for us."
    short = "Here is a trivial example."
    doc = make_doc(("heading", "Code", 1), ("text", para), ("text", short),
                   ("text", "And then the rest of it follows here."))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks)[0] == f"Code\n\n{para}\n\n{short}"  # packed as any paragraph


@pytest.mark.parametrize(("kind", "term", "other"), [
    ("code", "--pid=<number>", "make install"),  # a PDF manual's option list (Valgrind: 18)
    ("text", "--maxvars VALUE", "Then run it.")])  # a man page's <dt> (libxslt, stop 41)
def test_an_option_set_alone_stays_with_what_it_does(make_doc, words, kind, term, other):
    """An option alone, as code or as a line of text, ended one chunk and what it does began
    the next: "xsltproc maxvars" quoted ``--maxdepth``'s default. A command or a short
    sentence in its place is packed as before."""
    para = "This paragraph has exactly ten words in it for us."
    what = "Specifies the number of variables to keep."
    doc = make_doc(("heading", "Options", 1), ("text", para), (kind, term), ("text", what))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == [f"Options\n\n{para}", f"{term}\n\n{what}"]
    example = make_doc(("heading", "Run", 1), ("text", para), (kind, other), ("text", what))
    assert texts(chunk_document(example, "d", settings(), words))[0] == \
        f"Run\n\n{para}\n\n{other}"


def test_a_sentence_ending_in_an_ellipsis_is_a_lead_in(make_doc, words):
    para = "This paragraph has exactly ten words in it for us."
    lead = "For a longer run, see the dictionary configuration style..."  # 9 words
    doc = make_doc(("heading", "Code", 1), ("text", para), ("text", lead),
                   ("text", "It has one short sentence."))
    chunks = chunk_document(doc, "d", settings(chunk=24), words)
    assert texts(chunks) == [f"Code\n\n{para}",
                             f"{lead}\n\nIt has one short sentence."]


def test_a_lead_in_opens_the_first_window_of_long_code(make_doc, words):
    lead = "The whole loop reads as follows:"  # 6 words
    lines = [f"v{i} = {i}" for i in range(8)]  # 3 words each
    doc = make_doc(("heading", "Code", 1), ("text", lead), ("code", "\n".join(lines)))
    chunks = chunk_document(doc, "d", settings(), words)
    # heading + lead-in join the first statement, so they are never a chunk of their own
    assert texts(chunks) == [f"Code\n\n{lead}\n\n" + "\n".join(lines[:3]),
                             "\n".join(lines[3:])]


def test_a_run_of_lead_ins_longer_than_the_limit_is_cut(make_doc, words):
    leads = [f"Point {i} holds three words:" for i in range(8)]  # 5 words each
    doc = make_doc(("heading", "Code", 1), *[("text", t) for t in leads], ("code", "x = 1"))
    chunks = chunk_document(doc, "d", settings(), words)
    assert max(c.token_count for c in chunks) <= 16 + 5  # never one chunk of all eight
    assert texts(chunks)[-1].endswith(f"{leads[-1]}\n\nx = 1")


def test_a_long_paragraph_ending_in_a_colon_is_not_a_lead_in(make_doc, words):
    para = " ".join(["word"] * 9) + ":"  # 9 words, over half of 16
    doc = make_doc(("heading", "Code", 1), ("text", para), ("code", "x = 1\ny = 2\nz = 3"))
    chunks = chunk_document(doc, "d", settings(), words)
    assert texts(chunks) == [f"Code\n\n{para}", "x = 1\ny = 2\nz = 3"]


# --- fields ----------------------------------------------------------------------------------

def test_ids_and_hashes_follow_the_documented_formulas(make_doc, words):
    doc = make_doc(("heading", "Install", 1), ("text", "Run pip."), title="Guide")
    [c] = chunk_document(doc, "doc-1", settings(), words)
    assert c.chunk_id == sha(f"doc-1\x000\x00{len(doc.text)}\x00{sha(doc.text)}")[:32]
    assert c.section_id == sha("doc-1\x00section\x000")[:16]
    assert c.text_for_embedding == "Guide\nInstall\n\nInstall\n\nRun pip."
    assert c.embed_hash == sha(c.text_for_embedding)
    assert c.doc_id == "doc-1" and c.token_count == 3


def test_text_for_embedding_skips_empty_parts_and_a_path_equal_to_the_title(make_doc, words):
    def embed_text(*items, title):
        doc = make_doc(*items, title=title)
        return chunk_document(doc, "d", settings(), words)[0].text_for_embedding

    nested = [("heading", "Guide", 1), ("heading", "Install", 2), ("text", "Run.")]
    assert embed_text(*nested, title="Guide") == (
        "Guide\nGuide > Install\n\nGuide\n\nInstall\n\nRun.")
    assert embed_text(("heading", "Guide", 1), ("text", "Run."), title="Guide") == (
        "Guide\n\nGuide\n\nRun.")
    assert embed_text(("text", "Run."), title="") == "Run."
    assert embed_text(("heading", "A", 1), ("text", "Run."), title="") == "A\n\nA\n\nRun."


def test_kind_anchor_and_page_come_from_the_blocks(make_doc, words):
    doc = make_doc(("text", "First page text.", {"page": 3, "anchor": "page-3"}),
                   ("list", "- one item", {"page": 4, "anchor": "page-4"}))
    [c] = chunk_document(doc, "d", settings(), words)
    assert (c.kind, c.anchor, c.page) == ("text", "page-3", 3)  # mixed kinds -> "text"


def test_same_input_gives_same_chunks(make_doc, words):
    doc = _siblings(make_doc)
    assert chunk_document(doc, "d", settings(), words) == chunk_document(
        doc, "d", settings(), words)


def _three(make_doc, middle: str):
    return make_doc(("heading", "A", 1), ("text", "Alpha text here."),
                    ("heading", "B", 1), ("text", middle),
                    ("heading", "C", 1), ("text", "Gamma text here."))


def test_editing_one_paragraph_changes_only_its_chunk(make_doc, words):
    before = chunk_document(_three(make_doc, "Beta text here."), "d", settings(), words)
    same_length = chunk_document(_three(make_doc, "Beta TEXT here."), "d", settings(), words)
    assert [a.chunk_id == b.chunk_id for a, b in zip(before, same_length, strict=True)] == [
        True, False, True]
    # A length change moves later offsets, so later chunk ids change (ids include the span);
    # their embed_hash, the embedding-cache key, does not.
    longer = chunk_document(_three(make_doc, "Beta text here, longer."), "d", settings(), words)
    assert [a.chunk_id == b.chunk_id for a, b in zip(before, longer, strict=True)] == [
        True, False, False]
    assert [a.embed_hash == b.embed_hash for a, b in zip(before, longer, strict=True)] == [
        True, False, True]


def test_every_string_is_counted_at_most_once(make_doc):
    seen: list[str] = []

    def counting(text: str) -> int:
        seen.append(text)
        return len(text.split())

    sents = [f"Sentence{i} has four words." for i in range(10)]
    doc = make_doc(("heading", "Long", 1), ("text", " ".join(sents)), ("text", "Tail."))
    chunk_document(doc, "d", settings(overlap=4), counting)
    assert len(seen) == len(set(seen))


def test_invariants_on_a_mixed_document(make_doc):
    count = FakeEmbedder().count_tokens
    sents = " ".join(f"Point {i} is made in this sentence." for i in range(30))
    doc = make_doc(
        ("text", "Preamble."), ("heading", "Guide", 1), ("heading", "Intro", 2),
        ("text", sents), ("list", "\n".join(f"- item {i} here" for i in range(20))),
        ("heading", "Tables", 2),
        ("table", "\n".join(["k | v", *[f"{i} | x" for i in range(40)]]), 1),
        ("heading", "Code", 2), ("code", "\n".join(f"call({i})" for i in range(50))))
    for s in (settings(16, 4), settings(32, 8, 10), settings(64, 0, 24)):
        chunks = chunk_document(doc, "d", s, count)
        headings = [b.start for b in doc.blocks if b.kind == "heading"]
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))
        assert len({c.chunk_id for c in chunks}) == len(chunks)
        for c in chunks:
            assert c.token_count == count(c.text)
            assert not any(c.start < h < c.end for h in headings[2:])  # no section crossed
            if doc.text[c.start:c.end] != c.text:  # only continued table chunks
                assert c.kind == "table" and c.text.startswith("k | v\n")


def test_text_after_a_bold_labels_box_is_not_under_the_label() -> None:
    """SQLAlchemy's API pages put a bold "Class signature" line over one paragraph in a box;
    the class's methods after the box were chunked under it (3,026 of a new user's 13,809
    chunks; citations read "Session API › Session › Class signature")."""
    from pathlib import Path

    from citewise.ingest.html import HtmlLoader

    methods = "".join(f'<dl class="py method"><dt id="m{i}">method m{i}()</dt><dd><p>Runs '
                      f'step {i} of the session flush and returns nothing.</p></dd></dl>'
                      for i in range(3))
    page = ('<html><body><main><section id="session"><h2>Session</h2><p>The Session.</p>'
            '<div class="class-bases"><p><strong>Class signature</strong></p>'
            '<p>class Session (object)</p></div>' + methods + '</section></main></body></html>')
    parsed = HtmlLoader().load(page.encode(), Path("session_api.html"))
    chunks = chunk_document(parsed, "api", settings(chunk=40), FakeEmbedder().count_tokens)
    for chunk in chunks:
        if "Runs step" in chunk.text:
            assert chunk.heading_path == ("Session",), chunk.heading_path
    assert any("Class signature" in c.heading_path for c in chunks)  # its box's own text


def test_a_vim_tags_lines_stay_in_their_section() -> None:
    """A review: Vim help gives a tag's path to its next line only; cut at the first block
    outside it, options.txt fell into tag-only chunks ("local-options / Handling of local
    options", 40 characters). Only an HTML page's labels end with their box."""
    from pathlib import Path

    from citewise.ingest.text import TextLoader

    body = ("Some of the options only apply to a window or buffer.  Each window or buffer\n"
            "has its own copy of this option, thus each can have its own value.\n") * 6
    text = ("*options.txt*\tFor Vim version 9.0.  Last change: 2023 Feb 17\n\n\n"
            "\t\t  VIM REFERENCE MANUAL\t  by Bram Moolenaar\n\n\nOptions\t\t\t\t*options*\n\n"
            "1. Setting options\t\t\t|set-option|\n\n" + "=" * 78 + "\n"
            "1. Setting options\t\t\t\t\t*set-option* *E764*\n\n"
            "When adding or removing a string from an option with \":set opt-=val\" the\n"
            "expansion is done before the adding or removing.\n\n\n"
            "Handling of local options\t\t\t*local-options*\n\n" + body + "\n")
    parsed = TextLoader().load(text.encode(), Path("options.txt"))
    chunks = chunk_document(parsed, "opts", settings(chunk=200), FakeEmbedder().count_tokens)
    held = [c for c in chunks if "Each window or buffer" in c.text]
    assert held and all("Handling of local options" in c.text or "local-options" in
                        " ".join(c.heading_path) for c in held), [
        (c.heading_path, c.text[:60]) for c in chunks]
