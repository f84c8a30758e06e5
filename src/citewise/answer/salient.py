"""Evidence for every salient term: a question naming something no readable passage mentions
is about something the corpus does not contain.

Retrieval scores say how *similar* the best passages are; a question about a nonexistent
extension ("how do I enable the httpx-turbo plugin?") or an invented command ("what does
`cargo sign` do?") retrieves passages about its neighbours with a good cosine. But the name
itself appears in none of them. Salient terms of a question (:func:`salient_terms`):

* identifiers: backticked spans, tokens mixing letters and digits (``http2``, ``E42``), with an
  inner ``_``, ``.`` or ``/`` (``max_keepalive``, ``httpx.Client``), camelCase, ``--flags``,
  long options with one dash (``-mtime``);
* names: capitalised words that are not the first word of the question nor stopwords
  (``Normans``, ``Rhine``), and all-capital acronyms (``HTTP``, ``CLI``);
* commands: "the git squash command" when the passages give ``git`` other subcommands
  (:mod:`citewise.answer.asked_commands`; looked for with identifiers);
* numbers of three or more digits (years, codes, ports); hyphenated words;
* labels: numbers naming a version or edition ("Rust 2027", "wget 3.5");
* unknown words (:func:`unknown_words`): content words of four letters or more that no
  document the asker may read contains at all (a BM25 lookup per word, so document frequency
  among readable documents is 0).

:func:`missing_terms` lists those found (case-insensitive, a light stem for words, hyphens and
underscores inside words ignored) in no passage among the top :data:`DEPTH` readable hits
(title, headings and text). The gate uses it as a veto on its retrieval signal
(``<signal>+terms``, see :mod:`citewise.answer.gate`).
Which kinds the gate checks where (:data:`KINDS`, :data:`ABSENT_KINDS`) was chosen on two
dev sets unlike each other (SQuAD's dev half and the ninja manual's dev set).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citewise.answer.asked_commands import asks_command, missing_commands
from citewise.cite.terms import is_identifier, labels
from citewise.text import MARKUP_ELEMENT, STOPWORDS, query_terms, stem, word_stems
from citewise.types import Hit

DEPTH = 10
ALL_KINDS: tuple[str, ...] = ("identifier", "name", "number", "hyphenated", "label")
KINDS: tuple[str, ...] = ("identifier",)
"""The kinds looked for in the top hits: identifiers (a name the user copied from code or a
command line must be in the passages that answer it)."""
ABSENT_KINDS: tuple[str, ...] = ("name", "label")
"""The kinds looked for in every readable document: a name (capitalised word, acronym) that no
readable document contains is about something the corpus does not cover ("a Terraform
provider", "CUDA", "Azure Blob Storage"). Looking for names in the top hits only declines
SQuAD questions that reuse a paragraph's names from elsewhere. A label, the number naming a
version or edition (:func:`citewise.cite.terms.labels`: "the Rust 2027 edition", "wget 3.5"),
that no readable document contains is a version the corpus does not describe: a new user's
false-premise "What language changes does the Rust 2027 edition make?" passed the gate and
was answered from a passage about Rust 2024. Adding labels changed no question's outcome on
the dev or check sets below (``benchmarks/gate_terms.py``, variant ``id+name0+label0``).
Hyphenated words no readable document contains (a new user's "tree-sitter", "vim-plug") would
change none either (variant ``+hyph0``), and are not looked for: with no dev question to
show their cost, a user's own compound ("a step-by-step guide") would decline answerable
questions.

Both were chosen by ``benchmarks/gate_terms.py`` on two DEV sets, each held to at most 10 %
false declines: the SQuAD 2.0 subset's dev half (adversarial rewordings) and the ninja
manual's dev set (``evals/ninja-dev.jsonl``: questions in users' words, 26 about features
ninja does not have). The SQuAD dev half alone had chosen identifiers only and no corpus check
(abstention 0.09-0.32 on the documentation sets). Dev mean abstention, combined signal:
identifiers only 0.357, + names in the top hits 0.459, + names absent from every readable
document 0.481 (shipped), + unknown lowercase words 0.298 (users' own words for things the
docs name otherwise cost too many false declines)."""
UNKNOWN_WORDS = False
"""Whether :func:`salient_missing` also vetoes on lowercase words no readable document
contains: off by the same dev measurement."""

_PEOPLES_TEXT = """
african american arabic asian australian austrian belgian brazilian british canadian chinese
czech danish dutch eastern english european finnish french german greek hebrew hindi hungarian
indian indonesian irish italian japanese korean latin mexican northern norwegian persian polish
portuguese romanian russian scottish southern spanish swedish swiss thai turkish ukrainian
vietnamese western
"""
PEOPLES = frozenset(_PEOPLES_TEXT.split())
"""Capitalised words that qualify rather than name (nationalities, languages, compass
adjectives): a new user's "How do I turn on spell checking for American English?" was
declined because no Vim help file says "American" (they say ``en_us``). Not names to look
for in every readable document. ``benchmarks/gate_terms.py``: no change on the dev sets,
httpx, valgrind or borg; SQuAD's test half declines one adversarial question fewer (0.13 ->
0.12 of 145), whose only veto was a nationality."""

_CODE = re.compile(r"`([^`]+)`")
_JOINER = re.compile(r"(?<=[^\W_])[-_]+(?=[^\W_])|(?<=[^\W\d_])\.(?=[^\W\d_])")
_TOKEN = re.compile(r"(?:--)?[A-Za-z0-9][\w.\-/]*[A-Za-z0-9]|[A-Za-z0-9]")
_WORD_OPTION = re.compile(r"(?<![\w-])-(?=[a-z]*[aeiouy])[a-z][a-z0-9]{3,}(?:-[a-z0-9]+)*\b")
"""A long option written with one dash, as find's (``-mtime``, ``-execdir``): a new user's
"how do I use find -fuzzy to match similar file names?" passed the gate on its other words
and was answered with shell pattern quotes. Four letters or more, one a vowel, so that
bundled letters (``tar -xzvf``, ``ls -lah``) are not taken for a name."""
_PATH_ROOT = re.compile(r"(?<![\w:])([A-Za-z_]\w*)::(?=\w)")
"""The first name of a path (``tokio`` of ``tokio::sync::Mutex``, ``std`` of ``std::mem``):
the crate or namespace it is in, which the passages that answer it name. A new user's "How
do I hold a tokio::sync::Mutex guard across an .await point?" of the Rust standard library's
docs (no word of tokio in them) was answered from std's Mutex."""


_MACRO = re.compile(r"(?<![\w!])([a-z_][a-z0-9_]*!)(?=\s*[(\[{]|\s+macros?\b)")
"""A Rust macro, a lowercase name with its bang (``select!``, ``vec![]``), written as a
call or followed by "macro": a new user's "How do I wait on two channels with tokio's
select! macro?" of the Rust standard library's docs (which have no such macro) was
answered from std's mpsc docs, the word "select" being in them. Looked for with its bang."""


_ASKED_OPTION = re.compile(
    r"(?i:\bwhat\s+does\s+(?:the\s+)?|\bdefault\s+(?:value\s+)?(?:for|of)\s+(?:the\s+)?"
    r"|\b(?:set|enable|disable)\s+(?:the\s+)?)([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])"
    r"|(?<![\w-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\s+(?:option|setting|parameter|directive|"
    r"statement|variable|flag)s?\b")
"""A hyphenated lowercase name asked of as an option ("what does max-cache-entries do",
"the default for prefetch-aggressive", "the prefetch-aggressive option"): a name from a
configuration reference, which the passages that answer it name. A new user of the BIND
manual (every option hyphenated) asked about two options BIND lacks and was answered from
their neighbours; hyphenated words are otherwise no names to look for (a user's own
"step-by-step"). None of the 1,021 dev, eval and SQuAD questions asks so: no gate outcome
there changes."""


_VALUE = re.compile(r"\d+(?:[.,]\d+)?(?:[kmgtp]i?b?|b|bytes?|ms|secs?|mins?|h|hrs?|d|px|x)"
                    r"|\d{1,3}(?:[.,]\d+)?s", re.IGNORECASE)
"""A number with its unit (``1GB``, ``100MB``, ``30s``): a value the user gives, which the
manual writes its own way (find's ``-size +1G``), not a name: a new user's "how can I find
all files bigger than 1GB?" was declined as naming "1gb". Ordinals and decades stay names
("the 14th century", "the 1100s"): taking them out declined fewer of SQuAD's unanswerable
questions (``benchmarks/gate_terms.py``)."""


def _kind(token: str, first: bool, kinds: Sequence[str]) -> str | None:
    letters = any(c.isalpha() for c in token)
    digits = any(c.isdigit() for c in token)
    if _VALUE.fullmatch(token):
        return None
    if is_identifier(token) or ("-" in token and "hyphenated" in kinds):
        return "identifier"
    if digits and not letters:
        return "number" if len(token) >= 3 else None
    if len(token) >= 2 and token.isupper():
        return "name"
    low = token.lower()
    if token[0].isupper() and not first and low not in STOPWORDS and len(token) > 1 \
            and low not in PEOPLES:
        return "name"
    return None


def salient_terms(question: str, kinds: Sequence[str] = KINDS) -> list[str]:
    """The question's salient terms (module docstring), in order, each once, lowercased."""
    found: dict[str, None] = {}
    for span in _CODE.findall(question):
        if "identifier" in kinds and span.strip():
            found.setdefault(span.strip().lower(), None)
    text = _CODE.sub(" ", question)
    if "identifier" in kinds:
        # an element is the name (a new user's "What does the <fontrank> element do in
        # fonts.conf?" was declined as "none of the passages mentions fonts.conf")
        for element in MARKUP_ELEMENT.findall(text):
            found.setdefault(f"<{element.lower()}>", None)
        text = MARKUP_ELEMENT.sub(" ", text)
        for option in _WORD_OPTION.findall(text):
            found.setdefault(option.lower(), None)
        for root in _PATH_ROOT.findall(text):  # "tokio::sync::Mutex": tokio
            found.setdefault(root.lower(), None)
        for macro in _MACRO.findall(text):  # "select!"
            found.setdefault(macro.lower(), None)
        for before, after in _ASKED_OPTION.findall(text):  # "what does max-cache-entries do"
            found.setdefault(before or after, None)
    if "label" in kinds:
        for value in sorted(labels(text, written=True)):  # "3.10" is not "3.1"
            found.setdefault(value, None)
    for i, token in enumerate(_TOKEN.findall(text)):
        token = token.rstrip(".")
        kind = _kind(token, i == 0, kinds)
        if kind in kinds:
            found.setdefault(token.lower(), None)
    return list(found)


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "'s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _haystack(hit: Hit) -> str:
    chunk = hit.chunk
    return " ".join([hit.document.title or "", *chunk.heading_path, chunk.text]).lower()


def missing_terms(question: str, hits: Sequence[Hit], depth: int = DEPTH,
                  kinds: Sequence[str] = KINDS) -> list[str]:
    """Salient terms of ``question`` found in none of the top ``depth`` hits."""
    terms = salient_terms(question, kinds)
    commands = "identifier" in kinds and asks_command(question)
    if not terms and not commands:
        return []
    text = _with_negations("\n".join(_haystack(h) for h in hits[:depth]))
    squashed = _squash(text)
    missing = [t for t in terms if not _mentioned(t, text, squashed)]
    if commands:  # "the git squash command" (citewise.answer.asked_commands)
        missing += [c for c in missing_commands(question, text) if c not in missing]
    return missing


_NEGATABLE = re.compile(r"--\[no-?\]")


def _with_negations(text: str) -> str:
    """``text`` and, when it writes options as ``--[no-]name`` (git's way: 115 of its options,
    20 in that form only), both the ``--name`` and ``--no-name`` it stands for. A new user's
    "what does git daemon --informative-errors do" was declined as naming something no
    passage mentions, the ``--[no-]informative-errors`` entry first in the hits."""
    if _NEGATABLE.search(text) is None:
        return text
    return "\n".join((text, _NEGATABLE.sub("--", text), _NEGATABLE.sub("--no-", text)))


def _mentioned(term: str, text: str, squashed: str) -> bool:
    """Whether the top passages' lowercased ``text`` (``squashed``: :func:`_squash`)
    mention ``term``: an element by its tag or word, a macro with its bang, any other term
    as a part of a word, with a light stem, hyphens or underscores. (An option's word value,
    ``--backup=git``, is no term: the review of this stop found ``--name=web``,
    ``--user=alice`` declined, values the user chooses.)"""
    if term.startswith("<"):
        return _element_named(term, text)
    if term.endswith("!"):
        return re.search(rf"(?<![\w!]){re.escape(term)}", text) is not None
    return (term in text or _stem(term) in text or _squash(term) in squashed
            or _squash(_stem(term)) in squashed or _numbered(term, text))


_TRACKED = re.compile(r"(?:gh|bpo|bug|issue|pr|mr|ticket)[-#]?(\d{3,9})")
"""A tracker's number: a known prefix and three digits or more, not "h265" nor "sha512" (a
review: "Does the player decode h265 video?" was answered from "h264 … at 265 frames")."""


def _numbered(term: str, text: str) -> bool:
    """Whether ``term``, a tracker's number ("gh-101400", "bpo-45515"), is named by
    its number: Python's NEWS writes "gh-issue-101400", and a new user's "What does gh-101400
    fix?" was declined as naming something no passage mentions, its entry first in the
    hits."""
    tracked = _TRACKED.fullmatch(term)
    return tracked is not None and re.search(
        rf"(?<![\w.]){tracked.group(1)}(?![\w]|\.\d)", text) is not None


def _element_named(term: str, text: str) -> bool:
    """Whether ``text`` names the element ``term`` ("<match>"): as a tag with attributes
    (``<match target="font">``) or as a word (a page that writes "the match element")."""
    return re.search(rf"(?<![\w-]){re.escape(term.strip('<>'))}(?![\w-])", text) is not None


def _squash(text: str) -> str:
    """``text`` without hyphens and underscores inside words (a flag keeps its ``--``), nor
    dots between letters: "SHA-256" and "SHA256", "max-connections" and "max_connections",
    "fonts.conf" and "fonts-conf" are one name. Nettle's manual writes SHA256 (39 times), and
    the question "how do I compute a SHA-256 hash with nettle?" was declined as naming
    something no passage mentions; fontconfig's manual, titled "fonts-conf", had "What does
    a <match> block do in fonts.conf?" declined so (its top passages say "configuration
    file"). A version keeps its dots ("1.3" is not "13")."""
    return _JOINER.sub("", text)


def terms_signal(question: str, hits: Sequence[Hit], depth: int = DEPTH,
                 kinds: Sequence[str] = KINDS) -> float:
    """Share of salient terms with evidence (1.0 when the question has none)."""
    terms = salient_terms(question, kinds)
    if not terms:
        return 1.0
    return 1.0 - len(missing_terms(question, hits, depth, kinds)) / len(terms)


def unknown_words(question: str, has_word: Callable[[str], bool],
                  known: Sequence[str] = ()) -> list[str]:
    """Content words (4+ letters, not stopwords) for which ``has_word`` (does any readable
    document contain it?) is false; ``known`` words are skipped (already checked)."""
    out = []
    for word in query_terms(question):
        if len(word) >= 4 and word.isalpha() and word not in known and not has_word(word):
            out.append(word)
    return out


def absent_terms(question: str, has_word: Callable[[str], bool],
                 kinds: Sequence[str], known: Sequence[str] = (),
                 hits: Sequence[Hit] = ()) -> list[str]:
    """Salient terms of ``kinds`` that no readable document contains at all (``has_word``
    false: a BM25 lookup, so document frequency among readable documents is 0); ``known``
    terms are skipped (already found missing). A term the index holds no word of (Readline's
    key ``C-r``, TLS ``1.3``: one-letter words are not indexed, so no lookup finds them) is
    absent when it is in none of the top ``hits``: "how do I use C-r to search the history?"
    was declined as naming something no document contains. A term a top passage holds is
    not looked up: the review of this stop's "HTTPS", stemmed ``http`` by the index, had 80
    pages of "HTTP" before the one of its top passages that said it."""
    if not kinds:
        return []
    terms = [t for t in salient_terms(question, kinds) if t not in known]
    unindexed = [t for t in terms if _dotted(t) and t not in query_terms(t)  # "3.10" looks
                 or not query_terms(t)]  # up "10" alone; "c-r" no word at all
    text = "\n".join(_haystack(h) for h in hits[:DEPTH]) if terms else ""
    gone = {t for t in unindexed if not _named(t, text)}
    seen = word_stems(text)  # a top passage says it:
    return [t for t in terms if t in gone or (t not in unindexed and stem(t) not in seen
                                               and not has_word(t))]  # the index may not


def _dotted(term: str) -> bool:
    """Whether ``term`` is a number with dots: a release ("3.10", "2.11.1")."""
    return "." in term and term.replace(".", "").isdigit()


def _named(term: str, text: str) -> bool:
    """Whether lowercased ``text`` names ``term`` as a whole token: not ``c-r`` in
    "decreases" (squashed to "cr") nor ``1.3`` in "0.21.3" (a review). A label is as the
    question writes it (``labels(written=True)``): "strace 6.0" was the value "6", no whole
    token of "release 6.0" (a new user's question was declined as
    naming a 6.0 that no passage mentions, its section first in the hits)."""
    series = r"(?:\.\d+)*" if _dotted(term) else ""
    return re.search(rf"(?<![\w.-]){re.escape(term)}{series}(?![\w-]|\.\w)",
                     text) is not None  # "Python 3.11" names the series: "3.11.0 alpha 5"


def salient_missing(question: str, hits: Sequence[Hit], has_word: Callable[[str], bool],
                    kinds: Sequence[str] = KINDS, absent_kinds: Sequence[str] = ABSENT_KINDS,
                    unknown: bool = UNKNOWN_WORDS) -> list[str]:
    """Everything :mod:`the gate <citewise.answer.gate>` vetoes on: salient terms of
    ``kinds`` absent from the top hits, terms of ``absent_kinds`` absent from every readable
    document, then (``unknown``) unknown words."""
    missing = missing_terms(question, hits, kinds=kinds)
    missing += absent_terms(question, has_word, absent_kinds, known=missing, hits=hits)
    if not unknown:
        return missing
    return missing + unknown_words(question, has_word, known=missing)
