"""The context builder: which retrieved passages go into the prompt, in what order.

Steps, each recorded so ``--explain`` can show what was dropped and why:

0. **Pointers** are dropped: a short section titled "See also" (:data:`POINTER_HEADING`, at
   most :data:`POINTER_WORDS`) only names other pages ("See also: casting"); a new user's
   Rust by Example answers gave two of their first three passages to such lists, which rank
   well by their page's title and answer nothing.
1. **Near-duplicates** are dropped: a passage whose word-shingle overlap with an already kept
   passage reaches :data:`NEAR_DUPLICATE` (Jaccard of word 3-shingles, Broder 1997) adds no
   evidence and costs tokens.
2. **Windows of one example are joined**: a code chunk retrieved with the chunk before or
   after it in the same section (an example the chunker cut into windows) is one passage, the
   windows' texts in document order, in the place of the best-ranked window and cited at the
   first (its heading and lead-in). Alone, the later window of libffi's "Simple Example" (the
   ``ffi_call(&cif, puts, …)`` lines) ranked first and its opening window, which says what the
   example does, fifth, outside what a 2-core machine reads first.
3. **An example cut inside a statement is completed**: a code passage whose text ends with
   brackets open (the chunker's window ended inside one long statement, Node's
   ``http.get(…, (res) => {…});``) gets the rest of that statement from the stored document,
   up to the line that closes them, when that adds at most :data:`COMPLETION_TOKENS`. A
   model or a quote no longer stops at ``} else if (…) {``.
4. **Diverse selection** by Maximal Marginal Relevance (Carbonell & Goldstein, SIGIR 1998):
   repeatedly pick ``argmax  λ·rel(p) − (1−λ)·max_{s∈S} sim(p, s)`` where ``rel`` is the
   retrieval score scaled to [0, 1] by the best score and ``sim`` is the Jaccard similarity of
   content-word sets. ``λ = 1`` keeps the retrieval order.
5. **Token budget**: a passage that does not fit the remaining budget is skipped (a later,
   shorter one may fit); the first passage is cut between sentences or lines if it alone
   exceeds the budget, so a long top passage never empties the context.
6. Optional **parent expansion** (small-to-large): a passage is replaced by the text of its whole
   section (from the stored parsed document) when that fits the budget.

``ask`` hands the hits over with the one holding a manual's entry of a term the question
names first (:func:`citewise.generate.entries.entries_first`). Selected passages keep
selection order (strongest first) and get opaque ids ``S1``…``Sn``;
a source's own citation-shaped brackets are written in parentheses
(:func:`~citewise.cite.parse.inert_citations`), so no quote of it cites another passage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from citewise.chunk.spans import bracket_depth
from citewise.cite.parse import inert_citations
from citewise.config import ContextSettings
from citewise.text import query_terms
from citewise.types import Chunk, ContextPassage, Hit, ParsedDocument

COMPLETION_TOKENS = 192
"""The most tokens added to complete a statement a code passage ends inside (one chunk)."""
POINTER_HEADING = re.compile(r"(?:see also|related (?:pages|topics|links)|further reading)"
                             r"\W*$", re.IGNORECASE)
POINTER_WORDS = 30
"""The most words of a "See also" section dropped as a pointer (a longer one says more)."""
NEAR_DUPLICATE = 0.8
"""Shingle Jaccard at or above which two passages count as the same evidence."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_PIECE_END = re.compile(r"(?<=[.!?])\s+|\n")


@dataclass(frozen=True)
class Dropped:
    chunk_id: str
    reason: str  # pointer | near_duplicate | joined (into a neighbouring window) | over_budget
    # | max_passages


@dataclass(frozen=True)
class Candidate:
    """A passage before selection: the hit it is cited as, its text, and the last chunk the
    text holds (a joined example's last window)."""

    hit: Hit
    text: str
    last: Chunk


@dataclass(frozen=True)
class Context:
    passages: tuple[ContextPassage, ...]
    dropped: tuple[Dropped, ...]
    tokens: int


def shingles(text: str, n: int = 3) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return frozenset({tuple(words)}) if words else frozenset()
    return frozenset(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def jaccard(a: frozenset, b: frozenset) -> float:
    """|A ∩ B| / |A ∪ B|; 0 for two empty sets."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def relevance(scores: Sequence[float]) -> list[float]:
    """Retrieval scores scaled to [0, 1] over the candidates (min-max): fused RRF scores sit
    within a few percent of each other (0.0328 … 0.0257 over sixteen hits), so divided by the
    best they gave MMR no relevance to weigh, and novelty alone decided. fontconfig's
    <acceptfont> section, second in both signals, was left out of the context (it says
    what <rejectfont>, first, says with one word changed) while thirteenth-ranked overview
    paragraphs went in; the question was how to keep a font from being blacklisted."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high <= low:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


def mmr_order(relevance: Sequence[float], similarity: Callable[[int, int], float],
              lam: float) -> list[int]:
    """Indices in MMR order (Carbonell & Goldstein 1998); ties keep the input order."""
    remaining = list(range(len(relevance)))
    chosen: list[int] = []
    while remaining:
        def value(i: int) -> float:
            redundancy = max((similarity(i, j) for j in chosen), default=0.0)
            return lam * relevance[i] - (1.0 - lam) * redundancy
        best = max(remaining, key=lambda i: (value(i), -i))
        chosen.append(best)
        remaining.remove(best)
    return chosen


def truncate_to_budget(text: str, budget: int, count_tokens: Callable[[str], int]) -> str:
    """The longest prefix of whole sentences and lines within ``budget`` tokens, as written
    (a code example keeps its line breaks; at least one piece, cut by words if even that is
    too long)."""
    ends = [m.start() for m in _PIECE_END.finditer(text)] + [len(text)]
    kept: list[int] = []
    used, start = 0, 0
    for end in ends:  # counted piece by piece: linear in the text
        used += count_tokens(text[start:end])
        if used > budget:
            break
        kept.append(end)
        start = end
    while kept and count_tokens(text[:kept[-1]]) > budget:  # a non-additive tokenizer
        kept.pop()
    if kept and text[:kept[-1]].strip():
        return text[:kept[-1]].rstrip()
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:  # the most words that fit
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count_tokens(" ".join(words[:mid])) <= budget else (lo, mid - 1)
    return " ".join(words[:lo])


def section_text(parsed: ParsedDocument, hit: Hit) -> str | None:
    """The text of the section holding ``hit``'s chunk: the blocks sharing its heading path."""
    path = hit.chunk.heading_path
    if not path:
        return None
    spans = [(b.start, b.end) for b in parsed.blocks if b.heading_path[:len(path)] == path]
    if not spans:
        return None
    start, end = min(s for s, _ in spans), max(e for _, e in spans)
    return parsed.text[start:end].strip() or None


def build_context(hits: Sequence[Hit], settings: ContextSettings,
                  count_tokens: Callable[[str], int],
                  load_parsed: Callable[[str], ParsedDocument | None] | None = None
                  ) -> Context:
    """Choose passages from ``hits`` (best first) for a prompt; see the module docstring."""
    pointers = {h.chunk.chunk_id for h in hits if _is_pointer(h.chunk)}
    dropped = [Dropped(h.chunk.chunk_id, "pointer") for h in hits
               if h.chunk.chunk_id in pointers]
    unique, duplicates = _drop_near_duplicates([h for h in hits
                                                if h.chunk.chunk_id not in pointers])
    dropped += duplicates
    joined, dropped_windows = join_windows(unique)
    dropped += dropped_windows
    if load_parsed is not None:
        joined = complete_code(joined, count_tokens, load_parsed)
    words = [frozenset(query_terms(c.text)) for c in joined]
    order = mmr_order(relevance([c.hit.score for c in joined]),
                      lambda i, j: jaccard(words[i], words[j]), settings.mmr_lambda)
    passages: list[ContextPassage] = []
    used = 0
    for i in order:
        hit = joined[i].hit
        if len(passages) >= settings.max_passages:
            dropped.append(Dropped(hit.chunk.chunk_id, "max_passages"))
            continue
        text, tokens = _fit(joined[i].text, settings.budget_tokens - used, not passages,
                            count_tokens)
        if text is None:
            dropped.append(Dropped(hit.chunk.chunk_id, "over_budget"))
            continue
        passages.append(ContextPassage(f"S{len(passages) + 1}", hit, text, tokens))
        used += tokens
    if settings.expand_parent and load_parsed is not None:
        passages, used = _expand(passages, settings.budget_tokens - used, count_tokens,
                                 load_parsed, used)
    inert = tuple(replace(p, text=inert_citations(p.text)) for p in passages)
    return Context(inert, tuple(dropped), used)


def join_windows(hits: Sequence[Hit]) -> tuple[list[Candidate], list[Dropped]]:
    """Each hit as a candidate passage, best first; a code chunk is joined with the code
    chunks right before and after it in its section when those were retrieved too (step 2
    of the module docstring): the first window's hit, with the best window's score and
    rank, carries the joined text, and the others are dropped as ``joined``."""
    place = {_position(h): i for i, h in enumerate(hits)}
    taken: set[int] = set()
    out: list[Candidate] = []
    dropped: list[Dropped] = []
    for i, hit in enumerate(hits):
        if i in taken:
            continue
        run = [i]
        if hit.chunk.kind == "code":
            doc, section, ordinal = _position(hit)
            before, after = (place.get((doc, section, ordinal + d)) for d in (-1, 1))
            run = [j for j in (before, i, after) if j is not None and j not in taken and
                   (j == i or hits[j].chunk.kind == "code")]
        taken.update(run)
        chunks = [hits[j].chunk for j in run]
        first = replace(hits[run[0]], score=hit.score, rank=hit.rank)
        out.append(Candidate(first, _joined(chunks), chunks[-1]))
        dropped += [Dropped(c.chunk_id, "joined") for c in chunks[1:]]
    return out, dropped


def _position(hit: Hit) -> tuple[str, str | None, int]:
    return hit.document.doc_id, hit.chunk.section_id, hit.chunk.ordinal


def _joined(chunks: Sequence[Chunk]) -> str:
    """The texts of consecutive chunks of one document, an overlap kept once. Chunks a blank
    line or more apart are separate blocks and stay so ("\n\n"): joined by one line break,
    time's manual's example and the sentence introducing the next one read as one block,
    and a new user's quote ran "…pagefaults 0swaps Run the command 'ls -Fs' and show…";
    chunks one line break apart are one block split in two, joined back by it."""
    text, end = chunks[0].text, chunks[0].end
    for chunk in chunks[1:]:
        if chunk.start < end:
            text += chunk.text[end - chunk.start:]
        else:
            text += ("\n\n" if chunk.start - end >= 2 else "\n") + chunk.text
        end = chunk.end
    return text


def _is_pointer(chunk: Chunk) -> bool:
    """Whether ``chunk`` is a short "See also" list (step 0 of the module docstring)."""
    return bool(chunk.heading_path) and len(chunk.text.split()) <= POINTER_WORDS and \
        POINTER_HEADING.match(chunk.heading_path[-1].strip()) is not None


_VALUE = re.compile(r"\d+(?:[.,:/]\d+)*")


def _values(hit: Hit) -> tuple[str, ...]:
    """The numbers ``hit``'s text gives as values, in order (a copy that swaps two is other
    evidence), not those its page's title or headings hold: pages of two releases ("Acme
    3.1" / "Acme 3.2 manual") that differ only there are one page's evidence, not a
    disagreement (the review of this stop), while "TLS 1.0" for "TLS 1.3" in a policy's
    text is a changed value (its second review)."""
    named = set(_VALUE.findall(" ".join((hit.document.title or "",
                                         *hit.chunk.heading_path))))
    return tuple(v for v in _VALUE.findall(hit.chunk.text) if v not in named)


def _drop_near_duplicates(hits: Sequence[Hit]) -> tuple[list[Hit], list[Dropped]]:
    """Drop a passage whose shingles nearly repeat a better-ranked one's with the same
    values (:func:`_values`): a copy that changes a number is other evidence, which the
    conflict check must see. A security review's copy of a policy page, "every 5 days" for
    "every 90 days" and the question's words as its title, ranked first and dropped the
    original, so the answer gave 5 days with no "The sources disagree"."""
    kept: list[Hit] = []
    seen: list[tuple[frozenset, tuple[str, ...]]] = []
    dropped: list[Dropped] = []
    for hit in hits:
        sh, values = shingles(hit.chunk.text), _values(hit)
        if any(jaccard(sh, other) >= NEAR_DUPLICATE and values == others
               for other, others in seen):
            dropped.append(Dropped(hit.chunk.chunk_id, "near_duplicate"))
            continue
        kept.append(hit)
        seen.append((sh, values))
    return kept, dropped


def _fit(text: str, room: int, first: bool,
         count_tokens: Callable[[str], int]) -> tuple[str | None, int]:
    tokens = count_tokens(text)
    if tokens <= room:
        return text, tokens
    if not first or room <= 0:
        return None, 0
    cut = truncate_to_budget(text, room, count_tokens)
    return (cut, count_tokens(cut)) if cut else (None, 0)


def rest_of_statement(parsed: ParsedDocument, chunk: Chunk, depth: int) -> str | None:
    """The text after ``chunk`` in its code block up to the end of the line that closes the
    ``depth`` brackets left open; None when none are open or the block ends first."""
    block = next((b for b in parsed.blocks if b.kind == "code" and
                  b.start < chunk.end < b.end), None)
    if depth <= 0 or block is None:
        return None
    end = chunk.end
    for line in parsed.text[chunk.end:block.end].splitlines(keepends=True):
        depth += bracket_depth(line)
        end += len(line)
        if depth <= 0:
            return parsed.text[chunk.end:end].rstrip()
    return None


def complete_code(candidates: Sequence[Candidate], count_tokens: Callable[[str], int],
                  load_parsed: Callable[[str], ParsedDocument | None]) -> list[Candidate]:
    """Candidates whose code ends inside a statement, completed (step 3 of the module
    docstring); the others as they are."""
    out = []
    for c in candidates:
        depth = bracket_depth(c.text) if c.last.kind == "code" else 0
        if depth > 0:
            parsed = load_parsed(c.hit.document.doc_id)  # the caller caches (ask does)
            rest = rest_of_statement(parsed, c.last, depth) if parsed is not None else None
            if rest and count_tokens(rest) <= COMPLETION_TOKENS:
                c = replace(c, text=c.text + rest)
        out.append(c)
    return out


def _expand(passages: list[ContextPassage], room: int, count_tokens: Callable[[str], int],
            load_parsed: Callable[[str], ParsedDocument | None],
            used: int) -> tuple[list[ContextPassage], int]:
    out: list[ContextPassage] = []
    expanded: set[tuple[str, tuple[str, ...]]] = set()
    for p in passages:
        key = (p.hit.document.doc_id, p.hit.chunk.heading_path)
        if key in expanded:  # a second passage of an already expanded section stays small
            out.append(p)
            continue
        parsed = load_parsed(p.hit.document.doc_id)
        whole = section_text(parsed, p.hit) if parsed is not None else None
        if whole and len(whole) > len(p.text):
            extra = count_tokens(whole) - p.tokens
            if extra <= room:
                p = ContextPassage(p.sid, p.hit, whole, p.tokens + extra)
                expanded.add(key)
                room -= extra
                used += extra
        out.append(p)
    return out, used
