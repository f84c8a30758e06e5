"""Show the example a rejected model answer quoted from its sources.

Asked "how do I call puts with libffi?", the local model answers with the manual's own example,
copied line for line, around prose that cites nothing ("To call `puts` with libffi, you need to
initialize the argument info vectors…"). The citation check keeps the code (every line of it is
in the sources) but finds no supported sentence, so the answer used to be replaced by the source
sentences that say what the prose claimed ("A calling convention also specifies where the
return value for a function is found [1]", from the introduction) or declined. The code was the
answer, and it is the sources' own text: :func:`example_answer` shows the source's block that
holds it, whole (:func:`~citewise.generate.examples.blocks`: cut between statements), as the
extractive answer quotes code (:func:`~citewise.generate.quoting.render`): after the
sentence before it in its passage ("Here is a trivial example that calls puts a few times
[S1].") or a line saying where it is from ('From "Simple Example" [S1]:'), which the checker
holds supported only when the block is in the passage it cites.

What counts: at least :data:`MIN_LINES` of the model's code lines, and half of them, found in
one code block of one passage that does not open inside a statement, and that block shares a
content word with the question (an example about something else is not its answer, however
faithfully copied).
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.cite.parse import FENCE
from citewise.cite.terms import content_stems
from citewise.generate.extractive import ScoredSentence, score_sentences
from citewise.generate.quoting import render
from citewise.types import Prompt

MIN_LINES = 2
"""The fewest lines of the model's code that must be in one source block: one line
(``import httpx``) is in many examples and shows none in particular."""


def _flat(text: str) -> str:
    return " ".join(text.split())


def _lines(code: str) -> list[str]:
    """``code``'s lines that say something (a lone ``}`` is in every C example)."""
    return [_flat(line) for line in code.splitlines()
            if any(c.isalnum() for c in line) and not FENCE.match(line)]


def source_block(code: str, scored: Sequence[ScoredSentence],
                 question: str) -> ScoredSentence | None:
    """The code block among ``scored`` (:func:`~citewise.generate.extractive.score_sentences`:
    no block that opens inside a statement or holds an instruction to the assistant)
    holding most of ``code``'s lines (module docstring), the first on a tie, or None."""
    lines = _lines(code)
    wanted = content_stems(question, skip_meta=True)
    best: tuple[int, ScoredSentence] | None = None
    for block in scored:
        if not block.code or not content_stems(block.text) & wanted:
            continue
        flat = _flat(block.text)
        found = sum(line in flat for line in lines)
        if found >= MIN_LINES and 2 * found >= len(lines) and (best is None or found > best[0]):
            best = (found, block)
    return None if best is None else best[1]


def example_answer(code_blocks: Sequence[str], prompt: Prompt) -> str | None:
    """The source example the first of ``code_blocks`` (the model's code blocks the checker
    found in the sources, in answer order) that has one came from, quoted as the extractive
    answer quotes code: after the sentence leading into it, or after its source line; None
    when none qualifies."""
    scored = score_sentences(prompt.question, prompt.passages)
    for code in code_blocks:
        block = source_block(code, scored, prompt.question)
        if block is not None:
            return render(prompt, [block], scored)
    return None
