"""GitHub-style slugs for Markdown anchors, and how anchors are inherited."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.ingest import load_bytes
from citewise.ingest.slug import Slugger, slugify


@pytest.mark.parametrize("heading,slug", [
    ("Parental leave", "parental-leave"),
    ("What's new in 4.3?", "whats-new-in-43"),
    ("Hotels & Meals", "hotels--meals"),
    ("snake_case and kebab-case", "snake_case-and-kebab-case"),
    ("Café — “quoted”", "café--quoted"),
    ("  Trim me  ", "trim-me"),
])
def test_slugify(heading, slug):
    assert slugify(heading) == slug


def test_duplicates_get_numbered_suffixes():
    slugger = Slugger()
    assert [slugger.slug(t) for t in ("Setup", "Setup", "Setup-1", "Setup", "🚀")] == [
        "setup", "setup-1", "setup-1-1", "setup-2", None]


def test_markdown_heading_without_slug_inherits_the_enclosing_anchor(check_offsets):
    parsed = load_bytes("# Guide\n\n## 🚀\n\nText.\n".encode(), Path("g.md"))
    check_offsets(parsed)
    assert [b.anchor for b in parsed.blocks] == ["guide", "guide", "guide"]


def test_html_anchor_does_not_leak_out_of_its_section():
    html = (b"<section id=intro><h1>Top</h1><p>a</p></section>"
            b"<section><h2>B</h2><p>b</p></section><h2 id=c>C</h2><h3>D</h3><p>d</p>")
    parsed = load_bytes(html, Path("x.html"))
    assert [(b.text, b.anchor) for b in parsed.blocks] == [
        ("Top", "intro"), ("a", "intro"), ("B", None), ("b", None),
        ("C", "c"), ("D", "c"), ("d", "c")]


def test_markdown_heading_named_by_an_empty_html_anchor_takes_its_id(check_offsets):
    """Rust's releases.md puts ``<a id="1.95-Compiler"></a>`` before each of its 200
    "Compiler" headings: that id is the section's link, not a renderer-numbered slug."""
    md = ('<a id="1.95-Language"></a>\n\nLanguage\n--------\n- a\n\n'
          '<a id="1.95-Compiler"></a>\nCompiler\n--------\n- b\n\n'
          'Compiler\n--------\nc\n\n## <a name="x-y"></a>Inline\nd\n\n'
          '<a id="lost"></a>\n\nA paragraph in between.\n\n## After\ne\n')
    parsed = load_bytes(md.encode(), Path("releases.md"))
    check_offsets(parsed)
    assert [(b.text, b.anchor) for b in parsed.blocks] == [
        ("Language", "1.95-Language"), ("- a", "1.95-Language"),
        ("Compiler", "1.95-Compiler"), ("- b", "1.95-Compiler"),
        ("Compiler", "compiler-1"), ("c", "compiler-1"),
        ("Inline", "x-y"), ("d", "x-y"),
        ("A paragraph in between.", "x-y"), ("After", "after"), ("e", "after")]
