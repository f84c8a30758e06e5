"""Read the directives and roles docutils does not know (Sphinx's and its extensions') for
their text, instead of as errors that print the raw markup.

:func:`lenient` registers, for one parse, a stand-in for every unknown directive and role
the text names, and removes them afterwards (docutils keeps its registries per process, so a
lock keeps parses apart). What a stand-in keeps is :mod:`citewise.ingest.roles`' rule.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.languages import en

from citewise.ingest.roles import (
    VERSIONS,
    describes,
    directive_kind,
    directive_label,
    is_session,
    role_text,
)

_LOCK = threading.Lock()
_NAME = r"[A-Za-z0-9][\w+.-]{0,60}(?::[A-Za-z0-9][\w+.-]{0,60}){0,3}"  # bounded: linear
_DIRECTIVE = re.compile(rf"^[ \t]*\.\.[ \t]+({_NAME})[ \t]*::", re.MULTILINE)
_ROLE = re.compile(rf"(?<![\w`:]):({_NAME}):`")
"""Names of directives and roles in the text, of bounded length: an unbounded name pattern
(word characters and ":" repeated) ran from every ":" to the end of ".:a" repeated, in
quadratic time (a review's 120 KB file: 24 s, with every upload waiting)."""
ALWAYS = frozenset({"code-block", "sourcecode", "code"})
"""docutils knows these, but refuses Sphinx's options (``:caption:``, ``:linenos:``) and
then drops the whole block: the stand-in reads them as code whatever their options."""
NUMBERED = {"pep": "PEP", "pep-reference": "PEP", "rfc": "RFC", "rfc-reference": "RFC"}
"""Roles docutils knows with a number only: Sphinx's title and anchor (setuptools' ``:pep:`in-tree
backend <517#in-tree-build-backends>```) made it an error, and the raw markup was indexed
and quoted."""


@contextmanager
def lenient(text: str) -> Iterator[None]:
    """Stand-ins for the unknown directives and roles ``text`` names, for one parse; the
    registries are restored afterwards, also what the text itself registered (a ``.. role::``
    in one tenant's page changed how every later page was read)."""
    with _LOCK:
        saved = dict(directives._directives), dict(roles._roles)
        for name in {n.lower() for n in _DIRECTIVE.findall(text)}:
            if name in ALWAYS or not _known_directive(name):
                directives._directives[name] = _stand_in(name)
        for name in {n.lower() for n in _ROLE.findall(text)}:
            if name in NUMBERED:
                roles._roles[name] = _numbered_role
            elif not _known_role(name):
                roles._roles[name] = _role
        try:
            yield
        finally:
            directives._directives.clear()
            directives._directives.update(saved[0])
            roles._roles.clear()
            roles._roles.update(saved[1])


def _known_directive(name: str) -> bool:
    return (name in directives._directives or name in directives._directive_registry
            or name in en.directives)


def _known_role(name: str) -> bool:
    return name in roles._roles or name in roles._role_registry or name in en.roles


class _AnyOptions(dict):
    """An option spec that accepts every option (their values are not text). Never empty
    to docutils, which reads options only under a true spec: as an empty dict it read
    autoclass's ``:members: popitem`` as the class's name."""

    def __bool__(self) -> bool:
        return True

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged


class _StandIn(Directive):
    """Keeps an unknown directive's text (see the module docstring)."""

    has_content = True
    optional_arguments = 64
    final_argument_whitespace = True
    option_spec: ClassVar[Any] = _AnyOptions()
    kind = "text"

    def run(self) -> list[nodes.Node]:
        if self.kind == "dropped" or (self.kind == "generated" and not self.content):
            return []
        if self.kind == "code" or is_session("\n".join(self.content)):
            text = "\n".join(self.content)
            return [nodes.literal_block(text, text)] if text.strip() else []
        if self.name.lower().rsplit(":", 1)[-1] in VERSIONS:
            return self._version()
        label = directive_label(self.name, " ".join(self.arguments), bool(self.content))
        if label and describes(self.name):  # the option with what it does, in one block
            definition = nodes.definition()
            self.state.nested_parse(self.content, self.content_offset, definition)
            if self.kind == "generated" and not definition.children:
                return []  # autodoc over autodoc only: a name alone (urllib3's HTTPResponse)
            item = nodes.definition_list_item("", nodes.term(label, label), definition)
            return [nodes.definition_list("", item)]
        out: list[nodes.Node] = []
        if label:
            out.append(nodes.paragraph(label, label))
        if self.content:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            out.append(box)
        return out


    def _version(self) -> list[nodes.Node]:
        """Sphinx's ``versionadded`` (``versionchanged``, ``deprecated``…) as Sphinx shows
        it: "New in version 3.2: Added the UTF-16LE encoding." The text may follow the
        version on the directive's own lines, where docutils gives it as arguments, unparsed:
        CMake's 110 such notes read "``UTF-16LE`` … encodings.:", markup and all."""
        version, _, said = " ".join(self.arguments).partition(" ")
        lead = directive_label(self.name, version, bool(self.content))
        inline, _ = self.state.inline_text(f"{lead} {said}".strip(), self.lineno)
        out: list[nodes.Node] = [nodes.paragraph("", "", *inline)]
        if self.content:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            out.append(box)
        return out


def _stand_in(name: str) -> type[_StandIn]:
    return type(f"StandIn_{name}", (_StandIn,), {"kind": directive_kind(name)})


def _role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
          options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    """An unknown role's visible text (:func:`citewise.ingest.roles.role_text`)."""
    return [nodes.literal(rawtext, role_text(name, text))], []


def _numbered_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                   options: dict | None = None, content: list | None = None
                   ) -> tuple[list, list]:
    """A PEP's or RFC's reference as a reader sees it: its title, else "PEP 517"."""
    shown = role_text(name, text)
    if shown == text:
        shown = f"{NUMBERED[name.lower()]} {text.split('#', 1)[0].strip()}"
    return [nodes.inline(rawtext, shown)], []
