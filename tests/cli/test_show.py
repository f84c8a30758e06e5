"""`citewise show`: a citation's section printed in the terminal, where a browser opens none
(a compressed or Info file), for readers of the document only."""

from __future__ import annotations

import gzip
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from citewise.cli.main import cli

pytestmark = [pytest.mark.model]

MANUAL = """# Spanner manual

## Installing

Unpack the archive and run the installer as root.

## Calibrating the torque

Turn the dial to 40 newton metres before each shift, then press the calibrate button
until the lamp turns green.
"""


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def indexed(tmp_path: Path, name: str, text: str) -> tuple[Path, str]:
    """``(docs folder, index path)`` of one file ``name`` holding ``text`` (gzipped when the
    name ends in .gz), ingested for the ``public`` group."""
    docs, db = tmp_path / "docs", str(tmp_path / "i.db")
    docs.mkdir()
    data = text.encode()
    (docs / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert run("ingest", str(docs), "--groups", "public", "--db", db, "--no-progress")[0] == 0
    return docs, db


def test_a_compressed_source_is_read_with_show(tmp_path: Path) -> None:
    _, db = indexed(tmp_path, "spanner.md.gz", MANUAL)
    code, out = run("ask", "How do I calibrate the torque of the spanner?", "--groups",
                    "public", "--db", db, "--generator", "extractive")
    assert code == 0, out
    hint = re.search(r"`(citewise show '[^`]+)`", out)
    assert hint and "spanner.md.gz#calibrating-the-torque" in hint.group(1), out
    code, shown = run(*shlex.split(hint.group(1))[1:])  # pasted as printed: a new user's
    assert code == 0, shown  # paste left out the ask's --db and --groups
    assert "## Calibrating the torque" in shown and "40 newton metres" in shown
    assert "Unpack the archive" not in shown  # the cited section, not the whole manual
    assert shown.startswith("Spanner manual ("), shown  # the title once (a review)
    code, hidden = run(*shlex.split(hint.group(1))[1:3], "--groups", "staff", "--db", db)
    assert code == 1 and "not in the index" in hidden and "newton" not in hidden


def test_the_show_hint_is_one_shell_word_whatever_the_anchor(tmp_path: Path) -> None:
    """A security review: an HTML heading's id is the citation's anchor, verbatim; the hint
    was quoted with bare '…', so an id holding a quote ran commands when pasted."""
    pwned = tmp_path / "PWNED"
    page = ("<html><head><title>Frob manual</title></head><body><h1 id='top'>Frob manual</h1>"
            f"<h2 id=\"usage';touch${{IFS}}{pwned};echo${{IFS}}'\">Usage</h2>"
            "<p>The frobnicator warms up in 30 seconds before each use.</p></body></html>")
    _, db = indexed(tmp_path, "frob.html.gz", page)
    code, out = run("ask", "How long does the frobnicator take to warm up?", "--groups",
                    "public", "--db", db, "--generator", "extractive")
    assert code == 0, out
    hint = re.search(r"`citewise show (.+) --db \S+ --groups public` prints", out)
    assert hint, out
    link = hint.group(1)
    echoed = subprocess.run(["bash", "-c", f"printf '%s\\n' {link}"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    assert not pwned.exists(), out  # pasted into a shell, the hint runs nothing
    assert echoed.count("\n") == 1 and echoed.startswith("file://"), echoed
    code, shown = run("show", echoed.strip(), "--groups", "public", "--db", db)
    assert code == 0 and "30 seconds" in shown, shown


def test_explain_names_each_passage_section(tmp_path: Path) -> None:
    """A new user had to map ``S1 = <chunk id>`` to sections with ``search --json``."""
    _, db = indexed(tmp_path, "spanner.md", MANUAL)
    code, out = run("ask", "How do I calibrate the torque of the spanner?", "--groups",
                    "public", "--db", db, "--generator", "extractive", "--explain")
    assert code == 0 and re.search(
        r"-- S1 = \w+ \(\d+ tokens; Spanner manual", out), out
    wrench = tmp_path / "wrench"
    wrench.mkdir()
    (wrench / "wrench.md").write_text("# Wrench manual\n\n## Torque\n\nCalibrate the "
                                      "torque of the wrench with the dial each shift.\n")
    assert run("ingest", str(wrench), "--groups", "public", "--db", db, "--no-progress")[0] == 0
    config = tmp_path / "one.json"
    config.write_text('{"context": {"max_passages": 1}}')
    code, out = run("ask", "How do I calibrate the torque of the spanner?", "--groups",
                    "public", "--db", db, "--generator", "extractive", "--explain",
                    "--config", str(config))
    assert code == 0 and re.search(  # a new user saw only "-- dropped 6cfe2598…: max_passages"
        r"-- dropped \w+: max_passages \(Wrench manual › Torque\)", out), out


def test_a_path_the_os_cannot_resolve_is_not_in_the_index(tmp_path: Path, monkeypatch) -> None:
    """A security review: a symlink loop raised RuntimeError with a traceback."""
    _, db = indexed(tmp_path, "spanner.md", MANUAL)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loopa").symlink_to("loopb")
    (tmp_path / "loopb").symlink_to("loopa")
    code, out = run("show", "loopa/x", "--groups", "public", "--db", db)
    assert code == 1 and "not in the index" in out and "Traceback" not in out, out


def test_an_unknown_anchor_lists_the_sections_instead_of_printing_everything(
        tmp_path: Path) -> None:
    """A new user's mistyped anchor printed a note and then the whole 20,000-line manual."""
    docs, db = indexed(tmp_path, "spanner.md.gz", MANUAL)
    code, out = run("show", f"file://{docs}/spanner.md.gz#no-such-part", "--groups", "public",
                    "--db", db)
    assert code == 1 and "no section of spanner.md.gz has the anchor #no-such-part" in out
    assert "#installing," in out and "#calibrating-the-torque" in out, out  # spelled: bare
    assert "Unpack the archive" not in out and "newton" not in out
    code, shown = run("show", "spanner.md.gz", "--anchor", "installing", "--groups", "public",
                      "--db", db)
    assert code == 0 and "Unpack the archive" in shown and "newton" not in shown, shown


def test_the_fix_for_an_unknown_anchor_pastes_and_a_heading_needs_no_number(
        tmp_path: Path) -> None:
    """A new user pasted the fix `citewise show bc.html --anchor Introduction-1` without the
    --groups they had given (refused: not in the index), and `--anchor Limits` was refused
    for the heading "9 Limits" (Texinfo's anchor is "Limits-1")."""
    page = ("<html><body><h2 id='Intro-1'>1 Introduction</h2><p>Hello there.</p>"
            "<h2 id='Limits-1'>9 Limits</h2><p>BC_BASE_MAX is 16.</p></body></html>")
    _, db = indexed(tmp_path, "bc.html", page)
    code, out = run("show", "bc.html", "--anchor", "nope", "--groups", "public", "--db", db)
    fix = re.search(r"`(citewise show [^`]+)`", out)
    assert code == 1 and fix, out
    again = run(*shlex.split(fix.group(1))[1:])
    assert again[0] == 0 and "Hello there." in again[1], again
    code, out = run("show", "bc.html", "--anchor", "Limits", "--groups", "public", "--db", db)
    assert code == 0 and "BC_BASE_MAX is 16." in out and "Hello" not in out, out


def test_opaque_anchors_are_listed_with_their_headings(tmp_path: Path) -> None:
    """A new user of fontconfig's DocBook page was told its sections were "#AEN1, #AEN5,
    #AEN8, …"."""
    page = ('<html><head><title>fonts-conf</title></head><body><h2><a name="AEN5">Name</a>'
            '</h2><p>fonts.conf: font configuration files.</p><h2><a name="AEN113">&lt;rescan'
            '&gt;</a></h2><p>The rescan element holds an interval.</p></body></html>')
    _, db = indexed(tmp_path, "fc.html", page)
    code, out = run("show", "fc.html#nope", "--groups", "public", "--db", db)
    assert code == 1 and "#AEN5 (Name)" in out and "#AEN113 (<rescan>)" in out, out


CHAPTER = """# Lathe manual

## Safety

Wear goggles and tie back long hair before the lathe is switched on.

### Guards

Close the chuck guard before starting; the lathe refuses to start with it open.

### Stopping

The red mushroom button stops the spindle within two seconds.
"""


def test_a_chapter_shows_its_own_text_and_names_its_subsections(tmp_path: Path) -> None:
    """A new user's `show` of an Info chapter's citation printed the whole chapter, 354
    lines, for a sentence of its first paragraph; the cited text is in the chapter's own
    blocks, and the subsections are one --anchor away."""
    _, db = indexed(tmp_path, "lathe.md.gz", CHAPTER)
    code, out = run("ask", "What must I wear before the lathe is switched on?", "--groups",
                    "public", "--db", db, "--generator", "extractive")
    assert code == 0 and "goggles" in out, out
    hint = re.search(r"`(citewise show '[^`]+)`", out)
    assert hint and "lathe.md.gz#safety" in hint.group(1), out
    code, shown = run(*shlex.split(hint.group(1))[1:])
    assert code == 0 and "## Safety" in shown and "Wear goggles" in shown, shown
    assert "chuck guard" not in shown and "mushroom" not in shown, shown
    assert "2 subsection(s) not shown" in shown, shown
    assert "### Guards  (--anchor guards)" in shown and "--anchor stopping" in shown, shown
    code, guards = run("show", "lathe.md.gz", "--anchor", "guards", "--groups", "public",
                       "--db", db)
    assert code == 0 and "chuck guard" in guards and "goggles" not in guards, guards


def test_show_takes_a_browsers_anchor_and_the_local_path_of_a_page_given_a_base_url(
        tmp_path: Path, monkeypatch) -> None:
    """A new user of Rust by Example: a percent-encoded anchor (as a browser copies it) and
    the local path of a page ingested with --base-url were "not in the index"; the pasted
    hint named the relative --db, so it worked only from the folder of the ask."""
    docs = tmp_path / "site" / "ja"
    docs.mkdir(parents=True)
    page = ("<html><head><title>ファイル</title></head><body><h1 id='top'>Files</h1>"
            "<h2 id='より効率的な方法'>A faster way</h2><p>Buffered readers are faster "
            "for big files.</p><h2 id='see-also'>See also</h2><p>Paths.</p></body></html>")
    (docs / "read.html").write_text(page, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run("ingest", "site", "--groups", "public", "--db", "i.db", "--no-progress",
               "--base-url", "https://docs.example/")[0] == 0
    link = "https://docs.example/ja/read.html#%E3%82%88%E3%82%8A%E5%8A%B9%E7%8E%87%E7%9A%84" \
           "%E3%81%AA%E6%96%B9%E6%B3%95"
    code, shown = run("show", link, "--groups", "public", "--db", "i.db")
    assert code == 0 and "Buffered readers" in shown and "Paths." not in shown, shown
    code, shown = run("show", f"{docs / 'read.html'}#see-also", "--groups", "public",
                      "--db", "i.db")
    assert code == 0 and "Paths." in shown and "Buffered" not in shown, shown
    assert "(https://docs.example/ja/read.html#see-also; " in shown  # the section's link (a
    # new user of npm's docs: the header named the page's)
    other = tmp_path / "other" / "ja"  # a review: another file with the same tail opened
    other.mkdir(parents=True)  # the indexed page
    (other / "read.html").write_text("<html><body><p>Unrelated notes.</p></body></html>")
    code, shown = run("show", str(other / "read.html"), "--groups", "public", "--db", "i.db")
    assert code == 1 and "not in the index" in shown and "Buffered" not in shown, shown
    (tmp_path / "book.md.gz").write_bytes(gzip.compress(MANUAL.encode()))
    assert run("ingest", "book.md.gz", "--groups", "public", "--db", "i.db",
               "--no-progress")[0] == 0
    code, out = run("ask", "How do I calibrate the torque of the spanner?", "--groups",
                    "public", "--db", "i.db", "--generator", "extractive")
    hint = re.search(r"`(citewise show [^`]+)`", out)
    assert code == 0 and hint and f"--db {tmp_path / 'i.db'} " in hint.group(1), out


def test_subsections_without_anchors_of_their_own_are_shown_with_their_section(
        tmp_path: Path) -> None:
    """libxslt's News: each release's heading has no id, so its text is cited as #News, and
    `show` listed 59 releases "(--anchor News)", an option that printed the same list."""
    news = ('<html><body><h2><a name="News">News</a></h2><p>The releases, newest first.</p>'
            "<h3>1.1.39</h3><p>Fixed the --maxvars option.</p>"
            "<h3>1.1.38</h3><p>Added EXSLT crypto.</p></body></html>")
    _, db = indexed(tmp_path, "xslt.html", news)
    code, shown = run("show", "xslt.html", "--anchor", "News", "--groups", "public",
                      "--db", db)
    assert code == 0 and "--maxvars" in shown and "EXSLT crypto" in shown, shown
    assert "not shown" not in shown, shown


def test_an_anchor_inside_a_section_opens_there_under_the_sections_path(tmp_path):
    """A new user of rsyslog's documentation: a Sphinx label on a list of 40 parameters was
    shown from the page's top; the review of this stop: then under no section at all."""
    page = ('<html><head><title>Config</title></head><body><h1>Config</h1><h2 id="global">'
            'Global</h2><p>Parameters of the global object.</p><p>Set them once.</p>'
            '<ul id="global-janitor"><li><p>janitor.interval: minutes between runs.</p></li>'
            '</ul></body></html>')
    _, db = indexed(tmp_path, "g.html", page)
    code, out = run("show", "g.html#global-janitor", "--groups", "public", "--db", db)
    assert code == 0 and out.startswith("Config › Global (") and "#global-janitor" in out
    assert "janitor.interval" in out and "Set them once" not in out, out


def test_an_anchor_is_listed_with_its_own_heading_not_the_last_one_under_it(tmp_path):
    """A new user of findutils' maintainer manual read "#make-the-compiler-find-the-bugs
    (4.1.2 Spelling of ASCII NUL)": a subsection without an anchor of its own shares its
    section's, and the list named the section by its last subsection."""
    page = ('<html><head><title>maint</title></head><body><h2><a name="AEN9">Make the compiler '
            'find the bugs</a></h2><p>Write 2 == x.</p><h3>Spelling of ASCII NUL</h3><p>Use '
            "'\\0'.</p></body></html>")
    _, db = indexed(tmp_path, "m.html", page)
    code, out = run("show", "m.html#nope", "--groups", "public", "--db", db)
    assert code == 1 and "#AEN9 (Make the compiler find the b" in out, out
    assert "Spelling" not in out, out


def ask_then_show(db: str, question: str) -> tuple[str, str]:
    """``(ask's output, what the show command it names prints)``, both exit 0: the ask is
    extractive, as the ``public`` group; the show is pasted as printed."""
    code, out = run("ask", question, "--groups", "public", "--db", db,
                    "--generator", "extractive")
    assert code == 0, out
    hint = re.search(r"`(citewise show [^`]+)`", out)
    assert hint, out
    code, shown = run(*shlex.split(hint.group(1))[1:])
    assert code == 0, shown
    return out, shown


def test_a_plain_text_citation_names_the_show_that_opens_its_section(tmp_path: Path) -> None:
    """A new user's citation of Git's 511-line release notes read "› Updates since v2.28",
    but its link opens the file at its top (plain text has no anchors) and no hint said
    `show --anchor` would print the section."""
    notes = ("Git v2.29 Release Notes\n=======================\n\nBackward compatibility\n"
             "----------------------\n\nNothing changed.\n\nUpdates since v2.28\n"
             "-------------------\n\n * \"git maintenance\" is a new command that runs "
             "housekeeping tasks on a schedule.\n")
    _, db = indexed(tmp_path, "2.29.0.txt", notes)
    out, shown = ask_then_show(db, "Which command runs housekeeping tasks on a schedule?")
    assert "git maintenance" in out and "a browser opens this file at its top" in out, out
    assert "git maintenance" in shown and "Nothing changed" not in shown, shown


GDB_NEWS = """\t\tWhat has changed in GDB?
\t     (Organized release by release)

*** Changes in GDB 13

* MI version 1 is deprecated, and will be removed in GDB 14.

* New commands

maintenance set ignore-prologue-end-flag on|off
  Controls whether GDB ignores the PROLOGUE-END flag of the line table.

*** Changes in GDB 12

* New commands

tui window width NAME WIDTH
  The new command 'tui window width' adjusts the width of a tui window when
  windows are laid out in horizontal mode.
"""


def test_a_debian_news_file_is_read_and_its_citation_opens_the_right_release(
        tmp_path: Path) -> None:
    """A new user's `citewise ingest /usr/share/doc/gdb` skipped NEWS.gz (no suffix a
    loader knows) and indexed nothing; named on its own, its "*** Changes in GDB 12" lines
    were no headings, so no citation said which release, and `show --anchor 'New commands'`
    (the hint) printed GDB 13's section of that name for a passage of GDB 12's."""
    docs, db = tmp_path / "gdb", str(tmp_path / "i.db")
    docs.mkdir()
    (docs / "NEWS.gz").write_bytes(gzip.compress(GDB_NEWS.encode()))
    assert run("ingest", str(docs), "--groups", "public", "--db", db, "--no-progress")[0] == 0
    out, shown = ask_then_show(db, "Which command adjusts the width of a tui window?")
    assert "tui window width" in out, out
    assert "gdb NEWS › Changes in GDB 12 › New commands" in out, out
    assert shown.startswith("gdb NEWS › Changes in GDB 12 ("), shown
    assert "tui window width" in shown and "prologue" not in shown, shown


def test_hints_name_the_index_but_not_its_password_and_only_in_the_command():
    """A review: the readers-changed warning's ``--db INDEX`` was replaced in a document id
    holding those words too, and a PostgreSQL ``--db`` was printed with its password."""
    from citewise.cli.ingest import on_this_index
    from citewise.cli.show import show_options

    url = "postgresql://cw:s3cret@db.example:5432/cw"
    assert show_options(url, "", "default", None) == [
        "--db", "postgresql://cw:***@db.example:5432/cw"]
    warning = ("odd --db INDEX id: this ingest changes who may read it, from groups a to b; "
               "if that was not meant, set them back on this index (`citewise acl --groups a "
               "--db INDEX -- 'odd --db INDEX id'`, or PUT …)")
    out = on_this_index(warning, "/tmp/x.db")
    assert out.startswith("odd --db INDEX id: this ingest")
    assert "`citewise acl --groups a --db /tmp/x.db -- 'odd --db INDEX id'`" in out


def test_show_takes_the_folder_url_a_site_serves_its_index_page_at(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """A new user of Django's docs, ingested with ``--base-url '…/{stem}/'``: citations link
    ``…/admin/index/#…``, which the site redirects to ``…/admin/``; that URL pasted into
    ``show`` was "not in the index"."""
    docs = tmp_path / "site" / "admin"
    docs.mkdir(parents=True)
    (docs / "index.html").write_text("<html><body><h1 id='admin'>Admin</h1><h2 id='actions'>"
                                     "Actions</h2><p>Bulk actions run on the selected "
                                     "rows.</p></body></html>")
    monkeypatch.chdir(tmp_path)
    assert run("ingest", "site", "--groups", "public", "--db", "i.db", "--no-progress",
               "--base-url", "https://docs.example/en/{stem}/")[0] == 0
    code, shown = run("show", "https://docs.example/en/admin/#actions", "--groups", "public",
                      "--db", "i.db")
    assert code == 0 and "Bulk actions" in shown, shown
