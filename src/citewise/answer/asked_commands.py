"""A command the question names that none of the top passages names: "the git squash command".

A new user of Git's release notes asked "which git version added the git squash command?"
(git has none): the gate passed on "git", "squash" (``git merge --squash``) and "command",
and the local model wrote "Git 2.23 added the git squash command. [1]", which the citation
check let through (each of its words is in the cited passage). A question that calls two words
a command (``<tool> <name> command``) names a command: when the passages show ``<tool>`` as a
program given subcommands (at the start of a code line or of a quoted span, followed by at
least :data:`MIN_SUBCOMMANDS` different words: ``"git switch"``, ``$ git log``) but never
followed by ``<name>``, the question is about a command they do not describe, and the gate
declines it (a missing term, :mod:`citewise.answer.salient`). A first word that the passages
do not use as a program ("the new git command", "the colon command") names nothing to look
for; nor a name the passages list as an alias ("alias: ln").
"""

from __future__ import annotations

import re

from citewise.text import STOPWORDS

MIN_SUBCOMMANDS = 3
_ASKED = re.compile(r"(?:^|(?<=\s))([a-z][\w.+-]*)\s+([a-z][\w-]*)\s+(?:sub)?command\b",
                    re.IGNORECASE)
"""A program's name starts after a space (or the question): the review of this stop timed
the first version, which started at every letter after a dot, at 139 s on 100 KB."""
_ASKED_USE = re.compile(r"\b(?:what\s+does|what\s+do)\s+(?:the\s+)?([a-z][\w.+-]*)\s+"
                        r"([a-z][\w-]*)\s+do\b|\b(?:use|run)\s+([a-z][\w.+-]*)\s+"
                        r"([a-z][\w-]*)\s+to\b", re.IGNORECASE)
"""Two words asked of as a command without the word: "what does git undo do", "how do I use
git sync to update my fork" (a new user of git's documentation was answered both, from
``git revert`` and ``git pull``; "the git undo command" was declined)."""


_NOT_A_NAME = frozenset({
    "again", "also", "always", "anyway", "first", "instead", "just", "later", "never", "next",
    "now", "once", "only", "still", "then", "there", "here", "twice", "too", "usually",
    "even", "ever", "not", "all", "both", "each", "alone", "directly", "exactly"})
"""Words after a program's name that say how, not which command: "What does ninja actually
do?", "run ninja twice to …", "use ninja instead to …" (the review of this stop: declined as
naming "ninja actually"). Adverbs in -ly are left out too."""


def _asked(question: str) -> list[tuple[str, str]]:
    pairs = [tuple(m) for m in _ASKED.findall(question)]
    for m in _ASKED_USE.finditer(question):
        tool, name = (m[1], m[2]) if m[1] else (m[3], m[4])
        if name.lower() not in _NOT_A_NAME and not name.lower().endswith("ly"):
            pairs.append((tool, name))
    return pairs


def asks_command(question: str) -> bool:
    """Whether ``question`` asks of two words as a command ("the git squash command", "what
    does git undo do")."""
    return bool(_asked(question))


def missing_commands(question: str, text: str) -> list[str]:
    """``"<tool> <name>"`` for each command ``question`` names that the passages' lowercased
    ``text`` show ``<tool>`` given other subcommands but never ``<name>`` (module docstring)."""
    out = []
    for tool, name in _asked(question):
        tool, name = tool.lower(), name.lower()
        if tool in STOPWORDS or name in STOPWORDS:
            continue
        given = set(re.findall(rf"(?:^|[`\"'$>(])[ \t]?{re.escape(tool)}[ \t]+([a-z][\w-]*)",
                               text, re.MULTILINE))
        if len(given) < MIN_SUBCOMMANDS or name in given:
            continue
        if re.search(rf"(?<![\w-]){re.escape(tool)}\s+{re.escape(name)}(?![\w-])", text) \
                or _alias(name, text):
            continue
        out.append(f"{tool} {name}")
    return out


def _alias(name: str, text: str) -> bool:
    """Whether ``text`` lists ``name`` as an alias ("alias: ln", "aliases: run-script, rum"):
    the review of this stop found "what does the npm ln command do?" declined, npm-link's
    synopsis saying ``alias: ln``."""
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line.split(":", 1)[1])
               for line in re.findall(r"\balias(?:es)?\b[^:\n]{0,20}:[^\n]*", text))
