"""Code examples in passages: which blocks are code, and how a quote shows one.

Documentation answers "how do I…" in the example after a sentence: "You can install SOCKS
support using pip:" then ``$ pip install httpx[socks]``; "It requires an additional round-trip
…" then ``>>> auth = httpx.DigestAuth(…)``. Loaders keep code verbatim (its line breaks) and
join blocks with a blank line, so a passage's blocks are told apart by their shape
(:func:`is_code`), and the extractive answer quotes code as a fenced block, line for line,
instead of as a sentence with its lines run together ("import asyncio import httpx [S1].").
The citation checker reads a fenced block as code quoted from the sources
(:func:`citewise.cite.validate.code_quoted`), never as a claim, so a code block is shown with
the prose sentence that leads into it, or with a line saying where it is from
(:func:`citewise.cite.validate.source_line`).
"""

from __future__ import annotations

import re

from citewise.chunk.spans import bracket_depth, statement_spans
from citewise.cite.parse import FENCE
from citewise.types import ContextPassage

MAX_LINES = 20
"""The longest example quoted (lines), but for one statement that runs on (:func:`clipped`):
every line shown is still the source's own."""

_PROMPT = re.compile(r"\s*(?:\$|>>>|\.\.\.|%|#!)\s")
_CODE_MARK = re.compile(r"[={}\[\];<>$\\`]|\w\(|(?:^|\s)--?[A-Za-z]")
_BULLET = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")
_SENTENCE_END = re.compile(r"[^\s=.:][\"')\]`]*[.!?:]{1,2}[\"')\]]*$")
_NEUTRAL = re.compile(r"\d{1,4}[.,:;]?|[-–—]")
_PLAIN_WORD = re.compile(r"[(\"'“‘]?[^\W\d_][^\W\d_'’-]*[)\"'”’]?[,.;:!?]?[)\"'”’]?")
_CELL = " | "
BLOCK_BREAK = re.compile(r"\n{2,}")
"""Between a passage's blocks (blank lines): :func:`blocks`, and the entries' reading of a
chunk (:mod:`citewise.generate.entries`)."""
_COMMENT = re.compile(r"\s*(?:#|//)")
_STATEMENT = re.compile(r"\s*[\w.>-]+\s*\(.*\)\s*;\s*$")
"""A block ending in a call statement (``printf (ngettext ("One file removed", "%d files
removed", n), n);``): its quoted words made it read as a prose line, and it was quoted as a
sentence with a citation after it."""


def is_code(part: str) -> bool:
    """Whether a block of a passage (text between blank lines) is code.

    * Code: a line starts at a prompt (``$``, ``>>>``); the last line is a call statement
      (``f (x);``); some lines are comments and some are not (``# pkgconfig MUST be
      available…`` / ``pip install pkgconfig``); or half its lines look like code (a code
      mark such as ``=``, ``f(``, ``--x``, or indented); or it is several short lines, the
      last no sentence (a config file: ``machine example.org`` / ``login …``).
    * Not code: a list (half its lines bullets) or a table; a block that reads as prose
      (:func:`reads_as_prose`), unless it has several lines, each with a code mark (comments
      make code read like prose: ``client = httpx.Client()  # Use a default 5s timeout.``;
      prose with hard line breaks, as in reStructuredText or man pages, has lines with
      none); a line of ten words or more, seven in ten of them plain ("… by passing them
      to data=....", or half of twenty: a release note's run-on list of bug numbers and
      titles), unless it is a comment (``# This SSL context is equivalent to the
      default``); a line the citation checker would read as a fence (a reST underline,
      ``~~~~``), since the block could not be fenced.
    """
    lines = [line for line in part.split("\n") if line.strip()]
    if not lines or _has_fence(part):
        return False
    comments = sum(bool(_COMMENT.match(line)) for line in lines)
    if any(_PROMPT.match(line) for line in lines) or 0 < comments < len(lines) or \
            _STATEMENT.match(lines[-1]):
        return True
    bullets = sum(bool(_BULLET.match(line)) for line in lines)
    if bullets * 2 >= len(lines) or all(_CELL in line for line in lines) or _item(lines):
        return False
    marked = sum(bool(_CODE_MARK.search(line) or line[:1].isspace()) for line in lines)
    if reads_as_prose(part) and (len(lines) == 1 or marked < len(lines)) or \
            any(map(_prose_line, lines)):
        return False
    short = all(len(line.split()) <= 6 for line in lines)
    return marked * 2 >= len(lines) or (short and len(lines) > 1 and not _sentence(lines[-1]))


_TERM_LINE = re.compile(r"[‘'`][^‘’'`\n]{1,80}[’'`]")
_DESCRIBED = re.compile(r"[A-Z][^\n]*\s[^\n]*\.")


def _item(lines: list[str]) -> bool:
    """A table item: a quoted term alone on its first line, then what it does, a sentence
    ("‘nonblock’" / "Use non-blocking I/O."): read as code, it was quoted inside the dd
    example above it, in one fenced block."""
    return len(lines) > 1 and bool(_TERM_LINE.fullmatch(lines[0].strip())) and \
        bool(_DESCRIBED.fullmatch(lines[-1].strip()))


def _sentence(line: str) -> bool:
    """Two plain words or more ending as a sentence: a table item's description under its
    term (sed's exit status "0" / "Successful completion."), not a config file's line. Read
    as code, the first item was quoted after "sed returns the following exit status error
    values:" and a new user asking which status an unreadable file gives got only "0"."""
    return len(line.split()) >= 2 and _plain_share(line) >= 0.8 and \
        bool(_SENTENCE_END.search(line.rstrip()))


def reads_as_prose(part: str) -> bool:
    """Four words or more, most of them plain words (six in ten; eight in ten below eight
    words: "with httpx.Client(proxy=…) as client:"), ending on ``.!?:`` (or reST's ``::``),
    or ten words or more, seven in ten plain, ending on a comma or a word (reST's `` ::``
    took its colon) that leads into the code:
    a sentence, even with a code mark in it ("use await client.aclose() if you want to
    close a client explicitly:"). A code line ending "foo: ..." or "data=...." is not."""
    words = len(part.split())
    if words >= 10 and part.rstrip()[-1:] in _OPEN_END and _plain_share(part) >= 0.7 \
            and "\n" not in part.strip() and not _COMMA_CODE.search(part) \
            and part.lstrip()[:1].isupper():  # a sentence, not a comment, a call's argument
        return True  # nor SQL; it leads into what follows: "…, as it is shown in the
        # .gitlab-ci.yml configuration file below," was quoted inside the Clippy book's fence,
        # and "The following command enables versioning, and uses an mfa code" (reST's " ::"
        # drops its colon) inside the AWS CLI's put-bucket-versioning example's
    return words >= 4 and _plain_share(part) >= (0.6 if words >= 8 else 0.8) and \
        bool(_SENTENCE_END.search(part.rstrip()))


_OPEN_END = frozenset(",abcdefghijklmnopqrstuvwxyz")
"""How a line leading into code ends when it is no finished sentence: a comma, or a word
whose colon reST's `` ::`` took away."""
_COMMA_CODE = re.compile(r"[=(\[{\"#]|^\s*[A-Z]{2,}\b")
"""What a line of code ending on a comma has and a sentence leading into code does not: an
assignment, an open bracket, a string, a comment, an upper-case keyword (``SELECT a,``)."""


def _prose_line(line: str) -> bool:
    """Ten words or more, seven in ten plain (half, from twenty words), not a comment."""
    words = len(line.split())
    return words >= 10 and _plain_share(line) >= (0.7 if words < 20 else 0.5) and \
        not _COMMENT.match(line)


def _has_fence(part: str) -> bool:
    return any(FENCE.match(line) for line in part.split("\n"))


def _plain_share(text: str) -> float:
    """The share of plain words among ``text``'s words, a number or a dash standing alone
    counted as neither (Node's "Stability: 0 - Deprecated: Use Buffer.from(array)
    instead." was quoted as code) unless they are most of it ("0 1 2 3 Done.")."""
    every = text.split()
    words = [w for w in every if not _NEUTRAL.fullmatch(w)]
    if 2 * len(words) < len(every):  # mostly numbers: a program's output, counted as before
        words = every
    return sum(bool(_PLAIN_WORD.fullmatch(word)) for word in words) / len(words) if words \
        else 0.0


def _led_line(part: str, headings: set[str]) -> bool:
    """One short line (six words at most) that is no sentence nor a heading, after a
    sentence leading into it: the command it introduces. Vim's ":syntax clear" after "…
    you might want to disable syntax highlighting for a moment:" has no code mark, the lead-in
    was quoted without it and then removed as an incomplete sentence (a new user's trial)."""
    lines = [line for line in part.split("\n") if line.strip()]
    return len(lines) == 1 and len(lines[0].split()) <= 6 and lines[0].strip() not in headings \
        and not _SENTENCE_END.search(lines[0].rstrip()) and not _has_fence(part)


def _leads_to(text: str) -> bool:
    return leads_in(text) or points_ahead(text) or unfinished(text)


def blocks(passage: ContextPassage) -> list[tuple[str, bool]]:
    """The passage's blocks as ``(text, is code)``, in order; consecutive code blocks (one
    example with blank lines inside) are one, cut to :data:`MAX_LINES`. In a chunk the
    loader marked as code, a block is code unless it reads as prose (a reST ``::`` block in
    borg's docs explains its example in sentences), is one of the chunk's headings or the
    sentence leading into the code ("For example:"), or could not be fenced; a short line after
    a sentence leading into it is code too (:func:`_led_line`). A block that
    opens with its own imports after code is another example (:func:`_another_example`),
    left out when it is the same code for the other JavaScript module system
    (:func:`_twin`)."""
    in_code = passage.hit.chunk.kind == "code"
    headings = {h.strip() for h in passage.hit.chunk.heading_path}
    out: list[tuple[str, bool]] = []
    for part in BLOCK_BREAK.split(passage.text):
        code = is_code(part) or (in_code and bool(part.strip()) and not reads_as_prose(part)
                                 and part.strip() not in headings and not leads_in(part)
                                 and not _has_fence(part)) or \
            bool(out) and not out[-1][1] and _leads_to(out[-1][0]) and _led_line(part, headings)
        text = part.strip("\n") if code else part
        if code and out and out[-1][1] and not _another_example(out[-1][0], text):
            out[-1] = (out[-1][0] + "\n\n" + text, True)
        else:
            out.append((text, code))
    seen: dict[str, str] = {}  # an example for another module system is quoted once
    out = [(text, code) for text, code in out if not code or not _twin(text, seen)]
    return [(clipped(text), True) if code else (text, False) for text, code in out]


_IMPORTS = re.compile(r"\s*(?:import\s|from\s+[\w.]+\s+import\s|(?:const|let|var)\s+[^=;]{1,200}="
                      r"\s*require\s*\(|#include\s|use\s+[\w:]+;|using\s+[\w.]+;)")
_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:import\s[^;'\"]{0,400}?\bfrom\s*['\"][^'\"\n]+['\"];?|"
    r"import\s*['\"][^'\"\n]+['\"];?|"
    r"import\s+(?:static\s+)?[\w.]+(?:\.\*)?(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*"
    r"[ \t]*;?[ \t]*$|"
    r"from\s+[\w.]+\s+import\s(?:\([^)]{0,400}\)|.*)|(?:const|let|var)\s+[^=;]{1,200}=\s*require"
    r"\s*\([^)]{0,200}\)[^;\n]*;?|#include\s.*|use\s+[\w:]+(?:::\{[^}\n]{0,200}\})?;|"
    r"using\s+[\w.]+;)", re.MULTILINE)
"""A whole import statement: ``import {…} from '…';`` over several lines, Python's
``import a, b`` and ``from a import (…)``, Java's ``import a.b.C;``, ``const {…} =
require('…');``, ``#include``, Rust's ``use a::{b, c};``."""


def _another_example(before: str, part: str) -> bool:
    """Whether the code block ``part`` starts an example of its own after the code
    ``before``: it opens with an import (``import``, ``require(``, ``#include``, ``use``)
    and ``before`` holds more than imports. Node.js shows each example twice, as ES modules
    and as CommonJS, one after the other: quoted as one, the answer ended on a lone
    ``const { nextTick } = require('node:process');`` (cut at :data:`MAX_LINES`) or
    declared ``open`` twice. Import groups ("import os" / "import requests" / the code)
    stay one example."""
    return bool(_IMPORTS.match(part)) and bool(_IMPORT_STATEMENT.sub("", before).strip())


def _twin(code: str, seen: dict[str, str]) -> bool:
    """Whether ``code`` is an example already in ``seen`` (its body: the code) for the other
    JavaScript module system (``import … from`` against ``require(…)``); records it if not.
    The same code with other imports is otherwise another example (``numpy`` or ``cupy``)."""
    body, system = _body(code), _module_system(code)
    if not body or system is None:
        return False
    if seen.get(body) not in (None, system):
        return True
    seen.setdefault(body, system)
    return False


def _module_system(code: str) -> str | None:
    if _REQUIRE.search(code):
        return "commonjs"
    return "esm" if _ESM.search(code) else None


_REQUIRE = re.compile(r"\brequire\s*\(\s*['\"]")
_ESM = re.compile(r"^\s*import\s[^;'\"]{0,400}?\bfrom\s*['\"]", re.MULTILINE)


def _body(code: str) -> str:
    """``code`` without its imports and blank lines: what two module systems' variants of one
    example share."""
    return "\n".join(line for line in _IMPORT_STATEMENT.sub("", code).split("\n") if line.strip())


def starts_midway(code: str) -> bool:
    """Whether ``code`` starts inside a statement, as a chunk that the length cut opened in
    the middle of an example does (Node.js's ``    path: 'www.google.com:80',\n  };``): a
    bracket closes before one opens, or the first line is indented deeper than a later one.
    Quoted alone, such a fragment reads as broken code."""
    depth = 0
    for char in code:  # brackets inside strings count too: a rare block is left unquoted
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return True
    indents = [len(line) - len(line.lstrip()) for line in code.split("\n") if line.strip()]
    return bool(indents) and indents[0] > min(indents)


def leads_in(text: str) -> bool:
    """A sentence that introduces what follows: "… using pip:", "… along the lines of..."."""
    return text.rstrip().endswith((":", "...", "…"))


_UNFINISHED = re.compile(
    r"(?:\b(?:then|and|now|just|simply|to|you|please)\s+(?:run|type|execute|enter|invoke|"
    r"issue|try)|\b(?:the|this) (?:command|commands|following))\s*$", re.IGNORECASE)


def unfinished(text: str) -> bool:
    """A sentence that stops on a verb wanting its command, with no stop: git's user manual
    writes "…as if you were going to create a new commit, then run" above ``$ git commit
    --amend``, and its pages "The command" above one (a new user was quoted "then run [2]."
    without the command). The block after it finishes it. Not a description ending "…the
    editor to use" (the review of this stop: the next option's synopsis was quoted as its
    command)."""
    return _UNFINISHED.search(text) is not None


_POINTS_AHEAD = re.compile(
    r"\bthe following (?:[\w-]+ ){0,2}?(?:invocation|command|example|code|call|snippet|"
    r"line|program|session|statement|script|configuration|query)s?\b|\bas follows\W*$"
    r"|^the following\b(?! (?:section|chapter|table|list|page)s?\b)"
    r"|\b(?:as|by|with|are|is|use|run) the followings?\W*$|\bfollowings\W*$",
    re.IGNORECASE)
"""A sentence naming the code that comes next though it ends on a full stop: libtasn1's
"…the following invocation will decode the DER data." was quoted without its command. Not
"the following section explains…": the next option's synopsis is no example (a review). The
Debian Reference writes "The following reconfigure the timezone used by the Debian system."
above ``# dpkg-reconfigure tzdata``, and "… by the following." above its commands: a new user
was quoted the sentence alone."""


def points_ahead(text: str) -> bool:
    """A sentence naming what comes next though it ends on a full stop (:data:`_POINTS_AHEAD`)."""
    return _POINTS_AHEAD.search(text) is not None


def statement_lines(code: str) -> list[tuple[int, int]]:
    """``code``'s top-level statements (:func:`citewise.chunk.spans.statement_spans`) as
    (first, last) line numbers from 1; a statement that opens on ``{`` (a C body in the GNU
    and Allman styles: ``int main()`` then ``{``) or inside brackets the ones before it left
    open is part of the one before: code taken from a PDF has lost its indentation, so every
    line of nettle's ``main(…) {…}`` read as a statement of its own. Here, not in
    ``statement_spans``: the chunker cuts by that, and a change there is a chunker release
    that every index must be rebuilt for."""
    out: list[tuple[int, int]] = []
    depth, at = 0, 0
    for start, end in statement_spans(code, 0, len(code)):
        depth = max(0, depth + bracket_depth(code[at:start]))  # a stray closer opens none
        first, last = code.count("\n", 0, start) + 1, code.count("\n", 0, end) + 1
        if out and (code[start] == "{" or depth > 0):
            out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
        at = start
    return out


def clipped(code: str, limit: int = MAX_LINES) -> str:
    """``code`` cut to whole statements (:func:`statement_lines`): up to the last blank line
    between two of them within ``limit`` lines when that keeps half the limit or more (a
    whole step of the example); else through the statement that runs across line ``limit``
    when it ends within twice the limit (Node.js's ``http.get(…, (res) => {…});`` of 24
    lines after a ``require``, libffi's ``int main()`` of 30: a cut before it showed only
    the lines setting it up); else the statements that end within the limit. A longer first
    statement is cut after its last blank line within the limit when there is one, else at
    the limit."""
    lines = code.split("\n")
    if len(lines) <= limit:
        return code
    spans = statement_lines(code)
    across = [last for first, last in spans if first <= limit < last <= 2 * limit]
    whole = [last for _, last in spans if last <= limit]
    steps = [n for n in whole if not lines[n].strip()]
    if whole or across:
        long_steps = [n for n in steps if 2 * n >= limit]
        return "\n".join(lines[:(long_steps or across or steps or whole)[-1]])
    head = lines[:limit]
    blanks = [i for i, line in enumerate(head) if not line.strip()]
    return "\n".join(head[:blanks[-1]] if blanks and blanks[-1] > 0 else head)


def fenced(code: str) -> str:
    """``code`` as a Markdown fenced block."""
    return f"```\n{code}\n```"
