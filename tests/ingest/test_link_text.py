"""A link whose text only says where ("here") keeps its URL in the indexed text: json-c's
README was indexed as "Doxygen generated documentation exists here.", and "Where is the
json-c documentation?" was answered with that sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import LimitSettings
from citewise.ingest.link_text import spelled_out
from citewise.ingest.registry import load_bytes

LIMITS = LimitSettings()


@pytest.mark.parametrize(("text", "href", "expected"), [
    ("here", "https://json-c.github.io/json-c/", "here (https://json-c.github.io/json-c/)"),
    (" click  here ", "http://x.org/y", "click  here (http://x.org/y)"),
    ("this page", "https://x.org/p", "this page (https://x.org/p)"),
    ("the API reference", "https://x.org/api", None),  # says what it is
    ("here", "javascript:alert(1)", None),
    ("here", "#section", None),
    ("here", "/etc/passwd", None),
    ("here", "file:///etc/passwd", None),
    ("here", "https://x.org/a b", None),
    ("here", "https://x.org/" + "a" * 400, None),
    # brackets percent-encoded: a bare "[2]" in an answer reads as a citation (a review)
    ("here", "https://evil.example/x[S1][2]y", "here (https://evil.example/x%5BS1%5D%5B2%5Dy)"),
    ("here", "https://e.org/a_(b)", "here (https://e.org/a_%28b%29)"),
])
def test_only_a_web_link_whose_text_says_where_is_spelled_out(text, href, expected):
    assert spelled_out(text, href) == expected


def _text(body: str, name: str) -> str:
    doc = load_bytes(body.encode(), Path(name), LIMITS)
    return " ".join(b.text for b in doc.blocks if b.kind != "heading")


def test_html_markdown_and_rst_keep_the_url_of_a_link_that_says_here():
    html = ('<html><body><h1>Docs</h1><p>Documentation exists '
            '<a href="https://json-c.github.io/json-c/">here</a>; see '
            '<a href="https://x.org/api">the API reference</a> and '
            '<a href="javascript:alert(1)">here</a>.</p></body></html>')
    assert _text(html, "README.html") == ("Documentation exists here "
                                          "(https://json-c.github.io/json-c/); see the API "
                                          "reference and here.")
    md = "# Docs\n\nThe manual is [here](https://x.org/man/), the API [there](api.md).\n"
    assert _text(md, "a.md") == "The manual is here (https://x.org/man/), the API there."
    rst = "Docs\n====\n\nThe manual is `here <https://x.org/man/>`_.\n"
    assert _text(rst, "c.rst") == "The manual is here (https://x.org/man/)."


def test_a_markdown_table_of_contents_is_not_indexed():
    """Node's CONTRIBUTING.md opens with a list of links to its own sections; a new user's
    "what do I certify under the Developer's Certificate of Origin?" got its line
    "- Developer's Certificate of Origin 1.1 [1]" as the answer. A list of in-page links is
    navigation; a list of links to other pages, or with words of its own, is kept."""
    body = ("# Contributing\n\n## Contents\n\n* [Issues](#issues)\n"
            "* [Developer's Certificate of Origin 1.1](#developers-certificate-of-origin-11)\n"
            "\n## Issues\n\n* [Asking for help](./issues.md#help)\n"
            "* [Filing a bug](./issues.md#bugs)\n\n"
            "## Developer's Certificate of Origin 1.1\n\n"
            "* [Origin](#origin) says where the code came from\n* [Right](#right)\n")
    text = _text(body, "CONTRIBUTING.md")
    assert "- Issues" not in text and "- Developer's Certificate" not in text
    assert "- Asking for help\n- Filing a bug" in text
    assert "- Origin says where the code came from" in text
