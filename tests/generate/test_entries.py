"""Reference entries (:mod:`citewise.generate.entries`): asked about a term a manual
describes in an entry, the extractive answer quotes that entry, from its term line on, not
the neighbouring entry that mentions the term (a new user's Readline question, stop 40)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from citewise.answer.prompt import build_prompt
from citewise.generate.entries import (
    asked_terms,
    entries_first,
    entry_parts,
    names_asked_term,
    terms_of,
)
from citewise.generate.extractive import ExtractiveGenerator

from .conftest import passage

# Readline's Info manual as the index held it: two chunks cut across entries.
UNMODIFIED = """'show-all-if-unmodified'
This alters the default behavior of the completion functions
in a fashion similar to SHOW-ALL-IF-AMBIGUOUS. If set to
'on', words which have more than one possible completion
without any possible partial completion (the possible
completions don't share a common prefix) cause the matches to
be listed immediately instead of ringing the bell. The
default value is 'off'.

'show-mode-in-prompt'
If set to 'on', add a string to the beginning of the prompt
indicating the editing mode: emacs, vi command, or vi
insertion. The default value is 'off'."""
AMBIGUOUS = """'revert-all-at-newline'
If set to 'on', Readline will undo all changes to history
lines before returning when 'accept-line' is executed. The default is
'off'.

'show-all-if-ambiguous'
This alters the default behavior of the completion functions.
If set to 'on', words which have more than one possible
completion cause the matches to be listed immediately instead
of ringing the bell. The default value is 'off'."""
# Valgrind's HTML: a <dt> synopsis (it reads as code), then its <dd> paragraphs.
VALGRIND = """The single most important option.

--tool=<toolname> [default: memcheck]

Run the Valgrind tool called toolname, e.g. memcheck, cachegrind, callgrind, helgrind.

--num-callers=<number> [default: 12]

Specifies the maximum number of entries shown in stack traces."""


def _answer(question: str, *texts: str) -> str:
    passages = [passage(f"S{i}", t) for i, t in enumerate(texts, start=1)]
    return ExtractiveGenerator().generate(build_prompt(question, passages)).text


def test_the_asked_terms_own_entry_is_quoted_in_order():
    text = _answer("what does show-all-if-ambiguous do?", UNMODIFIED, AMBIGUOUS)
    assert text.startswith("'show-all-if-ambiguous' This alters the default behavior of the "
                           "completion functions [S2].")
    assert "listed immediately instead of ringing the bell" in text
    assert "show-all-if-unmodified" not in text and "[S1]" not in text.split("[S2].")[0]


def test_a_synopsis_line_that_reads_as_code_is_quoted_with_its_description():
    text = _answer("which tool runs if I don't pass --tool?", VALGRIND)
    assert text.startswith("--tool=<toolname> [default: memcheck] [S1]. Run the Valgrind tool")
    assert "num-callers" not in text


XSLTPROC = """--maxdepth VALUE

Adjust the maximum depth of the template stack. The default is 3000.

--maxvars VALUE

Maximum number of variables. The default is 15000.

--version

Show the version of libxml and libxslt used."""


def test_a_plain_word_the_passages_write_only_as_an_option_asks_for_its_entry():
    """A new user's "xsltproc maxvars" was shown the term line ``--maxvars VALUE`` alone."""
    text = _answer("xsltproc maxvars", XSLTPROC)
    assert "The default is 15000" in text and "3000" not in text
    assert asked_terms("xsltproc maxvars", [XSLTPROC]) == {"maxvars"}
    assert asked_terms("which version of libxslt is it?", [XSLTPROC]) == set()  # a word too


def test_one_letter_options_keep_their_case():
    gzip = ("'--fast'\n'--best'\n'-N'\nRegulate the speed of compression.\n\n"
            "'--no-name'\n'-n'\nWhen compressing, do not save the original file name.")
    assert "do not save the original file name" in _answer("what does gzip -n do?", gzip)
    assert "Regulate the speed" in _answer("what does gzip -N do?", gzip)


def test_a_term_line_the_chunk_ends_on_is_no_entry():
    """Its description is in the next chunk: quoting the bare name answered nothing
    ("what is BORG_PASSCOMMAND?" -> "BORG_PASSCOMMAND [1].")."""
    parts = ["When set, use the value to answer the passphrase question.", "BORG_PASSCOMMAND"]
    assert entry_parts({"borg_passcommand"}, parts) == {}
    assert entry_parts({"borg_passcommand"}, [*parts, "When set, run the command."]) == \
        {1: 0, 2: 1}


@pytest.mark.parametrize(("line", "terms"), [
    ("'show-all-if-ambiguous'", {"show-all-if-ambiguous"}),
    ("--num-callers=<number> [default: 12]", {"num-callers"}),
    ("‘--backup=CONTROL’", {"backup"}),
    ("'-h, --help'", {"h", "help"}),
    ("'reverse-search-history (C-r)'", {"reverse-search-history", "c-r"}),
    ("max_keepalive_connections", {"max_keepalive_connections"}),
    ("httpx.Client(base_url=...)", {"httpx.client"}),
    ("Function: xsltSecurityForbid", {"xsltsecurityforbid"}),
    (" -- Function: ffi_status ffi_prep_cif (ffi_cif *CIF, ffi_abi ABI)", {"ffi_prep_cif"}),
    ("Function: this is a sentence.", set()),
    ("Built-in rules", set()),  # a title, not the entry of "built-in"
    ("'-1' (or '--fast') to '-9' (or '-best')", {"1", "fast", "9", "best"}),
    ("--maxdepth VALUE", {"maxdepth"}),  # a metavariable, not prose (xsltproc's man page)
    ('--path "PATH(S)"', {"path"}),
    # an Info paragraph's wrapped first line, not the entry of bzip2
    ("'bzip2' compresses large files in blocks.  The block size affects both", set()),
    ("foo.bar is the name of it", set()),
    ("--verbose makes it print more.", set()),  # a sentence
])
def test_term_lines(line: str, terms: set[str]):
    assert terms_of(line) == terms


def test_an_entry_ends_at_the_next_term_line_or_heading():
    parts = ["'a-b'", "First.", "Second.", "'c-d'", "Third."]
    assert entry_parts({"a-b"}, parts) == {0: 0, 1: 1, 2: 2}
    assert entry_parts({"a-b"}, ["'a-b'", "First.", "Usage", "More."], ["Usage"]) == \
        {0: 0, 1: 1}
    assert asked_terms("what does `--Num-Callers` or -l do?") == {"num-callers", "l"}


def test_the_hit_holding_the_asked_terms_entry_leads_the_context():
    """The first read is one or two passages on a small machine: with the neighbouring
    entry ranked first, the 1.5B model answered "what does show-all-if-ambiguous do?" with
    show-all-if-unmodified's description."""
    first = passage("S1", UNMODIFIED).hit
    second = replace(passage("S2", AMBIGUOUS).hit, rank=2, score=0.5)
    third = replace(passage("S3", VALGRIND).hit, rank=3, score=0.25)
    hits = entries_first("what does show-all-if-ambiguous do?", [first, second, third])
    assert [h.chunk.chunk_id for h in hits] == ["chunk-S2", "chunk-S1", "chunk-S3"]
    assert hits[0].score == first.score  # so the diverse selection keeps it first
    plain = [first, second, third]
    assert entries_first("how do completions get listed?", plain) == plain


def test_a_definitions_entry_puts_the_sentence_with_the_questions_words_first():
    """libxslt's API reference, entries opened by ``Function: NAME``: asked what one
    returns, its ``Returns:`` row is quoted, not the next function's."""
    api = ("Function: xsltSecurityAllow\n\nFunction used to always allow an operation\n\n"
           "sec: | the security block to use\nvalue: | unused\nReturns: | 1 always\n\n"
           "Function: xsltSecurityForbid\n\nFunction used to always forbid an operation\n\n"
           "sec: | the security block to use\nvalue: | unused\nReturns: | 0 always")
    text = _answer("what does xsltSecurityForbid return when it always forbids?", api)
    assert "Returns: 0 always [S1]" in text and "1 always" not in text
    assert "always forbid an operation [S1]" in text


def test_a_line_of_many_underscores_is_read_at_once():
    """A review: the term pattern nested its quantifiers, and a document line such as
    ``pool_x_x_…_x-`` took time doubling with each ``_`` while holding the GIL (32 of them
    hung an ask, and the server with it, past 120 s)."""
    line = "pool" + "_x" * 40 + "-"
    script = ("import sys; from citewise.generate.entries import terms_of; "
              "print(sorted(terms_of(sys.argv[1])))")
    done = subprocess.run([sys.executable, "-c", script, line], capture_output=True,
                          text=True, timeout=20)  # the old pattern: hours
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
    assert terms_of("pool_x_x") == {"pool_x_x"}


# Node.js's API reference: a heading naming the function, its version history, its
# parameters, then (in the next chunk) what it does and an example.
PROMISIFY = ("util.promisify(original)\n\nVersion | Changes\nv8.0.0 | Added in: v8.0.0\n\n"
             "- original <Function>\n- Returns: <Function>")
PROMISIFY_NEXT = ("Takes a function following the common error-first callback style, and "
                  "returns a version that returns promises.\n\nconst stat = "
                  "util.promisify(fs.stat);\n\nIf original is not a function, promisify() "
                  "will throw an error.")


def _under(sid: str, text: str, heading: str, ordinal: int, doc_id: str = "util.html"):
    p = passage(sid, text, heading=("Util", heading), doc_id=doc_id)
    chunk = replace(p.hit.chunk, ordinal=ordinal, section_id=f"{doc_id}#{heading}")
    return replace(p, hit=replace(p.hit, chunk=chunk))


def _answer_of(question: str, *passages) -> str:
    return ExtractiveGenerator().generate(build_prompt(question, list(passages))).text


def test_the_term_headings_next_chunk_leads_with_what_it_does():
    """Asked "What does util.promisify do?", a new user got "- original <Function> [1]. -
    Returns: <Function> [1].": the chunk the heading opens was the entry, and the next
    one, which says what it does without naming it, scored nothing."""
    heading = "util.promisify(original)"
    text = _answer_of("What does util.promisify do?",
                      _under("S1", PROMISIFY, heading, 10),
                      _under("S2", "If original is not a function, promisify() will throw an "
                                   "error.", heading, 12),
                      _under("S3", PROMISIFY_NEXT, heading, 11))
    assert text.startswith("Takes a function following the common error-first callback "
                           "style, and returns a version that returns promises [S"), text
    assert "<Function>" not in text and "Added in" not in text


def test_a_one_line_version_note_is_quoted_only_when_asked_about_versions():
    note = "os.homedir()\n\nAdded in: v2.3.0\n\n- Returns: <string>\n\nReturns the string path " \
           "of the current user's home directory."
    p = _under("S1", note, "os.homedir()", 3, doc_id="os.html")
    returns = _answer_of("What does os.homedir return?", p)  # "- Returns: <string>" may
    assert "Returns the string path of the current user's home directory [S1]." in returns
    assert "Added in" not in returns, returns  # be quoted too: "return" is its stem
    assert "Added in: v2.3.0" in _answer_of("When was os.homedir added?", p)


def test_a_long_run_of_digits_after_added_in_is_read_at_once():
    """A review's "Added in: 1111…1x" took time doubling with each digit (3.1 s at 24)."""
    script = ("import sys; from citewise.generate.table_rows import is_history; "
              "print(is_history(sys.argv[1], 'What does foo do?'))")
    done = subprocess.run([sys.executable, "-c", script, "Added in: " + "1" * 60 + "x"],
                          capture_output=True, text=True, timeout=20)  # the old pattern: years
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
    from citewise.generate.table_rows import is_history
    assert is_history("Added in: v2.3.0, v1.2.1", "What does foo do?")


def test_of_two_entries_of_the_asked_option_the_one_whose_headings_match_leads():
    """diffutils' manual has a '-u' entry for patch and one for diff: "What does the -u
    option do in diff?" read patch's first (the first read is one passage), and the answer
    quoted patch's input formats."""
    patch = replace(passage("S1", "'-u'\n'--unified'\nInterpret the patch file as a unified "
                                  "diff.", heading=("Manual", "Options to 'patch'")).hit)
    diff = replace(passage("S2", "'-u'\nUse the unified output format.",
                           heading=("Manual", "Options to 'diff'")).hit, rank=2, score=0.5)
    hits = entries_first("What does the -u option do in diff?", [patch, diff])
    assert [h.chunk.chunk_id for h in hits] == ["chunk-S2", "chunk-S1"]


# The rustc error index as a new user's index held it: each page titled by its code, which
# no sentence of the page repeats; other pages' sentences say "error" and "means".
E0133 = ("Error code E0133\n\nUnsafe code was used outside of an unsafe block.\n\n"
         "Using unsafe functionality is potentially dangerous and disallowed by safety "
         "checks.")
E0001 = ("Error code E0001\n\nThis error suggests that the expression arm corresponding to "
         "the noted pattern will never be reached. This means that perhaps some of the "
         "preceding patterns are too general.")
E0164 = ("Error code E0164\n\nThis error means that an attempt was made to match something "
         "which is neither a tuple struct nor a tuple variant.")


def _error_pages() -> list:
    return [passage(sid, text, title=code, heading=(f"Error code {code}",), doc_id=code)
            for sid, code, text in (("S1", "E0133", E0133), ("S2", "E0001", E0001),
                                    ("S3", "E0164", E0164))]


def test_the_page_an_asked_identifier_titles_is_quoted_from_its_first_sentence():
    """A new user's "what does E0133 mean?" was answered with E0001's, E0164's and E0398's
    sentences holding "mean" and "error", the E0133 page first in the context; "E0382"
    alone, its page's six passages the whole context, was declined."""
    text = _answer_of("what does E0133 mean?", *_error_pages())
    assert text.startswith("Unsafe code was used outside of an unsafe block [S1]."), text
    assert "[S2]" not in text and "[S3]" not in text
    assert _answer_of("E0133", *_error_pages()).startswith("Unsafe code was used"), text


def test_a_page_titled_by_the_asked_name_is_no_entry_when_asked_to_do_something_with_it():
    """A new user's "how do I make httplib2 cache responses on disk?" was answered "Joe
    Gregorio. Email: joe@bitworking.org. Release 0.3 Mar 8, 2007": the title page of "The
    httplib2 Library" was taken for httplib2's entry, its first sentences above every other."""
    title_page = passage("S1", "Joe Gregorio\n\nEmail: joe@bitworking.org\n\nRelease 0.3",
                         title="The httplib2 Library", heading=("The httplib2 Library",),
                         doc_id="ref.html")
    usage = passage("S2", "Any subsequent GET to that URI will return the value from the "
                    "on-disk cache.", title="README", heading=("Usage",), doc_id="README.md")
    text = _answer_of("how do I make httplib2 cache responses on disk?", title_page, usage)
    assert text.startswith("Any subsequent GET"), text
    assert "Gregorio" not in text
    for asked in ("what does E0133 mean?", "what does error E0133 mean in Rust?",
                  "explain rustc error E0133"):  # the review of this stop: another page's
        assert _answer_of(asked, *_error_pages()).startswith("Unsafe code"), asked  # answer


def test_only_a_short_heading_holding_a_name_that_is_no_plain_word_titles_it():
    """"--small" asks for "small", which "Small files" holds as a word; a heading that is a
    sentence, or lists names, mentions a name, it is not about it."""
    assert names_asked_term(("Error code E0384",), {"e0384"})
    assert not names_asked_term(("Small files",), {"small"})
    assert not names_asked_term(("Why does rustc report E0384 for my loop variable?",),
                                {"e0384"})
    # httpx's "HTTP_PROXY is set on our machines but calls to 127.0.0.1 shouldn't use it,
    # how?" was answered from this section, not NO_PROXY's: a list is about none alone
    assert not names_asked_term(("HTTP_PROXY, HTTPS_PROXY, ALL_PROXY",), {"http_proxy"})


def test_an_option_under_the_asked_functions_heading_is_quoted_with_its_default():
    """A new user's "What is the default maxBuffer for child_process.exec?" was answered with
    the shell and killSignal items' defaults: under the heading of one asked term
    (child_process.exec), the words of every asked term counted as given, maxBuffer's too,
    so its item scored nothing; and its "Default: 1024 * 1024." lost the item's name."""
    heading = "child_process.exec(command[, options][, callback])"
    items = ("  - shell {string} Shell to execute the command with. Default: '/bin/sh' on "
             "Unix.\n  - timeout {number} Default: 0\n  - maxBuffer {number} Largest amount "
             "of data in bytes allowed on stdout or stderr. Default: 1024 * 1024.\n"
             "  - killSignal {string|integer} Default: 'SIGTERM'")
    opening = (f"{heading}\n\n- command {{string}} The command to run.\n- options {{Object}}"
               "\n  - cwd {string} Current working directory of the child process.")
    text = _answer_of("What is the default maxBuffer for child_process.exec?",
                      _under("S1", opening, heading, 4, doc_id="child_process.html"),
                      _under("S2", items, heading, 5, doc_id="child_process.html"))
    assert "- maxBuffer {number} Largest amount of data in bytes allowed on stdout or " \
           "stderr [S2]. Default: 1024 * 1024 [S2]." in text, text
    assert "SIGTERM" not in text, text
