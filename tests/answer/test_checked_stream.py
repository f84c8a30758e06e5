"""CheckedRelay: a model's text reaches the reader sentence by sentence, each once the citation
check keeps it; the first one it removes stops the stream."""

from __future__ import annotations

import re

from citewise.answer.checked_stream import CheckedRelay
from citewise.types import ContextPassage

from .conftest import make_hit

LEAVE = ("Every employee who becomes a parent receives 20 weeks of fully paid parental leave. "
         "Leave can be taken in up to three blocks.")


def relay(answer: str, question: str | None = "How long is parental leave?") -> list[str]:
    """What the reader is sent, fed token by token (words and the spaces before them)."""
    hit = make_hit(LEAVE, 1)
    sent: list[str] = []
    r = CheckedRelay(sent.append, [ContextPassage("S1", hit, LEAVE, 30)], question)
    for piece in re.findall(r"\s*\S+", answer):
        r(piece)
    r.finish()
    return [piece for piece in sent if piece]  # "": a beat while text is held back


def test_supported_sentences_stream_one_by_one() -> None:
    text = ("Every employee who becomes a parent receives 20 weeks of fully paid parental "
            "leave [S1]. Leave can be taken in up to three blocks [S1].")
    sent = relay(text)
    assert len(sent) == 2 and "".join(sent) == text


def test_the_first_removed_sentence_stops_the_stream() -> None:
    sent = relay("Every employee who becomes a parent receives 20 weeks of fully paid parental "
                 "leave [S1]. Run `leave --grant` to apply for it [S1]. Leave can be taken "
                 "in up to three blocks [S1].")
    assert "".join(sent).endswith("parental leave [S1].") and "--grant" not in "".join(sent)


def test_an_uncited_sentence_waits_for_its_paragraph_closing_citation() -> None:
    covered = relay("Every employee who becomes a parent receives 20 weeks of fully paid "
                    "parental leave. Leave can be taken in up to three blocks [S1].")
    assert "".join(covered).startswith("Every employee") and len(covered) == 1
    assert relay("Every employee who becomes a parent receives 20 weeks of paid leave.") == []


def test_a_fabricated_id_never_streams() -> None:
    assert relay("Every employee who becomes a parent receives 20 weeks of fully paid "
                 "parental leave [S1, S9].") == []
