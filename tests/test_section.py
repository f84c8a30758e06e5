"""A citation opens its section, not the whole document (:mod:`citewise.section`): a
390-page PDF manual sent 1.2 MB of JSON for each citation clicked in the web page."""

from __future__ import annotations

from citewise.section import MAX_BLOCKS, section_around
from citewise.types import Block


def _blocks(*spec: tuple[str, int, str]) -> list[Block]:
    return [Block(kind, f"{kind} {i}", i, i + 1, level=level, anchor=anchor)  # type: ignore[arg-type]
            for i, (kind, level, anchor) in enumerate(spec)]


def test_an_anchor_opens_its_section_with_its_subsections():
    blocks = _blocks(("heading", 1, "intro"), ("text", 0, "intro"),
                     ("heading", 2, "setup"), ("text", 0, "setup"),
                     ("heading", 3, "proxy"), ("text", 0, "proxy"),
                     ("heading", 2, "usage"), ("text", 0, "usage"))
    assert section_around(blocks, "setup") == (2, 6)  # up to the next level-2 heading
    assert section_around(blocks, "proxy") == (4, 6)
    assert section_around(blocks, "intro") == (0, 8)  # the chapter holds everything
    assert section_around(blocks, "nowhere") is None


def test_a_long_section_is_cut_to_a_window_around_the_anchor():
    pages = [("text", 0, f"page={n}") for n in range(1, 400)]
    blocks = _blocks(("heading", 1, "page=1"), *pages)
    assert section_around(blocks, "page=1") == (0, MAX_BLOCKS)
    long = _blocks(("heading", 1, "intro"), *pages)
    start, end = section_around(long, "page=200")  # an anchor inside the section: it opens
    assert long[start].anchor == "page=200" and end - start == MAX_BLOCKS  # where a
    assert section_around(long, "page=2") == (2, 2 + MAX_BLOCKS)  # browser opens it
    assert section_around(long, "page=399") == (399, 400)  # ends with it
    no_heading = _blocks(("text", 0, "a"), ("text", 0, "b"))
    assert section_around(no_heading, "b") == (1, 2)


def test_an_anchor_inside_a_section_opens_where_a_browser_opens_it() -> None:
    """A new user of rsyslog's documentation: a Sphinx label on the ``<ul>`` of about 40
    parameters of ``global.html``, which a citation opened, was shown from the page's top
    (its one heading's section), 200 lines above the cited parameter's list."""
    params = [("text", 0, "global-janitorinterval")] * 30
    blocks = _blocks(("heading", 1, "global-configuration-object"),
                     ("text", 0, "global-configuration-object"), *params)
    assert section_around(blocks, "global-janitorinterval") == (2, 32)
    assert section_around(blocks, "global-configuration-object") == (0, 32)


def test_an_anchor_typed_as_the_section_is_named_opens_it():
    """A new user typed an Info node's name, ``#Comments`` for ``#comments``, as
    ``citewise show --help``'s own example (``#Usage``) does, and was refused."""
    blocks = _blocks(("heading", 1, "intro"), ("heading", 2, "known-bugs"),
                     ("text", 0, "known-bugs"), ("heading", 2, "Known_bugs"))
    assert section_around(blocks, "Known Bugs") == (1, 3)
    assert section_around(blocks, "KNOWN-BUGS") == (1, 3)
    assert section_around(blocks, "Known_bugs") == (3, 4)  # an exact anchor comes first
    assert section_around(blocks, "Known Bug") is None


def test_an_anchor_as_given_comes_before_its_percent_decoded_form():
    """A browser copies ``#%E3%82%88…`` for ``#よ…``; a review's page with both ``50%`` and
    ``50%25`` opened the first for ``--anchor 50%25``."""
    blocks = _blocks(("heading", 2, "50%"), ("text", 0, "50%"),
                     ("heading", 2, "50%25"), ("text", 0, "50%25"),
                     ("heading", 2, "より"), ("text", 0, "より"))
    assert section_around(blocks, "50%25") == (2, 4)
    assert section_around(blocks, "50%") == (0, 2)
    assert section_around(blocks, "%E3%82%88%E3%82%8A") == (4, 6)


def test_a_section_without_anchors_opens_by_its_headings_words():
    """A plain-text manual has no anchors: a new user's `show man-db-manual.txt.gz --anchor
    "4.2 Compressed cat pages"` was refused ("its sections: none")."""
    blocks = [Block("heading", "4 Compression", 0, 1, level=1),
              Block("text", "Pages are compressed.", 1, 2),
              Block("heading", "4.2 Compressed cat pages", 2, 3, level=2),
              Block("text", "gzip -7c", 3, 4), Block("heading", "5 Other", 4, 5, level=1)]
    assert section_around(blocks, "4.2 Compressed cat pages") == (2, 4)
    assert section_around(blocks, "4.2-compressed-CAT-pages") == (2, 4)
    assert section_around(blocks, "compressed") is None


def test_a_heading_path_picks_the_section_among_same_named_ones():
    """gdb's NEWS has a "New commands" section in each release: a citation's path ("Changes
    in GDB 12 › New commands") opens that release's, not the first of the name."""
    def heading(text, path, level):
        return Block("heading", text, 0, 1, level=level, heading_path=path)
    blocks = [heading("Changes in GDB 13", ("Changes in GDB 13",), 1),
              heading("New commands", ("Changes in GDB 13", "New commands"), 2),
              heading("Changes in GDB 12", ("Changes in GDB 12",), 1),
              heading("New commands", ("Changes in GDB 12", "New commands"), 2),
              Block("text", "tui window width", 0, 1,
                    heading_path=("Changes in GDB 12", "New commands"))]
    assert section_around(blocks, "New commands") == (1, 2)
    assert section_around(blocks, "Changes in GDB 12 › New commands") == (3, 5)
    assert section_around(blocks, "changes in gdb 12 > new commands") == (3, 5)
    assert section_around(blocks, "Changes in GDB 99 › New commands") is None


def test_a_heading_with_a_greater_than_sign_is_one_heading():
    """A review: "Edit > Preferences" read as a path of two steps, and `ask`'s own hint
    (its path "Spanner app manual › Edit > Preferences") was refused."""
    blocks = [Block("heading", "Spanner app manual", 0, 1, level=1,
                    heading_path=("Spanner app manual",)),
              Block("heading", "Edit > Preferences", 0, 1, level=2,
                    heading_path=("Spanner app manual", "Edit > Preferences")),
              Block("text", "Set the torque.", 0, 1,
                    heading_path=("Spanner app manual", "Edit > Preferences"))]
    assert section_around(blocks, "Edit > Preferences") == (1, 3)
    assert section_around(blocks, "Spanner app manual › Edit > Preferences") == (1, 3)


def test_an_anchor_of_spaces_is_read_in_linear_time():
    """A security review: any reader's ``?anchor=a`` + 120,000 spaces + ``b`` held the
    server 116 s (each run of spaces was tried at each of its places by ``\\s+[›>]\\s+``);
    the alarm turns a regression into a failure instead of a hung suite."""
    import signal

    def stuck(*_: object) -> None:
        raise TimeoutError("the anchor's path split backtracked")

    blocks = _blocks(("heading", 1, "intro"), ("text", 0, None))
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    try:
        assert section_around(blocks, "a" + " " * 120_000 + "b") is None
        assert section_around(blocks, "a " + "> " * 60_000 + "b") is None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_citations_path_opens_its_section_with_the_documents_title_first():
    """A new user of Vim's help pasted a citation's path, "usr_10 › 10.1 Record and playback
    commands": the title is no heading of the chapter, and `show` refused it."""
    blocks = [Block("heading", "10.1 Record and playback commands", 0, 1, level=1,
                    heading_path=("10.1 Record and playback commands",)),
              Block("text", "Use q to record.", 1, 2,
                    heading_path=("10.1 Record and playback commands",)),
              Block("heading", "10.2 Substitution", 2, 3, level=1,
                    heading_path=("10.2 Substitution",))]
    path = "usr_10 › 10.1 Record and playback commands"
    assert section_around(blocks, path) is None  # no title given: as before
    assert section_around(blocks, path, "usr_10") == (0, 2)
    assert section_around(blocks, "usr_11 › 10.1 Record and playback commands",
                          "usr_10") is None
