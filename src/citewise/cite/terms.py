"""The cheap lexical units the support checker compares: content-word stems, numbers and
named entities of a text.

Stemming is deliberately light (claims and sources share vocabulary; we want "reduces" to meet
"reduced", not a linguistic analysis):

1. Harman's "S" stemmer (Harman 1991, "How effective is suffixing?", JASIS 42(1)): ``-ies`` ->
   ``-y`` (not ``-eies``/``-aies``); ``-es`` -> ``-e`` (not ``-aes``/``-ees``/``-oes``); ``-s``
   -> ``""`` (not ``-us``/``-ss``). Its ``-es`` rule and its exceptions end where the ``-s``
   rule does (drop the final ``s``), so two rules are coded;
2. then one of ``-ing``/``-ed``/``-ly`` when at least 4 letters remain, then a final ``-e``;
3. then the first 7 letters (prefix truncation: "inhibition"/"inhibits" -> "inhibit").
"""

from __future__ import annotations

import re

_STOPWORDS_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either few for from
further had has have having he her here hers herself him himself his how however i if in into is
it its itself just may me might more most must my myself neither no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through thus to too under until up upon
us very via was we were what when where whether which while who whom whose why will with within
without would yet you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

#: Words about the answer itself, not about the world: they make no claim.
_META_TEXT = """
according answer answers context document documents evidence information passage passages
provided question questions say says source sources summary
"""
META_WORDS = frozenset(_META_TEXT.split())

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
# a number not glued to a word ("BRCA1", "PD-1" hold no number): "10-20%" gives 10 and 20
_NUMBER = re.compile(r"(?<![A-Za-z]-)(?<![\w.])\d+(?:[.,]\d+)*")
_TOKEN = re.compile(r"[\w-]+", re.UNICODE)
STEM_LENGTH = 7


def stem(word: str) -> str:
    """The light stem of one lowercase word (see the module docstring)."""
    w = word.lower()
    if len(w) > 3:
        if w.endswith("ies") and not w.endswith(("eies", "aies")):
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("us", "ss")):
            w = w[:-1]
        for suffix in ("ing", "ed", "ly"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 4:
                w = w[: -len(suffix)]
                break
        if w.endswith("e") and len(w) > 4:
            w = w[:-1]
    return w[:STEM_LENGTH]


def content_stems(text: str, *, skip_meta: bool = False) -> set[str]:
    """Stems of the words of ``text`` that are not stopwords (nor, with ``skip_meta``, words
    about the answer itself such as "sources"); single letters are dropped."""
    out = set()
    for word in _WORD.findall(text):
        low = word.lower()
        if len(low) < 2 or low in STOPWORDS or (skip_meta and low in META_WORDS):
            continue
        out.add(stem(low))
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


def tokens_lower(text: str) -> set[str]:
    """All word tokens of ``text`` lowercased, hyphenated compounds both whole and split:
    what entities are looked up in."""
    words = _TOKEN.findall(text.lower())
    return set(words) | {part for w in words for part in w.split("-") if part}
