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

A paragraph that is one bold line over what follows it in its box (:func:`bold_line`) is
likewise a name over its text: the HTML loader makes it a label, as Markdown's bold lines.
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


_LABEL_PARENTS = frozenset({"body", "div", "section", "article", "main"})


def bold_line(paragraph: LexborNode) -> str | None:
    """The text of a paragraph of a page's body that is one bold span, a label when it
    reads as one (:func:`~citewise.ingest.labels.is_label`), as Markdown's ``**Example 1:
    …**`` lines:
    Kea's 1,374 messages are ``<p><strong>ALLOC_ENGINE_V4_ALLOC_FAIL_NO_POOLS</strong></p>``
    then their text, and a new user's chunks split 299 of them from what they mean (an
    answer explained the message before). Not in a list, a table or a quote, and only
    over what follows it in its own box (the walker ends the label with the box, or at
    the next bold line: SQLite's "PRAGMA legacy_file_format;"). A line with a colon
    is no label (rsyslog's "Default: off" is quoted as the parameter's default)."""
    parent = paragraph.parent
    if parent is None or parent.tag not in _LABEL_PARENTS:
        return None
    children = [c for c in paragraph.iter(include_text=True)
                if c.tag != "-text" or (c.text_content or "").strip()]
    if len(children) != 1 or children[0].tag not in ("strong", "b"):
        return None
    after = paragraph.next
    while after is not None and after.tag.startswith(("-", "_")):
        after = after.next
    if after is None:
        return None  # titles nothing in its box (DocBook's aside title: its own div)
    return collapse(children[0].text(deep=True)) or None
