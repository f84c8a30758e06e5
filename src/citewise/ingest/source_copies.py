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
same name (``.html``, ``.htm``) is beside it in the same batch is skipped and reported too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from citewise.ingest.registry import inner_path

SOURCES_DIR = "_sources"
COPY_SUFFIX = ".txt"


def page_candidates(copy: Path) -> tuple[Path, ...]:
    """The pages a file may be the source of: for one in a ``_sources`` folder,
    ``site/_sources/a/b.rst.txt`` (or ``b.md``) → ``site/a/b.html``, ``site/a/b/index.html``;
    for a ``.txt`` elsewhere the page beside it, ``a/b.txt`` → ``a/b.html``, ``a/b.htm``."""
    parts = copy.parts
    if SOURCES_DIR not in parts[:-1]:
        inner = inner_path(copy)
        if inner.suffix.lower() != COPY_SUFFIX or "." in inner.stem:  # b.rst.txt: no page's
            return ()
        return inner.with_suffix(".html"), inner.with_suffix(".htm")
    name = inner_path(copy).name
    source = name[: -len(COPY_SUFFIX)] if name.lower().endswith(COPY_SUFFIX) else name
    stem = source.rsplit(".", 1)[0] if "." in source else source  # "b.rst" -> "b"
    at = len(parts) - 1 - parts[::-1].index(SOURCES_DIR)  # the innermost _sources folder
    site = Path(*parts[:at]) if at else Path()
    folder = site.joinpath(*parts[at + 1:-1])
    return folder / f"{stem}.html", folder / stem / "index.html"


def source_copies(files: Iterable[Path]) -> dict[Path, Path]:
    """``{copy: page}`` for every ``_sources`` copy among ``files`` whose page is also
    among them (a gzipped page ``b.html.gz`` counts)."""
    present = {inner_path(f): f for f in files}
    out: dict[Path, Path] = {}
    for path in present.values():
        for page in page_candidates(path):
            if page in present:
                out[path] = present[page]
                break
    return out
