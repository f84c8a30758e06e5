"""The draft a terminal shows while the model writes numbers its source ids as the final
answer does, however the model's tokens split a bracket."""

from __future__ import annotations

from citewise.answer.citations import NumberedStream


def shown(*pieces: str) -> tuple[str, list[str]]:
    stream = NumberedStream()
    printed = [stream.feed(p) for p in pieces] + [stream.close()]
    assert "".join(printed) == stream.shown
    return stream.shown, printed


def test_ids_are_numbered_in_order_of_first_use_across_split_tokens() -> None:
    text, printed = shown("Leave is 20 weeks [S", "3", "]. Blocks: three [S1, s", "03]. End.")
    assert text == "Leave is 20 weeks [1]. Blocks: three [2, 1]. End."
    assert printed[0] == "Leave is 20 weeks "  # the open bracket waits for its end


def test_other_brackets_pass_through_and_nothing_is_held_forever() -> None:
    assert shown("a list[0] and [see S2] and [x", "y] done")[0] == \
        "a list[0] and [see S2] and [xy] done"
    assert shown("ends on an open [S4")[0] == "ends on an open [S4"
    long = "[" + "S1 " * 30
    assert shown(long, " tail")[1][0] == long  # past HOLD_CHARS it is shown as it is


def test_a_streamed_answer_whose_trailing_citations_were_joined_is_the_final_one() -> None:
    """The final text joins "[1]. [2]" at a line's end into "[1, 2]."; the stream showed
    the first form, and the terminal must not print the answer a second time for it."""
    from citewise.answer.citations import joined_trailing, renumber
    from citewise.types import ValidationReport

    stream = NumberedStream()
    draft = "Keys are kept in the safe [S1]. [S2]"
    shown = stream.feed(draft) + stream.close()
    final, _ = renumber(draft, ValidationReport(cited=("S1", "S2")))
    assert shown == "Keys are kept in the safe [1]. [2]" and final.endswith("[1, 2].")
    assert joined_trailing(shown).split() == final.split()
