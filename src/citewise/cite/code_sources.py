"""Every code block an answer keeps says where it is from.

A code block is kept when its lines are in the sources (:func:`~citewise.cite.validate.
code_quoted`), but what cites it is the sentence leading into it (a line ending in ":" with
its citation, as the extractive answer's ``From “Examples” [S2]:``) or a bare ``[S2]`` under
it, or a sentence citing the passage the block is from, just before it. When that line was
removed, the block stayed with no mark at all: a new user of
Postfix's manual was shown regexp_table(5)'s example maps under an answer listing only
access(5) and another page. :func:`with_sources` gives such a block the source line of the
first passage that holds all of it, or removes it when no one passage does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from citewise.cite.parse import Segment, citation_ids, strip_citations
from citewise.cite.validate import Verdict, code_quoted, source_line
from citewise.types import ContextPassage


def with_sources(kept: Sequence[Verdict], passages: Sequence[ContextPassage],
                 texts: Mapping[str, str]) -> tuple[list[Verdict], list[Verdict]]:
    """``kept`` with a source line before each code block nothing next to it cites, and
    taken out (returned second, status ``uncited``): a block no one passage holds, and a
    block the line leading into it (or the bare citation under it) cites to passages that
    do not hold it, with that line: a review's "To back up the database, run this command
    nightly [S1]:" over ``rm -rf /var/lib/app``, a line only the decommissioning page (S2)
    has, was shown under "[1] Backup guide" (``texts``:
    :func:`~citewise.cite.validate.passage_texts`)."""
    out: list[Verdict] = []
    dropped: list[Verdict] = []
    skip = -1  # the bare citation under a block taken out
    for i, v in enumerate(kept):
        if i == skip:
            continue
        if v.segment.kind != "code":
            out.append(v)
            continue
        ids, how = _citing(kept, i)
        if any(code_quoted(v.segment.text, texts.get(sid.upper(), "")) for sid in ids):
            out.append(v)
            continue
        if how == "lead" and out and out[-1] is kept[i - 1]:
            dropped += [replace(out.pop(), status="unsupported"), replace(v, status="uncited")]
            continue
        if how == "under":
            skip = i + 1
            dropped.append(replace(v, status="uncited"))
            continue
        holder = next((p for p in passages if code_quoted(v.segment.text,
                                                          texts[p.sid.upper()])), None)
        if holder is None:
            dropped.append(replace(v, status="uncited"))
            continue
        line = replace(v.segment, kind="sentence", text=source_line(holder),
                       line=v.segment.line - 1)
        out += [Verdict(line, "supported", (holder.sid.upper(),), score=1.0), v]
    return out, dropped


def _bare(segment: Segment) -> bool:
    return segment.kind == "sentence" and bool(citation_ids(segment.text)) and \
        not strip_citations(segment.text).strip(" .")


def _citing(kept: Sequence[Verdict], i: int) -> tuple[tuple[str, ...], str]:
    """The ids that cite code block ``i`` and how: ``lead`` (the line before it leads into
    it, ending in ":"), ``before`` (the sentence before it cites: the extractive answer's
    sentence and the example after it), ``under`` (a bare citation under it), or ``()``
    and ``none``."""
    before = kept[i - 1].segment if i > 0 else None
    after = kept[i + 1].segment if i + 1 < len(kept) else None
    cites = before is not None and before.kind == "sentence" and citation_ids(before.text)
    if cites and before is not None and before.text.rstrip().endswith(":"):
        return tuple(citation_ids(before.text)), "lead"
    if after is not None and _bare(after):
        return tuple(citation_ids(after.text)), "under"
    if cites and before is not None:
        return tuple(citation_ids(before.text)), "before"
    return (), "none"
