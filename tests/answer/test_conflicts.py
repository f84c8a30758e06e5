"""Conflicting evidence is shown, not resolved: two documents giving different values for the
same fact are both quoted and cited, by the extractive answer and after a generated one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from citewise.answer.conflicts import find_conflicts
from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing import FakeEmbedder, FakeGenerator
from citewise.types import Principal

from .conftest import make_hit

Q = "How many weeks of parental leave do employees get?"
OLD = "Employees get 16 weeks of paid parental leave after the birth of a child."
NEW = "Employees get 20 weeks of paid parental leave after the birth of a child."
STAFF = Principal.of("staff")


def passages(*texts_and_docs):
    from citewise.types import ContextPassage

    return [ContextPassage(f"S{i}", make_hit(t, i, doc_id=d), t, 10)
            for i, (t, d) in enumerate(texts_and_docs, start=1)]


def test_find_conflicts_needs_same_fact_different_values_different_documents() -> None:
    (c,) = find_conflicts(Q, passages((OLD, "a"), (NEW, "b")))
    assert {c.a.sid, c.b.sid} == {"S1", "S2"}
    assert find_conflicts(Q, passages((OLD, "a"), (NEW, "a"))) == []  # one document
    assert find_conflicts(Q, passages((NEW, "a"), (NEW, "b"))) == []  # same value
    other = "Employees get 30 days of paid vacation every calendar year."
    assert find_conflicts(Q, passages((NEW, "a"), (other, "b"))) == []  # another fact


def test_two_releases_notes_do_not_disagree() -> None:
    """Django's 276 release-notes pages say the same things of each release: a new user was
    told "the sources disagree" between 1.3's and 1.4's "first security release" lines."""
    q = "How far ahead are distributors told about a security release?"
    a = "Distributors are notified 7 days before the first security release in the 1.3 series."
    b = "Distributors are notified 7 days before the first security release in the 1.4 series."
    notes = passages((a, "releases/1.3.html"), (b, "releases/1.4.html"))
    assert find_conflicts(q, notes) == []
    assert len(find_conflicts(q, passages((a, "policy/v1.html"), (b, "policy/v2.html")))) == 1


def test_numbers_inside_names_are_no_values() -> None:
    """A new user of Git's release notes was told two releases' security notes, and two
    notes' merge lines, disagree: a CVE's and a commit's digits name, they state nothing."""
    cves = ("This release addresses the security issues CVE-2022-41903 and CVE-2022-23521.",
            "This release addresses the security issues CVE-2022-39253 and CVE-2022-39260.")
    assert find_conflicts("what is CVE-2022-41903?", passages((cves[0], "a"),
                                                              (cves[1], "b"))) == []
    merges = ("(merge 14d3bb4 jc/apply-ignore-whitespace later to maint).",
              "(merge 610e2b9240 jc/blame-ignore-fix later to maint).")
    assert find_conflicts("can git blame ignore commits in a merge?",
                          passages((merges[0], "a"), (merges[1], "b"))) == []
    streams = ("The following command creates a log stream named 20150601 in the log group "
               "my-logs.", "The following command deletes a log stream named 20150531 from a "
               "log group named my-logs.")  # the AWS CLI's examples: names, not values
    assert find_conflicts("how do I create a new log group?",
                          passages((streams[0], "a"), (streams[1], "b"))) == []
    counts = ("The health check is called 3 times per minute by the balancer.",
              "The health check is called 12 times per minute by the balancer.")
    assert len(find_conflicts("how often is the health check called?",
                              passages((counts[0], "a"), (counts[1], "b")))) == 1  # values
    releases = ("Git v2.39.1 fixes the security issue in git apply.",
                "Git v2.30.7 fixes the security issue in git apply.")  # the review
    assert find_conflicts("which release fixes the security issue in git apply?",
                          passages((releases[0], "a"), (releases[1], "b"))) == []
    leads = [(s.removesuffix(".") + ":\n\n    aws logs x", d) for s, d in zip(
        (OLD, NEW), "ab", strict=True)]  # a lead-in's fact is its example's
    assert find_conflicts(Q, passages(*leads)) == []
    assert len(find_conflicts(Q, passages((OLD, "a"), (NEW, "b")))) == 1  # values still do


def test_two_lines_of_one_example_are_no_conflict() -> None:
    """A new user's "how do I describe my own struct type to libffi?" was answered "The
    sources disagree:" with two lines of one example, from the manual's Info and HTML copies."""
    example = ("Here is the corresponding code to describe this struct to 'libffi':\n\n"
               "    {\n      ffi_type tm_type;\n      ffi_type *tm_type_elements[12];\n"
               "      int i;\n\n      tm_type.size = tm_type.alignment = 0;\n\n"
               "      for (i = 0; i < 9; i++)\n          tm_type_elements[i] = &ffi_type_sint;\n")
    question = "how do I describe my own struct type to libffi with ffi_type?"
    assert find_conflicts(question, passages((example, "info"), (example, "html"))) == []
    code = "Set the client timeout like this:\n\n    client = httpx.Client(timeout={})\n" \
           "    r = client.get(url)"  # a second review: no ';' yet no fact
    assert find_conflicts("How do I set the timeout of the client?",
                          passages((code.format(10.0), "a"), (code.format(30.0), "b"))) == []
    settings = "Log retention: {} days\nMax upload size: 50 MB"  # settings are facts
    for form in (settings, "    log_retention_days = {}\n    max_upload_mb = 50"):
        found = find_conflicts("How many days is the log retention?",
                               passages((form.format(30), "a"), (form.format(90), "b")))
        assert len(found) == 1, form


@pytest.fixture
def engine(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave-2024.md").write_text(f"# Parental leave (2024)\n\n{OLD}\n")
    (docs / "leave-2026.md").write_text(f"# Parental leave (2026)\n\n{NEW}\n")
    db = tmp_path / "i.db"
    with Engine(db, Settings(), embedder=FakeEmbedder()) as e:
        e.ingest_paths([docs], {"groups": ["staff"]})
    with Engine(db, Settings.model_validate({"gate": {"threshold": 0.1}}),
                embedder=FakeEmbedder()) as e:
        yield e


def both_shown(answer) -> None:
    assert "The sources disagree:" in answer.answer
    assert "16 weeks" in answer.answer and "20 weeks" in answer.answer
    assert {c.doc_id for c in answer.citations} == {"leave-2024.md", "leave-2026.md"}
    assert answer.validation.ok


def test_extractive_answer_quotes_both_sides(engine: Engine) -> None:
    from citewise.generate.extractive import ExtractiveGenerator

    answer = engine.ask(Q, STAFF, generator=ExtractiveGenerator())
    both_shown(answer)


def test_a_generated_answer_citing_one_side_gets_the_other(engine: Engine) -> None:
    gen = FakeGenerator("Employees get 20 weeks of paid parental leave [{sid:20 weeks}].")
    answer = engine.ask(Q, STAFF, generator=gen)
    both_shown(answer)
    assert answer.answer.startswith("Employees get 20 weeks")
    assert any("the sources disagree" in n for n in answer.notes)
    citing_both = FakeGenerator("The sources disagree: one says 16 weeks [{sid:16 weeks}], the "
                                "other 20 weeks of paid parental leave [{sid:20 weeks}].")
    kept = engine.ask(Q, STAFF, generator=citing_both)
    assert kept.answer.count("disagree") == 1 and not kept.notes


def test_two_releases_entries_are_no_conflict_but_two_policies_are() -> None:
    """A new user's "When was Python 3.4.6 released?" was told the sources disagree between
    3.4.6's "Release date: 2017-01-17" and 3.6.5rc1's; "Update macOS installer to SQLite
    3.39.4" (3.11.1) and "… to 3.8.3" (3.4.0rc1) too."""
    from citewise.answer.conflicts import conflict_text
    from citewise.types import ContextPassage

    def under(text, doc_id, *heading):
        return ContextPassage(doc_id, make_hit(text, 1, doc_id=doc_id, heading=heading), text, 9)

    dates = [under("Release date: 2017-01-17", "S1", "History", "What's New in Python 3.4.6?"),
             under("Release date: 2018-03-13", "S2", "News", "What's New in Python 3.6.5rc1?")]
    assert find_conflicts("When was Python 3.4.6 released?", dates) == []
    sqlite = [under("- Update macOS installer to SQLite 3.39.4.", "S1", "News",
                    "What's New in Python 3.11.1 final?", "macOS"),
              under("- Update SQLite shipped with OS X installer to 3.8.3.", "S2", "History",
                    "What's New in Python 3.4.0 release candidate 1?", "Build")]
    assert find_conflicts("Which release updated the installer to SQLite 3.39.4?", sqlite) == []
    policies = [under(OLD, "S1", "Parental leave policy (2023)"),
                under(NEW, "S2", "Parental leave policy (2024)")]
    (c,) = find_conflicts(Q, policies)  # dated versions of one policy still disagree
    for a, b in (("Staff handbook", "3.2.1 Parental leave"),  # a review: numbered sections
                 ("HR policy 2.1.0", "HR policy 2.2.0")):  # and versions of one policy
        assert len(find_conflicts(Q, [under(OLD, "S1", a), under(NEW, "S2", b)])) == 1
    assert "- - " not in conflict_text(find_conflicts(Q, [  # a list item's own bullet goes
        under("- " + OLD, "S1", "Policy"), under("- " + NEW, "S2", "Policy")])[0])


def test_the_same_sentence_about_another_named_thing_is_no_conflict() -> None:
    """The Unstable Book's pages each say "The tracking issue for this feature is: #…": a
    new user's question about box_patterns was told box_patterns', deref_patterns' and
    box_take's issue numbers disagree. Two versions of a page that both name it still do."""
    from citewise.types import ContextPassage

    def page(feature, number, sid):
        text = f"The tracking issue for this feature is: #{number}"
        return ContextPassage(sid, make_hit(text, int(sid[1:]), doc_id=feature, title=feature,
                                            heading=(feature,)), text, 9)

    q = "what does the box_patterns feature let me do?"
    assert find_conflicts(q, [page("box_patterns", 29641, "S1"),
                              page("deref_patterns", 87121, "S2"),
                              page("box_take", 147212, "S3")]) == []
    assert len(find_conflicts(q, [page("box_patterns", 29641, "S1"),
                                  page("box_patterns (old)", 12345, "S2")])) == 1


def test_a_sentence_of_a_library_the_question_does_not_name_is_no_conflict() -> None:
    """A new user's index of several libraries' docs: "what does the monotonic package do
    on python 3.3 and newer?" was told that monotonic's "compatible with Python 2 and Python
    3" and funcsigs' "compatible with Python 2.6, 2.7 as well as 3.3" disagree."""
    from citewise.types import ContextPassage

    def readme(library, text, sid):
        return ContextPassage(sid, make_hit(text, int(sid[1:]), doc_id=f"{library}/README.md",
                                            title=library, heading=(library,)), text, 9)

    q = "what does the monotonic package do on python 3.3 and newer?"
    mono = readme("monotonic", "It is compatible with Python 2 and Python 3.", "S1")
    sigs = readme("funcsigs", "The backport is compatible with Python 2.6, 2.7 as well as "
                  "3.3 and up.", "S2")
    assert find_conflicts(q, [mono, sigs]) == []
    old = readme("monotonic", "The monotonic backport is compatible with Python 2.6 and "
                 "3.3 and up.", "S3")  # a page of another document that names it: still
    assert len(find_conflicts(q, [mono, replace(old, hit=replace(  # compared
        old.hit, document=replace(old.hit.document, doc_id="notes.md", title="Notes")))])) == 1

    def version(sid, doc_id, title, section, weeks):  # the review of this stop: two versions
        text = f"Parental leave is {weeks} weeks."  # of one policy, one named by a word of
        return ContextPassage(sid, make_hit(text, int(sid[1:]), doc_id=doc_id, title=title,
                                            heading=(title, section)), text, 9)  # the question
    for q, a, b in (
            ("How many weeks of parental leave do staff get?",
             ("leave-2024.md", "Parental leave (2024)", "Leave"),
             ("staff-handbook-2026.md", "Staff handbook (2026)", "Parental leave")),
            ("How many weeks of paid parental leave do we get?",
             ("handbook/2023.md", "Handbook 2023", "Time off"),
             ("handbook/2024.md", "Handbook 2024", "Paid time off"))):
        assert len(find_conflicts(q, [version("S1", *a, 16), version("S2", *b, 20)])) == 1, q


def test_a_line_of_spaces_in_a_code_block_costs_linear_time() -> None:
    """A security review planted a code line of 2,000 spaces and an "x": the settings
    pattern, whose key and the blanks around it could each take the spaces, cost 20 s of
    every ask that retrieved the passage, every tenant's requests waiting."""
    child = textwrap.dedent("""
        from citewise.answer.conflicts import find_conflicts
        from tests.answer.test_conflicts import passages
        code = "Retention is 30 days:\\n\\n" + " " * 4 + " " * 4000 + "x\\n    y = 1\\n"
        print(find_conflicts("How many days is the retention?",
                             passages((code, "a"), (code.replace("30", "90"), "b"))))
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=60, check=False, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-500:]


def test_an_answer_showing_a_conflict_gets_no_second_one(tmp_path: Path) -> None:
    """A security review's answer over near-identical sentences of two documents said "The
    sources disagree:" twice: the extractive answer's own pair, then another the answer
    stage found unresolved."""
    from citewise.generate.extractive import ExtractiveGenerator

    docs = tmp_path / "docs"
    docs.mkdir()
    for n in (1, 2):
        lines = " ".join(f"Zebra retention {i + n} d." for i in range(120))
        (docs / f"z{n}.md").write_text(f"# Zebra retention {n}\n\n{lines}\n")
    with Engine(tmp_path / "i.db", Settings.model_validate({"gate": {"threshold": 0.0}}),
                embedder=FakeEmbedder()) as e:
        e.ingest_paths([docs], {"groups": ["staff"]})
        answer = e.ask("zebra retention d", Principal.of("staff"),
                       generator=ExtractiveGenerator())
    assert answer.answer.count("The sources disagree:") == 1, answer.answer


def test_two_settings_examples_for_different_things_are_no_conflict() -> None:
    """A new user of the Debian Handbook asked whether APT pinning can downgrade a package
    and was told that two pinning examples disagree: "Package: limnoria … Pin-Priority:
    1001" and "Package: * … Pin-Priority: -10" configure different packages."""
    first = ("To install limnoria from unstable:\n\n    Package: limnoria\n    Pin: release "
             "a=unstable\n    Pin-Priority: 1001\n")
    second = ("To keep everything else back:\n\n    Package: *\n    Pin: release "
              "a=unstable\n    Pin-Priority: -10\n")
    question = "what pin priority does apt need to downgrade a package?"
    assert find_conflicts(question, passages((first, "a"), (second, "b"))) == []
    same = "    Package: limnoria\n    Pin: release a=unstable\n    Pin-Priority: {}\n"
    assert len(find_conflicts(question, passages((same.format(1001), "a"),
                                                 (same.format(990), "b")))) == 1


def test_a_later_or_formatting_only_difference_does_not_hide_a_conflict() -> None:
    """The review of this stop: two documents' ``max_connections = 100`` and ``= 500`` were
    no conflict once another key differed in quoting or case (``ssl = on`` / ``'On'``)."""
    block = "    max_connections = {}\n    ssl = {}\n"
    question = "what is max_connections set to?"
    for other in ("'on'", "On", "off"):
        found = find_conflicts(question, passages((block.format(100, "on"), "a"),
                                                  (block.format(500, other), "b")))
        assert len(found) == 1, other


def test_a_list_item_s_number_is_no_value() -> None:
    """A new user of SQLite's documentation was told two sources disagree: "1. Maximum
    length of a string or BLOB … 1,000,000,000 bytes" and another page's "… 1,000,000,000
    bytes": the item number read as a value."""
    question = "what is the maximum length of a string or BLOB?"
    found = find_conflicts(question, passages(
        ("1. Maximum length of a string or BLOB. The maximum length is 1,000,000,000 "
         "bytes.", "limits"),
        ("The maximum length of a string or BLOB is 1,000,000,000 bytes.", "faq")))
    assert found == []


def test_two_named_entries_values_are_no_conflict_but_one_entry_s_two_are() -> None:
    """A new user of Postfix's manual was told that two parameters' defaults disagree, and
    that postconf(5)'s "This feature is available in Postfix 2.3 and later." under two
    parameters' entries (the name only in the entry's anchor and first line) does too."""
    from citewise.types import ContextPassage, SectionMark

    def entry(name, said, sid, doc):
        text = f"{name} (default: empty)\nThe lookup tables for {name} requests.\n{said}"
        hit = make_hit(text, int(sid[1:]), doc_id=doc)
        chunk = replace(hit.chunk, anchor=None,
                        sections=(SectionMark(0, name, ("Postfix Configuration Parameters",)),))
        return ContextPassage(sid, replace(hit, chunk=chunk), text, 20)

    q = "which postfix release has the relayhost maps feature?"
    pair = [entry("address_verify_relayhost_maps", "This feature is available in Postfix "
                  "2.3 and later.", "S1", "postconf.5.html"),
            entry("smtp_tls_relayhost_maps", "This feature is available in Postfix 3.5 and "
                  "later.", "S2", "postconf-old.5.html")]
    assert find_conflicts(q, pair) == []
    again = entry("address_verify_relayhost_maps", "This feature is available in Postfix "
                  "3.5 and later.", "S2", "postconf-old.5.html")  # one entry, two versions
    assert len(find_conflicts(q, [pair[0], again])) == 1
    limits = ("smtpd_client_connection_rate_limit (default: 0) limits the connection rate.",
              "smtpd_client_connection_count_limit (default: 50) limits the connection count.")
    q = "how do I limit the connection count and rate of one client?"
    assert find_conflicts(q, passages((limits[0], "postconf.5.html"),
                                      (limits[1], "smtpd.8.html"))) == []
    again = limits[1].replace("50", "100")
    assert len(find_conflicts(q, passages((limits[1], "a"), (again, "b")))) == 1


def test_two_versions_naming_things_in_passing_or_under_new_headings_still_conflict(
        ) -> None:
    """The review of 561c8ba: "This policy grants employees 16 / 20 weeks…" under "Parental
    leave" and "Parental leave (revised)", and one sentence naming ``upload_gateway`` and
    ``edge_proxy`` in passing, were no longer shown as disagreeing."""
    from citewise.types import ContextPassage

    def side(text, sid, heading):
        hit = make_hit(text, int(sid[1:]), doc_id=f"handbook-{sid}", heading=heading)
        return ContextPassage(sid, hit, text, 9)

    q = "how many weeks of parental leave does the policy grant?"
    assert len(find_conflicts(q, [
        side("This policy grants employees 16 weeks of paid parental leave.", "S1",
             ("Handbook", "Parental leave")),
        side("This policy grants employees 20 weeks of paid parental leave.", "S2",
             ("Handbook", "Parental leave (revised)"))])) == 1
    q = "how many retries does the gateway make?"
    assert len(find_conflicts(q, [
        side("The gateway retries 3 times before upload_gateway gives up.", "S1", ("A",)),
        side("The gateway retries 5 times before edge_proxy gives up.", "S2", ("B",))])) == 1
