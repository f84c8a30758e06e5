"""Placeholder pages: many pages of a folder with one body under their old titles (the Rust
book's retired editions, "The second edition of the book is no longer distributed…") are
indexed once; pages whose title is their subject (the unstable book's undocumented features)
are all indexed, and no reader loses the text to a page restricted to others."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from tests.ingest.test_doc_sites import TOPICS, build, ingest_cli, skipped_copies

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder

CHAPTERS = [("ch00-foreword", "Foreword"), ("ch03-variables", "Variables and Mutability"),
            ("ch08-vectors", "Storing Lists of Values with Vectors"),
            ("ch13-iterators", "Processing a Series of Items with Iterators"),
            ("ch15-04-rc", "Rc<T>, the Reference Counted Smart Pointer"),
            ("ch16-threads", "Using Threads to Run Code Simultaneously")]


def page(slug: str, title: str, body: str) -> str:
    """An mdBook page as the Rust book ships it: chrome, the chapter's heading, ``body``."""
    title = escape(title)
    return f"""<!DOCTYPE HTML><html lang="en"><head><title>{title} - The Widget Book</title>
</head><body><nav id="mdbook-sidebar" class="sidebar"><ol class="chapter"><li>
<a href="intro.html">Introduction</a></li></ol></nav><div id="mdbook-content" class="content">
<main><h2 id="{slug}"><a class="header" href="#{slug}">{title}</a></h2>{body}</main>
<nav class="nav-wrapper" aria-label="Page navigation"><a rel="next">Next chapter</a></nav>
</div></body></html>"""


def retired(slug: str, title: str) -> str:
    return page(slug, title, "<p>The second edition of the book is no longer distributed with "
                "Widget's documentation.</p><p>If you came here via a link or web search, you "
                f"may want to check out <a href='../{slug}.html'>the current version of the "
                "book</a> instead.</p>")


def site_with_old_edition(tmp_path: Path) -> Path:
    site = build(tmp_path, "mdbook")
    (site / "second-edition").mkdir()
    for slug, title in CHAPTERS:
        (site / "second-edition" / f"{slug}.html").write_text(retired(slug, title))
    return site


def documents(db: Path) -> dict[str, list[str]]:
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        return {d.doc_id: sorted(d.acl_groups)
                for d in engine.store.list_documents()}


def test_a_retired_editions_placeholder_pages_are_indexed_once(tmp_path: Path,
                                                               monkeypatch) -> None:
    """The Rust book ships its retired editions as 259 pages, each its old chapter's heading
    over "The second edition of the book is no longer distributed…": 46% of the book's
    documents, and a new user's first two hits for "Rc reference counted smart pointer".
    One is indexed (the first in path order); the others are listed with the duplicates."""
    site = site_with_old_edition(tmp_path)
    ingest = ingest_cli(tmp_path / "i.db", monkeypatch)
    out = ingest(str(site), "--groups", "public")
    assert out.exit_code == 0, out.output
    assert skipped_copies(5, "second-edition/ch03-variables.html = "
                          "second-edition/ch00-foreword.html") in out.output
    assert set(documents(tmp_path / "i.db")) == {f"{slug}.html" for slug, _, _ in TOPICS} | {
        "second-edition/ch00-foreword.html"}
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["duplicates"] == [{"path": f"second-edition/{slug}.html",
                                     "page": "second-edition/ch00-foreword.html"}
                                    for slug, _ in CHAPTERS[1:]]


def test_a_placeholder_restricted_to_other_readers_keeps_one_for_everyone(
        tmp_path: Path, monkeypatch) -> None:
    """A sidecar gives the first placeholder (in path order) to staff: the batch's public
    readers keep one of their own, the first public one, and the staff page stays too (as
    a duplicate whose sidecar gives it other readers stays: a review)."""
    site = site_with_old_edition(tmp_path)
    side = tmp_path / "meta.jsonl"
    side.write_text(json.dumps({"path": "second-edition/ch00-foreword.html",
                                "groups": ["staff"]}) + "\n")
    ingest = ingest_cli(tmp_path / "i.db", monkeypatch)
    listed = json.loads(ingest(str(site), "--groups", "public", "--meta", str(side),
                               "--json").output)
    assert listed["duplicates"] == [{"path": f"second-edition/{slug}.html",
                                     "page": "second-edition/ch03-variables.html"}
                                    for slug, _ in CHAPTERS[2:]]
    old = {k: v for k, v in documents(tmp_path / "i.db").items() if "edition" in k}
    assert old == {"second-edition/ch00-foreword.html": ["staff"],
                   "second-edition/ch03-variables.html": ["public"]}


def test_pages_named_by_their_titles_are_all_indexed(tmp_path: Path, monkeypatch) -> None:
    """The unstable book's features folder holds 66 pages "This feature has no tracking
    issue…", each named by its feature (13% of the folder), and 16 of 22 environment
    variables' pages say "This environment variable has no documentation…": which feature
    or variable is the page's subject, so every one is indexed. Four pages with one text
    fill a folder of their own: too few to be placeholders."""
    site = build(tmp_path, "mdbook")
    (site / "features").mkdir()
    (site / "variables").mkdir()
    stub = "<p>This feature has no tracking issue, and is therefore internal.</p>"
    for name in ["alloc_internals", "fmt_internals", "libstd_sys_internals", "rt", "sort_internals",
                 "derive_eq"]:
        (site / "features" / f"{name}.html").write_text(page(name, name, stub))
    for name in ["box_patterns", "never_type", "try_blocks"]:
        (site / "features" / f"{name}.html").write_text(page(name, name, f"<p>{name} is "
                                                             f"documented at length.</p>"))
    for name in ["RUSTC_BLESS", "RUSTC_LOG", "RUSTC_ICE", "RUSTC_BOOTSTRAP"]:
        (site / "variables" / f"{name}.html").write_text(page(
            name, name, "<p>This environment variable has no documentation.</p>"))
    ingest = ingest_cli(tmp_path / "i.db", monkeypatch)
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["duplicates"] == [] and listed["new"] == len(TOPICS) + 13, listed
