"""reStructuredText loader (``.rst``), parsed by docutils.

Sections become headings whose anchor is docutils' id for them (what Sphinx's HTML uses for
``#fragments``), literal and doctest blocks are code, lists and tables keep their shape
(as the Markdown loader writes them), a definition list's term stays with its definition
(``--no-cache-dir`` and what it does). Sphinx documentation is mostly directives and roles
docutils does not know; they are read leniently (:mod:`citewise.ingest.rst_lenient`): a
role's text is kept (``:ref:`caching <Caching>``` reads "caching"), a directive's arguments
and content are kept unless it is navigation or pulls in other files (``toctree``,
``include``, ``image``, ``automodule``), and ``code-block`` is code. A new user's pip docs,
read as plain text, showed ``.. tab::``, ``:ref:`` and ``.. _label:`` in their chunks and
had no anchors.

Nothing outside the text is read: file insertion and raw output are off, and docutils'
messages are not reported (a broken page still gives its text). A page whose ``meta``
refreshes to another (Sphinx's "This page has moved" stubs) gets ``redirect_to``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree

from citewise.errors import IngestError, OnlyIncludesError
from citewise.ingest.builder import DEFAULT_MAX_BLOCKS, DocumentBuilder, pick_title
from citewise.ingest.content import decode_text
from citewise.ingest.doc_names import name_title
from citewise.ingest.labels import is_label
from citewise.ingest.link_text import spelled_out
from citewise.ingest.normalize import collapse, verbatim
from citewise.ingest.rst_budget import (
    MAX_NESTED_MARKERS,
    ExpandsTooFar,
    ParseTooSlow,
    cpu_budget,
    expanded_too_far,
    expansion_cap,
    nested_markers,
    parse_cpu_s,
)
from citewise.ingest.rst_lenient import lenient
from citewise.ingest.text import TextLoader
from citewise.ingest.text_titles import names_release
from citewise.text import first_few
from citewise.types import BlockKind, ParsedDocument

MAX_CHARS = 1_000_000
"""Larger files are read by the plain-text loader: docutils parses about 40 KB a second,
and a review's 20 MB table would have held every .rst parse of the process for minutes."""
MAX_LINES = 50_000
"""Longer files are read as plain text too: docutils' cost follows lines as well as
characters, and a security review's 1 KB .rst.gz of one-character lines (500,000 section
titles) parsed for a minute before it was refused for its blocks. This machine's 8,122
.rst files have at most 1,819 lines."""
_SETTINGS = {"line_length_limit": MAX_CHARS, "report_level": 5, "halt_level": 5,
             "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False,
             "docinfo_xform": False, "sectsubtitle_xform": False, "syntax_highlight": "none",
             "traceback": True, "input_encoding": "unicode", "_disable_config": True,
             "pep_references": False, "rfc_references": False, "embed_stylesheet": False}
_SKIP = (nodes.comment, nodes.system_message, nodes.target, nodes.substitution_definition,
         nodes.raw, nodes.pending, nodes.image, nodes.transition, nodes.docinfo)
_INCLUDE = re.compile(r"^\s*\.\.\s+(?:literal)?include::\s*(\S+)", re.MULTILINE)
_REFRESH = re.compile(r"url\s*=\s*['\"]?([^'\"\s]+)", re.IGNORECASE)
REDIRECT_MAX_CHARS = 400
"""A page that refreshes elsewhere and holds no more text than this is a redirect stub."""


class RstLoader:
    """Loads reStructuredText; see the module docstring."""

    format = "rst"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS) -> None:
        self.max_blocks = max_blocks

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        text = decode_text(data, "reStructuredText")
        if len(text) > MAX_CHARS:  # docutils takes ~25 s per MB, holding the parse lock
            return self._as_text(data, path, f"over {MAX_CHARS // 1_000_000} MB of "
                                 "reStructuredText")
        if len(text.splitlines()) > MAX_LINES:  # every break docutils reads (a review)
            return self._as_text(data, path, f"over {MAX_LINES:,} lines of reStructuredText")
        if markup_cost(text) > MAX_MARKUP_COST:
            return self._as_text(data, path, "inline markup too dense to parse in bounded "
                                 "time")
        if run_cost(text) > MAX_RUN_COST:
            return self._as_text(data, path, "words too long to parse in bounded time")
        if table_columns(text) > MAX_TABLE_COLUMNS:
            return self._as_text(data, path, f"a table over {MAX_TABLE_COLUMNS} columns wide")
        if nested_markers(text) > MAX_NESTED_MARKERS:
            return self._as_text(data, path, "lists nested too deeply to parse in bounded time")
        settings = dict(_SETTINGS, warning_stream=io.StringIO())
        try:
            with lenient(text), cpu_budget(parse_cpu_s(text), expansion_cap(len(text))):
                tree = publish_doctree(text, source_path=path.name,
                                       settings_overrides=settings)
        except ExpandsTooFar as exc:
            return self._as_text(data, path, f"expands to over {exc.chars / 1e6:.1f} million "
                                 "characters (substitutions or footnotes)")
        except ParseTooSlow:
            return self._as_text(data, path, f"over {parse_cpu_s(text):.0f} s of CPU to parse "
                                 "as reStructuredText")
        except Exception as exc:  # docutils raises plain exceptions on hostile input
            raise IngestError(f"not readable as reStructuredText ({type(exc).__name__}: "
                              f"{str(exc)[:120]}); check the file, or rename it .txt to "
                              "read it as plain text") from exc
        produced = expanded_too_far(len(text), tree)
        if produced is not None:
            return self._as_text(data, path, f"expands to {produced / 1e6:.1f} million "
                                 "characters (substitutions or footnotes)")
        for ref in list(tree.findall(nodes.reference)):  # "`here <https://…>`_" keeps its URL
            spelled = spelled_out(ref.astext(), str(ref.get("refuri") or ""))
            if spelled is not None:
                ref.replace_self(nodes.Text(spelled))
        builder = DocumentBuilder(self.max_blocks)
        _Walker(builder).walk(tree, 0)
        metadata: dict[str, Any] = {}
        target = _refresh_target(tree)
        if target and len(builder.text_so_far()) <= REDIRECT_MAX_CHARS:
            metadata["redirect_to"] = target
        included = _INCLUDE.findall(text)
        if included and not builder.has_blocks():
            raise OnlyIncludesError(f"only includes {first_few(included)}", tuple(included))
        heading = None if _text_first(tree) or _releases(tree) else builder.first_heading()
        title = pick_title(_field_title(tree), heading, fallback=name_title(path))
        return builder.build(title=title, fmt=self.format, metadata=metadata,
                             empty_hint="the file has no text of its own (only directives "
                                        "citewise does not run, such as include)")


    def _as_text(self, data: bytes, path: Path, why: str) -> ParsedDocument:
        parsed = TextLoader(self.max_blocks).load(data, path)
        note = f"{path.name}: {why}, read as plain text (headings kept, markup not)"
        return replace(parsed, metadata={**parsed.metadata, "_notes": [note]})


_MARKUP = re.compile(r"[`*|\[](?=\S)|_(?=\W|$)")
"""Every character that may start inline markup for docutils (before a non-space), and a
reference's end ("name_"), whatever stands before it: docutils admits any Unicode opener or
delimiter before a start-string (a review's "«`a " repeated cost nothing by an ASCII-only
rule and parsed 80 KB in 25 s). A grid table's "| " borders start nothing (a second review:
a 350-row table, parsed in 0.1 s, was read as plain text)."""
MAX_MARKUP_COST = 100_000_000
"""The most :func:`markup_cost` docutils is given. Its inline parser scans the rest of a
paragraph for each markup start (and copies it for each reference), so one paragraph of
unmatched openers costs their number times its length: a security review's 344-byte
``.rst.gz`` (100,000 backticks) would have parsed for hours, the parse lock held. The 8,122
``.rst`` files on a Debian machine (Python packages, CMake's manuals) cost at most 5.6
million; 100 million is about 2 s of the worst markup (backticks, 15 KB: 75 million, 1.7 s)."""


MAX_RUN_COST = 50_000_000
"""The most :func:`run_cost` docutils is given. Its patterns for links, e-mail addresses and
markup starts are tried at each character of a run without spaces, each over the rest of the
run: a security review's 48 KB upload of ``a/b/`` repeated froze the server 64 s (8 KB of
``a-``: 3 s), and an 87-byte ``.rst.gz`` took 7.7 s. The 8,184 ``.rst`` files on this machine
cost at most 28 million (JSON in awscli's examples, 5,016 characters in one run, parsed in
0.03 s: a literal block); 50 million is about 2-3 s of the worst runs."""


def run_cost(text: str) -> int:
    """Σ over the runs of ``text`` without whitespace of their length squared."""
    return sum((m.end() - m.start()) ** 2 for m in _RUN.finditer(text))


_RUN = re.compile(r"\S{2,}")


MAX_TABLE_COLUMNS = 256
"""The widest grid or simple table docutils is given: it parses a table in time quadratic in
its columns, the parse lock held (a security review's 228-byte ``.rst.gz``, two rows of
8,000 columns: 46 s; 500 columns take 0.2 s)."""
_TABLE_BORDER = re.compile(r"(?:\+[-=]*)+\+|=+(?:\s+=+)+")


def table_columns(text: str) -> int:
    """The most columns a grid table's border (``+---+---+``) or a simple table's (``===
    ===``) gives a table of ``text``; 0 without one. Lines as docutils reads them (split at
    every line break Python knows, stripped of any space: a border ending in a no-break
    space, or lines parted by ``\x1e``, got past a split at "\n" alone: the second review)."""
    widest = 0
    for line in text.splitlines():
        line = line.strip()
        if line[:1] in ("+", "=") and _TABLE_BORDER.fullmatch(line):
            widest = max(widest, line.count("+") - 1 if line[0] == "+" else len(line.split()))
    return widest


def markup_cost(text: str) -> int:
    """Σ over paragraphs (split at blank lines) of its length × its :data:`_MARKUP` count."""
    return sum(len(block) * len(_MARKUP.findall(block))
               for block in re.split(r"\n[ \t]*\n", text))


class _Walker:
    """Emits the blocks of a doctree in document order."""

    def __init__(self, builder: DocumentBuilder) -> None:
        self.builder = builder

    def walk(self, node: nodes.Node, depth: int) -> None:
        for index, child in enumerate(node.children):
            if index == 0 and isinstance(node, nodes.document) and \
                    isinstance(child, nodes.field_list):
                continue  # Sphinx's file-wide metadata (:orphan:, :tocdepth: 2)
            self.block(child, depth)

    def block(self, node: nodes.Node, depth: int) -> None:
        if isinstance(node, _SKIP) or _is_meta(node):
            return
        if isinstance(node, nodes.section):
            self.section(node, depth + 1)
        elif isinstance(node, nodes.literal_block | nodes.doctest_block):
            self.add("code", verbatim(node.astext()))
        elif isinstance(node, nodes.bullet_list | nodes.enumerated_list):
            self.add("list", "\n".join(_list_lines(node, 0)))
        elif isinstance(node, nodes.table):
            self.table(node)
        elif isinstance(node, nodes.definition_list_item | nodes.field | nodes.option_list_item):
            self.term(node)
        elif isinstance(node, nodes.paragraph) and (label := _bold_label(node)):
            self.builder.label(label)
        elif isinstance(node, nodes.paragraph | nodes.rubric | nodes.line_block | nodes.title
                        | nodes.caption | nodes.attribution | nodes.term):
            self.add("text", collapse(_visible(node)))
        elif isinstance(node, nodes.Element):
            self.walk(node, depth)  # containers: admonitions, block quotes, topics, lists
        else:
            self.add("text", collapse(node.astext()))

    def term(self, node: nodes.Element) -> None:
        """A term with its description, as one block; code in the description is code, after
        the text that leads into it (six's ``.. function:: with_metaclass`` example read as
        the prose "… like this: from six import with_metaclass class Meta(type): pass …")."""
        parts = [c for c in node.children if not isinstance(c, _SKIP)]
        if not parts or not any(parts[-1].findall(_CODE)):
            self.add("text", "\n".join(collapse(c.astext()) for c in parts))
            return
        text = [collapse(c.astext()) for c in parts[:-1]]
        for child in parts[-1].children:
            if isinstance(child, _SKIP):
                continue
            if isinstance(child, nodes.Element) and any(child.findall(_CODE)):
                self.add("text", "\n".join(text))
                text = []
                self.block(child, 0)
            else:
                text.append(collapse(child.astext()))
        self.add("text", "\n".join(text))

    def section(self, node: nodes.section, level: int) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        ids = node.get("ids") or [None]
        if title is not None:  # the title's own id when a label took it first (Sphinx's)
            own = nodes.make_id(title.astext())
            self.builder.heading(collapse(title.astext()), level,
                                 anchor=own if own in ids else ids[0])
        for child in node.children:
            if child is not title:
                self.block(child, level)

    def table(self, node: nodes.table) -> None:
        rows, header_lines = [], 0
        for row in node.findall(nodes.row):
            rows.append(" | ".join(collapse(e.astext()) for e in row.children))
            header_lines += isinstance(row.parent, nodes.thead)
        self.add("table", "\n".join(rows), header_lines=header_lines)

    def add(self, kind: BlockKind, text: str, header_lines: int = 0) -> None:
        if text.strip():
            self.builder.add(kind, text, anchor=self.builder.section_anchor,
                             header_lines=header_lines)


def _list_lines(node: nodes.Element, depth: int) -> list[str]:
    """``- item`` / ``1. item`` lines, nested lists and code indented under their item."""
    ordered = isinstance(node, nodes.enumerated_list)
    number = int(node.get("start", 1)) if ordered else 0
    lines: list[str] = []
    for item in node.children:
        if not isinstance(item, nodes.list_item):
            continue
        parts, nested = [], []
        children = list(_item_children(item))
        for k, child in enumerate(children):
            if isinstance(child, nodes.bullet_list | nodes.enumerated_list):
                nested.extend(_list_lines(child, depth + 1))
            elif isinstance(child, nodes.literal_block):
                nested.extend("  " * (depth + 1) + line
                              for line in verbatim(child.astext()).split("\n"))
            elif isinstance(child, _SKIP):
                continue
            elif parts and (nested or _code_next(children, k)):  # code's own lead-in
                nested.append("  " * (depth + 1) + collapse(_visible(child)))
            else:
                parts.append(collapse(_visible(child)))
        marker = f"{number}." if ordered else "-"
        number += 1
        lines.append(f"{'  ' * depth}{marker} {' '.join(p for p in parts if p)}".rstrip())
        lines.extend(line.rstrip() for line in nested)
    return lines


def _item_children(item: nodes.Element) -> Iterator[nodes.Node]:
    """A list item's blocks, those inside containers (a Sphinx tab's code, read by
    :mod:`~citewise.ingest.rst_lenient`) in their turn. A paragraph after the item's first
    that leads into code, or follows it, is a line of its own above or among the code:
    pip's examples are "#. Generate a requirements file…" with ``.. tab:: Unix/macOS``
    holding a ``code-block``, and the label and both commands were read as one line of
    prose, "… Unix/macOS env1/bin/python -m pip freeze > requirements.txt env2/bin/…"."""
    for child in item.children:
        if isinstance(child, nodes.container):
            yield from _item_children(child)
        else:
            yield child


def _code_next(children: list[nodes.Node], k: int) -> bool:
    """Whether the block after ``children[k]`` is code."""
    return k + 1 < len(children) and isinstance(children[k + 1], nodes.literal_block)


_CODE = (nodes.literal_block, nodes.doctest_block)
_BODY = (nodes.paragraph, nodes.literal_block, nodes.doctest_block, nodes.bullet_list,
         nodes.enumerated_list, nodes.definition_list, nodes.table, nodes.line_block)


def _text_first(tree: nodes.document) -> bool:
    """Whether body text (a paragraph, an example, a list, a table) comes before the
    page's first section: then the page's title is not that section's (a note, a warning,
    a contents box or a version note before it is no body text: the review of this stop
    found a README opening on a deprecation note titled by its file name)."""
    for child in tree.children:
        if isinstance(child, nodes.section):
            return False
        if isinstance(child, _BODY):
            return True
    return False


def _releases(tree: nodes.document) -> bool:
    """Whether the page's first two sections name releases: a changelog's, which neither
    titles (cachetools' CHANGELOG.rst was titled "v5.5.0 (2024-08-18)", and its citations
    read "v5.5.0 (2024-08-18) › v4.1.0 (2020-04-08)")."""
    titles = [c[0].astext() for c in tree.children if isinstance(c, nodes.section)
              and c.children and isinstance(c[0], nodes.title)][:2]
    return len(titles) == 2 and all(names_release(t) for t in titles)


def _field_title(tree: nodes.document) -> str | None:
    """The ``:title:`` of the file-wide field list that opens the page (the AWS CLI's
    topic guides: ``:title: AWS CLI S3 Configuration``), else None. Without it, a page whose
    text comes before its first heading is titled by its file name, not by that heading
    (``s3api/get-bucket-policy.rst``'s example was cited as "Get and put a bucket policy",
    the section after it)."""
    first = tree.children[0] if tree.children else None
    if not isinstance(first, nodes.field_list):
        return None
    for field in first.findall(nodes.field):
        name, body = field.children[0].astext(), field.children[1].astext()
        if name.strip().lower() == "title" and body.strip():
            return collapse(body)
    return None


def _bold_label(node: nodes.paragraph) -> str | None:
    """The text of a paragraph of the page's body that is one bold span reading as a label
    (:func:`citewise.ingest.labels.is_label`), else None."""
    if not isinstance(node.parent, nodes.section | nodes.document):
        return None
    parts = [c for c in node.children if not (isinstance(c, nodes.Text) and not c.strip())]
    if len(parts) != 1 or not isinstance(parts[0], nodes.strong):
        return None
    text = collapse(_visible(parts[0]))
    return text if is_label(text) else None


def _visible(node: nodes.Node) -> str:
    """A node's text without what a reader never sees (comments, targets, messages)."""
    if isinstance(node, _SKIP):
        return ""
    if isinstance(node, nodes.Text):
        return str(node)
    return "".join(_visible(c) for c in node.children)


def _is_meta(node: nodes.Node) -> bool:
    return type(node).__name__ == "meta"


def _refresh_target(tree: nodes.document) -> str | None:
    for node in tree.findall(_is_meta):
        if str(node.get("http-equiv", "")).lower() == "refresh":
            found = _REFRESH.search(str(node.get("content", "")))
            if found:
                return found.group(1)
    return None
