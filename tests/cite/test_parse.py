"""split_sentences / parse_citations: every id in every bracket, and the documented decisions."""

from __future__ import annotations

import time

import pytest

from citewise.cite.parse import (
    bracket_ids,
    canonical_citations,
    citation_ids,
    parse_citations,
    split_sentences,
    strip_citations,
)


@pytest.mark.parametrize(("text", "ids"), [
    ("Aspirin helps [S2, S5].", ("S2", "S5")),
    ("Aspirin helps [S2][S5].", ("S2", "S5")),
    ("Aspirin helps [S2; S5].", ("S2", "S5")),
    ("Aspirin helps [S2,S5] and more [S7 and S1].", ("S2", "S5", "S7", "S1")),
    ("Aspirin helps [s3] [S03] [S3].", ("S3",)),
    ("Aspirin helps [1].", ()),  # numeric brackets are not ids
    ("Aspirin helps [see S2] [S2-S5] [S2, p. 3].", ()),  # not every item is an id
    ("Use `a[S1]` as shown in [the docs](http://x) [S4].", ("S4",)),  # code and links skipped
])
def test_every_id_in_every_citation_bracket(text: str, ids: tuple[str, ...]) -> None:
    assert parse_citations(text) == [(text, ids)]


def test_bracket_ids() -> None:
    assert bracket_ids(" S2 ;s10 ") == ("S2", "S10")
    assert bracket_ids("") is None and bracket_ids("2") is None


def test_sentences_split_at_stops_but_not_abbreviations_or_decimals() -> None:
    text = ("Doses of 2.5 mg (e.g. in adults) work [S1]. Smith et al. found this in 2001 [S2]! "
            "Did it? Yes. 40% improved [S3].")
    assert split_sentences(text) == [
        "Doses of 2.5 mg (e.g. in adults) work [S1].", "Smith et al. found this in 2001 [S2]!",
        "Did it?", "Yes.", "40% improved [S3]."]


def test_a_names_middle_initial_ends_no_sentence() -> None:
    """setuptools' history: "Phillip J. Eby is the seminal author of setuptools" was quoted
    as "Eby is the seminal author of setuptools [1]". A lettered label still ends one."""
    assert split_sentences("Phillip J. Eby is the seminal author of setuptools. He left.") == [
        "Phillip J. Eby is the seminal author of setuptools.", "He left."]
    assert split_sentences("J. R. R. Tolkien wrote it. Fine.") == [
        "J. R. R. Tolkien wrote it.", "Fine."]
    assert split_sentences("See Appendix B. Then run it. Use plan A. Then B.") == [
        "See Appendix B.", "Then run it.", "Use plan A.", "Then B."]
    # only a name opening its sentence: a review's glued "Terminal B. Boarding closes…"
    # kept an unsupported second sentence with its first
    for text in ("Flights leave from Terminal B. Boarding closes at six.",
                 "Get vaccinated for Hepatitis B. Then rest.",
                 "It ended World War I. Next came peace."):
        assert len(split_sentences(text)) == 2, text
    start = time.perf_counter()
    split_sentences("Ab C. " * 8000)  # a line of would-be initials: linear, not quadratic
    assert time.perf_counter() - start < 5


def test_an_ellipsis_between_numbers_ends_no_sentence() -> None:
    """bzip2's manual: "Set the block size to 100 k, 200 k ... 900 k when compressing." was
    quoted as two sentences."""
    text = "Set the block size to 100 k, 200 k ... 900 k when compressing. Next."
    assert split_sentences(text) == [text[:-6], "Next."]
    assert split_sentences("We waited... 2 days later it came.") == [
        "We waited...", "2 days later it came."]  # no number before it: a pause (a review)
    assert split_sentences("It stops... Then it runs.") == ["It stops...", "Then it runs."]


def test_a_list_items_number_opens_its_sentence() -> None:
    """Vim's help numbers its list items "1.  Use a mix of <Tab> and space characters.";
    the quote fallback showed "1 [1]." as a sentence of its own."""
    assert split_sentences("1. Use a mix of tabs and spaces. Since a tab is eight spaces, "
                           "files are smaller. (2) Use spaces only. B) Or neither.") == [
        "1. Use a mix of tabs and spaces.", "Since a tab is eight spaces, files are smaller.",
        "(2) Use spaces only.", "B) Or neither."]
    assert split_sentences("It was 2. Then 3 came.") == ["It was 2.", "Then 3 came."]


def test_a_stop_inside_a_quoted_term_or_code_span_ends_no_sentence() -> None:
    """sed's manual quotes ‘sed -Ei '...' FILE’: a new user's quote began "FILE’ Same as
    ‘-E -i’ with no backup suffix…". Texinfo's old `quotes' close with an apostrophe."""
    text = "Do not follow it: ‘sed -Ei '...' FILE’ Same as ‘-E -i’ without a backup."
    assert split_sentences(text) == [text]
    assert split_sentences("Run `wget -r ... URL` Then it works. Next.") == [
        "Run `wget -r ... URL` Then it works.", "Next."]
    assert split_sentences("Use `--foo'. Then it works.") == ["Use `--foo'.", "Then it works."]


def test_a_lone_question_or_exclamation_mark_names_the_symbol() -> None:
    """A new user of Rust by Example: "The question mark operator, ? [S1], is used at the end
    of an expression" was split after "?", both halves removed (a restatement, uncited)."""
    text = "The question mark operator, ? [S1], is used at the end of an expression."
    assert split_sentences(f"{text} It returns early [S1].") == [text, "It returns early [S1]."]
    assert split_sentences("Negate with ! Then test it (or !) Afterwards go.") == [
        "Negate with ! Then test it (or !) Afterwards go."]
    assert split_sentences("Is it done? Yes [S1]. Really! No.") == [
        "Is it done?", "Yes [S1].", "Really!", "No."]


def test_a_citation_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    assert parse_citations("Aspirin helps. [S1] Statins too. [S2][S3]") == [
        ("Aspirin helps. [S1]", ("S1",)), ("Statins too. [S2][S3]", ("S2", "S3"))]


def test_lines_are_sentences_and_fenced_code_is_skipped() -> None:
    text = "## Dosage\n- Adults: 75 mg daily [S1]\n```\nx = y[S9]\n```\nChildren: none [S2]."
    assert parse_citations(text) == [("## Dosage", ()), ("- Adults: 75 mg daily [S1]", ("S1",)),
                                     ("Children: none [S2].", ("S2",))]


def test_strip_citations_keeps_other_brackets() -> None:
    assert strip_citations("Aspirin helps [S1, S2] in [1] trials [S3].") == \
        "Aspirin helps in [1] trials."


@pytest.mark.parametrize(("raw", "canonical"), [
    ('[Source id="S1"] A is B.', "A is B [S1]."),
    ('[Source id="S1"] A is B. [Source id="S2"] C is D.', "A is B [S1]. C is D [S2]."),
    ("[S1] A is B. C is D. [S2] E!", "A is B [S1]. C is D. E [S2]!"),
    ("[S1] Version 1.2 is out.\n[S2] a line with no stop", "Version 1.2 is out [S1].\n"
     "a line with no stop [S2]"),
    ("A is B [source S2].", "A is B [S2]."),
    ("A is B [Sources: S1, S2].", "A is B [S1, S2]."),
    ('A is B [Source id="S1", id="S3"].', "A is B [S1, S3]."),
    ("Global, User, Site; the latter wins [Source id: S1].",  # a new user's pip answer
     "Global, User, Site; the latter wins [S1]."),
    ("A is B [source id: S1, id: S2].", "A is B [S1, S2]."),
    ("A is B [S1]. C is D [S2].", "A is B [S1]. C is D [S2]."),  # already canonical
    ("Plain [S1] text.", "Plain [S1] text."),  # not cite-first: the answer starts with text
    ("See [source code] and [1].", "See [source code] and [1]."),  # not citations
    ("It is run daily. Sources: [S1]", "It is run daily. [S1]"),  # a new user's wget answer
    ("A is B. References: [S1][S2]", "A is B. [S1][S2]"),
    ("Open sources: none here.", "Open sources: none here."),
    # a closing tag after what it cites (a new user's Git answer), and a fence's
    ("[S1]Git v2.12.3 Release Notes[/Source id]", "Git v2.12.3 Release Notes [S1]"),
    ("A is B [S1]</source>.", "A is B [S1]."),
    ("Set it [S1]:\n\n```xml\n<source>17</source>\n```",  # Maven's, in code: kept (a review)
     "Set it [S1]:\n\n```xml\n<source>17</source>\n```"),
    ("See [/sources/api.md] and `</source>`.", "See [/sources/api.md] and `</source>`."),
])
def test_canonical_citations(raw: str, canonical: str) -> None:
    assert canonical_citations(raw) == canonical
    assert citation_ids(canonical_citations(raw)) == citation_ids(canonical)


def test_an_indented_example_is_code_not_sentences() -> None:
    """A model copying the gettext manual's Polish example indented it, and its lines were
    read as sentences cut at each "?" ("plural=n==1 ?", "1 : 2;"), each removed as uncited;
    the answer kept only the lead-ins around it."""
    from citewise.cite.parse import segments

    text = ("The header entry would look like this:\n\n"
            "    Plural-Forms: nplurals=3; \\\n"
            "        plural=n==1 ? 0 : n%10>=2 && n%10<=4 ? 1 : 2;\n\n"
            "Use it in the PO header [S1].\n\n"
            "1. Run the tool.\n\n"
            "    Then check x = 1 in the list's next paragraph.\n\n"
            "    An indented aside; no code here.")
    kinds = [(s.kind, s.text.split()[0]) for s in segments(text)]
    assert kinds == [("sentence", "The"), ("code", "Plural-Forms:"), ("sentence", "Use"),
                     ("sentence", "1."), ("sentence", "Then"), ("sentence", "An")]
