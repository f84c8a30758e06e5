"""GNU Info manuals (``.info``, split parts ``.info-N``, usually gzip-compressed): node text
and headings are indexed; node headers, menus, tag tables and reader markers are not."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import IngestError
from citewise.ingest import is_supported, load_bytes, load_file
from citewise.testing import FakeEmbedder
from citewise.types import Principal

INFO = (
    "This is acme.info, produced by makeinfo version 6.8 from acme.texi.\n\n"
    "   Copyright (C) 2026 Acme.\n"
    "INFO-DIR-SECTION Tools\nSTART-INFO-DIR-ENTRY\n* acme: (acme).  Frobnicate.\n"
    "END-INFO-DIR-ENTRY\n\n"
    "\x1f\nFile: acme.info,  Node: Top,  Next: Invoking,  Up: (dir)\n\n"
    "Acme Frobnicator\n****************\n\nThis manual is for acme 2.1.\n\n"
    "* Menu:\n\n* Invoking::      How to run it.\n* Index::         Index.\n\n"
    "\x1f\nFile: acme.info,  Node: Invoking,  Next: Index,  Prev: Top,  Up: Top\n\n"
    "1 Invoking acme\n***************\n\nRun acme with a file name.\n\n"
    "1.1 Proxy settings\n==================\n\n"
    "‘--proxy URL’\n     Send every request through the proxy at URL.\n\n"
    "     acme --proxy http://proxy:3128 data.txt\n\n"
    "\x1f\nFile: acme.info,  Node: Index,  Prev: Invoking,  Up: Top\n\n"
    "Index\n*****\n\n\x00\x08[index\x00\x08]\n* Menu:\n\n* proxy:   Invoking.   (line 6)\n\n"
    "\x1f\nTag Table:\nNode: Top\x7f200\nNode: Invoking\x7f400\n\x1f\nEnd Tag Table\n")



def _blocks(tmp_path: Path, text: str, after: str = "Run acme with a file name.\n\n") -> list:
    """``(kind, text)`` of the blocks of :data:`INFO` with ``after`` + ``text`` in place of
    its first paragraph of prose."""
    path = tmp_path / "acme.info"
    path.write_text(INFO.replace("Run acme with a file name.\n\n", after + text))
    return [(b.kind, b.text) for b in load_file(path).blocks]

def test_nodes_headings_and_no_navigation(tmp_path):
    path = tmp_path / "acme.info.gz"
    path.write_bytes(gzip.compress(INFO.encode()))
    parsed = load_file(path)
    assert parsed.format == "info" and parsed.title == "Acme Frobnicator"
    headings = [(b.text, b.level) for b in parsed.blocks if b.kind == "heading"]
    assert headings == [("Acme Frobnicator", 1), ("1 Invoking acme", 1),
                        ("1.1 Proxy settings", 2), ("Index", 1)]
    for chrome in ("File: acme.info", "Menu:", "How to run it", "Tag Table", "makeinfo",
                   "INFO-DIR", "[index", "\x00", "\x1f"):
        assert chrome not in parsed.text
    proxy = next(b for b in parsed.blocks if "through the proxy" in b.text)
    assert proxy.heading_path == ("1 Invoking acme", "1.1 Proxy settings")
    assert proxy.anchor == "invoking"  # the node
    assert "acme --proxy http://proxy:3128 data.txt" in parsed.text


def test_a_table_without_blank_lines_is_one_block_per_item(tmp_path):
    """coreutils' ``date`` formats are a ``@table`` with no blank line between items: one
    paragraph, quoted as one sentence ("‘%d’ day of month (e.g., ‘01’) ‘%D’ date; …")."""
    table = ("‘%d’\n     day of month (e.g., ‘01’)\n‘%D’\n     date; same as ‘%m/%d/%y’\n"
             "‘-b’\n‘--bytes’\n     Count bytes.\n\n")
    blocks = _blocks(tmp_path, table)
    assert ("text", "‘%d’\nday of month (e.g., ‘01’)") in blocks
    assert ("text", "‘%D’\ndate; same as ‘%m/%d/%y’") in blocks
    assert ("text", "‘-b’\n‘--bytes’\nCount bytes.") in blocks
    prose = "‘acme’ is short for Acme.\nIt frobnicates.\n\n"  # no indented description
    assert ("text", "‘acme’ is short for Acme.\nIt frobnicates.") in _blocks(tmp_path, prose)


def test_a_heading_inside_a_node_stays_in_its_section(tmp_path):
    """makeinfo underlines ``@heading Examples`` like a chapter: in GnuPG's manual the rest
    of chapter 9 was filed under "Examples" (cited as "gnupg › Examples › 9.4 …")."""
    text = INFO.replace(
        "     acme --proxy http://proxy:3128 data.txt\n\n",
        "     acme --proxy http://proxy:3128 data.txt\n\nExamples\n********\n\n"
        "Run it twice.\n\n")
    path = tmp_path / "acme.info"
    path.write_text(text)
    parsed = load_file(path)
    headings = [(b.text, b.level) for b in parsed.blocks if b.kind == "heading"]
    assert headings == [("Acme Frobnicator", 1), ("1 Invoking acme", 1),
                        ("1.1 Proxy settings", 2), ("Examples", 2), ("Index", 1)]
    twice = next(b for b in parsed.blocks if b.text == "Run it twice.")
    assert twice.heading_path == ("1 Invoking acme", "Examples")


def test_a_line_over_dots_or_a_rule_of_another_length_is_no_heading(tmp_path):
    """libtasn1's "The file with assignments must have this syntax:" then "nameString
    value" over "...": a new user's citations read "Invoking asn1Coding › nameString value"."""
    text = INFO.replace(
        "Run acme with a file name.\n\n",
        "Run acme with a file name.\n\nInstanceName  Asn1Definition\n\nnameString  value\n"
        "...\n\nCommand     outcome\n=====================================\n\n"
        "     I. BACKGROUND\n     =============\n\nStill invoking.\n\n")
    path = tmp_path / "acme.info"
    path.write_text(text)
    parsed = load_file(path)
    headings = [b.text for b in parsed.blocks if b.kind == "heading"]
    assert headings == ["Acme Frobnicator", "1 Invoking acme", "1.1 Proxy settings", "Index"]
    still = next(b for b in parsed.blocks if b.text == "Still invoking.")
    assert still.heading_path == ("1 Invoking acme",)


def test_a_shell_prompt_line_at_the_margin_is_code(tmp_path):
    """libtasn1's "the following invocation will decode the DER data." then "$ asn1Decoding
    pkix.asn assign.out PKIX1.Dss-Sig-Value" at the margin: read as prose, a new user's
    answer quoted the lead-in and left the command out."""
    text = INFO.replace(
        "Run acme with a file name.\n\n",
        "Run acme with a file name. The following invocation decodes it.\n\n"
        "$ acme-decode pkix.asn assign.out\n\n$5 a month buys support.\n\n"
        "$ 100 is the fee.\n\n")
    path = tmp_path / "acme.info"
    path.write_text(text)
    kinds = {b.text: b.kind for b in load_file(path).blocks}
    assert kinds["$ acme-decode pkix.asn assign.out"] == "code"
    assert kinds["$5 a month buys support."] == kinds["$ 100 is the fee."] == "text"


def test_a_table_items_terms_stay_with_what_they_do(tmp_path):
    """GnuPG's '--enable-ssh-support' ended one chunk and what it does began the next (a
    blank line between a @table item's terms and its description)."""
    text = INFO.replace("1.1 Proxy settings\n==================\n\n",
                        "1.1 Proxy settings\n==================\n\n'--ssh'\n'--putty'\n\n"
                        "     Speak the ssh-agent protocol too.\n\n     More about it.\n\n")
    path = tmp_path / "acme.info"
    path.write_text(text)
    texts = [b.text for b in load_file(path).blocks]
    assert "'--ssh'\n'--putty'\nSpeak the ssh-agent protocol too." in texts
    assert "More about it." in texts and "'--ssh'\n'--putty'" not in texts


def test_an_example_is_code_and_a_table_items_body_is_not(tmp_path):
    """A new user's quote of gettext's manual was "printf (ngettext (…), n); [1].": the
    example, indented like a @table item's body, was read as a sentence."""
    text = INFO.replace("1.1 Proxy settings\n==================\n\n",
                        "1.1 Proxy settings\n==================\n\n"
                        "   Count the files:\n\n"
                        "     printf (ngettext (\"One file\", \"%d files\", n), n);\n\n"
                        "'--ssh'\n     Speak the ssh-agent protocol; see below.\n\n"
                        "     The socket is <$HOME/.ssh/agent>, made at start.\n\n"
                        "          $ acme --ssh --socket=/tmp/s\n          ready\n\n"
                        "     It prints (‘<’, ‘=’) as they are.\n\n")
    path = tmp_path / "acme.info"
    path.write_text(text)
    blocks = [(b.kind, b.text) for b in load_file(path).blocks]
    assert ("code", 'printf (ngettext ("One file", "%d files", n), n);') in blocks
    assert ("code", "$ acme --ssh --socket=/tmp/s\nready") in blocks
    assert ("text", "The socket is <$HOME/.ssh/agent>, made at start.") in blocks
    assert ("text", "It prints (‘<’, ‘=’) as they are.") in blocks
    assert ("text", "'--ssh'\nSpeak the ssh-agent protocol; see below.") in blocks


def _split_manual(folder: Path, indirect: str = "acme.info-1: 200\n",
                  gz: bool = False) -> Path:
    """:data:`INFO` split as ``makeinfo`` does: ``acme.info`` holds the preamble and the
    tables, ``acme.info-1`` the nodes (after a preamble of its own)."""
    preamble, nodes = INFO.split("\x1f", 1)
    write = ((lambda p, t: p.with_name(p.name + ".gz").write_bytes(gzip.compress(t.encode())))
             if gz else (lambda p, t: p.write_text(t)))
    write(folder / "acme.info-1", preamble + "\x1f" + nodes.rsplit("\x1f\nTag Table", 1)[0])
    write(folder / "acme.info", preamble + f"\x1f\nIndirect:\n{indirect}\x1f\nTag Table:\n"
          "(Indirect)\nNode: Top\x7f200\n\x1f\nEnd Tag Table\n")
    return folder / ("acme.info.gz" if gz else "acme.info")


@pytest.mark.parametrize("gz", [False, True])
def test_a_split_manual_is_read_from_its_index_file_with_its_parts(tmp_path, gz):
    """A new user's ``ingest find.info.gz`` indexed only its copyright lines: the nodes
    are in ``find.info-1.gz`` and ``-2.gz``."""
    assert is_supported(Path("find.info-2.gz")) and is_supported(Path("grep.info"))
    assert not is_supported(Path("dir")) and not is_supported(Path("find.info-x.gz"))
    parsed = load_file(_split_manual(tmp_path, gz=gz))
    assert parsed.title == "Acme Frobnicator"
    assert "Send every request through the proxy at URL." in parsed.text
    assert "Copyright" not in parsed.text and "Indirect" not in parsed.text
    part = tmp_path / ("acme.info-1.gz" if gz else "acme.info-1")
    assert "through the proxy" in load_file(part).text  # a part alone is a document


def test_a_split_manual_without_its_parts_is_refused_in_one_line(tmp_path):
    index = _split_manual(tmp_path)
    with pytest.raises(IngestError, match=r"index of a split Info manual.*Fix: ingest it"):
        load_bytes(index.read_bytes(), Path("acme.info"))  # an upload: no folder to read
    (tmp_path / "acme.info-1").unlink()
    with pytest.raises(IngestError, match=r"acme.info-1 is missing\. Fix:"):
        load_file(index)


def test_an_indirect_table_names_only_parts_of_its_own_manual(tmp_path):
    (tmp_path / "secret.txt").write_text("server secret")
    for name in ("../secret.txt", "secret.txt", "other.info-1", "/etc/passwd"):
        index = _split_manual(tmp_path, indirect=f"{name}: 200\n")
        with pytest.raises(IngestError, match="not a part of acme.info; not read"):
            load_file(index)


def test_a_part_ingested_without_its_manual_is_left_out_with_a_fix(tmp_path):
    """A new user re-read the one part of the crypto-only GnuPG manual that changed
    (``ingest gnupg.info-2.gz --groups eng``): read as a document of its own, it took the
    batch's readers, and eng was quoted the manual. A part whose manual is beside it is
    left out, said in a note naming the fix (stop 52 read it alone, silently: the review
    then found nothing indexed); one with no manual beside it is a document of its own."""
    _split_manual(tmp_path, gz=True)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        for report in (engine.ingest_paths([tmp_path / "acme.info-1.gz"], {"groups": ["eng"]}),
                       engine.ingest_paths([tmp_path], {"groups": ["eng"]},
                                           exclude=["acme.info.gz"])):
            assert any("acme.info-1.gz (of acme.info.gz)" in w and "Fix: ingest the manual"
                       in w for w in report.warnings), report.warnings
        assert engine.store.list_documents() == []
        (tmp_path / "acme.info.gz").rename(tmp_path / "elsewhere.gz")
        engine.ingest_paths([tmp_path / "acme.info-1.gz"], {"groups": ["eng"]})
        assert [d.doc_id for d in engine.store.list_documents()] == ["acme.info-1.gz"]


def test_parts_indexed_before_are_deleted_once_their_manual_holds_them(tmp_path):
    """The review of this stop: parts an earlier ingest indexed as documents kept their
    staff readers after the manual, restricted to ops, was indexed with their text."""
    _split_manual(tmp_path, gz=True)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        (tmp_path / "acme.info.gz").rename(tmp_path / "away.gz")  # no manual beside them
        engine.ingest_paths([tmp_path], {"groups": ["staff"]}, exclude=["away.gz"])
        (tmp_path / "away.gz").rename(tmp_path / "acme.info.gz")
        report = engine.ingest_paths([tmp_path], {"groups": ["ops"]})
        assert [d.doc_id for d in engine.store.list_documents()] == ["acme.info.gz"]
        assert any(w.startswith("deleted 1 document(s) an earlier ingest made of split Info")
                   for w in report.warnings), report.warnings
        assert not engine.search("proxy", Principal.of("staff"), mode="bm25").hits


def test_only_a_part_read_from_that_file_in_that_tenant_is_deleted(tmp_path):
    """The second review: another tenant's document with a part's id was deleted when a
    tenant ingested the manual; so was a file beside a manual that does not list it."""
    from citewise.config import IndexSettings

    _split_manual(tmp_path, gz=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "acme.info-1.gz").write_bytes((tmp_path / "acme.info-1.gz").read_bytes())
    settings = Settings(index=IndexSettings(tenancy="shared"))
    with Engine(tmp_path / "i.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([other], {"groups": ["secret"], "tenant": "bee"})
        report = engine.ingest_paths([tmp_path], {"groups": ["ops"], "tenant": "ay"},
                                     exclude=["other"])
        docs = {d.doc_id: d.tenant for d in engine.store.list_documents()}
        assert docs == {"acme.info-1.gz": "bee", "acme.info.gz": "ay"}, docs
        assert any("not read from it (another tenant's, an upload); left as they are" in w
                   for w in report.warnings), report.warnings
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "time.info").write_text(INFO)  # not split
    (lone / "time.info-1").write_text(INFO.replace("acme 2.1", "salary bands"))
    with Engine(tmp_path / "j.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([lone / "time.info-1"], {"groups": ["hr"]})
        report = engine.ingest_paths([lone], {"groups": ["hr"]})
        assert sorted(d.doc_id for d in engine.store.list_documents()) == [
            "time.info", "time.info-1"], report.warnings


def test_a_sidecar_line_for_a_part_stops_the_ingest(tmp_path):
    """The second review: a line restricting a part (read with its manual, under the
    manual's readers) was a warning, and staff read the part's text through the manual."""
    from citewise.errors import ConfigError
    from citewise.ingest.sidecar import read_sidecar

    _split_manual(tmp_path, gz=True)
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"path": "acme.info-1.gz", "groups": ["hr"]}\n')
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        with pytest.raises(ConfigError, match="give the line to the manual"):
            engine.ingest_paths([tmp_path], {"groups": ["staff"]}, read_sidecar(meta))
        assert engine.store.list_documents() == []


def _manual_with_a_linked_part(tmp_path):
    """``docs/acme.info`` whose part ``acme.info-1`` is a symlink to one in ``shelf/``."""
    shelf, docs = tmp_path / "shelf", tmp_path / "docs"
    shelf.mkdir()
    docs.mkdir()
    _split_manual(shelf)
    (docs / "acme.info").write_bytes((shelf / "acme.info").read_bytes())
    (docs / "acme.info-1").symlink_to(shelf / "acme.info-1")
    return docs


def test_a_part_linked_from_elsewhere_is_read_under_follow_symlinks(tmp_path):
    """The review of this stop: --follow-symlinks was ignored for a manual's parts."""
    docs = _manual_with_a_linked_part(tmp_path)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([docs], {"groups": ["staff"]}, follow_symlinks=True)
        assert [o.status for o in report.outcomes] == ["new"], report.outcomes
        refused = engine.ingest_paths([docs], {"groups": ["staff"]})
        assert "acme.info-1" in (refused.outcomes[0].error or ""), refused.outcomes


def test_a_manual_named_on_the_command_line_follows_no_symlinked_part(tmp_path):
    """Stop 63's security review: a manual named as a file (not walked) read its part
    through a symlink to a secret file elsewhere, indexed under the batch's readers."""
    docs = _manual_with_a_linked_part(tmp_path)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        refused = engine.ingest_paths([docs / "acme.info"], {"groups": ["staff"]})
        assert [o.status for o in refused.outcomes] == ["failed"], refused.outcomes
        assert "acme.info-1 is a symlink" in (refused.outcomes[0].error or "")
        assert "--follow-symlinks" in (refused.outcomes[0].error or "")
        assert engine.store.list_documents() == []
        report = engine.ingest_paths([docs / "acme.info"], {"groups": ["staff"]},
                                     follow_symlinks=True)
        assert [o.status for o in report.outcomes] == ["new"], report.outcomes


def test_a_restricted_split_manual_is_restricted_in_all_its_parts(tmp_path):
    """The same user's sidecar line for ``find.info.gz`` restricted the header only: the
    parts took the batch's groups and staff were quoted the restricted manual."""
    _split_manual(tmp_path, gz=True)
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([tmp_path], {"groups": ["staff"]},
                                     {"acme.info.gz": {"groups": ["ops"]}})
        assert [d.doc_id for d in engine.store.list_documents()] == ["acme.info.gz"]
        assert any("acme.info-1.gz (in acme.info.gz)" in w for w in report.warnings)
        assert not engine.search("proxy", Principal.of("staff"), mode="bm25").hits
        assert engine.search("proxy", Principal.of("ops"), mode="bm25").hits


@pytest.mark.slow
def test_the_real_grep_manual_answers_where_its_options_are(tmp_path):
    manual = Path("/usr/share/info/grep.info.gz")
    assert manual.is_file(), f"{manual} missing. Fix: run .ci/docsites"
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([manual], {"groups": ["public"]})
        parsed = engine.store.get_parsed(engine.store.list_documents()[0].doc_id)
        hit = engine.search("ignore case distinctions in patterns", Principal.of("public"),
                            mode="bm25").hits[0]
    assert parsed.title == "grep" and "File: grep.info" not in parsed.text
    assert sum(b.kind == "heading" for b in parsed.blocks) >= 20
    assert hit.chunk.heading_path[-1] == "2.1.2 Matching Control"
    assert hit.source.endswith("grep.info.gz#matching-control")


def test_cross_references_read_as_text() -> None:
    """wget's manual writes "(*note Startup File::)" 37 times; the raw form stayed in the
    chunks and a model echoed "(Startup File::)" in its answer."""
    from citewise.ingest.info import cross_references

    assert cross_references("(*note Startup File::)") == "(see Startup File)"
    assert cross_references("*Note Options: Invoking.  Then") == "See Options.  Then"
    assert cross_references("manual (*note Following\n     Links::) for") == \
        "manual (see Following Links) for"
    assert cross_references("See also *note Recursive: (wget)Recursive Download, and") == \
        "See also Recursive, and"
    # a new user's quotes read "(see see Triggering)" and "described in see po/Makevars"
    assert cross_references("call bindtextdomain (see *note Triggering::) first") == \
        "call bindtextdomain (see Triggering) first"
    assert cross_references("is described in *note po/Makevars:: and *note\n"
                            "AM_XGETTEXT_OPTION::.") == \
        "is described in po/Makevars and AM_XGETTEXT_OPTION."
    assert cross_references("a *b* c and a note:: here") == "a *b* c and a note:: here"


def test_an_example_s_blank_lines_of_spaces_keep_it_one_example(tmp_path):
    """nettle's SHA1 program: makeinfo writes an @example's blank lines as its five spaces;
    split there, ``#define BUF_SIZE 1000`` alone read as prose, set the prose indent to five,
    and the rest of the program was prose, flush left. The 37 spaces between the rows of
    coreutils' join table still part them."""
    program = ("     #include <stdio.h>\n     \n     #define BUF_SIZE 1000\n     \n"
               "     static void\n     display_hex(unsigned length)\n     {\n"
               "       unsigned i;\n     }\n")
    code = [t for k, t in _blocks(tmp_path, f"{program}\nThen it prints.\n\n") if k == "code"]
    assert code == ["#include <stdio.h>\n\n#define BUF_SIZE 1000\n\nstatic void\n"
                    "display_hex(unsigned length)\n{\n  unsigned i;\n}"]


def test_an_example_s_empty_lines_keep_its_indentation(tmp_path):
    """nettle's ARCFOUR key setup: an ``@example`` whose blank lines are empty is read in
    paragraphs; dedented one at a time, the function body after each blank line lost its
    indentation (``sha256_init(&hash);`` at the margin). It is one code block, dedented
    together."""
    program = ("     void\n     set_key(struct ctx *ctx)\n     {\n"
               "       struct sha256_ctx hash;\n\n       sha256_init(&hash);\n"
               "       sha256_update(&hash, 1, key);\n     }\n")
    code = [t for k, t in _blocks(tmp_path, f"{program}\nThen it prints.\n\n") if k == "code"]
    assert code[0] == ("void\nset_key(struct ctx *ctx)\n{\n  struct sha256_ctx hash;\n\n"
                       "  sha256_init(&hash);\n  sha256_update(&hash, 1, key);\n}")


def test_the_footnotes_rule_is_not_text(tmp_path):
    """sed's manual: "---------- Footnotes ----------" was a block of its own, shown by
    search as a passage's text; the footnotes under it are kept."""
    texts = [t for _, t in _blocks(tmp_path, "   ---------- Footnotes ----------\n\n"
                                   "   (1) Or standard input.\n\n",
                                   after="Run acme with a file name.(1)\n\n")]
    assert "(1) Or standard input." in texts
    assert not any("Footnotes" in t for t in texts)
    code = [t for k, t in _blocks(  # it ends the example before it
        tmp_path, "     acme --fast in.txt\n\n   ---------- Footnotes ----------\n\n"
        "          acme --slow=2 in.txt\n\n", after="Run acme with a file name:\n\n")
        if k == "code"]
    assert code[:2] == ["acme --fast in.txt", "acme --slow=2 in.txt"], code



def test_a_lead_in_above_its_example_is_text(tmp_path):
    """sed's table items: "Example: Replace the 2nd to 9th lines with the word ‘hello’:"
    over its indented session, one paragraph; the answer quoted the sentence inside the
    code. The lead-in is text, the session code."""
    item = ("‘c TEXT’\n     Replaces the line(s) with TEXT.\n\n"
            "     Example: Replace the 2nd to 9th lines with the word ‘hello’:\n"
            "          $ seq 10 | sed '2,9c hello'\n          1\n          hello\n\n")
    blocks = _blocks(tmp_path, item)
    i = blocks.index(("text", "Example: Replace the 2nd to 9th lines with the word ‘hello’:"))
    assert blocks[i + 1] == ("code", "$ seq 10 | sed '2,9c hello'\n1\nhello")


def test_a_command_under_its_lead_in_and_an_example_s_comments_are_code(tmp_path):
    """wget's manual: ``wget http://fly.srk.fer.hr/`` under "Just type:" has no mark of
    code and was prose, flush left; its Sample Wgetrc's paragraphs of comments were 29
    paragraphs of prose. A quotation under a lead-in stays text."""
    body = ("   • Say you want to download a URL.  Just type:\n\n"
            "          wget http://fly.srk.fer.hr/\n\n"
            "   The sample file:\n\n     ###\n     ### Sample .wgetrc\n     ###\n"
            "     tries = 20\n\n"
            "     ## You can use this file to change the default behaviour.\n     ##\n\n"
            "     #waitretry = 10\n\n"
            "   Spencer said it well:\n\n     Thou shalt check the array bounds of all strings\n"
            "     (indeed, all arrays), for surely where thou typest foo.\n\n")
    blocks = _blocks(tmp_path, body)
    assert ("code", "wget http://fly.srk.fer.hr/") in blocks
    assert ("code", "###\n### Sample .wgetrc\n###\ntries = 20\n\n## You can use this file to "
            "change the default behaviour.\n##\n\n#waitretry = 10") in blocks
    assert [k for k, t in blocks if t.startswith("Thou shalt check")] == ["text"]


def test_a_split_manuals_date_is_its_latest_files(tmp_path):
    """A new user edited only ``gnupg.info-2.gz``: the manual's new version kept the index
    file's older date."""
    import os

    index = _split_manual(tmp_path, gz=True)
    os.utime(index, (1_600_000_000, 1_600_000_000))
    os.utime(tmp_path / "acme.info-1.gz", (1_700_000_000, 1_700_000_000))
    with Engine(tmp_path / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest_paths([tmp_path], {"groups": ["staff"]})
        [doc] = engine.store.list_documents()
        assert doc.updated_at.startswith("2023-11-14"), doc.updated_at
