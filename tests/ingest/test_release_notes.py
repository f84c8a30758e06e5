"""Release notes as projects ship them: Debian's ``NEWS.gz`` and ``README.Debian`` are
read (:mod:`citewise.ingest.doc_names`), and their outline and release lines are headings
(:mod:`citewise.ingest.text_headings`), so a passage says which release it belongs to."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from citewise.errors import UnsupportedFormatError
from citewise.ingest import SUPPORTED_SUFFIXES, format_of, load_file
from citewise.ingest.doc_names import FORMAT_SUFFIXES, is_doc_name, name_title
from citewise.ingest.walk import discover

GDB = """\t\tWhat has changed in GDB?
\t     (Organized release by release)

*** Changes in GDB 13

* MI version 1 is deprecated, and will be removed in GDB 14.

* Breakpoints on functions marked with C++ ABI tags

  Functions with a C++11 abi tag are demangled/displayed like this:

    function[abi:cxx11](int)
            ^^^^^^^^^^^

* New commands

maint set tui-resize-message [on|off]
  Control whether GDB prints a message each time the terminal is resized.

*** Changes in GDB 12

* New commands

tui window width NAME WIDTH
  Adjusts the width of a tui window.
"""

COREUTILS = """GNU coreutils NEWS                                    -*- outline -*-

* Noteworthy changes in release 9.1 (2022-04-15) [stable]

** Bug fixes

  chmod -R no longer exits with error status when encountering symlinks.

** New Features

  cp --reflink=auto is now the default.

* Noteworthy changes in release 9.0 (2021-09-24) [stable]

** Bug fixes

  chmod -v no longer misreports modes of dangling symlinks.
"""


def _headings(parsed) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in parsed.blocks if b.kind == "heading"]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    return path


def test_gdbs_outline_marks_releases_and_a_caret_under_code_is_no_underline(
        tmp_path, check_offsets):
    parsed = load_file(_write(tmp_path / "gdb" / "NEWS.gz", GDB))
    check_offsets(parsed)
    assert parsed.title == "gdb NEWS"  # not "NEWS", beside every other package's
    assert _headings(parsed) == [
        (1, "Changes in GDB 13"), (2, "Breakpoints on functions marked with C++ ABI tags"),
        (2, "New commands"), (1, "Changes in GDB 12"), (2, "New commands")]
    item = next(b for b in parsed.blocks if b.text.startswith("* MI version 1"))
    assert item.heading_path == ("Changes in GDB 13",)  # a sentence is an entry
    width = next(b for b in parsed.blocks if "tui window width" in b.text)
    assert width.heading_path == ("Changes in GDB 12", "New commands")


def test_gnu_outline_levels_follow_their_stars(tmp_path):
    parsed = load_file(_write(tmp_path / "coreutils" / "NEWS", COREUTILS))
    assert _headings(parsed)[:2] == [
        (1, "Noteworthy changes in release 9.1 (2022-04-15) [stable]"), (2, "Bug fixes")]
    old = next(b for b in parsed.blocks if "misreports" in b.text)
    assert old.heading_path == ("Noteworthy changes in release 9.0 (2021-09-24) [stable]",
                                "Bug fixes")


def test_bare_release_lines_open_sections_when_three_share_their_first_word(tmp_path):
    fixes = "".join(f"Version 2.{n}.0 (2023-05-0{n}) - bug fix release\n\n* Fixed {n}.\n\n"
                    for n in (3, 2, 1))  # a review: words after the number, no verb
    assert len(_headings(load_file(_write(tmp_path / "f" / "NEWS", fixes)))) == 3
    text = "".join(f"Version 0.{n} - May 20{10 + n}\n\n* Fixed bug {n} in the parser.\n\n"
                   for n in (3, 2, 1))
    parsed = load_file(_write(tmp_path / "gettext" / "NEWS", text))
    assert _headings(parsed) == [(1, "Version 0.3 - May 2013"), (1, "Version 0.2 - May 2012"),
                                 (1, "Version 0.1 - May 2011")]
    assert parsed.title == "gettext NEWS"  # the first release is not the file's title
    two = text.split("Version 0.1")[0]
    assert _headings(load_file(_write(tmp_path / "x" / "NEWS", two))) == []


def test_a_release_line_over_its_indented_entries_is_a_heading(tmp_path):
    """bc's NEWS: "Changes in bc from 1.06 to 1.07." then its entries indented, no blank line
    between: no release of bc 1.05-1.07.1 was a section, and "what changed in bc 1.07?" was
    answered with the two lines naming it. gdb's "GDB now uses readline 2.2" over its
    wrapped lines is an entry."""
    text = ("This is GNU bc version 1.07.1.\n\nChanges in bc from 1.07 to 1.07.1.\n    Fixed "
            "ibase.\n    Fixed parallel make.\n\nChanges in dc 1.4 to 1.4.1.\n    Fixed Q.\n\n"
            "Changes in bc from 1.06 to 1.07.\n    Added void functions.\n\nChanges from 1.03"
            "\n\n\treorganization of source tree\n\nGDB now uses readline 2.2\n  and more.\n\n"
            "GDB now works with Solaris 2.5\n  too.\n\nGDB now works with Irix 5.2\n  too.\n\n"
            "Crash in the 1.2 parser\n  when empty.\n\nCrash in the 1.3 lexer\n  when "
            "empty.\n\nCrash in the 1.4 docs\n  when empty.\n")
    parsed = load_file(_write(tmp_path / "bc" / "NEWS", text))
    assert [t for _, t in _headings(parsed)] == [
        "Changes in bc from 1.07 to 1.07.1", "Changes in dc 1.4 to 1.4.1",
        "Changes in bc from 1.06 to 1.07", "Changes from 1.03"]
    styles = "".join(f"Version 1.{n}\n  {entry}\n  Second entry.\n\n" for n, entry in enumerate(
        ("o Added a.", '"make check" passes.', "[core] Added c.", "libfoo: added d.")))
    assert len(_headings(load_file(_write(tmp_path / "x" / "NEWS", styles)))) == 4
    void = next(b for b in parsed.blocks if "void functions" in b.text)
    assert void.heading_path == ("Changes in bc from 1.06 to 1.07",)
    assert "Changes in" not in void.text


@pytest.mark.parametrize("text", [
    "* Fix a crash on empty input\n\n* Add the --quiet option\n\n* Faster start-up\n",
    "Intro text.\n\n* See the manual\n\n=====\n\n* Bug fixes\n\n=====\n",
])
def test_one_line_items_and_lines_before_rules_stay_text(tmp_path, text):
    """A list of one-line "* …" entries with blank lines between is a list; less's NEWS
    ends a release's list with "* Bug fixes" over a rule."""
    assert _headings(load_file(_write(tmp_path / "NEWS", text))) == []


def test_an_underlined_first_heading_that_recurs_does_not_title_the_file(tmp_path):
    text = ("Noteworthy changes in release 6.1 (2022-12-12)\n"
            "==============================================\n\n* Improvements\n  * Faster.\n\n"
            "Noteworthy changes in release 6.0 (2022-10-29)\n"
            "==============================================\n\n* Bug fixes\n  * Fixed.\n")
    parsed = load_file(_write(tmp_path / "strace" / "NEWS.gz", text))
    assert parsed.title == "strace NEWS"
    manual = load_file(_write(tmp_path / "guide.txt", "Office Guide\n============\n\nHi.\n"))
    assert manual.title == "Office Guide"


def test_a_debian_doc_folder_gives_its_conventional_files_and_no_scripts(tmp_path):
    docs = tmp_path / "gdb"
    for name in ("NEWS.gz", "README.Debian", "README.Debian.amd64.gz", "RELEASE-NOTES",
                 "INSTALL.sh", "changelog.gz", "AUTHORS", "refcard.tex.gz", "guide.md",
                 "NEWS.bz2", "TODO.xz", "README.zip"):  # archives stay skipped (a review)
        _write(docs / name, "Some text.\n")
    skipped: list[Path] = []
    found = [f.name for _, f in discover([docs], skipped=skipped)]
    assert found == ["NEWS.gz", "README.Debian", "README.Debian.amd64.gz", "RELEASE-NOTES",
                     "guide.md"]
    assert sorted(p.name for p in skipped) == ["AUTHORS", "INSTALL.sh", "NEWS.bz2",
                                               "README.zip", "TODO.xz", "changelog.gz",
                                               "refcard.tex.gz"]
    assert load_file(docs / "README.Debian").title == "gdb README.Debian"
    assert format_of(Path("README.Debian")) == "text" and format_of(Path("TODO.py")) is None


def test_a_projects_changelog_is_read_but_debians_and_gnus_logs_are_not(tmp_path):
    """A new user's walk of httplib2's, funcsigs' and google-auth's folders left out their
    CHANGELOG and CHANGELOG.md (release histories, as CHANGES is), so "which version added
    ..." had nothing to read; Debian's changelog and GNU's ChangeLog are commit logs, and a
    docs folder's requirements.txt lists what its build installs."""
    lib = tmp_path / "httplib2"
    for name in ("CHANGELOG", "CHANGELOG.md", "Changelog.rst", "ChangeLog", "changelog.gz",
                 "changelog.Debian.gz", "requirements.txt", "requirements-docs.txt",
                 "REQUIREMENTS.txt"):  # prose, as a project in capitals may write it
        _write(lib / name, "0.20.4\n\n  proxy: support proxy urls with ipv6 address\n")
    found = sorted(f.name for _, f in discover([lib]))
    assert found == ["CHANGELOG", "CHANGELOG.md", "Changelog.rst", "REQUIREMENTS.txt"]
    assert load_file(lib / "CHANGELOG").title == "httplib2 CHANGELOG"


def test_a_sphinx_source_copy_of_a_page_named_requirements_is_no_pip_file():
    """Knot DNS's "Requirements" chapter: its ``_sources/requirements.rst.txt`` was left
    out as a pip requirements file (a new user was told so); it is the page's source copy."""
    from citewise.ingest.doc_names import is_left_out

    for name in ("requirements.rst.txt", "requirements.md.txt", "constraints.ipynb.txt",
                 "requirements.markdown.txt", "requirements.rest.txt", "requirements.myst.txt"):
        assert not is_left_out(name), name
    assert is_left_out("requirements.txt") and is_left_out("requirements-docs.txt")


def test_a_licence_named_after_what_it_licenses_is_left_out():
    """mdBook puts OPEN-SANS-LICENSE.txt beside a book's fonts; a new user's question about
    the Rustonomicon was answered from it."""
    from citewise.ingest.doc_names import is_left_out

    for name in ("OPEN-SANS-LICENSE.txt", "SOURCE-CODE-PRO-LICENSE.txt", "LICENSE-MIT",
                 "LICENSE-APACHE", "LICENSE", "COPYING.gz"):
        assert is_left_out(name), name
    for name in ("license-faq.md", "licensing.txt", "LICENSE-guide.md", "NEWS", "guide.txt"):
        assert not is_left_out(name), name


def test_a_folder_walk_reads_no_font_licence(tmp_path):
    """The test above checked the name only: the walk still read mdBook's font licences
    (two new users of stop 52 found OPEN-SANS-LICENSE.txt indexed, and answering)."""
    from citewise.ingest.walk import discover

    (tmp_path / "fonts").mkdir()
    for name in ("fonts/OPEN-SANS-LICENSE.txt", "fonts/SOURCE-CODE-PRO-LICENSE.txt.gz",
                 "guide.txt", "license-faq.md"):
        (tmp_path / name).write_text("text")
    skipped: list[Path] = []
    found = [p.relative_to(tmp_path).as_posix() for _, p in discover([tmp_path],
                                                                    skipped=skipped)]
    assert sorted(found) == ["guide.txt", "license-faq.md"]
    assert sorted(p.name for p in skipped) == ["OPEN-SANS-LICENSE.txt",
                                               "SOURCE-CODE-PRO-LICENSE.txt.gz"]
    named = tmp_path / "fonts" / "OPEN-SANS-LICENSE.txt"  # named on its own: read
    assert [p for _, p in discover([named])] == [named]


def test_doc_names_and_titles():
    assert is_doc_name("NEWS") and is_doc_name("README_MISSING_SYSCALL_OR_IOCTL")
    assert not is_doc_name("news") and not is_doc_name("INSTALL.sh")
    assert name_title(Path("/d/httpx/README.md")) == "httpx README"
    assert name_title(Path("/d/httpx/guide.md")) == "guide"
    assert name_title(Path("NEWS")) == "NEWS"
    # an API upload is read from a temporary folder: no folder of the document's
    assert name_title(Path("/tmp/citewise-upload-rjznxws9/README.txt")) == "README"
    assert name_title(Path("/usr/share/doc/tmpreaper/README.Debian")) == \
        "tmpreaper README.Debian"  # a review: only the upload's folder is anonymous
    assert set(SUPPORTED_SUFFIXES) == FORMAT_SUFFIXES


def test_a_title_whose_underline_sections_reuse_stays_above_the_releases(tmp_path):
    """Python's HISTORY: "Python History" underlined with "-", releases with "=", then
    "Library" with "-" again: every release was a subsection of the last "Library"."""
    text = ("Python History\n--------------\n\nThe release messages.\n\n"
            "What's New in Python 3.4.6?\n===========================\n\nRelease date: "
            "2017-01-17\n\nLibrary\n-------\n\n- Issue #28648: Fixed a crash.\n\n"
            "What's New in Python 3.4.5?\n===========================\n\nLibrary\n-------\n\n"
            "- Issue #27000: Fixed another crash.\n")
    parsed = load_file(_write(tmp_path / "python3.11" / "HISTORY", text))
    assert parsed.title == "Python History"
    fix = next(b for b in parsed.blocks if "#27000" in b.text)
    assert fix.heading_path == ("Python History", "What's New in Python 3.4.5?", "Library")


@pytest.mark.parametrize("text", [
    # a list of requirements, one with a note under it
    "You need:\n\n* Python 3.8 or later\n\n* A C compiler\n\n  Install build-essential.\n\n"
    "Then run make.\n",
    # sentences that name versions, with no full stop
    "Server 2.1 was upgraded on Monday\n\nIt went well.\n\nServer 2.4 still runs the old "
    "kernel\n\nIt will move.\n\nServer 3.0 will be retired in May\n\nBy then.\n",
    # an entry that is a sentence, and entries naming what they change
    "Included Ctags version 3.2.4 with Eiffel support. (Hiebert)\n\nMore.\n\nIncluded Ctags "
    "version 3.2.5 with Ada support. (Hiebert)\n\nMore.\n\nIncluded Ctags version 3.2.6 with "
    "Go support. (Hiebert)\n\nMore.\n",
    "* configure.ac: pre-release version bump\n\n  Done.\n\n* win32: fix the build\n\n  Done.\n",
])
def test_text_that_is_no_release_notes_gains_no_headings(tmp_path, text):
    """A review of false headings: a requirement list, three sentences naming versions,
    Vim's "…with Eiffel support. (Hiebert)" and python3-gi's "* configure.ac: …"."""
    assert _headings(load_file(_write(tmp_path / "notes.txt", text))) == []


def test_release_lines_keep_one_level_whatever_their_month_or_underline(tmp_path):
    """A review: "Apr 08, 2022: …" and "Feb 09, 2022: …" were two styles, so one release
    nested in the other; GTK underlines its newer releases and not its older ones."""
    months = "".join(f"{m} 08, 2022: libfoo 3.{n} released\n\nFixes.\n\n"
                     for n, m in enumerate(("Apr", "Feb", "Feb", "Dec")))
    assert {lvl for lvl, _ in _headings(load_file(_write(tmp_path / "a" / "NEWS", months)))} \
        == {1}
    gtk = ("Overview of Changes in Foo 2.0\n==============================\n\n* New toolkit."
           "\n\nOverview of Changes in Foo 1.9\n==============================\n\n* Pango.\n\n"
           + "".join(f"Overview of Changes in Foo 1.{n}:\n\n* Fixed {n}.\n\n" for n in (3, 2, 1)))
    assert {lvl for lvl, _ in _headings(load_file(_write(tmp_path / "b" / "NEWS", gtk)))} \
        == {1}


def test_the_last_entry_before_the_next_release_is_no_heading(tmp_path):
    """libfribidi's NEWS: its last one-line "* Fixed …" entry before the next underlined
    release became an empty heading, and its chunk lost its release."""
    text = "".join(f"Overview of changes between 1.0.{n} and 1.0.{n + 1}\n" + "=" * 44 +
                   f"\n\n* Fixed bug {n} in the shaper\n\n* Fixed a potential overflow {n}\n\n"
                   for n in (8, 7, 6))
    parsed = load_file(_write(tmp_path / "fribidi" / "NEWS", text))
    assert [t for _, t in _headings(parsed)] == [
        f"Overview of changes between 1.0.{n} and 1.0.{n + 1}" for n in (8, 7, 6)]


def test_release_notes_named_after_their_release_are_read(tmp_path):
    """util-linux ships ``releases/v2.38-ReleaseNotes.gz``: a new user's folder ingest
    skipped all 27 ("a type citewise does not read"), and naming one failed with
    "unsupported file type .38-releasenotes"."""
    docs = tmp_path / "releases"
    for name in ("v2.38-ReleaseNotes.gz", "v2.38.1-ReleaseNotes", "2.1_NEWS", "v2-notes.sh"):
        _write(docs / name, "Util-linux 2.38 Release Notes\n=============================\n\n"
               "mount(8) now supports a new option --mkdir.\n")
    assert is_doc_name("v2.38-ReleaseNotes") and is_doc_name("2.1_NEWS")
    assert not is_doc_name("releasenotes") and not is_doc_name("v2.38-ReleaseNotes.py")
    assert is_doc_name("README.bug-usertags")  # dpkg's: was titled "README"
    assert name_title(Path("/d/dpkg/README.bug-usertags")) == "dpkg README.bug-usertags"
    assert name_title(Path("/d/v2.40.1-notes")) == "v2.40.1-notes"
    found = [f.name for _, f in discover([docs], skipped=[])]
    assert found == ["2.1_NEWS", "v2.38-ReleaseNotes.gz", "v2.38.1-ReleaseNotes"]
    named = _write(tmp_path / "v2.40.1-notes", "Some notes.\n")  # named: a release's dot
    assert load_file(named).blocks[0].text == "Some notes."
    with pytest.raises(UnsupportedFormatError, match="unsupported file type .sh"):
        load_file(docs / "v2-notes.sh")


def test_release_lines_that_open_on_their_number(tmp_path):
    """XZ Utils' NEWS opens each release with "5.4.1 (2023-01-11)": its 441 blocks were one
    section, and "what changed in 5.4.0?" was answered with fragments. A numbered section
    ("2.1 Primitive Types") is no release line."""
    releases = "".join(f"{v}\n\n    * liblzma:\n\n        - Fixed bug {i}.\n\n"
                       for i, v in enumerate(("5.4.1 (2023-01-11)", "5.3.5beta (2022-12-01)",
                                              "2.9.7: Nov 02 2017", "5.2.0")))
    parsed = load_file(_write(tmp_path / "xz-utils" / "NEWS.gz",
                              "XZ Utils Release Notes\n======================\n\n" + releases))
    fix = next(b for b in parsed.blocks if "bug 1." in b.text)
    assert fix.heading_path == ("XZ Utils Release Notes", "5.3.5beta (2022-12-01)")
    numbered = "".join(f"{n} {t}\n\nText of {t}.\n\n" for n, t in (
        ("1", "Introduction"), ("2", "Data Types"), ("2.1", "Primitive Types"),
        ("2.2", "Picture Types"), ("2.3", "Colors")))  # libXrender.txt: was lost whole
    parsed = load_file(_write(tmp_path / "libXrender.txt", numbered))
    assert [(b.level, b.text) for b in parsed.blocks if b.kind == "heading"][1:] == [
        (1, "2 Data Types"), (2, "2.1 Primitive Types"), (2, "2.2 Picture Types"),
        (2, "2.3 Colors")]


def test_a_man_page_named_on_the_command_line_is_still_refused(tmp_path):
    """The review of this stop: "FileCheck-14.1.gz" (a man page, troff) was indexed as text
    once a suffix starting with a digit stopped counting as a file type."""
    page = _write(tmp_path / "FileCheck-14.1.gz", '.\\" Man page generated\n.TH FileCheck\n')
    with pytest.raises(UnsupportedFormatError, match="unsupported file type .1"):
        load_file(page)


def test_addresses_alone_on_their_lines_are_no_releases(tmp_path):
    """The review of this stop: three resolvers, "10.0.0.1" to "10.0.0.3", each alone on
    its line, were three sections, and the prose after them was filed under the last."""
    text = "Resolvers\n=========\n\n" + "".join(f"10.0.0.{i}\n\nServer {i}.\n\n"
                                                for i in (1, 2, 3)) + "If all fail, retry.\n"
    parsed = load_file(_write(tmp_path / "resolv" / "README", text))
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == ["Resolvers"]


def test_an_underlined_release_over_its_entries_with_no_blank_line_is_a_heading(tmp_path):
    """A trial's pyparsing ``CHANGES``: "Version 3.1.4 - August, 2024" over dashes over its
    "- Fix …" entries; 98 of 101 releases were no heading, and a 1.5.0 entry was cited as
    1.5.3. A table's header over its rule, and an indented line over a diff's stars, stay
    text."""
    text = ("==========\nChange Log\n==========\n\nVersion 3.1.4 - August, 2024\n"
            "----------------------------\n- Fixed a type annotation.\n\n"
            "Version 3.0.0 - October, 2021\n-----------------------------\n"
            "- Deprecated features removed: operatorPrecedence.\n\n"
            "Option    Meaning\n-----------------\n-a        all\n\n"
            "  for i\n***************\n*** 25,30 ****\n")
    parsed = load_file(_write(tmp_path / "pyparsing" / "CHANGES", text))
    removed = next(b for b in parsed.blocks if "operatorPrecedence" in b.text)
    assert removed.heading_path[-1] == "Version 3.0.0 - October, 2021"
    assert [t for _, t in _headings(parsed)] == ["Change Log", "Version 3.1.4 - August, 2024",
                                                  "Version 3.0.0 - October, 2021"]
    flags = load_file(_write(tmp_path / "chromium" / "README.Debian",  # the review of this
                             "Command-line Flags\n==================\nRun it with --foo.\n"))
    assert flags.title == "chromium README.Debian"  # stop: its first section was its title


def test_a_release_heading_of_the_opening_s_shape_is_its_sibling_not_under_it(tmp_path):
    """setuptools' changelog opens with "v66.1.1" (dashes) over "Misc" (carets): the opening
    was taken for a title above the rest, and every later release was a subsection of the
    "Misc" or "Changes" before it."""
    text = ("v66.1.1\n-------\n\nMisc\n^^^^\n* #3782: Fixed a file directive.\n\n"
            "v66.1.0\n-------\n\nChanges\n^^^^^^^\n* #3685: Fixed pkgutil usage.\n")
    parsed = load_file(_write(tmp_path / "setuptools" / "changelog.gz", text))
    fix = next(b for b in parsed.blocks if "#3685" in b.text)
    assert fix.heading_path[-2:] == ("v66.1.0", "Changes")
    assert len(fix.heading_path) == 2 or fix.heading_path[0] != "v66.1.1"


def test_a_stylesheet_named_changelog_is_no_changelog():
    """SQLAlchemy's documentation ships ``_static/changelog.css``: a new user's ingest said
    it left out "1 changelog, author or licence file (e.g. changelog.css)"; it is a file of
    a type citewise does not read, counted with the other stylesheets."""
    from citewise.ingest.doc_names import is_left_out

    for name in ("changelog.css", "changelog.js", "LICENSE.png", "copyright.svg.gz"):
        assert not is_left_out(name), name
    for name in ("changelog.Debian.gz", "copyright", "LICENSE", "COPYING.LIB", "AUTHORS.txt"):
        assert is_left_out(name), name
