"""link_for: the link a citation opens, from ``--base-url`` and the file's path."""

from __future__ import annotations

from citewise.sources import link_for


def test_a_base_url_link_percent_encodes_the_files_path(tmp_path):
    """setuptools' ``python 2 sunset.rst`` linked as ``…/python 2 sunset.html``: a terminal
    ends the link at the first space, and a ``#`` in a name would start its fragment."""
    page = tmp_path / "python 2 sunset.rst"
    assert link_for("https://d.example/{stem}.html", page, "python 2 sunset.rst") == \
        "https://d.example/python%202%20sunset.html"
    assert link_for("https://d.example/", page, "a b/c#d.md") == "https://d.example/a%20b/c%23d.md"
    assert link_for("https://d.example/{path}", page, "guide/a.md") == "https://d.example/guide/a.md"
    assert link_for(None, page, "python 2 sunset.rst").endswith("/python%202%20sunset.rst")


def test_a_gzipped_page_links_as_the_page_it_is_published_as(tmp_path):
    """Debian gzips large pages (BIND's ``changelog.html.gz``): a new user's 23 citations of
    ``https://bind9.readthedocs.io/…/changelog.html.gz`` were 404s; the site publishes
    ``changelog.html``. Other gzipped files are downloads and keep their name."""
    page = tmp_path / "changelog.html.gz"
    assert link_for("https://d.example/doc/", page, "changelog.html.gz") == \
        "https://d.example/doc/changelog.html"
    assert link_for("https://d.example/", page, "NEWS.txt.gz") == "https://d.example/NEWS.txt.gz"


def test_a_section_anchor_is_not_added_to_a_link_with_a_fragment_already():
    """A new user's hash-routed site (``--base-url 'https://undici.nodejs.org/#/{path}'``):
    citations read ``…/#/docs/api/ProxyAgent.md#example``, two fragments, which open no
    section; the page's own link is given instead."""
    from citewise.types import linked

    assert linked("https://u.example/#/docs/api/ProxyAgent.md", "example") == \
        "https://u.example/#/docs/api/ProxyAgent.md"
    assert linked("https://d.example/a.html", "a b") == "https://d.example/a.html#a%20b"
    assert linked("https://d.example/a.html", None) == "https://d.example/a.html"
