"""Cut points: sentences, lines, words (absolute offsets, whitespace trimmed)."""

from __future__ import annotations

import pytest

from citewise.chunk.spans import line_spans, sentence_spans, word_spans


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text, 0, len(text))]


@pytest.mark.parametrize("text, expected", [
    ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
    ("See Fig. 2 and Eq. 3 here. Next.", ["See Fig. 2 and Eq. 3 here.", "Next."]),
    ("Use e.g. Python or i.e. the U.S. Army. Done.", ["Use e.g. Python or i.e. the U.S. Army.",
                                                     "Done."]),
    ("Pi is 3.14 roughly. Yes.", ["Pi is 3.14 roughly.", "Yes."]),
    ("Ask Dr. Who and J. Smith et al. Now.", ["Ask Dr. Who and J. Smith et al. Now."]),
    ("He said no. Then left.", ["He said no.", "Then left."]),  # "no." only before a digit
    ("See No. 5 now.", ["See No. 5 now."]),
    ("It ended (badly). Then \"Quoted.\" Next", ["It ended (badly).", "Then \"Quoted.\"", "Next"]),
    ("lowercase after. period stays", ["lowercase after. period stays"]),
    ("Option b. Next one.", ["Option b.", "Next one."]),
    ("第一句。第二句。", ["第一句。", "第二句。"]),
    ("  padded.   Both ends.  ", ["padded.", "Both ends."]),
])
def test_sentence_spans(text, expected):
    assert sentences(text) == expected


def test_spans_are_absolute_offsets_within_the_range():
    text = "xx One. Two. yy"
    assert sentence_spans(text, 3, 12) == [(3, 7), (8, 12)]
    assert word_spans(text, 3, 12) == [(3, 7), (8, 12)]


def test_line_spans_keep_indentation_and_skip_blank_lines():
    text = "def f():\n    return 1\n   \n\nx = 2\n"
    assert [text[a:b] for a, b in line_spans(text, 0, len(text))] == [
        "def f():", "    return 1", "x = 2"]
