"""Reference entries: the description under the term line that names what the question asks.

Manuals describe options, variables and commands as entries: a line naming the term, then
its description. Readline's Info manual::

    'show-all-if-ambiguous'
    This alters the default behavior of the completion functions. If set to 'on', …

Valgrind's HTML (a ``<dt>``, then its ``<dd>`` paragraphs)::

    --num-callers=<number> [default: 12]

    Specifies the maximum number of entries shown in stack traces …

Asked "what does show-all-if-ambiguous do?", quoting by shared words alone chose the
*neighbouring* entry first, ``show-all-if-unmodified``, whose description says "in a fashion
similar to SHOW-ALL-IF-AMBIGUOUS", then the first sentence of each of three entries (a new
user's wrong answer, stop 40). When a passage holds the entry of a term the question names
(:func:`entry_parts`), its sentences are the ones to quote, in the order the manual gives
them (:mod:`citewise.generate.extractive`).

A term line (:func:`terms_of`) is a block's first line of at most :data:`MAX_TERM_LINE`
characters that does not end as a sentence does and starts with a term: an option
(``-x``, ``--name``), or a word with an inner ``-``, ``_`` or ``.``, or any word in quotes
(``'bell-style'``, ```keymap```). The entry runs from it to the next block that opens
with a term line, or a heading of the passage, at most :data:`MAX_PARTS` blocks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citewise.answer.salient import salient_terms
from citewise.cite.terms import content_stems
from citewise.generate.examples import BLOCK_BREAK
from citewise.text import titles
from citewise.types import Chunk, ContextPassage, Hit

MAX_TERM_LINE = 100
MAX_PARTS = 4
MAX_ALIASES = 4
_QUOTES = "'\"`‘’“”"
_TERM = re.compile(r"--?[A-Za-z0-9][\w-]*|[A-Za-z_][\w.-]*")
r"""A term's start: an option, or a word that may hold ``-``, ``_`` and ``.`` (one
quantifier: a nested ``(?:[-_.]\w+)+`` took time doubling with each ``_`` of a line such as
``pool_x_x_…_x-``, holding the GIL: a review's 32 underscores hung an ask past 120 s);
:func:`_term_match` checks the rest."""
_QUOTED = re.compile(r"[" + _QUOTES + r"]([\w.-]+)[" + _QUOTES + r"]")
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")
_SHORT_OPTION = re.compile(r"(?<![\w-])-([A-Za-z0-9])(?![\w-])")
_DEFINITION = re.compile(
    r"(?:--? )?(?:[A-Z][a-z]+ )?(?:Function|Macro|Variable|Command|Method|Struct(?:ure)?|Enum|"
    r"Typedef|Type|Constant|Option|Special Form):[ \t]+(?:[^(\n]*[ \t*])?"
    r"([A-Za-z_][\w.:-]*)[ \t]*(?:\(.*)?$")
"""A definition's line: libxslt's API reference (``Function: xsltSecurityForbid``) and
Texinfo's ``@deffn`` in Info (``-- Function: ffi_status ffi_prep_cif (ffi_cif *CIF, …)``):
the name is the word before the arguments."""
_INNER = re.compile(r"\w[-_.]\w")
_ALIAS = re.compile(r"(?<=\s)\(([^\W_][\w.-]*)\)")  # 'reverse-search-history (C-r)'
_ASIDES = re.compile(r"[" + _QUOTES + r"][^" + _QUOTES + r"\n]*[" + _QUOTES + r"]"
                     r"|\([^()\n]*\)|\[[^\[\]\n]*\]|<[^<>\n]*>|(?<![\w-])--?[\w][\w=.-]*")
_PROSE = re.compile(r"\b[a-z]{4,}\b")
"""Outside quotes, brackets and options, a term line holds no lower-case word of four
letters or more ("to", "or" join aliases; ``VALUE`` in ``--maxdepth VALUE`` is a
metavariable); a wrapped paragraph's first line does."""
_NAME_ONLY = re.compile(r"\s*(?:$|[(=\[<:])")
_WORD = re.compile(r"[\w.-]+(?=[" + _QUOTES + r"])")
_SENTENCE_END = (".", "!", "?", ":", ",", ";")


def terms_of(line: str) -> set[str]:
    """The terms ``line`` names when it is a term line (module docstring), leading dashes
    dropped, lowercased (:func:`_norm`): every option, quoted word or word in brackets on
    it, as a line giving a term's aliases does (``'-h, --help'``, ```--keep' `-k'``,
    ``'reverse-search-history (C-r)'``); else none."""
    line = line.strip()
    defined = _DEFINITION.match(line)
    if defined and len(line) <= 2 * MAX_TERM_LINE and not line.endswith(_SENTENCE_END):
        return {_norm(defined.group(1))}
    if not line or len(line) > MAX_TERM_LINE or line.endswith(_SENTENCE_END):
        return set()
    quoted = line[0] in _QUOTES
    first = _term_match(line.lstrip(_QUOTES)) or (_WORD.match(line[1:]) if quoted else None)
    if first is None or not (quoted or first.group(0).startswith("-")
                             or _NAME_ONLY.match(line, first.end())):
        return set()  # "Built-in rules" is a title, not the entry of "built-in"
    if _PROSE.search(_ASIDES.sub(" ", line if quoted else line[first.end():])):
        return set()  # an Info paragraph's first line: "'bzip2' compresses large files in"
    found = {first.group(0), *_OPTION.findall(line), *_QUOTED.findall(line),
             *_ALIAS.findall(line)}
    return {_norm(t) for t in found} - {""}


def _term_match(text: str) -> re.Match[str] | None:
    """An option, or a name with an inner ``-``, ``_`` or ``.`` (``max_keepalive``,
    ``httpx.Client``), at the start of ``text``; the match ends before trailing dots and
    dashes."""
    found = _TERM.match(text)
    if found is None:
        return None
    name = found.group(0).rstrip(".-")
    if not name.startswith("-") and not _INNER.search(name):
        return None
    return _TERM.match(text[: len(name)])


def is_term_line(part: str) -> bool:
    """Whether the block ``part`` is one term line and nothing more (a ``<dt>``'s synopsis,
    ``--tool=<toolname> [default: memcheck]``, which reads as code)."""
    return "\n" not in part.strip() and bool(terms_of(part))


def asked_terms(question: str, texts: Sequence[str] = ()) -> set[str]:
    """The identifiers, hyphenated names and one-letter options (``-l``) ``question``
    asks about, leading dashes dropped (``--num-callers`` and ``num-callers`` are one
    term), and its plain words that ``texts`` (the passages) write only as an option
    (:func:`option_words`)."""
    kinds = ("identifier", "hyphenated")
    named = {_norm(t.strip(_QUOTES)) for t in salient_terms(question, kinds)}
    return (named | set(_SHORT_OPTION.findall(question)) | option_words(question, texts)) \
        - {""}


_PLAIN = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]{2,}(?![\w-])")
_WRITTEN = re.compile(r"(?<![\w-])(-*)([A-Za-z][A-Za-z0-9]{2,})(?![\w-])")


def option_words(question: str, texts: Sequence[str]) -> set[str]:
    """The plain words of ``question`` that ``texts`` hold, each time, as an option's name
    (``--maxvars``), never as a word: a new user asked "xsltproc maxvars" and was shown the
    term line ``--maxvars VALUE`` without what it does. "version" stays a word where the
    texts also say "the version" besides ``--version``."""
    asked = {w.lower() for w in _PLAIN.findall(question)}
    dashed: set[str] = set()
    plain: set[str] = set()
    for text in texts:  # one pass over the texts, however long the question (a review)
        for dashes, word in _WRITTEN.findall(text):
            if word.lower() in asked:
                (dashed if dashes else plain).add(word.lower())
    return dashed - plain


def entry_parts(asked: set[str], parts: Sequence[str],
                headings: Sequence[str] = (), titled: bool = True) -> dict[int, int]:
    """``{index: offset}`` for the ``parts`` (a passage's blocks, in order) that belong to
    the entry of a term in ``asked``: the block its term line opens (offset 0) and the
    blocks after it up to the next term line or heading (at most :data:`MAX_PARTS`); not a
    term line alone, with no description after it in the passage. ``titled``: whether a
    section whose heading titles the term counts (:func:`asks_about`)."""
    if not asked:
        return {}
    marks = {h.strip().lower() for h in headings}
    out: dict[int, int] = {}
    for i, part in enumerate(parts):
        if not asked & _leading_terms(part):
            continue
        entry = {i: 0}
        for j in range(i + 1, min(i + MAX_PARTS, len(parts))):
            first = _first_line(parts[j])
            if terms_of(first) or first.strip().lower() in marks:
                break
            entry[j] = j - i
        if len(entry) > 1 or not is_term_line(part):  # a term line the chunk ends on
            out = {**entry, **out}  # describes nothing here (its text is the next chunk's)
    return out or _continued(asked, parts, headings, marks, titled)


def _continued(asked: set[str], parts: Sequence[str], headings: Sequence[str],
               marks: set[str], titled: bool) -> dict[int, int]:
    """The entry's blocks in a passage that goes on with a section whose heading is the
    term line (Node.js's ``util.promisify(original)``): its first blocks, up to the next
    term line or heading, after the blocks of the passage the heading opens (offsets from
    :data:`MAX_PARTS` on). "What does util.promisify do?" quoted the chunk holding the
    heading, "- original <Function>", not the next one's "Takes a function following the
    common error-first callback style…". A section whose heading titles the term ("Error
    code E0384") is its entry from the block after that heading."""
    if not names_asked_term(headings, asked, titled):
        return {}
    out: dict[int, int] = {}
    opens = bool(parts) and _first_line(parts[0]).strip().lower() == headings[-1].strip().lower()
    for j, part in enumerate(parts[:MAX_PARTS + opens]):
        first = _first_line(part)
        if j == 0 and opens:
            continue  # the heading itself, which the passage opens with ("Error code E0384")
        if terms_of(first) or first.strip().lower() in marks:
            break
        out[j] = MAX_PARTS + j
    return out


def entry_score(top: float, words: float, offset: int, k: int) -> float:
    """The score of the ``k``-th sentence of an entry's block ``offset`` that matches
    ``words`` of the question: above ``top`` (every other sentence's), the question's words
    first ("what does it return?": the ``Returns:`` row), then the manual's order, so the
    entry is quoted from its term line on."""
    return top + words - 0.01 * (k + 10 * offset)


class Leads:
    """The first prose sentence of each asked term's entry, in the document's order (the
    chunk's ordinal, then the prompt's): what the term is or does ("Takes a function
    following the common error-first callback style…"), quoted before the entry's other
    sentences that match no more of the question (:meth:`first`)."""

    def __init__(self, top: float) -> None:
        self.top = top
        self._seen: dict[object, tuple[int, int, float]] = {}

    def offer(self, chunk: Chunk, index: int, words: float) -> None:
        """A prose sentence of an entry: ``index`` in the scored list, ``words`` the
        question's words it matches (before :func:`entry_score`)."""
        section = chunk.section_id or (chunk.doc_id, chunk.heading_path)
        held = self._seen.get(section)
        if held is None or (chunk.ordinal, index) < held[:2]:
            self._seen[section] = (chunk.ordinal, index, words)

    def first(self, scored: list[Any]) -> list[Any]:
        """``scored`` with each lead above its entry's sentences that match no more of the
        question: ``top`` + its words, with none of the offsets' order taken off."""
        out = list(scored)
        for _, index, words in self._seen.values():
            lead = self.top + words + 0.005
            out[index] = replace(out[index], score=max(out[index].score, lead))
        return out


def in_reading_order(passages: Sequence[ContextPassage], terms: set[str],
                     titled: bool = True) -> list[ContextPassage]:
    """``passages`` with those under the heading of an asked term (``terms``) in the
    document's order, in the places they held: the quotes of the term's section read as the
    section does (asked "What does fs.mkdtemp do?", its example of the wrong call, ranked
    first, came before "Creates a unique temporary directory.")."""
    under = [names_asked_term(p.hit.chunk.heading_path, terms, titled) for p in passages]
    docs: dict[str, list[ContextPassage]] = {}
    for p, ours in zip(passages, under, strict=True):
        if ours:
            docs.setdefault(p.hit.chunk.doc_id, []).append(p)
    queues = {d: iter(sorted(g, key=lambda p: p.hit.chunk.ordinal)) for d, g in docs.items()}
    return [next(queues[p.hit.chunk.doc_id]) if ours else p
            for p, ours in zip(passages, under, strict=True)]


def asks_about(question: str, asked: set[str]) -> bool:
    """Whether ``question`` asks about its terms themselves ("what does error E0133 mean?",
    "explain rustc error E0133"), not how to do something with them: then a section whose
    heading titles a term is its entry (:func:`names_asked_term`). "how do I make httplib2
    cache responses on disk?" quoted the title page of "The httplib2 Library" ("Joe
    Gregorio. Email: …", a new user), its first sentences scored above every other. (The
    review of this stop: counting the question's other words instead sent "what does error
    E0133 mean in Rust?" to another error's page.)"""
    return bool(asked) and _HOW_TO.search(question) is None


_HOW_TO = re.compile(r"^\W*(?:(?:so|and|but|ok|okay)\W+)?how\b|\bhow (?:do|can|should|would|"
                     r"could|to|does one)\b", re.IGNORECASE)


def names_asked_term(headings: Sequence[str], asked: set[str], titled: bool = True) -> bool:
    """Whether the last of ``headings`` is a term line naming a term of ``asked``
    (``util.promisify(original)`` for "util.promisify"), or a title of one that is no plain
    word (:func:`~citewise.text.titles`: "Error code E0384" for "e0384"). The rustc error
    index's pages say what the error is in their first sentences and never repeat the
    code: asked "what does E0133 mean?", with the E0133 page first in the context, the
    answer quoted the sentences of three other pages that say "error" and "means"."""
    if not headings:
        return False
    return bool(asked & terms_of(headings[-1])) or titled and any(
        not term.isalpha() and titles(headings[-1], term) for term in asked)


def entries_first(question: str, hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` with those whose chunk holds the entry of a term ``question`` asks about
    first (those whose headings hold more of the question's words before the others: "What
    does the -u option do in diff?" read patch's ``'-u'`` entry first, then diff's), scored
    as the best hit (so the context's diverse selection keeps them first); the rest in
    order. Read from the first passages, the small model answered "what does
    show-all-if-ambiguous do?" from the entry before it, ranked first, which mentions it."""
    asked = asked_terms(question, [h.chunk.text for h in hits])
    titled = asks_about(question, asked)
    held = [h for h in hits if entry_parts(asked, BLOCK_BREAK.split(h.chunk.text),
                                           h.chunk.heading_path, titled)] if asked else []
    if not held:
        return list(hits)
    asked_words = content_stems(question)  # the entry whose headings say more of the question
    held.sort(key=lambda h: -len(asked_words & content_stems(" ".join(h.chunk.heading_path))))
    best = max(h.score for h in hits)
    first = {id(h) for h in held}
    return [replace(h, score=best) for h in held] + [h for h in hits if id(h) not in first]


def _leading_terms(part: str) -> set[str]:
    """The terms of the term lines ``part`` opens with (a term and its aliases may each
    have a line: ``'-p'`` then ``'--portability'``)."""
    out: set[str] = set()
    for line in part.strip("\n").split("\n")[:MAX_ALIASES]:
        terms = terms_of(line)
        if not terms:
            break
        out |= terms
    return out


def _norm(term: str) -> str:
    """``term`` without leading dashes, lowercased unless one character: ``-n`` is not
    gzip's ``-N``."""
    term = term.lstrip("-")
    return term if len(term) == 1 else term.lower()


def _first_line(part: str) -> str:
    return part.strip("\n").split("\n", 1)[0]
