"""validate(): fabricated ids reported, grouped brackets parsed, unsupported / uncited claims
flagged, supported claims not flagged."""

from __future__ import annotations

from dataclasses import replace

from citewise.answer.prompt import INSUFFICIENT_EVIDENCE
from citewise.cite.enforce import enforce
from citewise.cite.support import SUPPORT_THRESHOLD, support_score
from citewise.cite.validate import is_claim, validate
from citewise.types import Chunk, ContextPassage, Document, Hit, SentenceIssue

S1 = "Aspirin lowered the risk of heart attacks by 25% in a Danish cohort of 10,000 adults."
S2 = "Statins reduce LDL cholesterol levels in most patients."


def passages(*texts: str) -> list[ContextPassage]:
    doc = Document(doc_id="d", title="t", content_hash="h", tenant="default",
                   acl_groups=frozenset({"g"}))
    out = []
    for i, text in enumerate(texts, start=1):
        chunk = Chunk(chunk_id=f"c{i}", doc_id="d", ordinal=i, text=text,
                      text_for_embedding=text, embed_hash=f"e{i}", start=0, end=len(text))
        out.append(ContextPassage(sid=f"S{i}", hit=Hit(i, 1.0, chunk, doc), text=text,
                                  tokens=len(text.split())))
    return out


def test_supported_claims_pass() -> None:
    report = validate("Aspirin lowers heart attack risk by 25% [S1]. Statins reduce LDL "
                      "cholesterol [s2].", passages(S1, S2))
    assert report.ok and report.cited == ("S1", "S2")


def test_fabricated_ids_are_reported_in_first_use_order_and_grouped_brackets_parsed() -> None:
    answer = "Statins reduce LDL cholesterol [S2; S9]. Aspirin lowers heart attack risk [S1][S7]."
    report = validate(answer, passages(S1, S2))
    assert report.cited == ("S2", "S1")
    assert report.fabricated == ("S9", "S7")
    assert report.unsupported == () and not report.ok


def test_unsupported_claim_is_flagged_with_its_score() -> None:
    answer = "Aspirin lowers heart attack risk [S1]. Vitamin C cures the common cold [S1]."
    report = validate(answer, passages(S1, S2))
    assert [i.sentence for i in report.unsupported] == ["Vitamin C cures the common cold [S1]."]
    issue = report.unsupported[0]
    assert issue.ids == ("S1",) and issue.score is not None and issue.score < SUPPORT_THRESHOLD


def test_support_is_judged_against_the_union_of_the_cited_passages() -> None:
    claim = "Aspirin lowers heart attack risk while statins reduce LDL cholesterol"
    assert support_score(claim, S1) < SUPPORT_THRESHOLD  # one passage alone is not enough
    assert validate(f"{claim} [S1][S2].", passages(S1, S2)).unsupported == ()
    assert validate(f"{claim} [S1].", passages(S1, S2)).unsupported != ()


def test_a_claim_citing_only_fabricated_ids_is_unsupported() -> None:
    report = validate("Vitamin C cures the common cold [S4].", passages(S1))
    assert report.fabricated == ("S4",)
    assert report.unsupported == (SentenceIssue("Vitamin C cures the common cold [S4].",
                                                ("S4",), None),)


def test_uncited_claims_are_flagged_but_not_connectives_headings_or_declines() -> None:
    answer = ("## Summary\nIn summary:\nAccording to the sources, here is the answer. "
              "Aspirin lowers heart attack risk [S1]. Exercise improves sleep quality "
              f"considerably. Does it help? {INSUFFICIENT_EVIDENCE}")
    report = validate(answer, passages(S1))
    assert report.uncited == (SentenceIssue("Exercise improves sleep quality considerably."),)
    assert report.unsupported == () and report.cited == ("S1",)


def test_is_claim() -> None:
    assert is_claim("Aspirin lowers heart attack risk.")
    assert not is_claim("The sources differ.")
    assert not is_claim(INSUFFICIENT_EVIDENCE)
    assert not is_claim("**Dosage**")


SYNOPSIS = ("--gen-suppressions=<yes|no|all> [default: no]. When set to all, Valgrind prints "
            "a suppression for every reported error. Usage: borg [common options] key "
            "change-passphrase [options] [REPOSITORY]. This command changes the passphrase.")


def test_a_code_span_may_fill_in_a_synopsis_or_template_of_its_source() -> None:
    """The model's right "Use `--gen-suppressions=all`" and "run `borg key
    change-passphrase`" were removed: the sources write the option as a template and the
    command with "[common options]" inside. A span's tokens in order, close together, are
    quoted; a value or an order the source does not have is not."""
    from citewise.cite.validate import span_quoted

    for claim in ("Valgrind prints a suppression for every reported error with "
                  "`--gen-suppressions=all` [S1].",
                  "Run `borg key change-passphrase` to change the passphrase [S1]."):
        assert validate(claim, passages(SYNOPSIS)).ok, claim
    for claim in ("Valgrind prints a suppression for every reported error with "
                  "`--gen-suppressions=auto` [S1].",
                  "Run `borg change-passphrase key` to change the passphrase [S1]."):
        assert not validate(claim, passages(SYNOPSIS)).ok, claim
    assert span_quoted("trust_env=False", "httpx.Client(trust_env=False)")
    assert span_quoted("--stacks=yes", "--stacks=<yes|no> [default: no]")
    assert not span_quoted("--stacks=yes", "--stacks=<no> " + "word " * 20 + "yes")
    assert not span_quoted("--stacks", "measure the stacks too")  # an option is not a word


def test_a_code_span_keeps_the_symbols_it_opens_with() -> None:
    """rustdoc's book shows its hidden-lines example wrapped in ``#![allow(unused)]``; the
    1.5B answered "use the `#[allow(unused)]` attribute" (the book says: start the line
    with ``# ``), and the span passed as the same tokens in order."""
    from citewise.cite.validate import span_quoted

    source = ("Hiding portions of the example. Sometimes, you need some setup code, or other "
              "things that would distract from your example, but are important to make the "
              "tests work.\n\n#![allow(unused)]\nfn main() {\n/// # fn foo() {}\n}")
    claim = ("To hide lines from a doc test example, you can use the `#[allow(unused)]` "
             "attribute [S1].")
    assert not validate(claim, passages(source)).ok
    assert validate(claim.replace("#[", "#!["), passages(source)).ok
    assert not span_quoted("$PATH", "add the folder to PATH")
    assert span_quoted("$PATH", "add the folder to $PATH first")
    assert span_quoted("#[derive(Debug)]", "put #[derive(Debug)] on the struct")
    assert span_quoted("foo()", "call foo(x) first")  # a call's name, as prose writes it


def test_an_identifier_outside_backticks_must_be_in_the_passage_it_cites() -> None:
    """The embedded book's answer "HAL crates should be named appropriately (C-CRATE-NAME),
    with the name ending with -hal … [S1]" cited the reexport rule (S1) for the naming rule
    (S2) and was kept on the words the two share (support 0.59)."""
    from citewise.cite.terms import named_identifiers

    reexport = ("HALs can be written on top of svd2rust-generated PACs, or on top of other "
                "crates that provide raw register access. HALs should always reexport the "
                "register access crate they are based on in their crate root. A PAC should be "
                "reexported under the name pac.")
    naming = ("The crate is named appropriately (C-CRATE-NAME). HAL crates should be named "
              "after the chip they support. Their name should end with -hal to distinguish "
              "them from register access crates.")
    claim = ("HAL crates should be named appropriately (C-CRATE-NAME), with the name ending "
             "with -hal to distinguish them from register access crates [{}].")
    assert support_score(claim.format(""), reexport) >= SUPPORT_THRESHOLD  # words alone pass
    assert not validate(claim.format("S1"), passages(reexport, naming)).ok
    assert validate(claim.format("S2"), passages(reexport, naming)).ok
    # names copied from code, whatever their case in the source; not ordinals, numbers or
    # abbreviations; backticked spans are compared as code
    assert named_identifiers("Use e.g. the 4th option, `foo_bar`, 3.5 s, httpx.Client, "
                             "max_keepalive, HTTP/2, --verbose, WX-17, C-CRATE-NAME.") == [
        "httpx.Client", "max_keepalive", "HTTP/2", "--verbose", "WX-17", "C-CRATE-NAME"]
    assert validate("Set MAX_KEEPALIVE to five for httpx.client [S1].",
                    passages("max_keepalive is five by default in httpx.Client.")).ok
    # read before the bracket's space is closed up: not "called.ninja_log"
    assert validate("The log is kept in the build root in a file called .ninja_log [S1].",
                    passages("The log file is kept in the build root in a file called "
                             ".ninja_log.")).ok


def test_a_one_letter_command_must_be_a_word_of_its_source() -> None:
    """A new user asked a sed question as a reader without the sed manual; "The y command in
    sed is used to substitute characters in a string [1]" was printed, citing grep's
    performance section ("sed … string matching … 15x + 14y"): a "y" is inside any text."""
    grep = ("For example, sed '/^...$/d' | grep -q X is faster for string matching, and the "
            "cost grows as 15x + 14y for a command that substitutes characters in a string.")
    sed = "The y command transliterates characters: y/source-chars/dest-chars/ in a string."
    claim = "The y command in sed is used to substitute characters in a string [S1]."
    assert support_score(claim, grep) >= SUPPORT_THRESHOLD  # the words alone pass
    assert not validate(claim, passages(grep)).ok
    assert validate(claim.replace("substitute", "transliterate"), passages(sed)).ok
    assert validate("Use the -n option to print line numbers [S1].",
                    passages("Print line numbers with -n (--line-number).")).ok


def test_a_quoted_name_must_be_a_word_of_its_source() -> None:
    """A new user asked bc's manual how to use complex numbers; "To use complex numbers in
    'bc', you can use the 'complex' function [1]" was printed, citing a section that lists
    length, read, scale and sqrt and never says "complex"."""
    bc = ("Special expressions: 'length ( expression )' The value of the length function is "
          "the number of significant digits in the expression. 'read ( )' The read function "
          "reads a number from the standard input. 'scale ( expression )' and 'sqrt' use "
          "numbers in 'bc' expressions.")
    claim = "To use numbers in 'bc', you can use the 'complex' function [S1]."
    assert not validate(claim, passages(bc)).ok
    assert validate(claim.replace("'complex'", "'sqrt'"), passages(bc)).ok
    assert validate("The ‘read’ function reads a number from the standard input [S1].",
                    passages(bc)).ok  # curly quotes, held
    assert validate("The read function doesn't use 'bc' expressions' values [S1].",
                    passages(bc)).unsupported == ()  # an apostrophe opens no name


def test_a_code_span_of_a_letter_must_be_a_word_of_its_source_in_its_case() -> None:
    """A new user asked how to quit ed without saving and was told "use the command `q`"
    (it is `Q`), cited to ed's overview, whose only "q"s were inside words."""
    overview = ("Upon quitting 'ed', any changes not explicitly saved with a 'w' command are "
                "lost. The editor quits on request.")
    commands = "'q' Quits ed, with a warning. 'Q' Quits ed unconditionally, discarding changes."
    claim = "To quit ed without saving the changes, use the command `q` [S1]."
    assert not validate(claim, passages(overview)).ok
    assert validate(claim.replace("`q`", "`Q`"), passages(commands)).ok
    assert not validate(claim.replace("`q`", "`U`"), passages(commands)).ok  # no 'U' there
    assert validate("Changes not saved with the `w` command are lost on quitting [S1].",
                    passages(overview)).ok


def test_a_claims_numbers_are_checked_under_its_passages_headings_not_its_words() -> None:
    """Release notes name the release only in a heading, which the prompt shows the model:
    "In Python 3.11.0 alpha 1, math.cbrt() was added" was removed for numbers its entry
    lacks (a new user's). A heading's words are no evidence, though (a review: "Can
    employees carry over 10 unused vacation days?" supported "Yes, they can" over a body
    saying no)."""
    def under(text: str, *heading: str) -> ContextPassage:
        (plain,) = passages(text)
        return ContextPassage(sid="S1", hit=Hit(1, 1.0, replace(
            plain.hit.chunk, heading_path=heading), plain.hit.document), text=text,
            tokens=plain.tokens)

    entry = under("- bpo-44357: Added a function that returns the cube root of the given "
                  "number, math.cbrt().", "Python News",
                  "What's New in Python 3.11.0 alpha 1?", "Library")
    claim = "In Python 3.11.0 alpha 1, the function math.cbrt() was added [S1]."
    assert enforce(claim, [entry]).answered
    assert not enforce(claim.replace("alpha 1", "alpha 4"), [entry]).answered
    faq = under("No. Unused days expire on 31 December of each year.", "Vacation FAQ",
                "Can employees carry over 10 unused vacation days into next year?")
    assert not enforce("Yes, employees can carry over 10 unused vacation days into next "
                       "year [S1].", [faq]).answered
    numbered = under("Volumes can hold files of any type.", "Storage guide",
                     "2.13. Content types")
    assert not enforce("Volumes support 2.13 content types [S1].", [numbered]).answered
    withdrawn = under("This option was withdrawn in 2023.", "Handbook",
                      "Remote work allowed for contractors")
    assert not enforce("Remote work is allowed for contractors [S1].", [withdrawn]).answered
