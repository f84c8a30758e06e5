"""Site boilerplate found by repetition across a batch's pages, and removed with offsets kept."""

from __future__ import annotations

from citewise.ingest.boilerplate import profile, strip
from citewise.ingest.builder import DocumentBuilder
from citewise.types import ParsedDocument


def page(title: str, body: str, extra_heading: bool = True):
    b = DocumentBuilder()
    b.heading("Acme Docs", 1)  # the site title, on every page
    b.add("text", "Edit this page")
    b.heading(title, 1)
    b.add("text", body)
    if extra_heading:
        b.heading("Parameters", 2)
        b.add("text", f"{title} takes one parameter.")
    b.heading("Keyboard shortcuts", 2)
    b.add("text", "Press ? to show this help")
    return b.build(title=f"{title} - Acme Docs", fmt="html")


def test_repeated_chrome_goes_content_stays_and_offsets_hold() -> None:
    pages = [page(t, f"{t} body text.") for t in ("Alpha", "Beta", "Gamma", "Delta")]
    site = profile(pages)
    assert {"Acme Docs", "Edit this page", "Press ? to show this help"} <= site.blocks
    assert site.suffix == " - Acme Docs"
    out = strip(pages[0], site)
    assert out.title == "Alpha"
    texts = [b.text for b in out.blocks]
    assert texts == ["Alpha", "Alpha body text.", "Parameters", "Alpha takes one parameter."]
    for block in out.blocks:
        assert out.text[block.start:block.end] == block.text
        assert "Acme Docs" not in block.heading_path
    assert out.blocks[-1].heading_path == ("Alpha", "Parameters")


def test_small_batches_and_redirects_are_left_alone() -> None:
    pages = [page(t, "x") for t in ("A", "B")]
    assert profile(pages).empty
    assert strip(pages[0], profile(pages)) is pages[0]


def test_a_manual_title_in_parentheses_after_every_page_title_is_cut() -> None:
    manual = " (libffi: the portable foreign function interface library)"
    pages = []
    for title in ("Simple Example", "Structures", "Closure Example (C)"):
        b = DocumentBuilder()
        b.heading(title, 2)
        b.add("text", f"{title} body text.")
        pages.append(b.build(title=title + manual, fmt="html"))
    site = profile(pages)
    assert site.suffix == manual
    assert [strip(p, site).title for p in pages] == ["Simple Example", "Structures",
                                                     "Closure Example (C)"]
    one = [page(t, "x") for t in ("Alpha (v1)", "Beta (v2)", "Gamma (v3)")]
    assert profile(one).suffix == " - Acme Docs"  # a parenthesis of each its own is kept


def _menu_page(title: str, menu: str, note: str = "Returns 0 on success."):
    b = DocumentBuilder()
    b.heading(title, 1)
    b.add("list", menu)
    b.add("text", f"{title} does one thing.")
    b.add("text", note)
    return b.build(title=title, fmt="html")


def test_a_menu_one_folder_repeats_goes_its_prose_stays() -> None:
    """libxslt's old site: one menu on its top pages, another on its html/ API pages, each
    on less than half of the batch's pages."""
    top, api = "- Home\n- FAQ\n- News", "- API Menu\n- Main Menu\n- ChangeLog"
    pages = ([_menu_page(f"Top {i}", top, f"Top page {i}.") for i in range(3)]
             + [_menu_page(f"Api {i}", api) for i in range(4)]
             + [_menu_page(f"Step {i}", f"- Step {i}", f"Tutorial step {i}.") for i in range(3)])
    folders = ["."] * 3 + ["html"] * 4 + ["tutorial"] * 3
    site = profile(pages, folders)
    assert {top, api} <= site.blocks
    assert "Returns 0 on success." not in site.blocks  # prose an API folder repeats stays
    assert [b.text for b in strip(pages[3], site).blocks] == [
        "Api 0", "Api 0 does one thing.", "Returns 0 on success."]
    assert not {top, api} & profile(pages).blocks  # one folder: under half of the batch


def test_a_banner_above_the_first_heading_of_a_folders_pages_goes() -> None:
    """A new user of SQLite's documentation: "SQLite C Interface" (a link to the API's
    introduction above the first heading of its 350 C API pages, under half of the batch)
    was a chunk of its own 209 times. Text after a heading stays, and a page with no
    heading keeps its lead."""
    def api_page(name: str, lead: str = "SQLite C Interface") -> ParsedDocument:
        b = DocumentBuilder()
        b.add("text", lead)
        b.heading(name, 2)
        b.add("text", f"{name} opens a database.")
        b.add("text", "Returns 0 on success.")
        return b.build(title=name, fmt="html")

    def plain(i: int) -> ParsedDocument:
        b = DocumentBuilder()
        b.add("text", "SQLite C Interface")
        return b.build(title=f"Note {i}", fmt="html")

    pages = ([api_page(f"sqlite3_f{i}") for i in range(4)]
             + [_menu_page(f"Top {i}", f"- Item {i}", f"Top page {i}.") for i in range(6)])
    folders = ["c3ref"] * 4 + ["."] * 6
    site = profile(pages, folders)
    assert "SQLite C Interface" in site.blocks
    assert "Returns 0 on success." not in site.blocks
    assert [b.text for b in strip(pages[0], site).blocks] == [
        "sqlite3_f0", "sqlite3_f0 opens a database.", "Returns 0 on success."]
    notes = profile([plain(i) for i in range(4)] + pages[4:], ["notes"] * 4 + ["."] * 6)
    assert "SQLite C Interface" not in notes.blocks  # no heading: the pages' own text


def test_a_label_a_page_repeats_under_its_sections_is_content() -> None:
    """Node's API pages say "Stability: 2 - Stable" under each function that is, on most
    pages: it was taken for chrome and dropped from every page, and "Is node:test stable?"
    was answered from another page; "- <string>", the type under each, went as a menu when
    one page was ingested with its neighbours. Chrome is drawn once per page."""
    pages = []
    for name, functions in (("fs", 2), ("os", 2), ("test", 1), ("url", 1)):
        b = DocumentBuilder()
        b.add("text", "Skip to content")
        b.heading(name, 1)
        for i in range(functions):
            b.heading(f"{name}.f{i}()", 2)
            b.add("text", "Stability: 2 - Stable")
            b.add("list", "- <string>")  # its type: a list, as a menu is
            b.add("text", f"{name}.f{i} does a thing.")
        pages.append(b.build(title=name, fmt="html"))
    site = profile(pages)
    assert site.blocks == {"Skip to content"}
    assert [b.text for b in strip(pages[2], site).blocks] == [
        "test", "test.f0()", "Stability: 2 - Stable", "- <string>", "test.f0 does a thing."]
    footer = []  # one page drawing its footer twice (a review) does not make it content
    for name in ("a", "b", "c", "d"):
        b = DocumentBuilder()
        b.add("text", f"{name} says something of its own.")
        b.add("text", "Copyright 2024 Acme Corp.")
        if name == "a":
            b.add("text", "Copyright 2024 Acme Corp.")
        footer.append(b.build(title=name, fmt="html"))
    assert profile(footer).blocks == {"Copyright 2024 Acme Corp."}


def test_pages_other_readers_read_make_no_boilerplate_of_a_page(tmp_path) -> None:
    """A security review: three contractors-only notes, each repeating a sentence of the
    staff leave policy, made it boilerplate of the folder and removed it from the policy,
    so staff were answered from a planted page's "two weeks, unpaid" alone. A page's
    boilerplate is what pages its own readers read repeat."""
    from citewise.engine import Engine
    from citewise.ingest.sidecar import read_sidecar
    from citewise.testing import FakeEmbedder
    from citewise.types import Principal

    docs = tmp_path / "html"
    docs.mkdir()
    sentence = "Parental leave is sixteen weeks at full pay."
    (docs / "policy.html").write_text(f"<title>Leave policy</title><h1>Leave policy</h1>"
                                      f"<p>{sentence}</p><p>Annual leave is 25 days.</p>")
    (docs / "evil.html").write_text("<title>Leave</title><p>Parental leave is two weeks.</p>")
    for i in (1, 2, 3):
        (docs / f"note{i}.html").write_text(f"<title>Note {i}</title><h1>Note {i}</h1>"
                                            f"<p>{sentence}</p><p>Lunch note {i}.</p>")
    meta = tmp_path / "meta.jsonl"
    meta.write_text("".join(f'{{"path": "note{i}.html", "groups": ["contractors"]}}\n'
                            for i in (1, 2, 3)))
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"groups": ["staff"]}, read_sidecar(meta))
        shown = engine.section("policy.html", Principal.of("staff"), None)
        assert sentence in "\n".join(b.text for b in shown.blocks)


def test_a_page_restricted_alone_keeps_the_sites_title_suffix_cut(tmp_path) -> None:
    """A new user restricted one page of the rustdoc book to a group of its own: its
    readers' pages were too few to find the title suffix, so it was retitled "Unstable
    features - The rustdoc book" and every chunk embedded again. A title's affix is the
    batch's."""
    from citewise.engine import Engine
    from citewise.ingest.sidecar import read_sidecar
    from citewise.testing import FakeEmbedder

    docs = tmp_path / "book"
    docs.mkdir()
    for name in ("intro", "lints", "tests", "unstable"):
        (docs / f"{name}.html").write_text(f"<title>{name.title()} - The rustdoc book</title>"
                                           f"<h1>{name.title()}</h1><p>About {name}.</p>")
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"path": "unstable.html", "groups": ["core"]}\n')
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"groups": ["staff"]}, read_sidecar(meta))
        titles = {d.doc_id: d.title for d in engine.store.list_documents()}
    assert titles == {"intro.html": "Intro", "lints.html": "Lints", "tests.html": "Tests",
                      "unstable.html": "Unstable"}


def test_a_paragraph_other_pages_repeat_stays_on_its_page(tmp_path) -> None:
    """Stop 63's security review: three pages of the same readers repeating a policy's
    sentence made it boilerplate and removed it from the policy page, leaving readers the
    copies' "every 5 days". A repeated paragraph is content; chrome is short lines."""
    from citewise.engine import Engine
    from citewise.testing import FakeEmbedder
    from citewise.types import Principal

    docs = tmp_path / "html"
    docs.mkdir()
    sentence = ("Employees must rotate their VPN password every 90 days using the "
                "self-service portal.")
    (docs / "policy.html").write_text(f"<title>Policy</title><h1>Policy</h1><p>{sentence}</p>"
                                      "<p>The portal sends a reminder a week before.</p>")
    for i in (1, 2, 3):
        (docs / f"team{i}.html").write_text(
            f"<title>Team {i}</title><h1>Team {i}</h1><p>{sentence}</p><p>VPN passwords must "
            f"now be rotated every 5 days (team {i}).</p>")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([docs], {"groups": ["staff"]})
        shown = engine.section("policy.html", Principal.of("staff"), None)
        assert sentence in "\n".join(b.text for b in shown.blocks)


def test_prose_is_two_sentences_or_a_long_one_and_chrome_is_short_lines() -> None:
    from citewise.ingest.boilerplate import is_prose

    assert not is_prose("Copyright 2008-2020 Rainer Gerhards (Großrinderfeld), and Others.")
    assert not is_prose("Edit this page") and not is_prose("The XSLT C library for GNOME")
    assert not is_prose("Copyright 2026 The Apache Software Foundation. Licensed under the "
                        "Apache License, Version 2.0.")  # the review of this stop
    assert is_prose("Exit status of 0 means successful operation. Any other exit status "
                    "indicates an error.")  # Knot DNS's man pages: content they all repeat


def test_a_box_title_left_with_nothing_under_it_goes_with_its_box() -> None:
    """A new user of rsyslog's documentation: every page ends in two "See also" boxes of the
    site's help and contributing links; the boxes went as boilerplate, their titles (two on
    each page: content by the twice rule) stayed, and 315 chunks ended "See also See also"."""
    def rsyslog(title: str) -> ParsedDocument:
        b = DocumentBuilder()
        b.heading(title, 1)
        b.add("text", f"{title} forwards messages.")
        if title == "omfwd":  # one page's own label, under which its sample stays
            b.add("text", "Sample:")
            b.add("code", f'action(type="{title}")')
            b.add("text", "$DirOwner loguser")
        for links in ("- Mailing list\n- GitHub", "- Source project\n- Documentation"):
            b.add("text", "See also")
            b.add("list", links)
        return b.build(title=title, fmt="html")

    pages = [rsyslog(t) for t in ("omfwd", "omfile", "imudp", "imtcp")]
    out = strip(pages[0], profile(pages))
    assert [b.text for b in out.blocks] == ["omfwd", "omfwd forwards messages.", "Sample:",
                                            'action(type="omfwd")', "$DirOwner loguser"]
