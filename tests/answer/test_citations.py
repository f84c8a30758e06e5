from __future__ import annotations

from dataclasses import replace

from citewise.answer.citations import (
    build_citations,
    citation_lines,
    format_citation,
    renumber,
)
from citewise.types import ContextPassage, SectionMark, ValidationReport

from .conftest import make_hit


def passages() -> list[ContextPassage]:
    texts = ["Proxies are set with HTTPS_PROXY. They apply to all requests.",
             "Timeouts default to five seconds.",
             "Redirects are not followed by default."]
    return [ContextPassage(f"S{i}", make_hit(t, i, doc_id=f"d{i}"), t, len(t.split()))
            for i, t in enumerate(texts, start=1)]


def test_renumber_in_first_use_order_and_keep_fabricated() -> None:
    report = ValidationReport(cited=("S3", "S1"), fabricated=("S9",))
    text, numbers = renumber("Redirects are off [S3]. Proxies use env [S1, s3]. Odd [S9].",
                             report)
    assert numbers == {"S3": "1", "S1": "2"}
    assert text == "Redirects are off [1]. Proxies use env [2, 1]. Odd [S9]."


def test_build_citations_quotes_the_matching_sentence() -> None:
    report = ValidationReport(cited=("S1",))
    text, cites = build_citations("All requests use the proxy [S1].", passages(), report)
    assert text == "All requests use the proxy [1]."
    (c,) = cites
    assert (c.id, c.sid, c.doc_id, c.chunk_id) == ("1", "S1", "d1", "d1#1")
    assert c.quote == "They apply to all requests."  # shares "all", "requests"
    assert c.source == "docs/d1.md#setup"
    _, (c,) = build_citations("Set HTTPS_PROXY [S1].", passages(), report)
    assert c.quote == "Proxies are set with HTTPS_PROXY."


def test_a_citation_opens_the_merged_section_its_quote_is_in() -> None:
    """A chunk of a glossary's small entries (FPU, HAL) used to be cited at its first
    entry's anchor whatever it quoted; the quote's own entry is the heading and the link."""
    text = "FPU\n\nFloating-point unit.\n\nHAL\n\nA hardware abstraction layer crate."
    marks = (SectionMark(0, "fpu", ("Glossary", "FPU")),
             SectionMark(text.index("HAL"), "hal", ("Glossary", "HAL")))
    hit = make_hit(text, 1, doc_id="glossary", heading=("Glossary",))
    hit = replace(hit, chunk=replace(hit.chunk, anchor="fpu", sections=marks))
    report = ValidationReport(cited=("S1",))
    _, (c,) = build_citations("A HAL is a hardware abstraction layer crate [S1].",
                              [ContextPassage("S1", hit, text, 12)], report)
    assert c.quote.endswith("A hardware abstraction layer crate.")
    assert (c.anchor, c.source, c.heading_path) == ("hal", "docs/glossary.md#hal",
                                                    ("Glossary", "HAL"))
    assert format_citation(c).startswith("[1] Guide › Glossary › HAL (docs/glossary.md#hal")
    _, (c,) = build_citations("The FPU is a floating-point unit [S1].",
                              [ContextPassage("S1", hit, text, 12)], report)
    assert (c.anchor, c.heading_path) == ("fpu", ("Glossary", "FPU"))
    # the 1.5B model's way: the id closes the paragraph, after a sentence of its own
    _, (c,) = build_citations("HAL stands for hardware abstraction layer. It is a crate. "
                              "See the video. [S1]", [ContextPassage("S1", hit, text, 12)],
                              report)
    assert (c.quote, c.anchor) == ("A hardware abstraction layer crate.", "hal")


def test_format_citation() -> None:
    report = ValidationReport(cited=("S2",))
    _, (c,) = build_citations("Five seconds [S2].", passages(), report)
    assert format_citation(c) == "[1] Guide › Setup (docs/d2.md#setup, updated 2026-03-01)"


def test_two_passages_of_one_section_are_one_line() -> None:
    """Citations of two chunks of one section printed the same title and link twice under
    two numbers (a new user of Rust's API pages); they share a line, in first-use order."""
    ps = passages()
    report = ValidationReport(cited=("S3", "S2", "S1"))
    _, cites = build_citations("Off [S3]. Five [S2]. Proxy [S1].", ps, report)
    assert len({format_citation(c).split("] ", 1)[1] for c in cites}) == 3
    assert citation_lines(cites) == [format_citation(c) for c in cites]
    twin = replace(cites[2], id="4", quote="another sentence", chunk_id="d1#9")
    assert citation_lines([*cites, twin]) == [
        *(format_citation(c) for c in cites[:2]),
        "[3, 4] " + format_citation(cites[2]).split("] ", 1)[1]]


def test_a_citation_names_the_outermost_heading_too() -> None:
    """Rust's release notes were cited "Language › 2018 edition": which release, the
    outermost heading, said only what the 93 other "Language" sections say."""
    from citewise.answer.citations import place

    assert place("Rust Release Notes", ("Version 1.32.0 (2019-01-17)", "Language",
                                        "2018 edition")) == \
        "Rust Release Notes › Version 1.32.0 (2019-01-17) › Language › 2018 edition"
    assert place("Nettle", ("7 Reference", "7.1 Hash functions", "7.1.1 Recommended",
                            "7.1.1.1 SHA256")) == \
        "Nettle › 7 Reference › … › 7.1.1 Recommended › 7.1.1.1 SHA256"
    assert place("Guide", ("Guide", "Setup")) == "Guide › Setup"
    assert place("Goals of the project", ("Go", "Install")) == "Goals of the project › Go › Install"
    assert place("Advanced Usage — HTTPX 0.28 documentation", (
        "Advanced Usage", "Timeouts", "Fine tuning", "Disabling timeouts")) == \
        "Advanced Usage — HTTPX 0.28 documentation › Timeouts › Fine tuning › Disabling timeouts"
    # AsciiDoc's "git-config(1) Manual Page" under "git-config(1)" (a new user of git's docs)
    assert place("git-config(1)", ("git-config(1) Manual Page", "CONFIGURATION FILE",
                                   "Variables")) == "git-config(1) › CONFIGURATION FILE › Variables"
    assert place("Git", ("Git Internals", "Objects")) == "Git › Git Internals › Objects"


def test_an_unclosed_run_of_ids_does_not_hang_renumbering() -> None:
    """A bracket of ids that never closes ("[S1 S1 S1 …", a looping model's or an injected
    passage's) took the old pattern 0.14 s at 20 ids and four times as long for each two
    more: an answer stuck in renumbering for hours. Now each is one linear scan; the alarm
    turns a regression into a failure instead of a hung suite."""
    import signal

    def stuck(*_: object) -> None:
        raise TimeoutError("renumbering backtracked")

    report = ValidationReport(cited=("S1",))
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(30)
    try:
        for hostile in ("[" + "S1 " * 60, "[" + "S1  ,  " * 60 + " x", "[S1" + " " * 5000):
            assert renumber(hostile + " Fine [S1].", report)[0].endswith(" Fine [1].")
            build_citations(hostile, passages(), report)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_citation_past_a_sentences_full_stop_joins_its_own() -> None:
    """The local model wrote "…every Tuesday [S1]. [S1]" and "…never reused [S2]. [S1]",
    shown as "[1]. [1]" and "[1]. [2]" (the injection benchmark's answers)."""
    report = ValidationReport(cited=("S1", "S2"))
    text, _ = renumber("Watered every Tuesday [S1]. [S1]\nNever reused [S2]. [S1, S2]\n"
                       "Keys [S1]. [S2]", report)
    assert text == "Watered every Tuesday [1].\nNever reused [2, 1].\nKeys [1, 2]."
    # a citation that opens the next sentence is its subject, not a trailing one (a review)
    text, _ = renumber("Option A is in [S1]. [S2] describes option B.", report)
    assert text == "Option A is in [1]. [2] describes option B."


def test_a_quote_is_a_whole_sentence_around_marks_inside_it() -> None:
    """A new user's citations quoted "operator can only be used … the value the ?" and
    "… inline assembly via the asm!": the quote was cut at every ".!?" and a space."""
    from citewise.answer.citations import best_quote

    text = ("The ? operator can only be used in functions whose return type is compatible "
            "with the value the ? is used on. Rust provides support for inline assembly via "
            "the asm! macro. It is used (e.g. for speed) rarely.")
    words = {"operator", "return", "type", "compatible"}
    assert best_quote(text, words).endswith("the value the ? is used on.")
    assert best_quote(text, {"inline", "assembly", "macro"}) == (
        "Rust provides support for inline assembly via the asm! macro.")
    assert best_quote(text, {"used", "speed", "rarely"}) == (
        "It is used (e.g. for speed) rarely.")


def test_a_citation_leading_into_code_quotes_the_code() -> None:
    """A new user of npm's docs: the extractive "From “Synopsis” [1]:" above the command it
    quotes was cited with the quote "Synopsis" on its card (the heading, the only words the
    citing sentence shared)."""
    text = "Synopsis\n\nnpm version [<newversion> | major | minor | patch]\n\nalias: verison"
    hit = make_hit(text, 1, doc_id="npm-version", heading=("npm-version", "Synopsis"))
    report = ValidationReport(cited=("S1",))
    answer = "From “Synopsis” [S1]:\n\n```\nnpm version [<newversion> | major | minor | patch]\n```"
    _, (c,) = build_citations(answer, [ContextPassage("S1", hit, text, 12)], report)
    assert c.quote == "npm version [<newversion> | major | minor | patch]"
