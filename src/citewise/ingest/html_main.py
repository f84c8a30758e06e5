"""A page's main content as the page marks it: what lies beside it is chrome.

SQLAlchemy's Sphinx theme names its header, sidebars (the site's tree and the page's whole
table of contents), previous/next bar and footer by ``id`` alone (``docs-sidebar-inner``,
``docs-copyright``), which no chrome rule of :mod:`citewise.ingest.html_chrome` knows; its
content is ``<div id="docs-body" role="main">``. A new user's index held 435 chunks of
sidebar, and the footer's credit line in 222, one a page; ``show`` opened pages at the
sidebar. When a page marks exactly one element as its main content (``<main>`` or
``role="main"``) and that element holds :data:`MIN_SHARE` of the body's text or more, what
lies beside it and beside each element around it is removed; when the main element holds no
heading, what beside it holds one stays (a theme may put the page's title above it).
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

MIN_SHARE = 0.25
_HEADINGS = "h1, h2, h3, h4, h5, h6"


def drop_beside_main(tree: LexborHTMLParser) -> int:
    """Remove what lies beside the page's one main element (module docstring); returns how
    many elements were removed. Nodes are told apart by ``mem_id`` (selectolax's ``==``
    compares their HTML: a review's page of 500 sibling main elements took 115 s)."""
    body = tree.body
    if body is None:
        return 0
    marked = tree.css("main, [role=main]")[:MAX_MARKED]
    ids = {node.mem_id for node in marked}
    mains = [n for n in marked if not _inside(n, ids)]  # the outermost
    if len(mains) != 1:
        return 0
    main = mains[0]
    whole = len(body.text(deep=True, separator=" ").split())
    if not whole or len(main.text(deep=True, separator=" ").split()) < MIN_SHARE * whole:
        return 0
    titled = main.css_first(_HEADINGS) is not None
    doomed: list[LexborNode] = []
    node = main
    while node.parent is not None and node.mem_id != body.mem_id:
        for sibling in node.parent.iter(include_text=False):
            if sibling.mem_id != node.mem_id and \
                    sibling.tag not in ("-text", "-comment", "script", "style") and (titled or (
                    sibling.css_first(_HEADINGS) is None and sibling.tag not in _HEADINGS)):
                doomed.append(sibling)
        node = node.parent
    for element in doomed:
        element.decompose()
    return len(doomed)


MAX_MARKED = 50
"""Elements marked main looked at: a page marking more has no one main element to trust."""


def _inside(node: LexborNode, ids: set[int]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.mem_id in ids:
            return True
        parent = parent.parent
    return False
