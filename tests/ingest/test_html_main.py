"""What lies beside a page's one main element is chrome (SQLAlchemy's theme names its
header, sidebars and footer by id alone: a new user's index held 435 chunks of sidebar and
the footer's credit line once a page)."""

from __future__ import annotations

from pathlib import Path

from citewise.ingest.html import HtmlLoader

BODY = " ".join(["The session tracks objects and flushes them in one unit of work."] * 8)


def _texts(page: str) -> list[str]:
    return [b.text for b in HtmlLoader().load(page.encode(), Path("p.html")).blocks]


def test_the_sidebar_header_and_footer_beside_main_are_not_read() -> None:
    page = ('<html><body><div id="docs-container"><div id="docs-header"><h1>SQLAlchemy 1.4 '
            'Documentation</h1><p>Release: 1.4.46</p></div><div id="docs-body-container">'
            '<div id="docs-sidebar"><h3>SQLAlchemy ORM</h3><ul><li>ORM Quick Start</li>'
            '<li>Session Basics</li></ul></div><div id="docs-body" role="main"><section '
            f'id="session-basics"><h1>Session Basics</h1><p>{BODY}</p></section></div></div>'
            '<div id="docs-copyright"><p>flambé! the dragon image designs donated by Rotem '
            'Yaari.</p></div></div></body></html>')
    texts = _texts(page)
    assert texts == ["Session Basics", BODY], texts


def test_a_small_main_element_or_two_leave_the_page_as_it_is() -> None:
    search = ('<html><body><div role="main"><p>Search</p></div><div id="article"><h1>Guide'
              f'</h1><p>{BODY}</p></div></body></html>')
    assert BODY in _texts(search) and "Guide" in _texts(search)
    two = (f'<html><body><main><p>{BODY}</p></main><div><p>Kept beside.</p></div>'
           f'<div role="main"><p>Second.</p></div></body></html>')
    assert "Kept beside." in _texts(two)


def test_a_title_above_a_main_element_without_headings_stays() -> None:
    page = (f'<html><body><div class="top"><h1>Install guide</h1></div><main><p>{BODY}</p></main>'
            '<nav><p>Other pages</p></nav><footer><p>© 2024</p></footer></body></html>')
    texts = _texts(page)
    assert texts[0] == "Install guide" and BODY in texts and "Other pages" not in texts


def test_sphinx_source_links_are_not_read_into_signatures() -> None:
    """Django's API entries end their signature in Sphinx's "[source]" link: a new user's
    answers read "PROTECT[source] Prevent deletion…" (752 chunks)."""
    page = ('<html><body><dl class="py class"><dt id="django.db.models.PROTECT">PROTECT<a '
            'class="reference internal" href="../_modules/x.html#PROTECT"><span '
            'class="viewcode-link"><span class="pre">[source]</span></span></a></dt><dd><p>'
            'Prevent deletion of the referenced object.</p></dd></dl></body></html>')
    assert not any("[source]" in t for t in _texts(page)), _texts(page)


def test_many_main_elements_are_cheap_and_leave_the_page_as_it_is() -> None:
    """A review: 500 sibling ``role=main`` elements (22 KB) took 115 s (selectolax's ``==``
    compares nodes' HTML)."""
    import time

    page = ("<html><body>" + "<div role='main'><p>x</p></div>" * 500
            + f"<div><p>{BODY}</p></div></body></html>")
    start = time.process_time()
    texts = _texts(page)
    assert time.process_time() - start < 10 and BODY in texts
