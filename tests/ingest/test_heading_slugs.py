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
