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

from citewise.cite.parse import citation_ids, strip_citations
from citewise.cite.validate import Verdict, code_quoted, source_line
from citewise.types import ContextPassage


def with_sources(kept: Sequence[Verdict], passages: Sequence[ContextPassage],
                 texts: Mapping[str, str]) -> tuple[list[Verdict], list[Verdict]]:
    """``kept`` with a source line before each code block nothing cites, and the blocks no
    one passage holds (``texts``: :func:`~citewise.cite.validate.passage_texts`) taken out,
    returned second with status ``uncited``."""
    out: list[Verdict] = []
    dropped: list[Verdict] = []
    for i, v in enumerate(kept):
        if v.segment.kind != "code" or _cited(kept, i, texts):
            out.append(v)
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


def _cited(kept: Sequence[Verdict], i: int, texts: Mapping[str, str]) -> bool:
    """Whether the kept segment just before code block ``i`` cites it: it leads into it
    (ends in ":") with a citation, or cites a passage that holds the block (the extractive
    answer's sentence and the example after it, from one passage); or the segment just
    after is a bare citation."""
    before = kept[i - 1].segment if i > 0 else None
    after = kept[i + 1].segment if i + 1 < len(kept) else None
    ids = citation_ids(before.text) if before is not None and before.kind == "sentence" else ()
    leads = bool(ids) and before is not None and (before.text.rstrip().endswith(":") or any(
        code_quoted(kept[i].segment.text, texts.get(sid.upper(), "")) for sid in ids))
    closes = after is not None and after.kind == "sentence" and \
        bool(citation_ids(after.text)) and not strip_citations(after.text).strip(" .")
    return leads or closes
