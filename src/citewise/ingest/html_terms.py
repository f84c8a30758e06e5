"""A definition list's term read with its description: ``<dt>staff</dt><dd><p>Allows users
to add local modifications…</p></dd>`` is one block, the term its first line (text as the
page has it: a quote is found there), so a quoted sentence reads "staff Allows users to add
local modifications…".

Read as two blocks, the term was a line of its own: a chunk could end on the bare name of the
next entry ("…\\n\\nsudo") with its description opening the next chunk, and a quoted sentence
said "Members of this group can read…" without the group's name (a new user of Debian's
users-and-groups page asked which group reads /var/log and was told "this group"). Only a
short name is joined (:func:`short_term`): an option (``--tool=<name>``), a signature with
parentheses, a numbered table-of-contents entry and a long phrase stay as they were, kept
with what follows by the chunker's lead rules.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from citewise.ingest.normalize import collapse

MAX_TERM_CHARS = 40
MAX_ENTRY_CHARS = 160
MAX_TERM_WORDS = 4
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s")


_DEFAULT = re.compile(r"\s+\((?:default|defaults to)\b[^()]*\)$", re.IGNORECASE)


def short_term(node: LexborNode, entry: bool = False) -> str | None:
    """The text of the ``<dt>`` ``node`` when it is a short name whose ``<dd>`` opens with a
    paragraph (or text), else None (module docstring). A name with its default after it,
    ``message_size_limit (default: 10240000)``, is a name (``entry``: the term has an
    anchor of its own, an entry of a reference, whose default may be long)."""
    text = collapse(node.text(deep=True))
    name = _DEFAULT.sub("", text)
    if not text or len(name) > MAX_TERM_CHARS or len(name.split()) > MAX_TERM_WORDS:
        return None
    if len(text) > MAX_TERM_CHARS and not (entry and len(text) <= MAX_ENTRY_CHARS):
        return None
    if text.startswith("-") or "(" in name or _NUMBERED.match(text) or text.endswith(":"):
        return None
    dd = _next_element(node)
    if dd is None or dd.tag != "dd":
        return None
    first = _first_child(dd)
    return text if first is None or first.tag == "p" else None


def _next_element(node: LexborNode) -> LexborNode | None:
    sibling = node.next
    while sibling is not None and sibling.tag in ("-text", "_comment", "-comment"):
        if sibling.tag == "-text" and (sibling.text_content or "").strip():
            return None
        sibling = sibling.next
    return sibling


def _first_child(node: LexborNode) -> LexborNode | None:
    """The first element child, or None when text comes first (a description in plain
    text) or there is none."""
    child = node.child
    while child is not None:
        if child.tag == "-text":
            if (child.text_content or "").strip():
                return None
        elif not child.tag.startswith(("_", "-")):
            return child
        child = child.next
    return None
