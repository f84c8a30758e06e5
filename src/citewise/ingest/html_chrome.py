"""Site chrome in an HTML page: what :mod:`citewise.ingest.html` removes before reading.

An element is chrome when its ARIA ``role`` or a ``class`` names generated-site chrome
(:data:`CHROME_ROLES`, :data:`CHROME_CLASSES`; the HTML loader's docstring lists what they
cover), or its ``id`` names a help or popup box; an ``id`` made only of wrapper words
(:data:`CHROME_ID_WORDS`) is never a section's anchor.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citewise.ingest.builder import TITLE_SEPARATORS
from citewise.ingest.html_marks import Marks

CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
CHROME_CLASSES = frozenset({
    "nav", "navbar", "navheader", "navfooter", "nav-panel", "navigation", "related",
    "sphinxsidebar", "sidebar", "breadcrumb", "breadcrumbs", "menu-bar", "toc", "section-toc",
    "headerlink", "footer", "md-header", "md-footer", "md-sidebar", "edit-page", "prev-next",
    "rst-footer-buttons", "wy-nav-side", "bd-sidebar", "bd-header", "toctree-wrapper",
    "footer-relations", "related-pages", "prev-next-area", "prev-next-footer",
    "genindextable", "modindextable", "index-cp", "index-fn", "index-vr", "index-ky",
    "index-pg", "index-tp", "summary-letter", "menu", "rightside", "hideme",
    "copiable-anchor", "copiable-link", "skip-main-content", "rustdoc-breadcrumbs",
    "rule-link", "test-link", "tests-popup", "dropdown-menu", "toplang", "bottomlang",
    "docnav", "list-of-tables", "list-of-figures", "list-of-examples", "list-of-equations",
    "list-of-procedures", "viewcode-link", "viewcode-back"})
"""(``viewcode-link``: Sphinx's "[source]" link after an entry's signature, into the
highlighted source, read into 752 chunks of a new user's Django index as "PROTECT[source]
Prevent deletion…". ``toplang``/``bottomlang``: the Apache manual's "Available Languages: en
| fr | ja …" bars, in 470 chunks of a new user's index, one answer opening with it.
``dropdown-menu``: Bootstrap's menus, hidden until clicked; HAProxy's manual glued each
cross-reference's menu into its prose, "serverThis keyword is available in sections
:Peers…", 483 times. ``list-of-tables`` and its kin: DocBook's lists of every table's title,
each a link into a chapter, the Debian Reference's index page's 300 of them the first hit of
a new user's questions about tables. Text hidden otherwise, by the ``hidden`` attribute or a
style, is judged by :mod:`citewise.ingest.html_hidden`: tabs and boxes a reader opens stay.)"""
GENERATED_SECTION_IDS = frozenset({
    "synthetic-implementations", "synthetic-implementations-list",
    "blanket-implementations", "blanket-implementations-list"})
"""rustdoc's "Auto Trait Implementations" and "Blanket Implementations" (heading and list):
the same generated impls (``Send``, ``Sync``, ``From<T> for T``, ``TryFrom<U> for T``…) on
every type's page, a new user's std/collections and std/sync pages' largest share of chunks,
in answers about anything. A type's own "Trait Implementations" stay."""
DEREF_PREFIX = "deref-methods-"
"""rustdoc's "Methods from Deref<Target = …>" (``h2#deref-methods-…`` and its
``div.impl-items``): the target's methods copied onto the page. A new user's ``IoSlice`` and
``IoSliceMut`` held 592 chunks of the ``[u8]`` slice API (15 % of their index of ten std
modules; "how do I binary search a sorted slice" cited ``IoSlice``), ``PathBuf`` 97 of
``Path``'s."""
_INDEX_SUFFIX = "-printindex"
"""Texinfo 7's index tables (``cp-entries-printindex``); Texinfo 6 writes ``index-cp``."""
CHROME_ID_WORDS = frozenset((
    "mdbook", "menu", "bar", "menubar", "sidebar", "side", "nav", "navbar", "navigation",
    "header", "footer", "content", "main", "page", "wrapper", "container", "body", "root", "app",
    "search", "searchbar", "toolbar", "breadcrumb", "breadcrumbs", "layout", "skip", "top",
    "site", "document", "documentwrapper", "bodywrapper", "inner", "outer", "left", "right",
    "buttons", "theme", "popup", "help", "sticky", "wy", "md", "bd"))
"""An id made only of these words (split at ``-``/``_``) names a page wrapper or chrome
(``mdbook-menu-bar``, ``body-container``, ``main-content``), never a section."""
_HEADING_TAGS = "h1, h2, h3, h4, h5, h6"
_HEADINGS = frozenset(_HEADING_TAGS.split(", "))


def drop_chrome(tree: LexborHTMLParser) -> None:
    """Remove elements whose role or class marks them as site chrome (module docstring)."""
    doomed = Marks()
    boxes = 0  # tables of contents judged: each judgement reads the box's every link
    for node in tree.css("[role], [class], [id], rustdoc-topbar"):  # ancestors first
        if doomed.inside(node):
            continue  # in chrome dropped already (a review's 200 nested boxes: 53 s)
        named = _named_contents(node)
        if _is_chrome(node, contents=named and boxes < MAX_CONTENTS_BOXES):
            doomed.mark(node)
        boxes += named
    doomed.remove()  # (decided everything before freeing any node)


LINK_INDEX_LINKS = 20


def drop_link_indexes(tree: LexborHTMLParser) -> int:
    """Remove the generated cross-references (:func:`_is_link_index`); the characters of
    text removed (a page that was little else is one, :func:`is_link_index_page`)."""
    judged, doomed = Marks(), Marks()
    removed = 0
    headings: set[str] | None = None  # the page's headings, read when a list needs them
    for node in tree.css("ul, ol"):  # ancestors first; the outermost lists judged only,
        if judged.inside(node):  # each link read once (lists nest 256 deep)
            continue
        judged.mark(node)
        if _in_page_links(node) and headings is None:
            headings = {_bare(h.text(deep=True)) for h in tree.css(_HEADING_TAGS)}
        if _is_link_index(node) or _is_page_contents(node, headings or set()):
            doomed.mark(node)
            removed += len(" ".join(node.text(deep=True).split()))
    removed += _drop_book_index(tree, doomed)
    doomed.remove()
    return removed


def _drop_book_index(tree: LexborHTMLParser, doomed: Marks) -> int:
    """Mark a back-of-book index in ``doomed``: definition lists whose every description
    is only links to pages of the site, :data:`LINK_INDEX_LINKS` descriptions or more on
    the page. Exim's concept, option and variable indexes (``<dt>--help</dt><dd><p><a
    href="ch-the_exim_command_line.html#vi0">The Exim command line<small> [Command line
    options]</small></a></p></dd>``, one list a letter) were 11 % of a new user's index
    and quoted as answers. Returns the characters of text marked."""
    outer = [dl for dl in tree.css("dl") if not _in_a_list(dl)]
    lists = [dl for dl in outer if not doomed.inside(dl) and _links_only(dl)]
    if sum(len(_descriptions(dl)) for dl in lists) < LINK_INDEX_LINKS:
        return 0
    for dl in lists:
        doomed.mark(dl)
    return sum(len(" ".join(dl.text(deep=True).split())) for dl in lists)


def _in_a_list(node: LexborNode) -> bool:
    """Whether a ``dl`` holds ``node`` (only the outermost lists are judged: judging each
    nested one again read their text over and over, cubic in a review's 126 nested lists,
    and counted them twice)."""
    parent = node.parent
    while parent is not None:
        if parent.tag == "dl":
            return True
        parent = parent.parent
    return False


def _descriptions(dl: LexborNode) -> list[LexborNode]:
    return [child for child in dl.iter() if child.tag == "dd"]


def _links_only(dl: LexborNode, depth: int = 0) -> bool:
    """Whether each of ``dl``'s descriptions (one or more) is links to other pages of the
    site (no ``scheme:``), half its text theirs or more, or only sub-entries, or a "see"
    line."""
    descriptions = _descriptions(dl)
    linked = False
    for dd in descriptions:
        said = " ".join(dd.text(deep=True).split())
        inner = [c for c in dd.iter() if c.tag == "dl"]
        if inner and len("".join(said.split())) == sum(
                len("".join(d.text(deep=True).split())) for d in inner):
            if depth >= _SUB_ENTRY_LEVELS or not all(_links_only(d, depth + 1) for d in inner):
                return False
            linked = True  # only sub-entries: "message reference" under "-M"
            continue
        links = dd.css("a[href]")
        if not links and _SEE.match(said) and len(said) < 100:
            continue  # the index's own cross-reference: see "rewriting"
        pages = [(a.attrs.get("href") or "").split("#", 1)[0].strip() for a in links]
        if not links or not all(pages) or any(":" in page for page in pages):
            return False  # (a field list's "Returns: Proxy class" links into its page)
        linked = True
        shown = sum(len("".join(a.text(deep=True).split())) for a in links)
        if len(re.sub(r"[\s,;]", "", dd.text(deep=True))) > 2 * shown:
            return False  # (a sub-entry's words too: "for address testing" before its link)
    return linked


_SEE = re.compile(r"see\b", re.IGNORECASE)
_SUB_ENTRY_LEVELS = 2  # an index's entries, sub-entries and theirs


PAGE_CONTENTS_LINKS = 3


def _in_page_links(node: LexborNode) -> list[LexborNode] | None:
    """The list's links when there are :data:`PAGE_CONTENTS_LINKS` or more and each opens an
    anchor of the page (``href="#…"``), else None."""
    links = node.css("a[href]")
    if len(links) < PAGE_CONTENTS_LINKS or not all(
            (a.attrs.get("href") or "").startswith("#") for a in links):
        return None
    return links


def _is_page_contents(node: LexborNode, headings: set[str]) -> bool:
    """A list of this page's own sections: :func:`_in_page_links`, each named as a heading
    of the page (``headings``, :func:`_bare`), with nine tenths of the list's text theirs.
    Postfix's READMEs open with such lists and no class to name them: 35 pages' lists were
    indexed and quoted as answers (the headings they repeat stay). Node's "legacy assertion
    mode" list of ``assert.deepEqual()``… (headings with their arguments) is content."""
    links = _in_page_links(node)
    if links is None or not all(_bare(a.text(deep=True)) in headings for a in links):
        return False
    text = len("".join(node.text(deep=True).split()))
    return text > 0 and sum(len("".join(a.text(deep=True).split())) for a in links) >= 0.9 * text


_NUMBER = re.compile(r"^\s*(?:\d+[.)]?)+\s*")


def _bare(text: str) -> str:
    """A heading or link text compared: no section number, permalink sign or colon."""
    return " ".join(_NUMBER.sub("", text).split()).strip(" ¶#§:").casefold()


def is_link_index_page(removed: int, text: str) -> bool:
    """A page whose generated cross-references held nine tenths of its text or more."""
    return removed > 0 and len(text) * 9 <= removed


def _is_link_index(node: LexborNode) -> bool:
    """A generated cross-reference: a list of :data:`LINK_INDEX_LINKS` links or more to
    pages of the site (no ``scheme:``), nine in ten showing their own address as their
    text ("--safe command-line option → changes.html#version_3_37_0"), a third of its text
    theirs (a changelog whose items end in their issues' web addresses is read). SQLite's
    four ``doc_*_crossref.html`` pages were 2,363 chunks of them, 16 % of its index, and
    an answer quoted three dot-commands from one."""
    links = node.css("a[href]")
    if len(links) < LINK_INDEX_LINKS:
        return False
    hrefs = [(a.attrs.get("href") or "").strip() for a in links]
    if any(":" in h.split("#", 1)[0] for h in hrefs):
        return False  # a list of web addresses (a changelog's issue links, mirrors) is read
    own = sum((a.text() or "").strip() == h for a, h in zip(links, hrefs, strict=True))
    shown = sum(len("".join(a.text(deep=True).split())) for a in links)
    return own >= 0.9 * len(links) and shown * 3 >= len("".join(node.text(deep=True).split()))


def _is_popup(node: LexborNode) -> bool:
    """A help or popup box named by its id alone (mdBook's ``mdbook-help-container``: its
    "Keyboard shortcuts / Press ← or → to navigate between chapters" opened every page's
    text when one page was ingested alone, where no repetition across pages shows it is
    chrome). A section called just ``help`` stays."""
    words = set(re.split(r"[-_]", (node.attrs.get("id") or "").lower()))
    return bool(words & {"help", "popup"}) and len(words) > 1 and words <= CHROME_ID_WORDS


def _is_chrome(node: LexborNode, *, contents: bool = True) -> bool:
    """Whether ``node``'s role or class names site chrome (module docstring). A Sphinx
    ``toctree-wrapper`` holding headings is not: a ``singlehtml`` build puts the whole
    manual inside it (Debian's Python policy: 88 kB of page, five blocks kept).
    ``contents``: whether to judge it as an in-page table of contents too."""
    role = (node.attrs.get("role") or "").strip().lower()
    classes = set((node.attrs.get("class") or "").lower().split())
    if "toctree-wrapper" in classes and node.css_first(_HEADING_TAGS) is not None:
        return False
    if "sidebar" in classes and _docbook_aside(node):
        classes.discard("sidebar")
    return (role in CHROME_ROLES or bool(classes & CHROME_CLASSES) or _is_popup(node)
            or (node.tag == "div" and "header" in classes)  # Texinfo's node navigation
            or _footer_box(node)
            or (node.tag == "a" and "src" in classes)  # rustdoc's "Source" link
            or (node.tag == "a" and "tooltip" in classes)  # its "ⓘ" ("This example panics")
            or _since_line(node, classes)
            or node.tag == "rustdoc-topbar"  # its mobile bar: the item's name again
            or "data-notable-ty" in node.attrs  # its "ⓘ" after a returned type
            or _generated_section(node, classes)
            or (contents and _contents_box(node))
            or ("method-toggle" in classes and _copied_trait_method(node))
            or any(c.endswith(_INDEX_SUFFIX) for c in classes))


def _footer_box(node: LexborNode) -> bool:
    """Whether ``node`` is a page's footer named by its id (``div#footer``) with no heading
    in it: AsciiDoc's "Last updated 2024-05-31 00:35:55 UTC" (in 21 chunks of a new user's
    index of git's documentation), Apache's and Exim's copyright and menu lines. A section
    titled "Footer" has its heading."""
    return (node.tag == "div" and (node.attrs.get("id") or "").lower() in _FOOTER_IDS
            and node.css_first(_HEADING_TAGS) is None)


_FOOTER_IDS = frozenset({"footer", "footer-text"})


def _docbook_aside(node: LexborNode) -> bool:
    """Whether a ``sidebar`` is DocBook's boxed aside (a TIP, NOTE or CAUTION box with its
    own title page), not a theme's side column: the Debian Handbook's 420 asides, a quarter
    of its text ("exportfs -ra" only in a CAUTION box), were dropped as chrome."""
    return any(child.tag == "div" and "titlepage" in (child.attrs.get("class") or "").split()
               for child in node.iter())


_CONTENTS_WORDS = frozenset({"toc", "contents"})
_CONTENTS_NAME = frozenset({"table", "of", "page", "on", "this", "in", "sub", "fancy",
                            *_CONTENTS_WORDS})  # SQLite: div.fancy_toc, div#toc_sub


def _names_contents(name: str) -> bool:
    """Whether an ``id`` or class names an in-page table of contents, and nothing else
    (``table_of_contents``, ``page-toc``, ``on-this-page-contents``)."""
    words = {w for w in re.split(r"[-_\s]+", name.lower()) if w}
    return bool(words & _CONTENTS_WORDS) and words <= _CONTENTS_NAME


MAX_CONTENTS_LINKS = 5_000
MAX_CONTENTS_BOXES = 20
"""A box of more links, or past this many boxes in a page, is not judged a table of
contents (kept as text): each judgement reads every link in the box (npm's longest holds
40; a page has one or two boxes)."""


def _named_contents(node: LexborNode) -> bool:
    """Whether ``node``'s ``id`` or a class names an in-page table of contents (a link or a
    heading never: a heading's id may have the word, "…-change-contents-behavior")."""
    if node.tag == "a" or node.tag in _HEADINGS:
        return False
    names = [node.attrs.get("id") or "", *(node.attrs.get("class") or "").split()]
    return any(_names_contents(name) for name in names)


def _contents_box(node: LexborNode) -> bool:
    """An in-page table of contents its ``id`` or ``class`` names (:data:`_CONTENTS_WORDS`)
    holding nothing but links into the page and a heading: npm's docs open every page with
    ``<section id="table_of_contents"><h2>Table of contents</h2>``, so every section of 92
    pages sat under "Table of contents" in citations and its link list was a search hit (one
    link, "See Also", on npm-sbom's). A section so named with text of its own, or links to
    other pages, stays."""
    if not _named_contents(node):
        return False
    links = node.css("a")
    if not links or len(links) > MAX_CONTENTS_LINKS or \
            not all((a.attrs.get("href") or "").startswith("#") for a in links):
        return False
    words = len(node.text(separator=" ").split())
    listed = sum(len(n.text(separator=" ").split()) for n in [*links, *node.css(_HEADING_TAGS)])
    return words <= listed


def _generated_section(node: LexborNode, classes: set[str]) -> bool:
    """rustdoc's generated impl sections (:data:`GENERATED_SECTION_IDS`): its heading
    (``h2.section-header``) and list (``div#…-list``) only; a Sphinx page's own section
    with such an id is content (the review of this stop)."""
    ident = node.attrs.get("id") or ""
    if ident.startswith(DEREF_PREFIX):  # "Methods from Deref<Target = [u8]>": a copy of
        return (node.tag == "h2" and "section-header" in classes) or \
            (node.tag == "div" and "impl-items" in classes)  # the target's page
    if ident not in GENERATED_SECTION_IDS:
        return False
    return (node.tag == "h2" and "section-header" in classes) or \
        (node.tag == "div" and ident.endswith("-list"))


def _since_line(node: LexborNode, classes: set[str]) -> bool:
    """rustdoc's line under an item's title, "1.0.0 · Source": with the link gone, "1.0.0 ·"
    opened 138 chunks of a new user's index. A subtitle of another site stays."""
    return node.tag == "span" and "sub-heading" in classes and any(
        (child.tag, (child.attrs.get("class") or "").split()[:1]) in _SINCE_PARTS
        for child in node.iter())  # its own children only: nested ones cost a review 25 s


_SINCE_PARTS = (("span", ["since"]), ("a", ["src"]))


def space_badges(tree: LexborHTMLParser) -> None:
    """A word break before rustdoc's badges after an item's name in a module's item list:
    "add_spawn_hookExperimental", "transmute⚠" (an unsafe function) were one word."""
    for node in tree.css("dt > span.stab, dt > sup"):
        node.insert_before(" ")


STABILITY = {"unstable": "nightly-only", "deprecated": "deprecated"}
"""rustdoc's stability notes (``span.item-info > div.stab.<kind>``) and the word each puts
after its item's heading."""


def mark_stability(tree: LexborHTMLParser) -> None:
    """Say a rustdoc item's stability in its heading, so every citation and passage of it
    does: "pub fn open_buffered(…) (nightly-only)". A new user's answers quoted three
    ``#![feature(thread_spawn_hook)]`` examples to stable users with no word of it: the
    note ("🔬This is a nightly-only experimental API.") is a block of its own, above the
    example the answer chose."""
    for note in tree.css("span.item-info > div.stab"):
        kinds = [word for kind, word in STABILITY.items()
                 if kind in (note.attrs.get("class") or "").split()]
        heading = _item_heading(note.parent) if kinds else None
        if heading is not None:
            heading.insert_child(f" ({kinds[0]})")


def _item_heading(info: LexborNode | None) -> LexborNode | None:
    """The heading an ``item-info`` belongs to: its method's (the ``section`` before it) or,
    on an item's own page, the page's ``h1``."""
    if info is None:
        return None
    before = info.prev
    while before is not None and before.tag == "-text":
        before = before.prev
    if before is not None and before.tag == "section":
        return before.css_first("h4.code-header, h3.code-header")
    if before is not None and before.tag == "pre" and "item-decl" in (
            before.attrs.get("class") or ""):
        main = info.parent
        return main.css_first("div.main-heading h1") if main is not None else None
    return None


def _copied_trait_method(node: LexborNode) -> bool:
    """A rustdoc trait method under a type's trait impl whose text is the trait's summary,
    "Read more" linking to the trait's page (``Iterator``'s 75 methods on each of 58 iterator
    pages, "Formats the value using the given formatter. Read more" on 174): a copy."""
    section = node.css_first("summary > section")
    docs = node.css_first("div.docblock")
    if section is None or docs is None:
        return False
    if "trait-impl" not in (section.attrs.get("class") or "").split():
        return False
    links = docs.css("a")
    return bool(links) and links[-1].text(strip=True) == "Read more"


def is_chrome_id(value: str) -> bool:
    """Whether an ``id`` names a page wrapper or chrome (:data:`CHROME_ID_WORDS`)."""
    words = [w for w in re.split(r"[-_]", value.strip().lower()) if w]
    return bool(words) and all(w in CHROME_ID_WORDS for w in words)


SEARCH_PAGE_CHARS = 1_000


def is_search_page(tree: LexborHTMLParser, title: str, text: str) -> bool:
    """A site's search page: Sphinx's ``search.html`` (a ``#search-results`` box its script
    fills, a title "Search" before the site's name, a line of help at most). Indexed, borg's and
    rsyslog's were a chunk of "Please activate JavaScript to enable the search
    functionality."; Kea's, with no text at all, failed the ingest of the folder."""
    return (TITLE_SEPARATORS.split(title, 1)[0].strip().casefold() == "search"
            and len(text) <= SEARCH_PAGE_CHARS
            and tree.css_first("#search-results") is not None)

