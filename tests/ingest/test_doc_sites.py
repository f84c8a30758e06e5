"""Citations a person can open, on documentation sites built by four generators (tiny
synthetic pages that reproduce each generator's chrome; the real sites are checked by
test_doc_sites_real.py): links from --base-url, anchors at the section that holds the text and
never on navigation chrome, site boilerplate not indexed, redirect stubs skipped."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.types import Principal

BASE = "https://docs.example.com/widget/"
READER = Principal.of("public")
TOPICS = [("install", "Installing",
           "Widgets install with the quartz installer in ninety seconds."),
          ("config", "Configuration", "The frobnication level defaults to seven in config files."),
          ("logging", "Logging", "Log files rotate at midnight and keep fourteen generations."),
          ("errors", "Errors", "Error WX-17 means the spindle is misaligned and must be reset.")]


def mdbook(slug: str, title: str, body: str) -> str:
    return f"""<!DOCTYPE HTML><html><head><title>{title} - The Widget Book</title></head><body>
<div id="body-container"><nav id="mdbook-sidebar" class="sidebar"><ol class="chapter">
<li><a href="intro.html">Introduction</a></li><li><a href="appendix.html">Appendix</a></li>
</ol></nav><div id="mdbook-page-wrapper" class="page-wrapper"><div class="page">
<div id="mdbook-menu-bar" class="menu-bar sticky"><button>Toggle Table of Contents</button>
<h1 class="menu-title">The Widget Book</h1><a href="print.html">Print this book</a></div>
<div id="mdbook-content" class="content"><main>
<p>Welcome to this chapter of the manual; the sections below explain {title.lower()}.</p>
<h1 id="{slug}"><a class="header" href="#{slug}">{title}</a></h1><p>{body}</p>
<h2 id="{slug}-notes"><a class="header" href="#{slug}-notes">Notes</a></h2>
<p>Notes about {title.lower()} for operators.</p>
<p><a href="https://github.com/example/widget/edit/main/{slug}.md">Edit this page on GitHub</a>
</p>
</main><nav class="nav-wrapper" aria-label="Page navigation"><a rel="next">Next chapter</a></nav>
</div></div></div></body></html>"""


def sphinx(slug: str, title: str, body: str) -> str:
    return f"""<!DOCTYPE html><html><head><title>{title} &#8212; Widget 1.0 documentation</title>
</head><body><div class="related" role="navigation"><h3>Navigation</h3><ul><li>
<a href="genindex.html">index</a></li><li>Widget 1.0 documentation &#187;</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
<div class="body" role="main"><section id="{slug}">
<h1>{title}<a class="headerlink" href="#{slug}" title="Link to this heading">¶</a></h1>
<p>{body}</p><div class="toctree-wrapper compound"><ul><li class="toctree-l1">
<a class="reference internal" href="advanced.html">Advanced topics</a></li></ul></div>
<section id="see-also"><h2>See also<a class="headerlink" href="#see-also">¶</a></h2>
<p>More about {title.lower()} in the reference.</p></section></section></div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Quick search</h3><p>Widget is a library for
widgets.</p></div></div><div class="footer">&#169;Copyright 2026, Widget Team. Created using
Sphinx 7.2.6.</div></body></html>"""


def docbook(slug: str, title: str, body: str) -> str:
    return f"""<html><head><title>Chapter 1. {title}</title>
<meta name="generator" content="DocBook XSL Stylesheets Vsnapshot"></head><body>
<div><table class="nav" width="100%" summary="Navigation header"><tr><td><a href="index.html">
<img alt="Prev"></a></td><th align="center">Widget User Manual</th><td><img alt="Next"></td>
</tr></table></div><div class="chapter"><div class="titlepage"><div><div><h1 class="title">
<a name="{slug}"></a>1. {title}</h1></div></div></div><div class="toc"><p><b>Table of
Contents</b></p><dl class="toc"><dt><a href="#{slug}.more">1.1. More</a></dt></dl></div>
<p>{body}</p><div class="sect1"><div class="titlepage"><h2 class="title">
<a name="{slug}.more"></a>1.1. More</h2></div><p>More on {title.lower()}.</p></div></div>
<div><br><table class="nav" width="100%" summary="Navigation footer"><tr><td>Home</td>
<td>Widget User Manual</td></tr></table></div></body></html>"""


def texinfo(slug: str, title: str, body: str) -> str:
    return f"""<!DOCTYPE html><html><head><title>{title} (Widget Manual)</title>
<meta name="generator" content="makeinfo"></head><body lang="en">
<div class="section" id="{title}"><div class="header"><p>Next: <a href="x.html" accesskey="n"
rel="next">Next node</a>, Up: <a href="index.html" rel="up">Top</a> &nbsp; [<a href="Index.html"
title="Index" rel="index">Index</a>]</p></div><hr>
<span id="{slug}-1"></span><h3 class="section">2.1 {title}</h3><p>{body}</p>
<ul class="section-toc"><li><a href="sub.html">Subsection</a></li></ul></div></body></html>"""


STUB = ('<html><head><meta http-equiv="Refresh" content="0; url={to}"></head><body><p>The node '
        'you are looking for is at <a href="{to}">{to}</a>.</p></body></html>')
GENERATORS = {"mdbook": (mdbook, ["The Widget Book", "Toggle Table", "Print this book",
                                  "Edit this page", "Next chapter", "Appendix"]),
              "sphinx": (sphinx, ["Navigation", "¶", "Quick search", "Copyright",
                                  "Widget 1.0 documentation", "index", "Advanced topics"]),
              "docbook": (docbook, ["Widget User Manual", "Table of", "Prev", "Home"]),
              "texinfo": (texinfo, ["Next node", "Up:", "Index]", "Subsection"])}


def build(tmp_path: Path, name: str) -> Path:
    make = GENERATORS[name][0]
    site = tmp_path / name
    site.mkdir()
    for slug, title, body in TOPICS:
        (site / f"{slug}.html").write_text(make(slug, title, body))
    (site / "old-install.html").write_text(STUB.format(to="install.html#install"))
    return site


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_citations_open_the_section_and_chrome_is_not_indexed(tmp_path: Path, name: str) -> None:
    site = build(tmp_path, name)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([site], {"groups": ["public"]}, base_url=BASE)
        assert report.redirects == [("old-install.html", "install.html#install")]
        assert report.count("new") == len(TOPICS)
        for doc in engine.store.list_documents():
            parsed = engine.store.get_parsed(doc.doc_id)
            assert doc.source_url == BASE + doc.doc_id
            shown = " ".join([doc.title, parsed.text,
                              *(h for b in parsed.blocks for h in b.heading_path)])
            for chrome in GENERATORS[name][1]:
                assert chrome not in shown, (doc.doc_id, chrome, shown[:300])
            assert any(t in doc.title for _, t, _ in TOPICS), doc.title
        for slug, _, body in TOPICS:
            hit = engine.search(body, READER, mode="bm25", top_k=1).hits[0]
            assert hit.document.doc_id == f"{slug}.html" and body in hit.chunk.text
            anchor = hit.chunk.anchor
            assert anchor is not None and "menu" not in anchor and "content" not in anchor
            assert hit.source == f"{BASE}{slug}.html#{anchor}"
            html = (site / f"{slug}.html").read_text()
            assert f'id="{anchor}"' in html or f'name="{anchor}"' in html
            # the anchor's element comes before the quoted text and after the page chrome
            assert html.index(f'"{anchor}"') < html.index(body)


def test_a_cited_glossary_entry_opens_at_that_entry(tmp_path: Path) -> None:
    """A glossary's entries are small sections the chunker merges; a citation of the second
    entry was linked to the first (the embedded book's HAL cited as ``glossary.html#fpu``)."""
    entries = "".join(f'<h2 id="{slug}"><a class="header" href="#{slug}">{name}</a></h2>'
                      f"<p>{text}</p>" for slug, name, text in [
                          ("fpu", "FPU", "Floating-point unit: a math processor."),
                          ("hal", "HAL", "A hardware abstraction layer crate gives a "
                                         "friendly API to the spindle's peripherals."),
                          ("pac", "PAC", "A peripheral access crate.")])
    site = tmp_path / "book"
    site.mkdir()
    (site / "glossary.html").write_text(mdbook("glossary", "Glossary", "Terms we use.").replace(
        '<h2 id="glossary-notes"', entries + '<h2 id="glossary-notes"'))
    gen = FakeGenerator("A HAL crate gives a friendly API to the spindle's peripherals "
                        "[{sid:hardware abstraction}].")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]}, base_url=BASE)
        (hit,) = [h for h in engine.search("HAL abstraction layer", READER, mode="bm25").hits
                  if "hardware abstraction" in h.chunk.text]
        assert hit.chunk.anchor == "fpu" and len(hit.chunk.sections) > 1  # entries merged
        answer = engine.ask("What does a HAL crate give?", READER, generator=gen)
    assert answer.outcome == "answered", answer.notes
    (c,) = answer.citations
    assert "hardware abstraction layer" in c.quote
    assert (c.source, c.heading_path[-1]) == (f"{BASE}glossary.html#hal", "HAL")


def test_a_page_that_became_a_redirect_stub_is_named_for_deletion(tmp_path: Path) -> None:
    """The site moved a page: its old content is no longer at that path, so the re-ingest
    says it is still indexed and names the command that removes it."""
    site = build(tmp_path, "sphinx")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]})
        (site / "config.html").write_text(STUB.format(to="settings.html"))
        report = engine.ingest_paths([site], {"groups": ["public"]})
        assert ("config.html", "settings.html") in report.redirects
        stale = [w for w in report.warnings if "still indexed" in w]
        assert len(stale) == 1 and stale[0].endswith("Fix: citewise delete config.html")
        engine.delete(["config.html"])
        again = engine.ingest_paths([site], {"groups": ["public"]})
        assert not [w for w in again.warnings if "still indexed" in w]


def test_text_above_the_first_heading_is_not_anchored_to_chrome(tmp_path: Path) -> None:
    site = build(tmp_path, "mdbook")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]})
        parsed = engine.store.get_parsed("install.html")
        doc = engine.store.get_document("install.html")
    intro = next(b for b in parsed.blocks if b.text.startswith("Welcome"))
    assert intro.anchor is None  # the top of the page, not #mdbook-menu-bar
    assert doc.source_url == (site / "install.html").resolve().as_uri()  # a link that opens


def skipped_copies(count: int, example: str) -> str:
    """The ingest's line for ``count`` pages left out as copies, ending on ``example``."""
    return (f"skipped {count} page(s) with the same text as a page it indexed (a generator's "
            "index.html, an untranslated copy, or a placeholder many pages of a folder share, "
            f"as a retired edition's), e.g. {example}")


def ingest_cli(db: Path, monkeypatch) -> Callable[..., Result]:
    """``citewise ingest ARGS --db db`` through the CLI, on the fake embedder."""
    from click.testing import CliRunner

    from citewise.cli import ingest as ingest_module
    from citewise.cli.main import cli

    monkeypatch.setattr(ingest_module, "engine_from", lambda *a, **k: Engine(
        db, Settings(), embedder=FakeEmbedder()))
    return lambda *args: CliRunner().invoke(cli, ["ingest", *args, "--db", str(db)])


def test_ingest_cli_base_url_and_redirect_report(tmp_path: Path, monkeypatch) -> None:
    import json

    site = build(tmp_path, "sphinx")
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    result = ingest(str(site), "--groups", "public", "--base-url", BASE + "{stem}/", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["redirects"] == [{"path": "old-install.html", "to": "install.html#install"}]
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert engine.store.get_document("config.html").source_url == BASE + "config/"
    for base in ("docs", "javascript://docs/%0aalert(1)"):
        bad = ingest(str(site), "--base-url", base)
        assert bad.exit_code == 2 and "is not an http(s):// or file:// URL" in bad.output


def test_pages_marked_noindex_are_skipped_unless_named(tmp_path: Path, monkeypatch) -> None:
    """mdBook's print.html is the whole book again on one page, marked noindex for search
    engines (as is its toc.html); a folder's ingest skips it and says so."""
    import json

    site = build(tmp_path, "mdbook")
    book = " ".join(f"<h1 id='{slug}'>{title}</h1><p>{body}</p>" for slug, title, body in TOPICS)
    (site / "print.html").write_text(f'<html><head><meta name="robots" content="noindex">'
                                     f"<title>The Widget Book</title></head><body>{book}"
                                     "</body></html>")
    (site / "search.html").write_text('<html><head><meta name="ROBOTS" content="NoIndex, '
                                      'nofollow"></head><body><p>Searching.</p></body></html>')
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    out = ingest(str(site), "--groups", "public")
    assert out.exit_code == 0, out.output
    assert ("skipped 2 page(s) marked noindex (<meta name=robots>, as mdBook marks its "
            "print.html), a site's 404, search or cross-reference page, Sphinx's highlighted "
            "source (_modules/), or a page that repeats the others whole (as Node's all.html), "
            "e.g. print.html; name one to ingest it") \
        in out.output
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["noindex"] == ["print.html", "search.html"]
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        ids = {d.doc_id for d in engine.store.list_documents()}
        assert ids == {f"{slug}.html" for slug, _, _ in TOPICS}
        for _, _, body in TOPICS:  # each fact once, from its chapter
            hits = engine.search(body, READER, mode="bm25", top_k=10).hits
            assert [h.document.doc_id for h in hits if body in h.chunk.text] == \
                [hits[0].document.doc_id]
    named = ingest(str(site / "print.html"), "--groups", "public")
    assert named.exit_code == 0 and "1 new" in named.output, named.output


def test_a_single_page_edition_of_the_site_is_skipped_unless_named(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """Node's API docs ship all.html, every module page again on one page and not marked
    noindex: indexed, it was half the index and took search hits (and citations into an
    8 MB page) from the module pages. A page much like it that adds its own text stays."""
    import json

    site = tmp_path / "api"
    site.mkdir()
    modules = {name: [f"The {name} module's function number {i} returns a value of its own."
                      for i in range(20)] for name in ("fs", "os", "url", "zlib")}
    for name, texts in modules.items():
        body = "".join(f"<h2 id='{name}{i}'>{name}.f{i}()</h2><p>{t}</p>"
                       for i, t in enumerate(texts))
        (site / f"{name}.html").write_text(f"<html><head><title>{name}</title></head>"
                                           f"<body><h1>{name}</h1>{body}</body></html>")
    every = "".join(f"<p>{t}</p>" for texts in modules.values() for t in texts)
    (site / "all.html").write_text(f"<html><body><h1>All</h1>{every}</body></html>")
    own = "".join(f"<p>{t}</p><p>A note of the guide's own, number {i}, on this.</p>"
                  for i, t in enumerate(modules["fs"]))
    (site / "guide.html").write_text(f"<html><body><h1>Guide</h1>{own}</body></html>")
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    out = ingest(str(site), "--groups", "public")
    assert out.exit_code == 0 and "e.g. all.html; name one to ingest it" in out.output, \
        out.output
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["noindex"] == ["all.html"]
    named = ingest(str(site / "all.html"), "--groups", "public")
    assert named.exit_code == 0 and "1 new" in named.output, named.output
    versions = tmp_path / "versions"
    for v in range(1, 7):
        (versions / f"v{v}").mkdir(parents=True)
        body = "".join(f"<p>{t}</p>" for t in modules["fs"] + modules["os"] + modules["url"]
                       + modules["zlib"][:v * 3])
        (versions / f"v{v}" / "guide.html").write_text(f"<html><body>{body}</body></html>")
    for i in range(8):  # other pages, so the guide's text is not on half the batch
        (versions / f"page{i}.html").write_text(f"<html><body><p>Page {i} of its own.</p>"
                                                "</body></html>")
    listed = json.loads(ingest(str(versions), "--groups", "public", "--json").output)
    assert listed["noindex"] == [] and listed["new"] == 14, listed


def test_a_page_twice_and_the_404_page_are_indexed_once(tmp_path: Path, monkeypatch) -> None:
    """mdBook writes its first chapter twice (``index.html`` and the chapter's page) and a
    ``404.html`` ("Document not found"); untranslated pages of a translation repeat the
    original. Each text is indexed once, at the page a reader is sent to, and a sidecar that
    gives the copy other readers keeps it."""
    import json

    site = build(tmp_path, "mdbook")
    (site / "index.html").write_text(mdbook(*TOPICS[0]))
    (site / "es").mkdir()
    (site / "es" / "errors.html").write_text(  # declared Spanish, the text untranslated
        mdbook(*TOPICS[3]).replace("<html>", "<html lang='es'>"))
    (site / "404.html").write_text(mdbook("not-found", "Document not found (404)", "This URL is "
                                          "invalid, sorry. Please use the navigation bar."))
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    out = ingest(str(site), "--groups", "public")
    assert out.exit_code == 0, out.output
    assert skipped_copies(2, "es/errors.html = errors.html; name one to ingest it") \
        in out.output
    assert "e.g. 404.html; name one to ingest it" in out.output
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert {d.doc_id for d in engine.store.list_documents()} == \
            {f"{slug}.html" for slug, _, _ in TOPICS}
    side = tmp_path / "meta.jsonl"
    side.write_text(json.dumps({"path": "index.html", "groups": ["staff"]}) + "\n")
    listed = json.loads(ingest(str(site), "--groups", "public", "--meta", str(side),
                             "--json").output)
    assert listed["duplicates"] == [{"path": "es/errors.html", "page": "errors.html"}]
    assert listed["noindex"] == ["404.html"] and listed["new"] == 1  # index.html, for staff
    named = ingest(str(site / "install.html"), str(site / "index.html"), str(site / "404.html"),
                   "--groups", "public")
    assert named.exit_code == 0 and "skipped" not in named.output, named.output
    assert "1 new" in named.output  # 404.html; index.html was indexed for staff above


@pytest.mark.parametrize("table", [
    '<table class="indextable genindextable"><tr><td><ul><li><a href="api.html#f">zqfrob() '
    '(built-in function)</a></li></ul></td></tr></table>',  # Sphinx genindex.html
    '<table class="index-cp" border="0"><tr><td><a href="api.html#f"><code>zqfrob</code></a>:'
    '</td><td><a href="api.html">The Basics</a></td></tr></table>',  # Texinfo 6 @printindex
    '<table class="cp-entries-printindex"><tr><td><a href="api.html#f">zqfrob</a></td></tr>'
    '</table>'])  # Texinfo 7
def test_a_generated_index_is_not_body_text(tmp_path: Path, table: str) -> None:
    """A back-of-book index lists every identifier with a link: retrieval ranked it for
    identifier questions and a quote of it says nothing."""
    from citewise.ingest import load_file

    page = tmp_path / "genindex.html"
    page.write_text(f"<html><body><h1>Index</h1><p>Jump to: <a class='summary-letter' "
                    f"href='#A'>A</a></p>{table}</body></html>")
    assert "zqfrob" not in load_file(page, Settings().limits).text


def test_a_site_in_several_languages_is_named_with_the_excludes_that_keep_one(
        tmp_path: Path, monkeypatch) -> None:
    """A new user's folder ingest of Rust by Example indexed 754 translated pages (``es/``,
    ``ja/``…) with 199 English ones, silently, and English questions were answered from
    Spanish and Japanese pages."""
    site = tmp_path / "book"

    def page(rel: str, lang: str, text: str) -> None:
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html lang='{lang}'><head><title>{rel}</title></head><body><main>"
                        f"<h1>{rel}</h1><p>{text}</p></main></body></html>", encoding="utf-8")

    page("index.html", "en", "Closures capture their environment.")
    page("fn/closures.html", "en-US", "Use move to take ownership of captured values.")
    page("es/index.html", "es", "Los cierres capturan su entorno.")
    page("ja/index.html", "ja", "クロージャは環境を捕捉します。")
    ingest = ingest_cli(tmp_path / "i.db", monkeypatch)
    result = ingest(str(site), "--groups", "public", "--no-progress")
    assert result.exit_code == 0, result.output
    assert ("warning: the pages are in 3 languages (en 2, es 1, ja 1): a question retrieves "
            "and quotes all of them. Fix: index one language per index, e.g. with --exclude "
            "es --exclude ja") in result.output, result.output
    one = ingest_cli(tmp_path / "j.db", monkeypatch)(
        str(site), "--groups", "public", "--no-progress", "--exclude", "es", "--exclude", "ja")
    assert one.exit_code == 0 and "languages" not in one.output, one.output


def test_the_languages_warnings_excludes_paste_as_one_word_each() -> None:
    """A review: folders named ``es docs`` and ``$(touch PWNED)`` went into the suggested
    --exclude bare; pasted, the first split in two and the second ran."""
    import shlex

    from citewise.ingest.languages import mixed_languages

    line = mixed_languages({"a.html": "en", "es docs/b.html": "es",
                            "$(touch PWNED)/c.html": "fr"})
    fix = line.split("e.g. with ", 1)[1]
    assert shlex.split(fix) == ["--exclude", "es docs", "--exclude", "$(touch PWNED)"]


def test_the_languages_warning_names_the_pages_when_languages_share_a_folder() -> None:
    """Debian's ``en/`` Apache manual holds six Portuguese pages: the warning said "--exclude
    the others' folders", which sit in the same folder as the English ones."""
    from citewise.ingest.languages import mixed_languages

    pages = {f"en/p{i}.html": "en" for i in range(20)}
    pages |= {"en/bind.html": "pt", "en/mod/index.html": "pt", "en/index.html": "en"}
    line = mixed_languages(pages)
    assert line is not None and line.endswith(
        "e.g. with --exclude bind.html --exclude en/mod/index.html")
    many = mixed_languages(pages | {f"en/x{i}.html": "pt" for i in range(9)})
    assert many is not None and many.endswith("(and 3 more pages not in en)")


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_page_reingested_alone_keeps_its_site_chrome_out(tmp_path: Path, name: str) -> None:
    """A page re-ingested on its own after an edit had no pages to find its site's chrome by:
    its title took the site's suffix again, the chrome came back into its text and every
    chunk was embedded again. Its folder's pages are compared with it now."""
    site = build(tmp_path, name)
    page = site / "logging.html"
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]})
        before = engine.store.get_document("logging.html")
        assert engine.ingest_paths([page], {"groups": ["public"]}).count("unchanged") == 1
        page.write_text(page.read_text().replace("fourteen", "twenty"))
        report = engine.ingest_paths([page], {"groups": ["public"]})
        assert report.count("changed") == 1
        doc = engine.store.get_document("logging.html")
        parsed = engine.store.get_parsed("logging.html")
        assert doc.title == before.title and "twenty generations" in parsed.text
        shown = " ".join([parsed.text, *(h for b in parsed.blocks for h in b.heading_path)])
        for chrome in GENERATORS[name][1]:
            assert chrome not in shown, (chrome, shown[:300])
        assert engine.store.count().documents == len(TOPICS)  # the neighbours are not indexed


def test_an_anchor_with_markup_is_percent_encoded_in_links_and_still_opens(tmp_path: Path):
    """A security review's page had ``id='a"><img src=x onerror=alert(1)>'`` on a heading:
    every citation's link carried the markup as written, ready for any client that builds
    ``<a href="…">`` from it."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "goggles.html").write_text(
        "<html><head><title>Goggles</title></head><body>"
        "<h1 id='a\"><img src=x onerror=alert(1)> b'>Safety goggles</h1>"
        "<p>Goggles are zqgoggle rated for splashes.</p></body></html>")
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([site], {"groups": ["public"]}, base_url=BASE)
        hit = engine.search("zqgoggle", READER, mode="bm25", top_k=1).hits[0]
        assert hit.chunk.anchor == 'a"><img src=x onerror=alert(1)> b'
        assert hit.source == BASE + "goggles.html#a%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E%20b"
        section = engine.section(hit.source, READER)
        assert section.found and "zqgoggle" in " ".join(b.text for b in section.blocks)


def test_a_page_named_alone_keeps_the_paragraphs_its_neighbours_repeat(tmp_path: Path):
    """A review: a folder of yearly versions of one policy repeats whole paragraphs; named
    on its own, policy-2025.html lost them to its (not named) neighbours. Only a title suffix
    and short lines are the neighbours' to find."""
    folder = tmp_path / "policies"
    folder.mkdir()
    rule = ("Flights longer than six hours may be booked in premium economy with a "
            "manager's approval in writing.")
    for year in (2023, 2024, 2025):
        (folder / f"policy-{year}.html").write_text(
            f"<html><head><title>Travel {year} - Acme Policies</title></head><body>"
            f"<p>Skip to content</p><h1>Travel {year}</h1><p>Effective from January "
            f"{year}.</p><p>{rule}</p></body></html>")
    (folder / "huge.html").write_text("<p>" + "x " * 600_000 + "</p>")  # not read
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([folder / "policy-2025.html"], {"groups": ["public"]})
        doc = engine.store.get_document("policy-2025.html")
        text = engine.store.get_parsed("policy-2025.html").text
    assert rule in text and "Skip to content" not in text and doc.title == "Travel 2025"


def test_a_long_page_under_two_titles_is_one_page() -> None:
    """rustdoc writes a re-exported type twice ("HashMap in std::collections" and "… in
    std::collections::hash_map"), and a new user's answer cited both copies. A short page
    under another title is no copy."""
    from citewise.ingest.builder import DocumentBuilder
    from citewise.ingest.duplicates import LONG_PAGE, duplicate_pages

    def page(title: str, text: str):
        builder = DocumentBuilder()
        builder.add("text", text)
        return builder.build(title=title, fmt="html")

    body = "A hash map implemented with quadratic probing. " * (LONG_PAGE // 40)
    pages = [(Path("collections/hash_map/struct.HashMap.html"),
              page("HashMap in std::collections::hash_map", body)),
             (Path("collections/struct.HashMap.html"), page("HashMap in std::collections", body)),
             (Path("a.html"), page("Alpha", "Short text.")),
             (Path("b.html"), page("Beta", "Short text."))]
    assert duplicate_pages(pages) == {Path("collections/hash_map/struct.HashMap.html"):
                                      Path("collections/struct.HashMap.html")}


def test_of_two_copies_of_a_page_the_one_named_as_its_title_is_kept() -> None:
    """npm ships its package.json page twice, as ``package-json.html`` (the page its site
    publishes) and ``npm-json.html``: every citation of a new user's trial linked the second
    (kept as the first in path order)."""
    from citewise.ingest.builder import DocumentBuilder
    from citewise.ingest.duplicates import duplicate_pages

    def page(title: str, text: str):
        builder = DocumentBuilder()
        builder.add("text", text)
        return builder.build(title=title, fmt="html")

    pages = [(Path("configuring-npm/npm-json.html"), page("package.json", "Fields.")),
             (Path("configuring-npm/package-json.html"), page("package.json", "Fields.")),
             (Path("configuring-npm/folders.html"), page("Folders", "Where npm puts.")),
             (Path("configuring-npm/npm-global.html"), page("Folders", "Where npm puts.")),
             (Path("index.html"), page("Guide", "Start.")),
             (Path("zz.html"), page("Guide", "Start.")),  # Postfix: its title after the
             (Path("lmtp.8.html"), page("Postfix manual - smtp(8)", "Delivers.")),  # site's
             (Path("smtp.8.html"), page("Postfix manual - smtp(8)", "Delivers."))]  # name
    assert duplicate_pages(pages) == {
        Path("configuring-npm/npm-json.html"): Path("configuring-npm/package-json.html"),
        Path("configuring-npm/npm-global.html"): Path("configuring-npm/folders.html"),
        Path("index.html"): Path("zz.html"), Path("lmtp.8.html"): Path("smtp.8.html")}


def test_docbook_asides_are_text_and_publican_page_navigation_is_not() -> None:
    """A new user of the Debian Handbook (DocBook via Publican): its 420 TIP / NOTE /
    CAUTION boxes (``div.sidebar`` with their own title page), a quarter of its text, were
    dropped as a theme's side column, and the Prev / Up / Home / Next list at the foot of
    every page (``ul.docnav``) was in 129 chunks. A theme's sidebar still goes."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><ul class="docnav top"><li class="previous"><a href="a.html">'
            '<strong>Prev</strong></a></li><li class="home">The Handbook</li></ul>'
            '<div class="section"><div class="titlepage"><h2 class="title">6.2. APT</h2></div>'
            '<p>Run apt update first.</p><div class="sidebar"><a id="sidebar.nfs"></a>'
            '<div class="titlepage"><div><div><p class="title"><strong><em>CAUTION</em> '
            'Exports</strong></p></div></div></div><div class="para">After editing '
            '/etc/exports, run exportfs -ra to apply the changes.</div></div></div>'
            '<div class="sidebar"><p>Theme links: Home, Search</p></div>'
            '<ul class="docnav"><li class="next"><a href="b.html"><strong>Next</strong></a>'
            '</li></ul></body></html>')
    parsed = HtmlLoader().load(page.encode(), Path("sect.apt.html"))
    assert "run exportfs -ra to apply the changes" in parsed.text
    assert any(b.anchor == "sidebar.nfs" for b in parsed.blocks if "exportfs" in b.text)
    assert "Prev" not in parsed.text and "Next" not in parsed.text
    assert "Theme links" not in parsed.text


def test_an_anchor_left_inside_the_paragraph_before_a_heading_names_the_heading() -> None:
    """SQLite's hand-written pages put ``<a name="timeout"></a>`` before ``<h3>The
    "timeout" method</h3>`` with the paragraph before still open, so the parser puts the
    marker inside that paragraph: 120 of its 2,213 sections lost their anchors (a quote of
    the timeout method cited ``#copy``)."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><h2><a name="copy"></a>The copy method</h2><p>The copy method '
            'imports data. <a name="timeout"></a><h3>The "timeout" method</h3><p>The timeout '
            'method sets the busy timeout.</p></body></html>')
    blocks = HtmlLoader().load(page.encode(), Path("tclsqlite.html")).blocks
    anchors = {b.text: b.anchor for b in blocks}
    assert anchors['The "timeout" method'] == "timeout"
    assert anchors["The timeout method sets the busy timeout."] == "timeout"
    assert anchors["The copy method imports data."] == "copy"


def test_sqlite_s_fancy_table_of_contents_is_not_text() -> None:
    """A new user of SQLite's documentation: each page's ``div.fancy_toc`` (``div#toc_sub``
    of in-page links) was in 84 chunks, and an answer cited ``cli.html#toc_sub``."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><div class="fancy_toc"><a onclick="toggle_toc()">Table Of '
            'Contents</a><div id="toc_sub"><div class="fancy-toc1"><a href="#start">1. '
            'Getting Started</a></div><div class="fancy-toc2"><a href="#lines">1.1. Line '
            'Structure</a></div></div></div><h1 id="start">1. Getting Started</h1><p>Run '
            'sqlite3 with a file name.</p><h2 id="lines">1.1. Line Structure</h2><p>One '
            'command per line.</p></body></html>')
    blocks = HtmlLoader().load(page.encode(), Path("cli.html")).blocks
    assert not [b for b in blocks if b.anchor == "toc_sub"]
    assert "Run sqlite3 with a file name." in [b.text for b in blocks]


def test_an_xhtml_pages_empty_anchors_do_not_swallow_its_code_and_tables() -> None:
    """A new user of the Debian Reference (DocBook XHTML): an ``<a id="x"/>`` stayed open to
    an HTML parser and wrapped what followed, so 107 of 163 code blocks and 168 of 170
    tables were one line of prose ("Table 1.1. KeyskeyuseF10menu"), and headings took the
    previous section's anchor. A void element (``<br/>``) stays one."""
    from citewise.ingest.html import HtmlLoader

    body = ('<body><div class="section"><div class="titlepage"><div><div><h2 class="title">'
            '<a id="_first"/>1.1. First</h2></div></div></div><p>Run this:</p><pre class='
            '"screen">$ date\n$ hwclock</pre><div class="table"><a id="tbl"/><p class="title">'
            '<b>Table 1.1. Keys</b></p><div class="table-contents"><table summary="keys" '
            'border="1"><tr><th>key</th><th>use</th></tr><tr><td>F10</td><td>menu</td></tr>'
            '</table></div></div></div><div class="section"><div class="titlepage"><div><div>'
            '<h2 class="title"><a id="_second"/>1.2. Second</h2></div></div></div><p>Then '
            'more.<br/>Still more.</p></div></body>')
    xhtml = ('<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/'
             'xhtml"><head><title>T</title></head>' + body + '</html>')
    blocks = HtmlLoader().load(xhtml.encode(), Path("ch01.en.html")).blocks
    assert ("table", "tbl", "key | use\nF10 | menu") in {(b.kind, b.anchor, b.text)
                                                          for b in blocks}
    assert ("code", "_first") in {(b.kind, b.anchor) for b in blocks}
    assert blocks[-1].text == "Then more. Still more." and blocks[-1].anchor == "_second"
    # the review of this stop: a browser reads a .html page as HTML, where a self-closed
    # <style/>, <textarea/> or hidden <div/> hides what follows; it stays hidden here
    for hider in ('<style/>', '<textarea/>', '<div hidden="hidden"/>', '<noscript/>',
                  '<a id="h" style="display:none"/>', '<title/>'):
        page = xhtml.replace("<p>Run this:</p>", hider + "<p>zqhidden text</p>")
        text = HtmlLoader().load(page.encode(), Path("ch01.en.html")).text
        assert "zqhidden" not in text, hider


def test_a_docbook_note_box_laid_out_as_a_table_is_its_word_and_text() -> None:
    """The Debian Reference's 122 note boxes are tables (an icon, the word in a ``<th>``,
    the text below): read as rows they were "[Caution] | Caution" above the text."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><h2>Pinning</h2><div class="caution"><table border="0" '
            'summary="Caution"><tr><td rowspan="2"><img alt="[Caution]" src="c.png"/></td>'
            '<th align="left">Caution</th></tr><tr><td><p>Use pinning with care.</p></td>'
            '</tr></table></div><table summary="Caution"><tr><th>Caution</th><td>x</td></tr>'
            '</table></body></html>')
    blocks = HtmlLoader().load(page.encode(), Path("ch02.en.html")).blocks
    assert [b.text for b in blocks][:3] == ["Pinning", "Caution:", "Use pinning with care."]
    assert blocks[-1].kind == "table"  # a data table that only says "Caution" stays one


def test_docbooks_list_of_tables_is_not_text() -> None:
    """The Debian Reference's index page lists its 300 tables' titles, each a link into a
    chapter: a new user's first hit for questions about tables."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><h1>Debian Reference</h1><p>Welcome.</p><div class="list-of-tables">'
            '<p><b>List of Tables</b></p><dl><dt>1.1. <a href="ch01.en.html#t1">List of '
            'interesting text-mode program packages</a></dt></dl></div></body></html>')
    text = HtmlLoader().load(page.encode(), Path("index.en.html")).text
    assert "Welcome." in text and "List of Tables" not in text and "interesting" not in text


def test_a_footer_named_by_its_id_is_not_text_but_a_section_called_footer_is() -> None:
    """A new user of git's documentation: AsciiDoc's ``div#footer`` ("Last updated
    2024-05-31 00:35:55 UTC") was in 21 chunks; Apache's and Exim's hold a copyright line and
    a menu. A section with the id "footer" has its heading and stays."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><div id="header"><h1>git-rebase(1)</h1></div><div id="content">'
            '<h2 id="_name">NAME</h2><p>git-rebase - Reapply commits.</p></div>'
            '<div id="footer"><div id="footer-text">Last updated\n 2024-05-31 00:35:55 UTC'
            '</div></div></body></html>')
    text = HtmlLoader().load(page.encode(), Path("git-rebase.html")).text
    assert "Reapply commits" in text and "Last updated" not in text
    theme = ('<html><body><h1>Theme options</h1><div class="section" id="footer">'
             '<h2>Footer</h2><p>Set footer_text to change the footer.</p></div></body></html>')
    assert "Set footer_text" in HtmlLoader().load(theme.encode(), Path("t.html")).text


def test_a_page_title_drawn_as_text_above_the_first_heading_is_not_a_chunk() -> None:
    """A new user of SQLite's documentation: 134 pages draw their title in a
    ``div.fancy_title`` above the first heading, so "SQLite Autoincrement" alone was a chunk,
    the first hit of a search for "sqlite autoincrement". A page with no heading keeps it."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><head><title>SQLite Autoincrement</title></head><body><div '
            'class="fancy_title">SQLite Autoincrement</div><h1 id="summary">1. Summary</h1>'
            '<p>SQLite Autoincrement costs extra CPU.</p></body></html>')
    parsed = HtmlLoader().load(page.encode(), Path("autoinc.html"))
    assert [b.text for b in parsed.blocks] == ["1. Summary",
                                               "SQLite Autoincrement costs extra CPU."]
    assert all(parsed.text[b.start:b.end] == b.text for b in parsed.blocks)
    alone = ('<html><head><title>Notes</title></head><body><div>Notes</div><p>Keep this.</p>'
             '</body></html>')
    assert "Notes" in HtmlLoader().load(alone.encode(), Path("n.html")).text


def test_an_edition_of_many_pages_with_an_introduction_of_its_own_is_skipped() -> None:
    """SQLite ships ``capi3ref.html``, its C API pages again on one page under two
    paragraphs of its own ("This same content is also available split out into lots of
    small pages"): indexed, it was 1,300 chunks copying the API pages. A page repeating a
    few pages under paragraphs of its own (a guide's next version) stays."""
    from citewise.ingest.builder import DocumentBuilder
    from citewise.ingest.duplicates import single_page_editions

    def page(title: str, sections: list[tuple[str, list[str]]], intro: list[str] = ()):
        builder = DocumentBuilder()
        builder.heading(title, 1)
        for text in intro:
            builder.add("text", text)
        for heading, texts in sections:
            builder.heading(heading, 2)
            for text in texts:
                builder.add("text", text)
        return builder.build(title=title, fmt="html")

    def api(n: int):
        return [(f"sqlite3_f{i}", [f"The function sqlite3_f{i} does task number {i} {j}."
                                   for j in range(3)]) for i in range(n)]
    intro = ["This page is intended to be a precise and detailed specification.",
             "This same content is also available split out into lots of small pages."]
    parts = api(60)
    pages = [(Path(f"c3ref/f{i}.html"), page(f"f{i}", [part])) for i, part in enumerate(parts)]
    pages.append((Path("capi3ref.html"), page("C API", parts, intro)))
    assert single_page_editions(pages) == [Path("capi3ref.html")]
    few = [(Path(f"guide/v{i}.html"), page(f"v{i}", parts[20 * i:20 * i + 20]))
           for i in range(3)]
    few.append((Path("guide/v3.html"), page("v3", parts, intro)))
    assert single_page_editions(few) == []


def test_a_sphinx_search_page_is_skipped_not_failed(tmp_path: Path, monkeypatch) -> None:
    """A new user of Kea's documentation (Sphinx): its ``search.html`` has no text for a
    reader without JavaScript, so the folder's ingest reported "1 failed"; borg's and
    rsyslog's were a chunk of "Please activate JavaScript to enable the search
    functionality." A page about search stays."""
    import json

    site = build(tmp_path, "mdbook")
    (site / "search.html").write_text(
        '<html><head><title>Search &mdash; Widget 1.0 documentation</title></head><body>'
        '<div role="main"><h1 id="search-documentation">Search</h1><noscript><div '
        'id="fallback" class="admonition warning"><p>Please activate JavaScript to enable '
        'the search functionality.</p></div></noscript><div id="search-results"></div>'
        '</div></body></html>')
    (site / "searching.html").write_text(
        '<html><head><title>Search tips</title></head><body><h1>Search tips</h1><p>Quote '
        'a phrase to find it whole.</p><div id="search-results"></div></body></html>')
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    out = ingest(str(site), "--groups", "public")
    assert out.exit_code == 0 and "failed" not in out.output.replace("0 failed", ""), out.output
    assert "a site's 404, search or cross-reference page" in out.output
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["noindex"] == ["search.html"]
    with Engine(db, Settings(), embedder=FakeEmbedder()) as engine:
        assert "searching.html" in {d.doc_id for d in engine.store.list_documents()}


def test_a_page_that_only_says_it_moved_is_a_redirect_stub() -> None:
    """git's everyday.html: "This document has been moved to giteveryday(7)." was indexed
    under its old title and ranked fourth for "everyday git commands"."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><head><title>Everyday Git With 20 Commands Or So</title></head><body>'
            '<h1>Everyday Git With 20 Commands Or So</h1><p>This document has been moved to '
            '<a href="giteveryday.html">giteveryday(7)</a>.</p><p>Please let the owners of '
            'the referring site know so that they can update the link you clicked to get '
            'here.</p><p>Thanks.</p></body></html>')
    loaded = HtmlLoader().load(page.encode(), Path("everyday.html"))
    assert loaded.metadata["redirect_to"] == "giteveryday.html"
    longer = page.replace("<p>Thanks.</p>", "<p>" + "More to read here. " * 30 + "</p>")
    assert "redirect_to" not in HtmlLoader().load(longer.encode(), Path("a.html")).metadata
    unlinked = page.replace('<a href="giteveryday.html">giteveryday(7)</a>', "the wiki")
    assert "redirect_to" not in HtmlLoader().load(unlinked.encode(), Path("a.html")).metadata


def test_a_sphinx_general_index_page_is_noindex() -> None:
    """A new user of rsyslog's documentation: its ``genindex.html`` (tables dropped as
    chrome) was a document "Index" of letters, "Symbols | A | C | D …", in answers'
    contexts."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><head><title>Index &mdash; rsyslog documentation</title></head><body>'
            '<div role="main"><h1 id="index">Index</h1><div class="genindex-jumpbox"><a '
            'href="#Symbols"><strong>Symbols</strong></a> | <a href="#A"><strong>A</strong>'
            '</a></div><h2 id="Symbols">Symbols</h2><table class="indextable genindextable">'
            '<tr><td><ul><li><a href="a.html#x">$ActionQueueFileName</a></li></ul></td></tr>'
            '</table><h2 id="A">A</h2></div></body></html>')
    assert HtmlLoader().load(page.encode(), Path("genindex.html")).metadata["robots"] == \
        "noindex"
    assert "robots" not in HtmlLoader().load(page.replace("genindextable", "x").encode(),
                                             Path("genindex.html")).metadata


def test_a_generated_cross_reference_list_is_not_text() -> None:
    """A new user of SQLite's documentation: its four ``doc_*_crossref.html`` pages, lists of
    "--safe command-line option → changes.html#version_3_37_0", were 2,363 chunks (16 % of
    its index), and an answer quoted dot-commands from one. A page that is little else is
    marked noindex (a folder's ingest skips it); a list of links named by what they open,
    and the prose around a cross-reference, stay."""
    from citewise.ingest.html import HtmlLoader

    xref = "".join(f"<li>option {i} &rarr; <a href='cli.html#o{i}'>cli.html#o{i}</a>"
                   f" <a href='news.html'>news.html</a></li>" for i in range(30))
    page = f"<html><head><title>Keyword Crossreference</title></head><body><ul>{xref}</ul>"
    parsed = HtmlLoader().load((page + "<p>Updated daily.</p></body></html>").encode(),
                               Path("doc_keyword_crossref.html"))
    assert "cli.html#o3" not in parsed.text and parsed.metadata.get("robots") == "noindex"
    prose = " ".join(["The CLI reads one command per line and runs it."] * 60)
    mixed = HtmlLoader().load((page + f"<p>{prose}</p></body></html>").encode(),
                              Path("cli.html"))
    assert "cli.html#o3" not in mixed.text and "robots" not in mixed.metadata
    named = "".join(f"<li><a href='c3ref/f{i}.html'>sqlite3_f{i}</a></li>" for i in range(30))
    funcs = HtmlLoader().load(f"<html><body><h1>Functions</h1><ul>{named}</ul></body></html>"
                              .encode(), Path("funclist.html"))
    assert "sqlite3_f29" in funcs.text and "robots" not in funcs.metadata


def test_a_reference_entry_anchors_its_description_and_keeps_its_name() -> None:
    """A new user of Postfix's documentation: postconf.5.html's 879 parameters
    (``<dt><b><a name="message_size_limit">message_size_limit</a> (default: 10240000)</b>``)
    sat under one heading with no anchor, every citation opened the top of a 14,000-line
    page, and 228 chunks ended on a bare "name (default: …)" line. An entry's anchor (an
    ``<a name>`` inside its term) now anchors its whole description, and a name with its
    default is joined to its first paragraph."""
    from citewise.ingest.html import HtmlLoader

    entries = "".join(
        f'<DT><b><a name="{name}">{name}</a>\n(default: {default})</b></DT><DD><p>{first}</p>'
        f"<p>{second}</p></DD>" for name, default, first, second in [
            ("message_size_limit", "10240000", "The maximal size in bytes of a message.",
             "Note: be careful when making changes."),
            ("mailbox_size_limit", "51200000", "The maximal size of any local mailbox.",
             "This limit must not be smaller than the message size limit.")])
    page = (f"<html><body><h1>Postfix main.cf file format</h1><p>Parameters.</p><DL>{entries}"
            "</DL><p>After the list.</p></body></html>")
    blocks = HtmlLoader().load(page.encode(), Path("postconf.5.html")).blocks
    anchors = {b.text: b.anchor for b in blocks}
    assert anchors["message_size_limit (default: 10240000)\nThe maximal size in bytes of a "
                   "message."] == "message_size_limit"
    assert anchors["Note: be careful when making changes."] == "message_size_limit"
    assert anchors["This limit must not be smaller than the message size limit."] == \
        "mailbox_size_limit"
    assert anchors["After the list."] is None


def test_a_list_of_the_page_s_own_sections_is_not_text() -> None:
    """A new user of Postfix's documentation: its READMEs open with lists of their own
    sections (``<li><a href="#server_tips">General mail receiving performance tips</a>``, no
    class to name them), indexed on 35 pages and quoted as answers. A list of links to
    sections named otherwise (Node's legacy ``assert.deepEqual()``…) is content."""
    from citewise.ingest.html import HtmlLoader

    toc = "".join(f'<li><a href="#{slug}">{name}</a></li>' for slug, name in [
        ("tips", "General tips"), ("speedup", "Doing more work"), ("slow", "Slowing down")])
    sections = "".join(f'<h2><a name="{slug}">{name}</a></h2><p>{name} text.</p>'
                       for slug, name in [("tips", "General tips"),
                                          ("speedup", "Doing more work"),
                                          ("slow", "Slowing down")])
    legacy = "".join(f'<li><a href="#assert_{n}">assert.{n}()</a></li>'
                     for n in ("deepEqual", "equal", "notEqual"))
    heads = "".join(f'<h3 id="assert_{n}">assert.{n}(actual, expected)</h3><p>Compares.</p>'
                    for n in ("deepEqual", "equal", "notEqual"))
    page = (f"<html><body><h1>Tuning</h1><p>Topics:</p><ul>{toc}</ul>{sections}<p>Legacy "
            f"mode uses == in:</p><ul>{legacy}</ul>{heads}</body></html>")
    text = HtmlLoader().load(page.encode(), Path("TUNING_README.html")).text
    assert "- General tips" not in text and "General tips text." in text
    assert "- assert.deepEqual()" in text


def test_line_numbers_drawn_beside_code_are_not_code() -> None:
    """A new user of Kea's documentation (Sphinx, ``:linenos:``): 191 code chunks kept
    Pygments' line numbers, an answer showed `` 43    "lease-database": {`` and another
    "The Control Agent is required 131 // to run". Both of Pygments' layouts."""
    from citewise.ingest.html import HtmlLoader

    inline = ('<div class="highlight"><pre><span></span><span class="linenos"> 1</span>{\n'
              '<span class="linenos"> 2</span>  "lease-database": {}\n</pre></div>')
    table = ('<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv">'
             '<pre>1\n2</pre></div></td><td class="code"><div class="highlight"><pre>'
             'http-port: 8000\nhttp-host: 127.0.0.1\n</pre></div></td></tr></table>')
    page = f"<html><body><h1>Templates</h1><p>An example.</p>{inline}{table}</body></html>"
    code = [b.text for b in HtmlLoader().load(page.encode(), Path("t.html")).blocks
            if b.kind == "code"]
    assert code[0] == '{\n  "lease-database": {}'
    assert "http-port: 8000\nhttp-host: 127.0.0.1" in code[-1] and "1\n2" not in code[-1]


def test_a_bold_line_over_what_follows_titles_it_as_in_markdown() -> None:
    """A new user of Kea's documentation: its 1,374 messages are
    ``<p><strong>ALLOC_ENGINE_V4_ALLOC_FAIL_NO_POOLS</strong></p>``, a template, then what
    the message means; 299 IDs were in no chunk with their meaning, and an answer explained
    the message before. A bold line is a label (as Markdown's ``**Example 1: …**``) over
    what follows it in its box, up to the next bold line; "Default: off" and a DocBook
    aside's title (nothing after it in its box) stay text."""
    from citewise.ingest.html import HtmlLoader

    page = ("<html><body><h1>Messages</h1><div><p><strong>ALLOC_FAIL_NO_POOLS</strong></p>"
            "<p>%1: no pools were available</p><blockquote><div><p>This warning is issued "
            "when no pool fits.</p></div></blockquote><p><strong>ALLOC_RECLAIMED</strong></p>"
            "<p>reclaimed lease %1</p><p><b>PRAGMA page_count;</b></p><p>Returns pages.</p>"
            "</div><p>After the box.</p><p><strong>Default: off</strong></p><p>Turns it on."
            "</p><div class='sidebar'><div class='titlepage'><p class='title'><strong>TIP "
            "Exports</strong></p></div><div class='para'>Run exportfs.</div></div></body>"
            "</html>")
    blocks = HtmlLoader().load(page.encode(), Path("kea-messages.html")).blocks
    path = {b.text: b.heading_path[1:] for b in blocks}
    assert path["This warning is issued when no pool fits."] == ("ALLOC_FAIL_NO_POOLS",)
    assert path["reclaimed lease %1"] == ("ALLOC_RECLAIMED",)
    assert path["Returns pages."] == () and path["After the box."] == ()
    assert [b.kind for b in blocks if b.text in ("Default: off", "TIP Exports")] == \
        ["text", "text"]


def test_a_term_with_no_anchor_ends_the_anchor_of_the_term_before() -> None:
    """The review of this stop: Texinfo puts ids only on terms with index entries, and on
    zsh's builtins page 745 blocks (bg, cd, echo…) cited the autoload entry's anchor."""
    from citewise.ingest.html import HtmlLoader

    page = ('<html><body><h2 id="builtins">Builtins</h2><dl><dt id="index-autoload">'
            'autoload</dt><dd><p>Loads functions.</p></dd><dt>bg</dt><dd><p>Puts a job in '
            'the background.</p></dd></dl></body></html>')
    anchors = {b.text: b.anchor for b in HtmlLoader().load(page.encode(), Path("b.html")).blocks}
    assert anchors["autoload\nLoads functions."] == "index-autoload"
    assert anchors["bg\nPuts a job in the background."] == "builtins"


def test_a_list_of_web_addresses_is_no_cross_reference() -> None:
    """The review of this stop: a changelog whose items end in their issues' addresses (and
    an install step's 22 mirrors) lost every item and the page was skipped."""
    from citewise.ingest.html import HtmlLoader

    items = "".join(f"<li>Fixed crash {i} when reading a proxy URL <a href='https://github.com"
                    f"/x/y/issues/{i}'>https://github.com/x/y/issues/{i}</a></li>"
                    for i in range(25))
    page = f"<html><body><h1>Changes</h1><ul>{items}</ul></body></html>"
    parsed = HtmlLoader().load(page.encode(), Path("changes.html"))
    assert "Fixed crash 24 when reading a proxy URL" in parsed.text
    assert "robots" not in parsed.metadata


def test_sphinx_highlighted_source_is_left_out_unless_named(tmp_path, monkeypatch) -> None:
    """A new user's index of Django's documentation held its 153 ``_modules/`` pages (Sphinx's
    highlighted source), 26 % of the chunks, and answers quoted Django's code."""
    import json

    site = tmp_path / "site"
    (site / "_modules" / "pkg").mkdir(parents=True)
    (site / "guide.html").write_text("<html><body><h1>Guide</h1><p>Call frobnicate() to "
                                     "frobnicate the widgets.</p></body></html>")
    source = site / "_modules" / "pkg" / "core.html"
    source.write_text("<html><body><h1>Source code for pkg.core</h1><pre>def frobnicate():\n"
                      "    return widgets</pre></body></html>")
    (site / "_modules" / "notes.html").write_text(
        "<html><body><h1>Module notes</h1><p>Written by hand.</p></body></html>")
    db = tmp_path / "i.db"
    ingest = ingest_cli(db, monkeypatch)
    listed = json.loads(ingest(str(site), "--groups", "public", "--json").output)
    assert listed["noindex"] == ["_modules/pkg/core.html"]
    named = ingest(str(source), "--groups", "public")
    assert named.exit_code == 0 and "1 new" in named.output, named.output
