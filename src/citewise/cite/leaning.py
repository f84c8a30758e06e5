"""How a sentence leans on the one before it: the openings and names that point back.

A sentence kept after the one it leans on was removed reads as something else ("This option
prints a suppression…" once "Use ``--gen-suppressions=all``" went): the citation check
removes it too (:func:`citewise.cite.enforce.refers_back`), and the extractive answer quotes
it with the sentence before it (:mod:`citewise.generate.extractive`). Pure patterns.
"""

from __future__ import annotations

import re

from citewise.cite.terms import code_spans, named_identifiers, quoted_names

CONSEQUENCE = re.compile(
    r"(?:this|that|it) (?:is|was) (?:because|why)\b|(?:this|that) means\b"
    r"|(?:this|that|it) (?:is|was) (?:indicated|shown|stated|confirmed|supported|evidenced|"
    r"mentioned|suggested|implied) (?:by|in)\b"
    r"|(?:therefore|thus|hence|consequently|as a result|then)\b"
    r"|\w+ (?:can|could|may|should|will|must) then\b", re.IGNORECASE)
"""Openings that draw on the sentence before ("This is because…", "You can then…", "This is
indicated by the claim in [1] that…": the evidence for a removed "Yes, HTTPX can gzip the
request body", an answer to a question about a feature httpx lacks)."""
LEAD_IN = re.compile(r"(?:(?:also\s+)?(?:note|notice|remember|keep in mind|be aware)(?:\s+that)?"
                   r"|please note(?:\s+that)?)[,:]?\s+", re.IGNORECASE)
"""A lead-in before what a sentence opens on: a new user's "Note that this automatically
sets the options…" was kept after the claim it named was removed."""
DEMONSTRATIVE = re.compile(
    r"(?:this|that|these|those|such)\b|to do (?:this|that|so)\b"
    r"|in (?:this|that|such a) case\b|(?:after|before) (?:this|that|doing so)\b"
    r"|the (?:former|latter|above)\b|(?:each|all) of (?:these|those|them|the (?:two|three|above))\b"
    r"|(?:both|either|neither)(?: of)? (?:these|those|them|the (?:two|three|above)|(?:methods?"
    r"|approach(?:es)?|options?|ways?|solutions?|alternatives?|techniques?|variants?)\b)",
    re.IGNORECASE)
"""Openings that name what the sentence before said ("This option…", "To do this,…", "Both
methods…", "The latter…"). "Both A and B…" names its own antecedents and is not one."""
_NAMED_THING = re.compile(r"\b(?:this|these|such(?: an?)?)\s+(?:option|flag|command|setting|"
                          r"variable|program|function|macro|keyword|switch|group|user|account|"
                          r"package|module|class|method|parameter|argument|field|attribute|"
                          r"property)s?\b(?!\s+(?:guide|manual|documentation|docs|interface|"
                          r"name|id|page|section)s?\b)", re.IGNORECASE)
"""What "this option" names (a new user's "Members of this group can read many log files
in /var/log", quoted without "Group adm is used for system monitoring tasks.", never
named the group asked for); not a compound ("this user guide", a review)."""
NAMES_BACK_WORDS = 8


def names_back(text: str, within: int = NAMES_BACK_WORDS) -> bool:
    """Whether ``text`` names "this/such option" (flag, command…) in its first ``within``
    words with no name of its own before it (code, an identifier, a quoted word): "The
    sources [1] and [2] confirm that this option is supported by all POSIX-compliant `time`
    implementations" was a new user's whole answer once the sentence naming the option was
    removed; "Use `-p`; this option…" names its own."""
    match = _NAMED_THING.search(text)
    if match is None or len(text[:match.start()].split()) > within:
        return False
    head = text[:match.start()]
    return not (code_spans(head) or named_identifiers(head) or quoted_names(head))


PRONOUN = re.compile(r"(?:it|its|they|their|them)\b", re.IGNORECASE)
EXPLETIVE = re.compile(r"it(?:'s|\s+(?:is|was|may be|can be|might be|would be))\s+"
                        r"(?:\w+\s+){0,3}?(?:to|that)\b", re.IGNORECASE)
"""A sentence opening on a pronoun names what the sentence before said ("It has no effect"
after the removed "The --keep option does not have any effect when decompressing": a new
user's whole answer, about gettext's -E), but for "it" with nothing before it to name ("It
is possible to…", "It is recommended that…")."""


__all__ = ["CONSEQUENCE", "DEMONSTRATIVE", "EXPLETIVE", "LEAD_IN", "NAMES_BACK_WORDS", "PRONOUN",
           "names_back"]
