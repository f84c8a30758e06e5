"""A "Yes" that the rest of its own sentence denies is dropped (:mod:`citewise.cite.polarity`).
A new user asked whether libffi supports bit fields in structures and was answered "Yes, [1]
states that 'libffi' has no special support for bit-fields."."""

from __future__ import annotations

import re

from citewise.answer.checked_stream import CheckedRelay
from citewise.cite.enforce import enforce
from citewise.cite.polarity import without_denied_yes
from citewise.types import ContextPassage

from ..answer.conftest import make_hit

Q = "does libffi support bit fields in structures?"
SOURCE = ("Missing features: 'libffi' has no special support for bit-fields. You must manage "
          "them manually.")


def test_a_yes_its_sentence_denies_is_dropped() -> None:
    said = "Yes, [S1] states that 'libffi' has no special support for bit-fields."
    assert without_denied_yes(said, Q) == "[S1] states that 'libffi' has no special " \
                                          "support for bit-fields."
    assert without_denied_yes("Yes. It has no support for bit-fields [S1].", Q) == \
        "It has no support for bit-fields [S1]."


def test_a_yes_is_kept_when_what_it_negates_was_not_asked() -> None:
    assert without_denied_yes("Yes, you do not need to configure anything [S1].",
                              "does it work out of the box?") is None
    assert without_denied_yes("Yes, but not for bit-fields [S1].", Q) is None  # qualified
    assert without_denied_yes("Yes, it supports them [S1].", Q) is None
    assert without_denied_yes("Yes, it does not support them [S1].",  # the question negates
                              "can't I use bit fields without support?") is None


def test_the_answer_and_its_stream_lose_the_denied_yes() -> None:
    said = "Yes, [S1] states that 'libffi' has no special support for bit-fields."
    passages = [ContextPassage("S1", make_hit(SOURCE, 1), SOURCE, 20)]
    checked = enforce(said, passages, question=Q)
    assert checked.answered and checked.text.startswith("[S1] states that"), checked.text
    sent: list[str] = []
    relay = CheckedRelay(sent.append, passages, Q)
    for piece in re.findall(r"\s*\S+", said):
        relay(piece)
    relay.finish()
    assert "Yes" not in "".join(sent)  # the stream stops; the answer is printed checked
