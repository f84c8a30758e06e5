"""MyST Markdown (Sphinx's Markdown): roles, targets and directive fences read for their text.

A new user's pip documentation showed ``{term}`source distribution <Source Distribution>```,
``(wheel-caching)=`` labels and a toctree's ``:maxdepth: 1`` lines in its chunks. A file
that looks like MyST (a ``{role}`` before a backtick, a ``(label)=`` line, a ```` ```{name}````
fence) is parsed with mdit-py-plugins' MyST role and block rules: a role shows its text
(:func:`citewise.ingest.roles.role_text`), a target names the next heading's anchor, a
``%`` comment is dropped, and a directive fence is dropped, read as code or kept as text by
:mod:`citewise.ingest.roles`' rule (its ``:option:`` lines dropped). Plain Markdown is parsed
as before: ``%`` at the start of a line stays text there.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from citewise.ingest.normalize import verbatim
from citewise.ingest.roles import directive_kind, directive_label, is_session

_LANGUAGES = ("r", "python", "py", "julia", "bash", "sh", "sql", "ojs", "js", "javascript",
              "stan", "rcpp", "cpp", "c", "dot", "mermaid", "ruby", "perl", "octave", "matlab")
"""Quarto / R Markdown code cells (```` ```{r} ````): code, not MyST directives."""
_LANGUAGE = "(?:" + "|".join(_LANGUAGES) + ")"
HINT = re.compile(r"(?<![\w/$}{`])\{[A-Za-z][\w:+.-]{0,60}\}`[^`\n]|^\([\w:.-]{1,200}\)=[ \t]*$"
                  rf"|^[ \t]*(?:```|~~~)\{{(?!{_LANGUAGE}[ ,}}])", re.MULTILINE)
"""What only MyST writes: a role (``{ref}`x```, but not ``/users/{id}``` or ``${PLAN}```
inside inline code), a ``(label)=`` line, a directive fence that is not a Quarto / R
Markdown code cell (```` ```{r} ````)."""
_DIRECTIVE = re.compile(r"\{([A-Za-z][\w:+.-]*)\}\s*(.*)")
_LANGUAGE_CELL = re.compile(rf"\{{{_LANGUAGE}(?:[ ,}}].*)?", re.DOTALL)
_OPTION = re.compile(r"^:[\w-]+:.*$")


def looks_like_myst(body: str) -> bool:
    return HINT.search(body) is not None


def use_myst(md: MarkdownIt) -> MarkdownIt:
    """``md`` reading MyST roles, targets, comments and block breaks."""
    return md.use(myst_role_plugin).use(myst_block_plugin)


def fence_directive(token: Token) -> tuple[str, str, str] | None:
    """``(kind, label, body)`` of a ```` ```{name} args```` fence (kind ``dropped``,
    ``code`` or ``text``; ``body``: its content, Markdown for ``text``), or None for an
    ordinary fence."""
    info = token.info.strip()
    found = _DIRECTIVE.fullmatch(info)
    if found is None or _LANGUAGE_CELL.fullmatch(info):  # ```{r} and ```{python}: code
        return None
    name, arguments = found.group(1), found.group(2).strip()
    kind = directive_kind(name)
    lines = token.content.split("\n")
    while lines and (_OPTION.match(lines[0].strip()) or lines[0].strip() == "---"):
        lines.pop(0)  # :maxdepth: 1 (or a YAML options block's fence)
    body = verbatim("\n".join(lines))
    if kind == "generated":  # an autodoc directive: what was written under it, if anything
        kind = "text" if body.strip() else "dropped"
    if kind != "text" or is_session(body):
        return ("code" if kind == "text" else kind), "", body
    return "text", directive_label(name, arguments, bool(body.strip())), body
