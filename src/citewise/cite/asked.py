"""What kind of value a question asks for, and whether a text gives one.

"How long does httpx wait before a request times out?" asks for a duration. An answer that
gives none ("The connect timeout specifies the maximum amount of time to wait until a socket
connection to the requested host is established [1]") can be every word a source's, and so
pass the citation check, while it answers nothing: the reader is left to assume the value is
not there, or to take the definition for the answer. The httpx eval run at stop 36 printed
that sentence, exit 0, for its question about the default timeout.

:func:`asks_quantity` finds the "how long / how many / how much …" of a question's own clause
(not "how do I cap how many connections…", which asks for a way); :func:`states_quantity`
says whether a text gives a quantity: a number, a number word ("sixteen weeks", "two
thirds"), a unit with an article ("a day"), a bound put in words ("no limit",
"indefinitely"; not "until", which the timeout's definition says too), or code (a command
or setting that reports or sets the value: "how much space does my repository use" is
answered by ``borg info``). Of SQuAD's answerable "how …" questions in the shipped subset,
every reference answer states one but "entire length", which :data:`_WHOLE` admits.
"""

from __future__ import annotations

import re

from citewise.cite.parse import CITATION_BRACKET
from citewise.cite.terms import code_spans, content_stems, named_identifiers, numbers

_ASKS = re.compile(
    r"(?:^|[,;:(]\s*|\b(?:and|but|so|then|or)\s+)how\s+(long|many|much|often|frequently|big|"
    r"large|small|far|old|fast|soon|wide|tall|deep|high)\b", re.IGNORECASE)
_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    "eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|half|halves|thirds?|"
    "quarters?|double|twice|thrice|once|single|several|few|none")
_UNITS = (
    "milliseconds?|seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|"
    "bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?|characters?|lines?|times|percent|"
    "daily|hourly|weekly|monthly|yearly|annually|nightly")
_QUANTITY = re.compile(
    rf"\b(?:{_NUMBER_WORDS})\b|\b(?:an?|per|every|each)\s+"
    rf"(?:{_UNITS})\b|\b(?:daily|hourly|weekly|monthly|yearly|annually|nightly)\b"
    r"|\b(?:unlimited|unbounded|infinite(?:ly)?|indefinitely|forever|never|always|"
    r"as (?:long|many|much|often) as|any number|no (?:limit|maximum|cap|bound|timeout)"
    r"|not limited)\b|%|`"  # a named constant's units: "at least 'ASN1_MAX_ERROR_…' bytes"
    rf"|\b(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+)['’]?\s+(?:{_UNITS})\b", re.IGNORECASE)
_IN_UNITS = re.compile(
    r"^\W*what(?:'s|\s+is|\s+are|\s+was)\b(?![^?]*\b(?:measured|expressed|given|specified|"
    r"stated|written|counted|reported|shown)\s+in\b)[^?]*\bin\s+(?:(?:milli|micro)?seconds|minutes|"
    r"hours|days|weeks|months|years|(?:kilo|mega|giga)?bytes|[kmg]i?b|percent|pixels|points)\b",
    re.IGNORECASE)
"""A "what is … in seconds?" question asks for a value in that unit as much as "how long"
does: a new user's "What is the default interval in seconds between automatic rescans of
the font configuration?" (which fontconfig's manual does not give) was answered with the
sentence defining the interval, exit 0."""
_NUMBER_OF = re.compile(
    r"^\W*what(?:'s|\s+is|\s+are|\s+was)\s+the\s+(?:(?:maximum|minimum|max|min|default|"
    r"total|largest|smallest|highest|lowest|greatest|average)\s+)?(?:number|count)\s+of\b",
    re.IGNORECASE)
""""What is the maximum number of …?" asks how many: a new user's "What is the maximum
number of active timers a Node.js process can have at the same time?" (the docs give none)
was answered with "When called, the active Timeout object will not require the Node.js
event loop to remain active [1].", exit 0."""
_WHOLE = re.compile(r"\b(?:entire|whole|all of|full)\b", re.IGNORECASE)
_FREQUENCY = re.compile(r"\b(?:every|each|per)\s+\w+|\bwhenever\b", re.IGNORECASE)
"""What also answers "how often": "every Monday", "each time the client connects"."""


def asks_quantity(question: str) -> str | None:
    """The word after "how" when ``question`` asks how long, many, much, often, big, far…
    in a clause of its own ("If I don't configure anything, how long does…"), "many" for
    "what is the (maximum) number of…" (:data:`_NUMBER_OF`), "units" for "what is … in
    seconds/bytes…" (:data:`_IN_UNITS`); None for other questions and for
    "how do I cap how many…" (a way, not a value)."""
    match = _ASKS.search(question.strip())
    if match:
        return match.group(1).lower()
    if _NUMBER_OF.search(question):
        return "many"
    return "units" if _IN_UNITS.search(question) else None


def states_quantity(text: str, kind: str | None = None) -> bool:
    """Whether ``text`` (an answer, its citation brackets ignored) gives a quantity: a
    number, a number or bound in words, a unit with an article, a whole ("the entire
    length", not for ``kind`` "units") or code (module docstring); for ``kind`` "often" (or
    "frequently", what :func:`asks_quantity` returned) a recurrence too ("every Monday")."""
    bare = CITATION_BRACKET.sub(" ", text)
    if kind in ("often", "frequently") and _FREQUENCY.search(bare):
        return True
    whole = kind != "units" and _WHOLE.search(bare)  # "all of the files" is no number of seconds
    return bool(numbers(bare) or _QUANTITY.search(bare) or whole)


def answers_kind(kind: str | None, text: str, code: bool = False) -> bool:
    """Whether a source sentence (or, ``code``, a code block) may answer a question asking
    for ``kind`` (what :func:`asks_quantity` returned for it, once per question): the
    extractive answer and the quote fallback quote nothing else."""
    return code or kind is None or states_quantity(text, kind)


def only_leftovers(kept: list[str], removed: list[str], question: str) -> bool:
    """Whether the sentences ``kept`` of an answer share no word of ``question`` while a
    sentence ``removed`` from it does and names an option, code or identifier (:func:`names`)
    none of them holds: what is left is the scaffolding of the removed answer. A new user's
    "How do I make diff ignore changes in whitespace?" lost the model's uncited "…you can use
    the -b option" and printed only the example lines it had copied from the manual ("Here
    lyeth  muche rychnesse …$ [1]"), cited, exit 0. A kept "Use the -w option [1]." after
    a removed "This makes diff ignore whitespace." is an answer."""
    asked = content_stems(question)
    if not kept or not asked or any(asked & content_stems(text) for text in kept):
        return False
    held = set().union(*(names(text) for text in kept))
    return any(asked & content_stems(text) and names(text) - held for text in removed)


_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def names(text: str) -> set[str]:
    """The options (``-b``, ``--brief``), code spans and identifiers ``text`` names."""
    return set(_OPTION.findall(text)) | set(code_spans(text)) | set(named_identifiers(text))
