"""What a reader sees of Sphinx's directives and roles, for the reStructuredText loader
(:mod:`citewise.ingest.rst_lenient`) and MyST Markdown (:mod:`citewise.ingest.myst`): pure
rules, no parser.

A role shows its title, or the last part of its target: ``:ref:`here <Pre Release
Versions>``` reads "here", ``{doc}`../topics/caching``` reads "caching", ``:func:`~pkg.run```
reads "run". A directive is dropped when it is navigation or pulls in other files or code
(``toctree``, ``include``, ``automodule``: no file is read), read as code when it holds code
(``code-block``), and otherwise keeps its content, with its arguments when it has content or
describes a name (``.. option:: --no-cache-dir``)."""

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
_TITLED = re.compile(r"(\S.*?)\s+<(.+)>\s*$", re.DOTALL)
"""A role's explicit title before its ``<target>``, a blank between: not CMake's
``CMAKE_DISABLE_FIND_PACKAGE_<PackageName>``, a name with a placeholder (it read
"CMAKE_DISABLE_FIND_PACKAGE_", a variable that does not exist), and a target may hold
brackets (``CMAKE_CXX_COMPILER <CMAKE_<LANG>_COMPILER>``). Without the blank, a target
that names a place (``ssl.OP_ENABLE_MIDDLEBOX_COMPAT<python:ssl.OP_…>``: a ``:``, ``.``,
``/`` or ``#`` in it) still is one."""
_GLUED = re.compile(r"(\S.*?)<([^<>\s]*[:./#][^<>\s]*)>\s*$", re.DOTALL)


def directive_kind(name: str) -> str:
    """``dropped``, ``code`` or ``text`` for a directive (a domain prefix ``py:`` ignored)."""
    short = name.lower().rsplit(":", 1)[-1]
    if short in DROPPED or short.startswith("auto"):
        return "dropped"
    return "code" if short in CODE else "text"


def describes(name: str) -> bool:
    """Whether a directive's arguments name what its content describes (its term)."""
    return ":" in name or name.lower() in DESCRIBED


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
    titled = _TITLED.fullmatch(text) or _GLUED.fullmatch(text)
    if titled is not None:
        return titled.group(1)
    shown = text.lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    if name.lower().rsplit(":", 1)[-1] == "doc":
        shown = shown.rstrip("/").rsplit("/", 1)[-1]
    return shown
