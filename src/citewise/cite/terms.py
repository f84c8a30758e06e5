"""The cheap lexical units the support checker compares: content-word stems, numbers, named
entities and identifiers of a text.

Words are compared as stems of :func:`citewise.text.stem` (the one stemmer: "reduces" meets
"reduced", "inhibition" meets "inhibits") cut to their first :data:`STEM_LENGTH` letters (prefix
truncation: claims and sources share vocabulary in different word forms); stopwords are
:data:`citewise.text.STOPWORDS`.
"""

from __future__ import annotations

import re

from citewise.text import STOPWORDS, stem

#: Words about the answer itself, not about the world: they make no claim.
_META_TEXT = """
according answer answers context document documents evidence information passage passages
provided question questions say says source sources summary
"""
META_WORDS = frozenset(_META_TEXT.split())

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
# a number not glued to a word ("BRCA1", "PD-1" hold no number): "10-20%" gives 10 and 20
_NUMBER = re.compile(r"(?<![A-Za-z]-)(?<![\w.])\d+(?:[.,]\d+)*|(?<=\b[vV])\d+(?:\.\d+)+(?!\w)")
"""A number not glued to a word ("h264", "E42" name things), but a version's after its "v":
Git's release notes title themselves "Git v2.39.1 Release Notes", and "what is in the git
2.39.1 release?" found no passage naming 2.39.1 (its own was left out) and was declined."""
_TOKEN = re.compile(r"[\w-]+", re.UNICODE)
STEM_LENGTH = 7


def content_stems(text: str, *, skip_meta: bool = False) -> set[str]:
    """Stems of the words of ``text`` that are not stopwords (nor, with ``skip_meta``, words
    about the answer itself such as "sources"); single letters are dropped."""
    out = set()
    for word in _WORD.findall(text):
        low = word.lower()
        if len(low) < 2 or low in STOPWORDS or (skip_meta and low in META_WORDS):
            continue
        out.add(stem(low)[:STEM_LENGTH])
    return out


def numbers(text: str) -> set[str]:
    """Numbers in ``text``, normalised: thousands separators dropped ("1,000" -> "1000"),
    trailing zeros of decimals dropped ("2.50" -> "2.5", "1.0" -> "1")."""
    out = set()
    for value in _NUMBER.findall(text):
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", value):
            value = value.replace(",", "")
        if "." in value and "," not in value:
            value = value.rstrip("0").rstrip(".")
        out.add(value)
    return out


_LABEL_WORDS = frozenset({"edition", "release", "version", "revision", "rev", "ver", "v"})
_WORD_BEFORE = re.compile(r"([^\W\d_][\w+#]*(?:\.[\w+#]+)*)[ \t]+$", re.UNICODE)  # "Node.js 26"
_WORD_AFTER = re.compile(r"^[ \t]+([^\W\d_]+)", re.UNICODE)
WORD_REACH = 64
"""How far before a number :func:`labels` looks for the word that names it: searching the
whole text before each number cost (numbers) x (a long word's length)² - a security review's
2,000-character question took 10 s, a planted heading over 100 s per ask."""


def labels(text: str, *, written: bool = False) -> set[str]:
    """The numbers of ``text`` that name something rather than give a value, normalised as
    :func:`numbers`: a version or edition ("Rust 2027", "wget 3.5", "version 4", "the 2027
    edition"): a number after a capitalised word that is not a stopword, after a word such
    as "version" or "edition", before one, or dotted after any other word. "Set the timeout
    to 30", "limit it to 2.5 seconds" and "in 1066" give values. A question's values may be
    echoed by its answer ("use ``--limit-rate=2000``"); its labels may not unless a source
    holds them: "The Rust 2027 edition makes changes…" answered a question about an edition
    that does not exist, citing a passage about Rust 2024. ``written``: as the text writes
    them, not normalised ("3.10" stays "3.10", not the value 3.1)."""
    out = set()
    for match in _NUMBER.finditer(text):
        value = match.group()
        before = _WORD_BEFORE.search(text, max(0, match.start() - WORD_REACH), match.start())
        after = _WORD_AFTER.match(text[match.end():])
        word = before.group(1) if before else ""
        named = bool(word) and word[0].isupper() and word.lower() not in STOPWORDS
        dotted = "." in value and bool(word) and word.lower() not in STOPWORDS
        if named or dotted or word.lower() in _LABEL_WORDS or (
                after is not None and after.group(1).lower() in _LABEL_WORDS - {"v"}):
            out |= {value} if written else numbers(value)
    return out


def written_numbers(text: str) -> list[str]:
    """The numbers of ``text`` as written ("1.70.0", "2023"), for :func:`names_release`."""
    return _NUMBER.findall(text)


def names_release(asked: str, written: str) -> bool:
    """Whether the number ``written`` names the release ``asked`` (both as written): the
    same once trailing ``.0`` parts go, or one of its releases ("1.70" is named by
    "1.70.0" and "1.70.1"). Not as values: "1.70" became "1.7" and "1.70.0" "1.70", so "what
    changed in Rust 1.70?" found no passage of "Version 1.70.0" and was declined; "3.1" is
    not "3.10"."""
    def bare(v: str) -> str:
        while v.endswith(".0") and v.count(".") > 1:
            v = v[:-2]
        return v
    return bare(written) == bare(asked) or written.startswith(asked + ".")  # 1.70.0 asked:
    # not 1.70.1 (the second review)


def _entity_like(token: str) -> bool:
    """An acronym, gene/protein name or code: a capital after the first character (UK,
    mRNA, PD-1) or letters mixed with digits (BRCA1, p53)."""
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    return any(c.isupper() for c in token[1:]) or (has_digit and has_alpha)


def entities(text: str) -> set[str]:
    """Entity-like tokens of one sentence, lowercased: :func:`_entity_like` tokens, and
    capitalised words that do not start it and are not stopwords ("… in Denmark")."""
    out = set()
    for i, token in enumerate(_TOKEN.findall(text)):
        if len(token) < 2:
            continue
        capitalised = i > 0 and token[0].isupper() and token.lower() not in STOPWORDS
        if _entity_like(token) or capitalised:
            out.add(token.lower())
    return out


_NAME_TOKEN = re.compile(r"[^\W\d][\w-]*", re.UNICODE)
_OPENS = ":;(\"'“‘-–—•*"
"""Characters after which a capital starts a phrase rather than marks a name ("Note: Use
…", "- Install …", "(See …")."""


_GENERIC_TEXT = """
b kb mb gb tb pb kib mib gib tib bit bits ms ns us hz khz mhz ghz bps kbps mbps gbps px pt
ram cpu cpus gpu gpus os ui api apis url urls uri id ids ok faq pdf html json xml csv ascii
utf io eof cli gui ip tcp udp dns ssl tls http https ssh ftp am pm utc gmt etc eg ie
"""
GENERIC_ACRONYMS = frozenset(_GENERIC_TEXT.split())
"""Units and generic acronyms a writer adds to a value or a thing the source describes in
words ("4 MB" for ``stackSizeMb``, "RAM" for memory): not names of something else."""


def introduced_names(sentence: str) -> list[str]:
    """Names a sentence writes, lowercased, in order: acronyms, camelCase and ``SNAKE_CASE``
    tokens (:func:`_entity_like`), and capitalised words that are not its first word nor
    stopwords, nor open a phrase after ``:``, a bracket, a quote or a dash; no token with a
    digit (numbers are checked as numbers), none inside backticks (code is checked as
    code) or glued to a path or expression, no unit (:data:`GENERIC_ACRONYMS`)."""
    text = re.sub(r"`[^`\n]*`", " ", sentence)
    out: dict[str, None] = {}
    for i, match in enumerate(_NAME_TOKEN.finditer(text)):
        token = match.group().strip("-")
        if len(token) < 2 or any(c.isdigit() for c in token) \
                or token.lower() in GENERIC_ACRONYMS:
            continue
        glued = match.start() > 0 and not text[match.start() - 1].isspace()
        if glued and text[match.start() - 1] not in _OPENS:
            continue  # part of a path, URL or expression: "http2=True", "docs/Index"
        before = text[max(0, match.start() - 8):match.start()].rstrip()  # a few: linear
        capitalised = token[0].isupper() and token.lower() not in STOPWORDS and i > 0 \
            and not glued and not before.endswith(tuple(_OPENS))
        if _entity_like(token) or capitalised:
            out.setdefault(token.lower(), None)
    return list(out)


def tokens_lower(text: str) -> set[str]:
    """All word tokens of ``text`` lowercased, hyphenated compounds both whole and split:
    what entities are looked up in."""
    words = _TOKEN.findall(text.lower())
    return set(words) | {part for w in words for part in w.split("-") if part}


_IDENTIFIER = re.compile(r"(?:--)?[A-Za-z0-9][\w.\-/]*[A-Za-z0-9]")
_NOT_A_NAME = re.compile(r"\d+(?:st|nd|rd|th)|[A-Za-z](?:\.[A-Za-z])+")  # 4th; e.g, i.e


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: str) -> list[str]:
    """The inline code spans of ``text`` (what is between backticks on one line), in order."""
    return _CODE_SPAN.findall(text)


def is_identifier(token: str) -> bool:
    """A name copied from code or a command line: a ``--flag``, letters mixed with digits
    (``http2``, ``E42``), camelCase, or an inner ``_``, ``.`` or ``/`` (``max_keepalive``,
    ``httpx.Client``)."""
    letters = any(c.isalpha() for c in token)
    digits = any(c.isdigit() for c in token)
    return token.startswith("--") or (letters and digits) or bool(
        re.search(r"[a-z][A-Z]", token) or re.search(r"\w[_./]\w", token))


def named_identifiers(claim: str) -> list[str]:
    """The identifiers ``claim`` names outside backticks, in order, each once:
    :func:`is_identifier` tokens and codes of capitals joined by hyphens (``C-CRATE-NAME``);
    not tokens without a letter, ordinals (``4th``) or abbreviations (``e.g``)."""
    out: dict[str, None] = {}
    for token in _IDENTIFIER.findall(re.sub(r"`[^`\n]*`", " ", claim)):
        token = token.rstrip(".")
        if not any(c.isalpha() for c in token) or _NOT_A_NAME.fullmatch(token):
            continue
        code = "-" in token and any(len(p) >= 2 and p.isupper() for p in token.split("-"))
        if code or is_identifier(token):
            out.setdefault(token, None)
    return list(out)


_KIND = ("command|option|flag|switch|function|variable|key|directive|keyword|field|setting|"
         "parameter|method|macro|operator|register|mark")
_LETTER_NAMED = re.compile(rf"(?<![\w`'’‘\"-])([A-Za-z]|[-:+][A-Za-z]{{1,2}})\s+(?:{_KIND})s?\b")


def letter_names(claim: str) -> list[str]:
    """One-letter names a claim gives a command or option ("the y command", "the -n
    option", "the :s command"): too short for :func:`named_identifiers`, and found inside
    any word of a source ("14y"), so a source must hold them as a word of their own."""
    return [m.group(1) for m in _LETTER_NAMED.finditer(claim)
            if m.group(1).lower() not in {"a", "i"}]


_QUOTED_NAME = re.compile(r"(?<![\w'’‘`])['‘\"“]([^\W\d_][\w.+:-]*)['’\"”](?![\w'’])")


def quoted_names(claim: str) -> list[str]:
    """Single words a claim puts in quotes, as manuals quote names ("the 'complex'
    function", "‘scale’"): a source must hold them as words of their own. A new user asked
    bc's manual how to use complex numbers and was told to "use the 'complex' function",
    cited to a section that never says "complex"."""
    return _QUOTED_NAME.findall(claim)


def holds_word(name: str, text: str, *, ignore_case: bool = True) -> bool:
    """Whether ``text`` holds ``name`` with no letter, digit, ``_`` or ``-`` against it
    (``ignore_case=False``: in its case, as code is written)."""
    flags = re.IGNORECASE if ignore_case else 0
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, flags) is not None


_ENTRY_NAME = re.compile(r"[A-Za-z]\w*(?:[-_.]\w+)+")


def is_entry_name(anchor: str) -> bool:
    """Whether an anchor is an option's or term's name (``bounce_template_file``,
    ``zone-max-ttl``, ``opt.leak-resolution``) rather than one word or a heading's slug
    with spaces: what an entry of a reference page is anchored by."""
    return bool(_ENTRY_NAME.fullmatch(anchor))
