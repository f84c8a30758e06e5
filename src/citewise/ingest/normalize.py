"""Whitespace and line normalisation shared by every loader.

Prose collapses to single spaces; code keeps its lines and indentation; error messages are
forced onto one line so a per-file report stays one row per file.
"""

from __future__ import annotations

import re
import unicodedata

_HSPACE = re.compile(r"[^\S\n]+")
_RARE_BREAKS = ("\u2028", "\u2029", "\x85")
_BLANK_LINES = re.compile(r"\n[^\S\n]*\n\s*")
CONTROL_CHARS = "\x00-\x08\x0e-\x1f\x7f-\x9f"
"""C0 controls but tab, newline and the breaks below, DEL, C1 (a regex class's inside):
never text, and a terminal obeys them (ESC [ 15D moves the cursor back over a cited number;
OSC 52 writes the clipboard)."""
BREAK_CHARS = "\x0b\x0c\r"
"""Vertical tab, form feed, a lone carriage return: line breaks in a document's text."""
INVISIBLE_CHARS = "\u00ad\u200b\u2060-\u2064\ufeff"
"""Soft hyphen, zero-width space, word joiner, invisible operators, zero-width no-break space:
no glyph, but they split a word for search and for the injection detector ("Ig\u200bnore
previous instructions" was neither "ignore" to the detector nor to BM25). Zero-width
(non-)joiners stay: some scripts and emoji need them."""
BLANK_CHARS = "\u115f\u1160\u2800\u3164\uffa0"
"""Letters that show as a blank: the Hangul fillers and the blank braille pattern. Not
white space to Python, so a security review's title of 150 blank braille cells pushed a
citation's real link off screen behind a fake one, and "days\u3164[2]" kept ``[2]`` as an
index; each becomes a space."""
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
"""Bidirectional embeddings, overrides and isolates: they reorder what a reader sees without
changing what search and citation checks read ("is \u202esexaT ni syad 03\u202c" showed as
"30 days in Taxes" on the web page; a title's override reversed the heading after it). The
marks that only set a direction (LRM, RLM, ALM) stay: right-to-left text uses them."""
_CONTROLS = re.compile(f"[{CONTROL_CHARS}{INVISIBLE_CHARS}{BIDI_CONTROLS}]")
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_OVERSTRIKE = re.compile(r"([^\x08\n])\x08([^\x08\n])")
_UNDERLINED_SPACE = re.compile(r"(?<=\x08_)_(?=[^\x08\n]\x08_)")
"""Terminal formatting written into a text file, whole: escape sequences (``ESC [1m`` bold,
``ESC [4m`` underline, ``ESC ]…`` titles) and nroff's overstrikes (``x BS x`` bold, ``_ BS x``
and ``x BS _`` underline: the character is kept, not the underscore). Dropping only the
escape character left "[1mman-db - the database cached manual pager suite[0m" in man-db's
manual (``man-db-manual.txt.gz``); keeping the second of each overstruck pair turned its
boxed ``man 1 exit`` (``m BS _ a BS _ n BS _ …``) into "____________"."""
_BREAKS = re.compile(f"[{BREAK_CHARS}]")
_BLANKS = re.compile(f"[{BLANK_CHARS}]")


def unify_newlines(text: str) -> str:
    """Turn CRLF, CR and Unicode line separators into ``\\n``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    for brk in _RARE_BREAKS:
        if brk in text:
            text = text.replace(brk, "\n")
    return text


def drop_controls(text: str) -> str:
    """``text`` without control characters: a form feed, vertical tab or carriage return
    becomes a line break, every other C0 (but tab and newline), DEL and C1 character goes, and
    so do the :data:`INVISIBLE_CHARS` and :data:`BIDI_CONTROLS`; :data:`BLANK_CHARS` are
    spaces."""
    return _BLANKS.sub(" ", _CONTROLS.sub("", _BREAKS.sub("\n", unify_newlines(text))))


def without_terminal(text: str) -> str:
    """``text`` without terminal formatting (:data:`_ESCAPES`, :data:`_OVERSTRIKE`): for
    plain text, where a formatter's output is read (other formats keep what an escape
    sequence's characters spell, less the escape, so a page shows what it holds, not what
    its escapes draw)."""
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    if "\x08" in text:  # an underlined space is a bare "_" between underlined letters
        text = _UNDERLINED_SPACE.sub(" ", text)
    while "\x08" in text:
        struck = _OVERSTRIKE.sub(_struck, text)
        if struck == text:
            break  # a backspace with nothing to strike: drop_controls removes it
        text = struck
    return text


def _struck(match: re.Match[str]) -> str:
    first, second = match.groups()
    return first if second == "_" else second


def collapse(text: str) -> str:
    """Prose: every run of whitespace (newlines included) becomes one space; NFC-normalised."""
    return unicodedata.normalize("NFC", " ".join(text.split()))


def clean_lines(text: str) -> str:
    """Keep line breaks, collapse spaces inside each line, drop blank lines."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return unicodedata.normalize("NFC", "\n".join(line for line in lines if line))


def verbatim(text: str) -> str:
    """Code: keep indentation and inner blank lines; drop trailing spaces and outer blank lines."""
    lines = [line.rstrip() for line in unify_newlines(text).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def paragraphs(text: str) -> list[str]:
    """Split on blank lines (lines holding only whitespace)."""
    return [p for p in _BLANK_LINES.split(text) if p.strip()]


def one_line(message: object, limit: int = 200) -> str:
    """Squash any text (e.g. a third-party exception) onto one short line."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
