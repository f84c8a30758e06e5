"""Source copies a documentation build ships beside its pages, which are not indexed.

A Sphinx HTML build keeps each page's source as plain text, ``_sources/usage/init.rst.txt``
beside ``usage/init.html`` (also ``.md.txt`` for MyST, ``.ipynb.txt`` for notebooks; with an
empty ``html_sourcelink_suffix``, as Jupyter Book sets it, ``_sources/intro.md``), for its
"Show source" link. Ingested with the folder, every page came twice: half of the borg manual's
citations opened the copy, raw reST (``:ref:`borg_init```) without a section to jump to; the
copies took context from other pages; and an ACL sidecar that restricted ``internals.html``
leaked it through ``_sources/internals.rst.txt`` unless it named the copy too. A copy whose page
is ingested in the same batch (``page.html``, or ``page/index.html`` from Sphinx's ``dirhtml``
builder) is skipped and reported; a ``_sources`` folder ingested without its pages is read.

AsciiDoc builds ship the source beside the page instead: Debian's git-doc holds
``git-rebase.txt`` next to ``git-rebase.html`` for each of its 230 pages (and its howtos), so
a new user's ingest of the folder indexed every page twice (twice the time, each answer's
passages split between the page and its raw source, and a sidecar line restricting
``git-daemon.html`` left ``git-daemon.txt`` to everyone). A ``.txt`` file whose page of the
same name (``.html``, ``.htm``) is beside it in the same batch, and which says what the page
says (:func:`_same_words`), is skipped and reported too, unless it was named on its own;
so are the fragments such a copy includes (:func:`_fragments`).
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable
from pathlib import Path

from citewise.ingest.registry import inner_path

SOURCES_DIR = "_sources"
_SOURCE_SUFFIXES = frozenset({".rst", ".rest", ".md", ".markdown", ".myst", ".ipynb", ".txt"})
COPY_SUFFIX = ".txt"


def page_candidates(copy: Path) -> tuple[Path, ...]:
    """The pages a file may be the source of: for one in a ``_sources`` folder,
    ``site/_sources/a/b.rst.txt`` (or ``b.md``) → ``site/a/b.html``, ``site/a/b/index.html``;
    for a ``.txt`` elsewhere the page beside it, ``a/b.txt`` → ``a/b.html``, ``a/b.htm``."""
    parts = copy.parts
    if SOURCES_DIR not in parts[:-1]:
        inner = inner_path(copy)
        if inner.suffix.lower() != COPY_SUFFIX or \
                Path(inner.stem).suffix.lower() in _SOURCE_SUFFIXES:  # b.rst.txt: no page's
            return ()  # (gitweb.conf.txt is gitweb.conf.html's)
        return inner.with_suffix(".html"), inner.with_suffix(".htm")
    name = inner_path(copy).name
    source = name[: -len(COPY_SUFFIX)] if name.lower().endswith(COPY_SUFFIX) else name
    stem = source.rsplit(".", 1)[0] if "." in source else source  # "b.rst" -> "b"
    at = len(parts) - 1 - parts[::-1].index(SOURCES_DIR)  # the innermost _sources folder
    site = Path(*parts[:at]) if at else Path()
    folder = site.joinpath(*parts[at + 1:-1])
    return folder / f"{stem}.html", folder / stem / "index.html"


def source_copies(files: Iterable[Path], named: Iterable[Path] = ()) -> dict[Path, Path]:
    """``{copy: page}`` for every ``_sources`` copy among ``files`` whose page is also
    among them (a gzipped page ``b.html.gz`` counts), and every ``.txt`` beside its page that
    says what the page says (:func:`_same_words`) and was not named on its own (``named``):
    a ``README.txt`` beside an unrelated ``README.html``, or one an operator names, is read
    (the second review of this stop)."""
    present = {inner_path(f): f for f in files}
    asked = set(named)
    out: dict[Path, Path] = {}
    for path in present.values():
        for page in page_candidates(path):
            if page in present:
                beside = SOURCES_DIR not in path.parts[:-1]
                if not beside or (path not in asked and _same_words(path, present[page])):
                    out[path] = present[page]
                break
    return out | _fragments(out, present, asked)


_INCLUDE = re.compile(r"^include::([^\[\]{}\n]+)\[", re.MULTILINE)
FRAGMENT_SUFFIXES = frozenset({".txt", ".adoc", ".asciidoc"})


def is_fragment(copy: Path, page: Path) -> bool:
    """Whether ``copy`` left out for ``page`` is an included fragment, not the page's own
    source (:func:`_fragments`)."""
    return inner_path(page) not in page_candidates(copy)
MAX_FRAGMENTS = 10_000


def _fragments(copies: dict[Path, Path], present: dict[Path, Path],
               asked: set[Path]) -> dict[Path, Path]:
    """``{fragment: page}`` for every file among ``present`` (not ``asked`` for) that an
    AsciiDoc copy beside its page pulls in (``include::diff-options.txt[]``), or a fragment
    so pulled in does, each under the first page found to hold it: git-doc ships 40 such
    fragments with no page of their own (``diff-options.txt`` is in seven pages), which a new
    user's index held as documents of raw AsciiDoc, cited without a section to open. A
    ``.txt`` no copy includes (git's ``technical/rerere.txt``) is read."""
    out: dict[Path, Path] = {}
    todo = [(c, p) for c, p in copies.items() if SOURCES_DIR not in c.parts[:-1]]
    while todo and len(out) < MAX_FRAGMENTS:
        source, page = todo.pop(0)
        for name in _INCLUDE.findall(_head(source, 1_048_576)):
            target = Path(os.path.normpath(inner_path(source).parent / name.strip()))
            if target.suffix.lower() not in FRAGMENT_SUFFIXES:
                continue  # a review's include::../handbook/leave.md[] dropped that page
            found = present.get(target)
            if found is not None and found not in asked and found not in copies \
                    and found not in out:
                out[found] = page
                todo.append((found, page))
    return out


SAME_WORDS = 0.6
_WORDS = re.compile(r"[^\W\d_]{4,}")


def _same_words(copy: Path, page: Path) -> bool:
    """Whether :data:`SAME_WORDS` of the distinct words (4 letters or more) of the head of
    ``copy`` are in ``page`` as written (its markup included; both read raw, gzip or not)."""
    text = _head(copy, 65_536)
    words = set(_WORDS.findall(text.lower()))
    if not words:
        return False
    seen = set(_WORDS.findall(_head(page, 4_000_000).lower()))
    return len(words & seen) >= SAME_WORDS * len(words)


def _head(path: Path, limit: int) -> str:
    try:
        with (gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb")) as f:
            return f.read(limit).decode("utf-8", "replace")
    except (OSError, EOFError):
        return ""
