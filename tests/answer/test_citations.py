from __future__ import annotations

from citewise.answer.citations import build_citations, format_citation, renumber
from citewise.types import ContextPassage, ValidationReport

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


def test_format_citation() -> None:
    report = ValidationReport(cited=("S2",))
    _, (c,) = build_citations("Five seconds [S2].", passages(), report)
    assert format_citation(c) == "[1] Guide › Setup (docs/d2.md#setup, updated 2026-03-01)"


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
