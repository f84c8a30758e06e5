"""How the extractive answer quotes what :mod:`citewise.generate.extractive` chose: each
sentence cited by the passages that say it, code fenced and introduced by the sentence that
leads into it or by where it is from, quotes joined so that the citation checker reads each as
a sentence of its own, and both sides of a conflict when a chosen sentence is part of one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
from citewise.cite.parse import line_sentences
from citewise.cite.validate import source_line
from citewise.generate.companions import with_antecedents, with_defaults, with_examples, with_lists
from citewise.generate.examples import fenced, leads_in, unfinished
from citewise.generate.repeated import sources_of
from citewise.types import Prompt

if TYPE_CHECKING:
    from citewise.generate.extractive import ScoredSentence

_ITEM = re.compile(r"^[ \t]*(\d{1,3})[.)][ \t]", re.MULTILINE)
_SMILEY = re.compile(r"[:;]-?\)$")  # util-linux's "don't try to rewrite it :-)" ended ":-"


def render(prompt: Prompt, chosen: Sequence[ScoredSentence],
           scored: Sequence[ScoredSentence]) -> str:
    """The answer quoting ``chosen`` (each with the sentence it points back to and the
    example it leads into, both from ``scored``), or both sides of a conflict it is part
    of; :data:`~citewise.answer.prompt.INSUFFICIENT_EVIDENCE` when nothing is chosen."""
    if not chosen:
        return INSUFFICIENT_EVIDENCE
    chosen = with_examples(with_lists(with_defaults(with_antecedents(chosen, scored), scored,
                                                    prompt.question, prompt.passages),
                                      scored), scored)
    labels = {p.sid: source_line(p) for p in prompt.passages}
    places = {p.sid: (p.hit.chunk.doc_id, tuple(p.hit.chunk.heading_path))
              for p in prompt.passages}
    return _show_conflict(prompt, chosen) or _joined(_quotes(chosen, scored, labels, places))


def _show_conflict(prompt: Prompt, chosen: Sequence[ScoredSentence]) -> str | None:
    """Both sides of a conflict that involves a chosen sentence
    (:mod:`citewise.answer.conflicts`), or None."""
    from citewise.answer.conflicts import conflict_text, find_conflicts

    picked = {(s.sid, s.text) for s in chosen}
    for c in find_conflicts(prompt.question, prompt.passages):
        if (c.a.sid, c.a.sentence) in picked or (c.b.sid, c.b.sentence) in picked:
            return conflict_text(c)
    return None


def _quotes(chosen: Sequence[ScoredSentence], scored: Sequence[ScoredSentence],
            labels: Mapping[str, str],
            places: Mapping[str, tuple[str, tuple[str, ...]]]) -> list[tuple[str, bool]]:
    """``(quote, is code)`` for each chosen sentence: prose cited, code fenced; a sentence
    leading into the example shown after it keeps its closing colon and cites the example's
    passage alone (the AWS CLI's examples' "Command:" was cited "[S1, S2, S3, S4, S5, S6,
    S7]", every example saying it, over one of them). Code that no quoted
    sentence leads into is introduced by where it is from, cited: 'From "Monitoring
    download progress" [S2]:' (:func:`~citewise.cite.validate.source_line`; a fenced block
    cites nothing)."""
    out: list[tuple[str, bool]] = []
    for i, s in enumerate(chosen):
        before = chosen[i - 1] if i else None
        after = chosen[i + 1] if i + 1 < len(chosen) else None
        if s.code:
            if before is None or before.sid != s.sid or before.part != s.part - 1:
                out.append((labels[s.sid], False))
            out.append((fenced(s.text), True))
        else:
            leads = after is not None and after.code and after.order == s.order + 1
            sids = [s.sid] if leads else sources_of(s, scored, places)  # its example's own
            out.append((_cited(s, sids, lead_in=leads), False))
    return out


def _joined(quotes: Sequence[tuple[str, bool]]) -> str:
    """The quotes one after another: a code block on lines of its own; prose on one line
    where the citation checker (:func:`~citewise.cite.parse.line_sentences`) still sees each
    as a sentence of its own, else on the next line. A quote from a list often starts in
    lower case, and after "… [S1]." the checker read it as the rest of the sentence before;
    a numbered item starts a line ("… [1]. 1. Collaborators will add …" read as one), and
    so does a line leading into code (Postfix's regexp_table(5) example was introduced at
    the end of a list item: "… reject [2]. From “regexp_table(5)” [3]:")."""
    out = quotes[0][0]
    leads = [i + 1 < len(quotes) and quotes[i + 1][1] and q.endswith(":")
             for i, (q, _) in enumerate(quotes)]
    for i, ((before, code_before), (quote, code)) in enumerate(pairwise(quotes), start=1):
        one_line = not (code or code_before or leads[i] or _ITEM.match(quote)) and \
            len(line_sentences(f"{before} {quote}")) == \
            len(line_sentences(before)) + len(line_sentences(quote))
        out += (" " if one_line else "\n") + quote
    return out


_STOP_IN_CLOSER = re.compile(r"[.!?…]+([)\]\"'”’]+)$")
"""A stop inside a closing bracket or quote: cited after it, "name.) [1] ." was printed."""


def _cited(sentence: ScoredSentence, sids: Sequence[str], *, lead_in: bool = False) -> str:
    """``sentence`` with ``[S1, S2]`` before its final stop. A trailing ellipsis ("pass the
    proxy URL to the client...") ends as one full stop: "client.. [S1]." read as a sentence
    "client.." and a second one starting "[S1]." to the citation checker. A ``lead_in``
    (the example follows) ending on a colon keeps it ("using pip [S1]:"), and one ending on
    an ellipsis or a comma (Clippy's "… file below,"), or on a word wanting what follows
    ("then run"), gets one ("errors along the lines of [S1]:", the error shown after)."""
    text = sentence.text.rstrip()
    if lead_in and (leads_in(text) or unfinished(text) or text.endswith(",")):  # "below,"
        return f"{text.rstrip(':.…,').rstrip()} [{', '.join(sids)}]:"
    text = _STOP_IN_CLOSER.sub(r"\1", text)  # "… variable name.)": "name) [S1]." not ".) [S1]."
    if text.endswith(")") and text.count("(") < text.count(")") \
            and not _SMILEY.search(text):  # its "(" opened the one before it; ":-)" stays
        text = text[:-1]
    body = text.rstrip(".!?…").rstrip() or text
    if re.search(r"[\s=]\.[.!?]$", text):  # "incompatible with pip install -e .." (setuptools),
        body = text[:-1]  # "run: npm install --logs-dir=.." (npm): the command's "." is kept
    tail = text[len(body):]
    end = "?" if "?" in tail else "!" if "!" in tail else "."
    return f"{body} [{', '.join(sids)}]{end}"
