"""HTML loader (selectolax/lexbor): the readable content of a page as structured blocks.

Dropped: ``script style noscript template svg iframe`` everywhere; text hidden from readers
that nothing on the page opens (:mod:`citewise.ingest.html_hidden`); page chrome ``nav aside
form footer`` and any ``header`` that is not inside ``<article>``/``<main>``; elements whose
ARIA ``role`` or a ``class`` names generated-site chrome
(:mod:`citewise.ingest.html_chrome`: Sphinx sidebars, in-page tables of contents
(``toctree-wrapper``: a list of other pages' titles, which an answer quoted as if a title
said something), themes' previous/next page buttons (``footer-relations``, Furo's
``related-pages``), the tables of a generated index (Sphinx's ``genindex.html``, Texinfo's
``@printindex``: every identifier of the manual with a link, which retrieval ranked for
identifier questions), ``¶`` header links and Texinfo's ``copiable-anchor`` (a definition's
``¶``), rustdoc's since/source column (``rightside``), source links and "Expand description"
toggles, DocBook navigation tables and TOCs, Texinfo node headers and node menus (``<table
class="menu">``: "• Description", "• Command Line Options"), mdBook menu bars), and the
example lines mdBook hides (``<span class="boring">`` inside ``<pre>``: the
``#![allow(unused)] fn main() {`` around a snippet, which the page shows only on request and
a quote showed as the source's). A page that only redirects (``<meta http-equiv=refresh>``
with little text) gets ``redirect_to`` in its metadata; a page marked ``<meta name=robots
content=noindex>`` gets ``robots: noindex``. Kept: headings h1–h6, paragraphs, ``pre``
(verbatim code), lists (``- item``/``1. item`` lines), tables (``a | b`` rows;
``header_lines`` = rows in ``<thead>``, else leading all-``<th>`` rows), blockquotes and
loose text in containers. A table that lays the page out (:func:`is_layout_table`) is read
cell by cell as containers (:mod:`citewise.ingest.html_walk` walks the page and gives each
block its anchor).
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citewise.ingest.builder import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_NESTING,
    DocumentBuilder,
    pick_title,
)
from citewise.ingest.content import decode_text
from citewise.ingest.doc_names import name_title
from citewise.ingest.html_chrome import (
    drop_chrome,
    drop_link_indexes,
    is_link_index_page,
    is_search_page,
    mark_stability,
    space_badges,
)
from citewise.ingest.html_guard import INLINE_TAGS, check_nesting, drop_selects
from citewise.ingest.html_hidden import NEVER_RENDERED, drop_hidden, read_hints
from citewise.ingest.html_main import drop_beside_main
from citewise.ingest.html_moved import moved_to
from citewise.ingest.html_walk import Walker
from citewise.ingest.languages import primary_language
from citewise.ingest.link_text import spelled_out
from citewise.ingest.metadata import is_openable_link
from citewise.ingest.normalize import collapse
from citewise.ingest.xhtml import close_empty_elements
from citewise.types import ParsedDocument

STRIP_TAGS = ["script", "style", "noscript", "template", "svg", "iframe", "object", "embed",
              "button", *NEVER_RENDERED]
"""Removed with their text everywhere, also from inside headings and paragraphs: rustdoc puts
``<button>Copy item path</button>`` in every page's ``<h1>``, which put "Struct TokenStream
Copy item path" in every heading path of the page."""
NOT_CODE = "pre .boring, pre .linenos, td.linenos, .linenodiv"
"""mdBook's hidden example lines, and the line numbers Pygments draws beside code (Sphinx's
``:linenos:``): a browser's copy skips them, and a new user of Kea's documentation was
quoted `` 43    "lease-database": {`` and "The Control Agent is required 131 // to run"."""
_REFRESH = re.compile(r"url\s*=\s*['\"]?([^'\";]+)", re.IGNORECASE)
REDIRECT_MAX_CHARS = 300
class HtmlLoader:
    """Loads ``.html``/``.htm`` files; see the module docstring for what is kept."""

    format = "html"

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS,
                 max_nesting: int = DEFAULT_MAX_NESTING) -> None:
        self.max_blocks = max_blocks
        self.max_nesting = max_nesting

    def load(self, data: bytes, path: Path) -> ParsedDocument:
        """Parse HTML bytes (decoded by :func:`decode_text`) into blocks; raises IngestError
        for bad bytes/no text and LimitExceededError for elements nested deeper than
        ``max_nesting``."""
        text = close_empty_elements(drop_selects(decode_text(data, "HTML")))
        check_nesting(text, self.max_nesting, INLINE_TAGS)
        tree = LexborHTMLParser(text)
        metadata = _head_metadata(tree)
        hints = read_hints(tree)
        tree.strip_tags(STRIP_TAGS)
        drop_hidden(tree, hints)
        generated = tree.css_first(GENERATED_INDEX) is not None
        drop_chrome(tree)
        drop_beside_main(tree)
        indexes = drop_link_indexes(tree)
        space_badges(tree)
        mark_stability(tree)
        _spell_out_links(tree)
        for hidden in tree.css(NOT_CODE):
            hidden.decompose()
        _code_lines(tree)
        for br in tree.css("br"):
            br.replace_with("\n")
        builder = DocumentBuilder(self.max_blocks)
        root = tree.body or tree.root
        if root is not None:
            Walker(builder).container(root, None, 0)
        title_node = tree.css_first("head > title") or tree.css_first("title")
        title = pick_title(title_node.text() if title_node else None,
                           builder.first_heading(1), builder.first_heading(),
                           fallback=name_title(path))
        if "redirect_to" in metadata and len(builder.text_so_far()) > REDIRECT_MAX_CHARS:
            del metadata["redirect_to"]  # a real page that also refreshes: keep it
        elif (moved := moved_to(tree, builder.text_so_far())) is not None:
            metadata.setdefault("redirect_to", moved)  # "This document has been moved to …"
        builder.drop_title_lead(title)
        if generated or is_search_page(tree, title, builder.text_so_far()) or \
                is_link_index_page(indexes, builder.text_so_far()):
            metadata["robots"] = "noindex"  # skipped by a folder's ingest, listed
            if not builder.has_blocks():
                builder.add("text", title)
        if "redirect_to" in metadata and not builder.has_blocks():
            builder.add("text", f"Redirect to {metadata['redirect_to']}")
        return builder.build(title=title, fmt=self.format, metadata=metadata,
                             empty_hint="the page has no visible text outside navigation")


GENERATED_INDEX = "table.genindextable, table.modindextable"
"""Sphinx's general and module index pages (``genindex.html``, ``py-modindex.html``): their
tables go as chrome, and a new user's rsyslog index kept the page as a document "Index" of
letters ("Symbols | A | C | D …"), retrieved into answers' contexts; such a page is noindex."""


def fragment_text(markup: str, max_nesting: int = DEFAULT_MAX_NESTING) -> str:
    """Visible text of an HTML fragment (scripts/styles dropped), e.g. a Markdown HTML block.
    Raises LimitExceededError for elements nested deeper than ``max_nesting``."""
    markup = drop_selects(markup)
    check_nesting(markup, max_nesting, INLINE_TAGS)
    tree = LexborHTMLParser(markup)
    hints = read_hints(tree)
    tree.strip_tags(STRIP_TAGS)
    drop_hidden(tree, hints, whole_page=False)
    root = tree.body or tree.root
    return root.text(deep=True, separator=" ") if root is not None else ""


def _spell_out_links(tree: LexborHTMLParser) -> None:
    """A link whose text only says where keeps its URL (:mod:`citewise.ingest.link_text`)."""
    for link in tree.css("a[href]"):
        text = spelled_out(link.text(deep=True), link.attrs.get("href") or "")
        if text is not None:
            link.replace_with(text)


def _head_metadata(tree: LexborHTMLParser) -> dict[str, str]:
    """``<meta name=author>`` → owner, ``<link rel=canonical>`` → source_url, ``<meta
    http-equiv=refresh content="0; url=…">`` → redirect_to, ``<meta name=robots
    content="noindex, …">`` → robots: noindex (a folder's ingest skips the page), ``<html
    lang>`` → lang, its primary subtag (:mod:`citewise.ingest.languages`)."""
    metadata: dict[str, str] = {}
    page = tree.css_first("html")
    lang = primary_language((page.attrs.get("lang") or "") if page is not None else "")
    if lang:
        metadata["lang"] = lang
    for meta in tree.css("meta[http-equiv]"):
        if (meta.attrs.get("http-equiv") or "").strip().lower() == "refresh":
            found = _REFRESH.search(meta.attrs.get("content") or "")
            if found and found.group(1).strip():
                metadata["redirect_to"] = found.group(1).strip()
    for meta in tree.css("meta[name]"):
        name = (meta.attrs.get("name") or "").strip().lower()
        content = collapse(meta.attrs.get("content") or "")
        if name == "author" and content:
            metadata.setdefault("owner", content)
        elif name == "robots" and {"noindex", "none"} & set(
                content.lower().replace(",", " ").split()):
            metadata["robots"] = "noindex"
    for link in tree.css("link[rel]"):
        rels = (link.attrs.get("rel") or "").lower().split()
        href = (link.attrs.get("href") or "").strip()
        if "canonical" in rels and href and is_openable_link(href):  # never javascript:
            metadata.setdefault("source_url", href)
    return metadata


_LINE_MARK = "\x00"


def _code_lines(tree: LexborHTMLParser) -> None:
    """A paragraph that is one ``<code>`` broken into lines by ``<br>`` becomes a code block
    of those lines (each line's whitespace collapsed, as a browser shows it; the paragraph's
    id kept). Apache's manual writes its examples so (``<p><code>mv access_log
    access_log.old<br>mv error_log …``): read as a paragraph, the log rotation recipe was one
    line of five commands, and an answer quoted "$ cp server.key server.key.org $ openssl
    rsa …". Each paragraph's children are read once (a review's 1.4 KB upload of one
    paragraph of 8,000 such codes read the paragraph once per code: 108 s)."""
    for paragraph in tree.css("p"):
        code = _only_code(paragraph)
        if code is None or code.css_first("br") is None:
            continue
        for br in code.css("br"):
            br.replace_with(_LINE_MARK)
        lines = [collapse(line) for line in code.text(deep=True).split(_LINE_MARK)]
        ident = paragraph.attrs.get("id")
        opening = f'<pre id="{escape(ident)}">' if ident else "<pre>"
        block = LexborHTMLParser(f"{opening}{escape(chr(10).join(lines).strip())}</pre>")
        pre = block.css_first("pre")
        if pre is not None:
            paragraph.replace_with(pre)


def _only_code(paragraph: LexborNode) -> LexborNode | None:
    """The paragraph's one child element when it is a ``<code>`` and no text stands beside
    it, else None."""
    found = None
    child = paragraph.child
    while child is not None:
        if child.tag == "-text":
            if (child.text_content or "").strip():
                return None
        elif child.tag == "code" and found is None:
            found = child
        elif child.tag != "-comment":
            return None
        child = child.next
    return found

