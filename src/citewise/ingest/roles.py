"""What a reader sees of Sphinx's directives and roles, for the reStructuredText loader
(:mod:`citewise.ingest.rst_lenient`) and MyST Markdown (:mod:`citewise.ingest.myst`): pure
rules, no parser.

A role shows its title, or the last part of its target: ``:ref:`here <Pre Release
Versions>``` reads "here", ``{doc}`../topics/caching``` reads "caching", ``:func:`~pkg.run```
reads "run". A directive is dropped when it is navigation or pulls in other files or code
(``toctree``, ``include``: no file is read), read as code when it holds code
(``code-block``), and otherwise keeps its content, with its arguments when it has content or
describes a name (``.. option:: --no-cache-dir``). An autodoc directive (``autoclass``,
``autofunction``…) generates its text from code no one gave us: alone it is dropped, and the
text written under it is kept as what it describes (cachetools documents every cache class
that way, "TTLCache(maxsize, ttl, …)" then "This class associates a time-to-live value with
each item": a new user's "how do I make a cache whose items expire" found none of it)."""

from __future__ import annotations

import re

DROPPED = frozenset({
    "toctree", "include", "literalinclude", "image", "figure", "index", "highlight",
    "currentmodule", "module", "default-role", "default-domain", "tabularcolumns",
    "sectionauthor", "codeauthor", "moduleauthor", "graphviz", "mermaid", "plot",
    "autosummary", "program", "orphan", "contents", "raw", "eval-rst"})
"""Navigation, files to include, and content generated from code or images."""
CODE = frozenset({"code-block", "sourcecode", "code", "code-cell", "console", "prompt",
                  "ipython", "doctest", "testcode", "testoutput", "testsetup",
                  "jupyter-execute", "parsed-literal"})
DESCRIBED = frozenset({"option", "cmdoption", "envvar", "describe", "object", "function",
                       "class", "method", "attribute", "data", "exception", "decorator",
                       "confval", "setting", "command", "property", "staticmethod",
                       "classmethod", "term"})
"""Directives whose arguments name what their content describes (kept even alone)."""
VERSIONS = {"versionadded": "New in version", "versionchanged": "Changed in version",
            "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
CONDITIONS = frozenset({"only", "ifconfig", "rst-class", "cssclass"})
"""Directives whose arguments are a condition or a class, not text: CMake's ``.. only::
html`` put a line "html" in 21 pages."""


def directive_kind(name: str) -> str:
    """``dropped``, ``code``, ``text``, or ``generated`` (an autodoc directive: dropped
    without content, else described text) for a directive (a domain prefix ``py:``
    ignored)."""
    short = name.lower().rsplit(":", 1)[-1]
    if short in DROPPED:
        return "dropped"
    if short.startswith("auto"):
        return "generated"
    return "code" if short in CODE else "text"


_SESSION = re.compile(r"(?:\$|>>>|[A-Z]:\\[^>\n]*>|PS [^>\n]*>)[ \t]")


def is_session(body: str) -> bool:
    """Whether a directive's ``body`` is a console session: its first line a prompt (``$ ``,
    ``>>> ``, ``C:\\> ``, ``PS C:\\> ``). pip's own ``{pip-cli}`` fences hold "$ pip install
    sampleproject", "[...]", "Successfully installed sampleproject", and a directive of a
    name no rule knows was read as Markdown: one line of prose a user could not copy."""
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return _SESSION.match(first + " ") is not None


def describes(name: str) -> bool:
    """Whether a directive's arguments name what its content describes (its term)."""
    return ":" in name or name.lower() in DESCRIBED or directive_kind(name) == "generated"


def directive_label(name: str, arguments: str, has_content: bool) -> str:
    """The line a directive's arguments give its content ("" when they are not text)."""
    short = name.lower().rsplit(":", 1)[-1]
    if short in VERSIONS:
        return f"{VERSIONS[short]} {arguments}".strip() + ":"
    if short in CONDITIONS:
        return ""
    if describes(name) or has_content:
        return arguments
    return ""  # a directive of arguments alone generates its text from elsewhere


def role_text(name: str, text: str) -> str:
    """The text a reader sees of a role (see the module docstring)."""
    title = explicit_title(text, glued=name.lower().rsplit(":", 1)[-1] not in CMAKE_ROLES)
    if title is not None:
        return title
    shown = text.replace(ESCAPED, "").lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    if name.lower().rsplit(":", 1)[-1] == "doc":
        shown = shown.rstrip("/").rsplit("/", 1)[-1]
    return shown


ESCAPED = "\x00"
"""docutils' mark before a backslash-escaped character in a role's text (``\\<``)."""
CMAKE_ROLES = frozenset({
    "command", "cpack_gen", "envvar", "generator", "genex", "guide", "manual", "module",
    "policy", "prop_cache", "prop_dir", "prop_gbl", "prop_inst", "prop_sf", "prop_test",
    "prop_tgt", "variable"})
"""CMake's own roles, whose names hold placeholders (``CMAKE_POLICY_DEFAULT_CMP<NNNN>``):
as CMake's Sphinx extension reads them, a title needs a blank before its ``<target>``."""


def explicit_title(text: str, glued: bool = True) -> str | None:
    """A role's title before its ``<target>`` (Sphinx's ``title <target>``, also glued:
    ``pip install Examples<pip install Examples>``), or None. Not a placeholder of a name,
    glued after an underscore (CMake's ``CMAKE_DISABLE_FIND_PACKAGE_<PackageName>`` read
    "CMAKE_DISABLE_FIND_PACKAGE_", a variable that does not exist); a target may hold
    brackets (``CMAKE_CXX_COMPILER <CMAKE_<LANG>_COMPILER>``). One backward scan for the
    ``<`` that opens the final ``>``: two patterns tried each ``<`` against the rest of the
    text, a 147-byte .rst.gz cost 70 s (a review). Escaped brackets (docutils'
    :data:`ESCAPED`) are text; ``glued``: whether a title may touch its ``<`` (not in
    CMake's roles, :data:`CMAKE_ROLES`)."""
    body = text.rstrip()
    if not body.endswith(">"):
        return None
    if body[-2:-1] == ESCAPED:  # "… via \\$\\<TARGET_OBJECTS\\>": no target
        return None
    depth = 0
    for at in range(len(body) - 1, -1, -1):
        if at and body[at - 1] == ESCAPED:
            continue
        depth += {">": 1, "<": -1}.get(body[at], 0)
        if depth == 0:
            break
    else:
        return None
    title = body[:at].replace(ESCAPED, "")
    if not any(c.isalnum() for c in title) or title.endswith("_"):
        return None  # "$<CONFIG>", "<LANG>", "XCODE_EMBED_<type>": one name
    return title.strip() if glued or title[-1:].isspace() else None
