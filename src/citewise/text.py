"""The text layer every stage shares: English stopwords, the stemmer, and query terms.

* :data:`STOPWORDS`: the one stopword list (BM25 query terms, the gate's coverage, the support
  checker's content words, salient names, the extractive answerer).
* :func:`stem`: the one stemmer, Snowball's English (Porter2) stemmer from PyStemmer
  ("policies"/"policy" -> "polici", "reduces"/"reduced"/"reducing" -> "reduc"). Python-side
  comparisons (the gate's term coverage, the support check, conflicts) use it; the SQLite index
  stems inside FTS5 (``porter`` tokenizer), PostgreSQL inside its text search configuration.
* :func:`query_terms` lowercases, splits on Unicode word characters, drops :data:`STOPWORDS`
  and one-character tokens, dedupes keeping first-seen order, and keeps at most
  :data:`MAX_TERMS` terms: the terms sent to BM25. Stemming and diacritics are left to the
  index tokenizer (FTS5 ``porter unicode61 remove_diacritics 2``), which processes the quoted
  terms the same way it processed the documents.

Underscores split words (``foo_bar`` -> ``foo``, ``bar``), as they do in the FTS5 unicode61
tokenizer, so a word never turns into a multi-token phrase; a release number does, on
purpose (:func:`release_numbers`: "3.4.6" is the phrase "3 4 6" to FTS5).

* :func:`mask_personal` masks what looks like personal data (emails, phone numbers, key-like
  strings): the request log's ``redact`` mode, and the terms a follow-up borrows from earlier
  questions (split into words, "alice@acme.com" was "alice acme com", which no mask finds).

* :data:`CODE_LINE` finds a line that reads like code (``=``, braces, ``$``, ``|``, ``&``,
  a backslash, a closing ``;``, a command and its option): an indented block is code only
  with such a line, in a model's answer (:func:`citewise.cite.parse.segments`) as in an
  Info manual (:mod:`citewise.ingest.info`), where indentation alone also marks prose.

* :func:`titles` says whether a page's title or a heading is about a name ("Error code
  E0384" is E0384's): the exact run (:mod:`citewise.retrieve.exact`) and the extractive
  answer's entries (:mod:`citewise.generate.entries`) read a titled page as the name's own.

This module imports nothing from citewise: any layer (index backends included) may use it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence

import Stemmer

CODE_LINE = re.compile(r"[={}<>$|&\\]|;\s*$|^\s*[a-z][\w.-]*\s+-{1,2}\w")
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w])\+?\d[\d ().-]{6,}\d(?![\w])")
_KEYLIKE = re.compile(r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])"
                      r"[A-Za-z0-9_\-]{20,}\b")
_TOKENLIKE = re.compile(r"\beyJ[\w-]{4,}(?:\.[\w-]*){1,2}|\b(?:sk|pk|rk)-[\w-]{8,}"
                        r"|\b(?:xox[abprs]|gh[pousr]|github_pat)[-_][\w-]{8,}"
                        r"|(?<![\w/+=])(?=[\w/+=]*\d)(?=[\w/+=]*[a-z])(?=[\w/+=]*[A-Z])"
                        r"[\w/+=]{32,}(?![\w/+=])")
"""A JWT (``eyJ…``, all three parts), ``sk-``/``pk-`` style API keys shorter than a key-like
string (a security review's ``sk-SECRETKEY-123`` and most of a JWT stayed in the log), Slack
and GitHub tokens (``xoxb-…``, ``ghp_…``: a review found a Slack token's tail kept), and a
base64 secret of mixed case and digits (an AWS secret key's ``/`` split it for ``_KEYLIKE``)."""
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
                  re.S)
_URL_LOGIN = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,31}://)[^\s/@:]+:[^\s/]+@")
"""Each pattern that runs over a class of characters starts only where a run of them starts,
or reads a bounded prefix (a URL's scheme: at most 32 characters, from any word boundary, so
``-https://admin:pw@host`` is still masked), never the rest of the run from every position
in it: a robustness review's 80,000-character word took 18 s to mask (20,000 hyphenated
letters: 2.4 s in ``_KEYLIKE`` alone)."""
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+(?=[\w.~+/=-]*\d)[\w.~+/=-]{8,}")
"""A Bearer or Basic credential: one holding a digit ("basic authentication" stays)."""
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
"""An IBAN (``NL91ABNA0417164300``, also in groups of four): a review read one in a
tenant admin's view of the request log."""
_ENV_SECRET = re.compile(r"\b([A-Z][A-Z0-9]*(?:PASSWORD|PASSWD|SECRET|TOKEN|APIKEY)\s*=\s*)"
                         r"(?!\[)([^\s\"',;]+)")
"""An environment variable naming a secret, glued to its prefix (``PGPASSWORD=Hunter2``: a
review found it kept; ``DB_PASSWORD=`` was already masked by :data:`_SECRET_AFTER`)."""
_SECRET_WORD = (r"pass[\s_-]?(?:word|wd|phrase|code)|pwd|pw|pin|secret|token|api[ _-]?key"
                r"|(?:private|secret|access|signing)[ _-]?key"
                r"|passwor[dt]|kennwort|contrase[ñn]a|mot de passe|senha|wachtwoord")
_SECRET_AFTER = re.compile(
    rf"(?i)(?<![A-Za-z])((?:{_SECRET_WORD})(?:[_-]?(?:key|id))?(?![A-Za-z])"
    r"(?:\s*(?:(?:is|was|ist|es|est)(?=[\s:=：])|[=:：])\s*[:=：]?\s*[\"']?"
    r"|\s+(?=\S*?[^\w\s\[\]'’]\S|\S*[\d_])))(?![\[:=：])([^\s\"',;]+)")
"""A value right after a word naming a secret (in a few languages, also inside a name:
``client_secret=``, ``DB_PASSWORD=``): after ``:``, ``=``, "is" or "was" ("token: abc",
"my password is: hunter2", "the password is Hunter"), or one holding a digit or an inner
symbol ("password hunter2", "pin p@ss"; "password reset", "password policy?", "password
issues", "token issuer" stay)."""
_SECRET_PHRASE = re.compile(
    rf"(?i)(?<![A-Za-z])((?:{_SECRET_WORD})(?![A-Za-z])[ \t]*(?:(?:is|was)[ \t]*)?[:=：][ \t]*)"
    r"(?![\[\s])([^\s\"',;?!]+(?:[ \t]+[^\s\"',;?!]+){0,7})")
"""The value after a secret's word and a colon or equals sign, up to eight words to the end
of its clause: a passphrase ("my password: correct horse battery staple" kept "horse battery
staple" after masking its first word, a review). Words, not characters up to a lookahead:
that read the rest of a run of spaces from each of its characters (the review of this stop:
20 s on 40,000 spaces)."""
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")


def mask_personal(text: str, *, labels: bool = True) -> str:
    """``text`` with emails, phone numbers, IBANs, key-like strings and the value after a
    word naming a secret as ``[email]``, ``[phone]``, ``[account]``, ``[key]``,
    ``[secret]`` (``labels=False``: as a space)."""
    def mask(label: str) -> str:
        return f"[{label}]" if labels else " "

    text = _INVISIBLE.sub("", text)  # "token\u200b: abc" hid the word from the masks
    text = _PEM.sub(mask("key"), text)
    text = _URL_LOGIN.sub(lambda m: m.group(1) + mask("secret") + "@", text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + mask("key"), text)
    text = _EMAIL.sub(mask("email"), text)
    text = _TOKENLIKE.sub(mask("key"), text)
    text = _KEYLIKE.sub(mask("key"), _PHONE.sub(mask("phone"), _IBAN.sub(mask("account"),
                                                                          text)))
    text = _ENV_SECRET.sub(lambda m: m.group(1) + mask("secret"), text)
    text = _SECRET_PHRASE.sub(lambda m: m.group(1) + mask("secret"), text)
    return _SECRET_AFTER.sub(lambda m: m.group(1) + mask("secret"), text)


MARKUP_ELEMENT = re.compile(r"(?<![\w>])</?([A-Za-z][\w:.-]{0,40})/?>")
"""A markup element named with its brackets (``<match>``, ``</alias>``, ``<br/>``), its name
the group; not a type parameter glued to its name (``Option<T>``, ``List<String>``). Read
by the exact run (:mod:`citewise.retrieve.exact`) and the gate's evidence check
(:mod:`citewise.answer.salient`)."""
MAX_TERMS = 64
"""Upper bound on terms per query: a pasted paragraph must not become a 500-way OR."""

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

# Function words that carry no topical signal in English: articles, pronouns, auxiliaries and
# modals, common prepositions, conjunctions and discourse adverbs ("however", "thus"), question
# words ("how", "what") and negations (BM25 cannot use "not" anyway). Deliberately small (~140,
# the NLTK English list without contractions plus a few): domain words ("policy", "time") are
# never stopwords. The pieces a contraction leaves ("isn", "doesn" of "isn't", "doesn't") are
# stopwords too: the gate counted "isn" as a question term a passage must hold. Not "won" or
# "re", which are words (Python's ``re``).
_STOPWORDS_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either few for from
further had has have having he her here hers herself him himself his how however i if in into is
it its itself just may me might more most must my myself neither no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through thus to too under until up upon
us very via was we were what when where whether which while who whom whose why will with within
without would yet you your yours yourself yourselves
aren couldn didn doesn don hadn hasn haven isn ll mustn needn shan shouldn ve wasn weren wouldn
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())

SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
"""A heading's section number ("2.13. Content types for volumes", "9 Limits"): the extractive
answer compares headings without it (quoted alone as a sentence, a heading's text was a new
user's answer "Content types for volumes [1]."), and ``show --anchor`` matches a heading's
words without it."""

STEMMER_ALGORITHM = "english"
"""The Snowball algorithm :func:`stem` runs (PyStemmer): Porter2, Porter's own successor."""

_LOCAL = threading.local()  # a PyStemmer object must not be shared between threads


def stem(word: str) -> str:
    """The stem of one word, lowercased first.

    >>> stem("Policies") == stem("policy")
    True
    """
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = Stemmer.Stemmer(STEMMER_ALGORITHM)
    return str(stemmer.stemWord(word.lower()))


def word_stems(*texts: str) -> set[str]:
    """The :func:`stem` of every word (letters and digits) of ``texts``, each word once."""
    return {stem(w) for w in {w for t in texts for w in _WORD_RUN.findall(t.lower())}}


_WORD_RUN = re.compile(r"[^\W_]+")


def query_terms(text: str) -> list[str]:
    """The BM25 terms of a query, in first-seen order: its release numbers whole
    (:func:`release_numbers`, a phrase of their parts to the index), then its words.

    >>> query_terms("What is the vacation policy for the Vacation team?")
    ['vacation', 'policy', 'team']
    >>> query_terms("When was Python 3.4.6 released?")
    ['3.4.6', 'python', 'released']
    """
    terms: list[str] = release_numbers(text)
    seen: set[str] = set(terms)
    for token in _TOKEN.findall(text.lower()):
        if len(token) < 2 or token in STOPWORDS or token in seen:
            continue
        seen.add(token)
        terms.append(token)
        if len(terms) == MAX_TERMS:
            break
    return terms


_RELEASE = re.compile(r"(?<![\w.])\d{1,4}\.\d{1,4}\.\d{1,4}(?:\.\d{1,4})?(?![\w-]|\.\d)")
"""A release number of three parts or four (``2.11.1``): the query's words alone read
"man-db 2.11.1" as the word "11" (one-letter words are no terms), and a new user's "what
security fix came in 2.11.1?" found man-db's 2.11.1 entry 70th and was declined. Two parts
are values as often ("2.5 seconds"): taken only as a :data:`_NAMED_RELEASE`."""
_NAMED_RELEASE = re.compile(r"(?<![\w+#-])([^\W\d_][\w+#-]*)[ \t]+(\d{1,4}\.\d{1,4})(?![\w-]|\.\d)"
                            r"(?:[ \t]+([^\W\d_]+))?")
"""A two-part number after a name and before no unit, "strace 6.0", "Python 3.11 release",
"version 2.5 of": a new user's "What changed in strace 6.0?" searched for "changed" and
"strace" and was declined for a 6.0 no top passage mentioned, though a section of strace's
NEWS is headed "release 6.0". Not after a stopword nor before another word than a stopword
or one of :data:`_RELEASE_WORDS` ("to 2.5", "2.5 seconds", "by 1.5 times": values)."""
_RELEASE_WORDS = frozenset({"release", "version", "edition", "series", "final", "beta", "changes",
                            "notes", "news"})


def release_numbers(text: str) -> list[str]:
    """The release numbers ``text`` names (:data:`_RELEASE`, :data:`_NAMED_RELEASE`), each
    once, in order: exact identifiers to retrieval, and BM25 terms that the index reads as
    the phrase of their parts (FTS5 and PostgreSQL's version tokens alike), so "When was
    Python 3.4.6 released?" finds the 3.4.6 section, not 3.6.4's (a new user's)."""
    found = [m.group() for m in _RELEASE.finditer(text)]
    found += [number for word, number, after in _NAMED_RELEASE.findall(text)
              if word.lower() not in STOPWORDS
              and (not after or after.lower() in STOPWORDS | _RELEASE_WORDS)]
    return list(dict.fromkeys(found))


TITLE_WORDS = 4
"""The most words a title (a page's, or a heading) has that *titles* a name it holds:
"Error code E0384", "The --small flag"; not a sentence that mentions the name, as a paper's
title or a FAQ's question ("Can I back up VMs stored on ext4 with borg?") does."""
_TITLE_WORD = re.compile(r"\S+")
_PUNCTUATION = "()[]{}<>:;,.!?'\"`*#"


def titles(title: str, name: str) -> bool:
    """Whether ``title`` (a page's title or a heading) is about ``name``: it holds it as a
    whole token, case aside, in at most :data:`TITLE_WORDS` words, the others plain words.
    The rustc error index titles each page by its code ("E0384", heading "Error code
    E0384"), which no sentence of the page repeats: asked "what does error E0384 mean in
    Rust?", the page was out of the top ten and the extractive answer quoted other pages'
    "mean" and "error". A heading listing names ("HTTP_PROXY, HTTPS_PROXY, ALL_PROXY") is
    about none of them alone: httpx's "HTTP_PROXY is set … but calls to 127.0.0.1
    shouldn't use it, how?" was answered from that section, not NO_PROXY's."""
    if not name or len(_TITLE_WORD.findall(title)) > TITLE_WORDS:
        return False
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    if pattern.search(title) is None:
        return False
    rest = (w.strip(_PUNCTUATION) for w in _TITLE_WORD.findall(pattern.sub(" ", title)))
    return all(not w or w.isalpha() for w in rest)


def json_problem(exc: ValueError) -> str:
    """What is wrong with JSON that ``json.loads`` refused: its message and column, or (a
    plain ValueError) a number longer than Python converts, which a security review's
    5,000-digit integer in a sidecar, a settings file and an upload's metadata raised past
    every ``except JSONDecodeError`` (a traceback, an HTTP 500)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    return "a number has too many digits" if "digits" in str(exc) else str(exc)[:120]


_STATUS = re.compile(r"HTTP \d{3}:")


def without_bodies(text: str) -> str:
    """``text`` without what follows ``HTTP NNN:``: an upstream body, which the generator's
    errors close with their own ``. Fix: …`` (``(HTTP 400: body). Fix: …``), so it ends at
    the last of those, else with the text (a note cut short). A body may hold anything: a
    security review's "prompt too long (limit 64 tokens) - input: …" ended the body at its
    first ")" and showed the rest, the earlier answer's text, to readers."""
    status = _STATUS.search(text)
    if status is None:
        return text
    end = text.rfind(". Fix:", status.end())
    if end < 0:
        return text[:status.end() - 1]
    return text[:status.end() - 1] + text[end - (text[end - 1] == ")"):]


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(value: str) -> bool:
    """Whether ``value`` holds a lone UTF-16 surrogate: no text, though Python holds it."""
    return _SURROGATE.search(value) is not None


def not_text(value: str) -> str | None:
    """``value`` shown with ``\\xNN`` escapes when it holds a lone UTF-16 surrogate (how
    Python hands over command-line bytes that are not UTF-8, or JSON's ``"\\udcff"``), else
    None: no tokenizer reads one (a question of such bytes gave a traceback)."""
    if not has_surrogate(value):
        return None
    return value.encode("utf-8", "surrogateescape" if _bytes_only(value) else "backslashreplace"
                        ).decode("utf-8", "backslashreplace")[:60]


def _bytes_only(value: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in value)


def first_few(items: Sequence[str], n: int = 3, more: str = " …") -> str:
    """The first ``n`` of ``items`` joined by commas, ``more`` after them when there are
    more ("a.md, b.md, c.md …"): how a one-line message names a list."""
    return ", ".join(items[:n]) + (more if len(items) > n else "")
