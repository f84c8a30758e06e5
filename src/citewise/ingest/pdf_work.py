"""How much page content a PDF asks a reader to tokenize, counted before any is read.

Reading a page's text means tokenizing its content streams and the form XObjects it draws.
A stream is stored once and may be drawn by every page: a 300 KB file whose 1,500 pages all
draw one 60 MiB stream of spaces (pypdf's limit is per stream) took 5.7 s of CPU a page,
about 2.4 hours, while a server's uploads waited behind it (security review). The real
manuals here hold far less: Valgrind's 397 pages 3.8 MB in all (247 KB on its largest page),
nettle's 111 pages 1.4 MB. :func:`content_bytes` adds up each page's streams as the reader
will meet them (a shared one once per page that draws it, its size decoded once) and stops
as soon as the total passes the limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pypdf.errors import LimitReachedError
from pypdf.generic import ArrayObject, IndirectObject

MAX_FORM_DEPTH = 4  # form XObjects drawn inside form XObjects, as far as this is counted


def content_bytes(reader: Any, limit: int) -> int:
    """The decoded bytes of every page's content and form XObjects, summed page by page;
    stops once over ``limit`` (the total then is what was counted so far)."""
    sizes: dict[Any, int] = {}
    total = 0
    for page in reader.pages:
        for ref in _listed(page):
            key = (ref.idnum, ref.generation) if isinstance(ref, IndirectObject) else id(ref)
            if key not in sizes:
                sizes[key] = _size(ref)
            total += sizes[key]
            if total > limit:
                return total
    return total


def _listed(page: Any) -> list[Any]:
    try:
        return list(_streams(page))
    except Exception:  # a damaged page: its text extraction reports it
        return []


def _size(ref: Any) -> int:
    """A stream's decoded size; :class:`~pypdf.errors.LimitReachedError` (it inflates past
    pypdf's own limit, so its text can never be read) goes up to the loader."""
    try:
        return len(ref.get_object().get_data())
    except LimitReachedError:
        raise
    except Exception:  # a damaged stream: its text extraction reports it
        return 0


def _streams(page: Any) -> Iterator[Any]:
    """The page's content streams and the form XObjects its resources name, unresolved."""
    contents = page.raw_get("/Contents") if "/Contents" in page else None
    resolved = contents.get_object() if contents is not None else None
    if isinstance(resolved, ArrayObject):
        yield from resolved  # a list keeps its items as references
    elif contents is not None:
        yield contents
    yield from _forms(page.get("/Resources"), MAX_FORM_DEPTH)


def _forms(resources: Any, depth: int) -> Iterator[Any]:
    if depth <= 0 or resources is None:
        return
    xobjects = resources.get_object().get("/XObject")
    if xobjects is None:
        return
    xobjects = xobjects.get_object()
    for name in list(xobjects.keys()):
        ref = xobjects.raw_get(name)
        form = ref.get_object()
        if form.get("/Subtype") == "/Form":
            yield ref
            yield from _forms(form.get("/Resources"), depth - 1)
