"""Stream only what the citation check keeps: a model's sentences reach the reader one by one,
each once its sources were found to support it.

Under ``cite.policy: strict`` an answer loses the sentences its sources do not support, or is
replaced. Streamed as written, a terminal showed the draft first, invented commands and all
(a new user's "``wget --torrent-file``…"), and only then the line saying it was replaced: an
unsupported claim had reached the reader after all. :class:`CheckedRelay` holds the model's
text until a segment (a sentence or a code block) is complete, runs the check
(:func:`citewise.cite.enforce.enforce`) on the text so far, and relays the segments it keeps,
in order (a kept sentence citing an id that is no source stops it too: the id would reach
the reader). A sentence without a citation waits for the end of its paragraph (a citation
closing a paragraph covers it); the first segment the check removes stops the stream, and the
answer is printed whole once it is checked (the CLI says so). What is relayed is therefore a
prefix of the checked answer in the common case; checks of the whole answer (a quantity asked
for and not given, a pointer left alone) can still remove what was relayed, and the CLI says
that too. Before each relay the passages must still be readable by the asker
(:mod:`citewise.answer.still_readable`): a delete or ACL change made meanwhile stops it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citewise.types import ContextPassage

_WHOLE_ANSWER = ("unresponsive", "pointer", "leftover")
"""Statuses only the whole answer decides: a partial one is not judged by them."""


class CheckedRelay:
    """Relays to ``on_token`` the prefix of the model's text whose segments the check keeps
    (module docstring); :meth:`finish` judges the last segment once generation ends."""

    def __init__(self, on_token: Callable[[str], None], passages: Sequence[ContextPassage],
                 question: str | None, readable: Callable[[], bool] | None = None) -> None:
        self.on_token = on_token
        self.readable = readable  # asked before each relay (answer.still_readable)
        self.passages = list(passages)
        self.question = question
        self.text = ""
        self.sent = 0  # characters of ``text`` relayed
        self.complete = 0  # segments judged complete so far
        self.stopped = False

    def __call__(self, piece: str) -> None:
        self.text += piece
        sent = self.sent
        if not self.stopped:
            self._advance(final=False)
        if self.sent == sent:
            self.on_token("")  # nothing to show yet; a server checks its client is still there

    def finish(self) -> None:
        if not self.stopped:
            self._advance(final=True)

    def _advance(self, final: bool) -> None:
        from citewise.cite.enforce import enforce
        from citewise.cite.parse import canonical_citations, segments

        parts = segments(self.text)
        ready = len(parts) if final else len(parts) - 1  # the last may still be growing
        if ready <= self.complete and not final:
            return
        self.complete = ready
        ends = _ends(self.text, [p.text for p in parts[:ready]])
        if not ends:
            return
        checked = enforce(canonical_citations(self.text[:ends[-1]]), self.passages,
                          question=self.question).verdicts
        upto = self.sent
        last_paragraph = parts[ready - 1].paragraph
        for verdict, end in zip(checked, ends, strict=False):
            if verdict.rewritten:  # the answer shows the check's text, whole, once checked
                self.stopped = True
                break
            if (verdict.kept and not verdict.fabricated) or (
                    not final and verdict.status in _WHOLE_ANSWER):
                upto = max(upto, end)
                continue
            if not final and verdict.status == "uncited" and \
                    verdict.segment.paragraph == last_paragraph:
                break  # its paragraph's closing citation may still come
            self.stopped = True
            break
        if upto > self.sent and self.readable is not None and not self.readable():
            self.stopped = True  # a source was deleted or narrowed meanwhile
            return
        if upto > self.sent:
            self.on_token(self.text[self.sent:upto])
            self.sent = upto


def _ends(text: str, pieces: Sequence[str]) -> list[int]:
    """The end offset in ``text`` of each of ``pieces`` found in order (those not found
    verbatim end the list: nothing after them is relayed)."""
    out, at = [], 0
    for piece in pieces:
        found = text.find(piece, at)
        if found < 0:
            break
        at = found + len(piece)
        out.append(at)
    return out


class ReadableRelay:
    """The raw relay of ``cite.policy: flag`` (the model's tokens as written), stopped for
    good once the passages are no longer readable by the asker: a security review's
    flag-policy stream went on sending a salary table for 29 s after `citewise acl` had
    narrowed it. Asked at most every :data:`RECHECK_S` seconds (a store read each)."""

    RECHECK_S = 0.25

    def __init__(self, on_token: Callable[[str], None], readable: Callable[[], bool],
                 clock: Callable[[], float]) -> None:
        self.on_token = on_token
        self.readable = readable
        self.clock = clock
        self.checked = float("-inf")
        self.stopped = False

    def __call__(self, piece: str) -> None:
        now = self.clock()
        if not self.stopped and now - self.checked >= self.RECHECK_S:
            self.checked = now
            self.stopped = not self.readable()
        self.on_token("" if self.stopped else piece)  # "": a server checks its client

