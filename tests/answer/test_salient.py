"""The evidence-for-every-salient-term veto: identifiers, names, long numbers and unknown words
of a question must appear in a readable top passage, else the gate declines (``missing_terms``),
whatever the retrieval score."""

from __future__ import annotations

from citewise.answer.gate import decide, evidence_signals
from citewise.answer.salient import (
    ALL_KINDS,
    absent_terms,
    missing_terms,
    salient_missing,
    salient_terms,
    unknown_words,
)

from .conftest import make_hit

HITS = [make_hit("Use httpx.Client(http2=True) to enable HTTP/2; install the http2 extra.", 1,
                 dense=0.62),
        make_hit("Timeouts default to 5 seconds; pass timeout=None to disable them.", 2,
                 dense=0.55)]


def test_salient_terms_by_kind() -> None:
    assert salient_terms("What did the Normans conquer in 1066?", ALL_KINDS) == [
        "normans", "1066"]
    assert salient_terms("What did the Normans conquer in 1066?") == []  # shipped: identifiers
    assert salient_terms("What does `cargo sign` do?") == ["cargo sign"]
    assert salient_terms("Which HTTP/2 settings does httpx.Client take?") == [
        "http/2", "httpx.client"]
    assert salient_terms("how long does a request wait before it times out?") == []
    assert salient_terms("What is error E42 and --max-retries?") == ["e42", "--max-retries"]


def test_missing_terms_are_looked_up_in_the_top_passages() -> None:
    assert missing_terms("How do I enable HTTP/2 on httpx.Client?", HITS) == []
    assert missing_terms("How do I enable the TurboMode option on httpx.Client?", HITS) == [
        "turbomode"]
    assert missing_terms("Is it in the Normans chapter?", HITS, kinds=ALL_KINDS) == ["normans"]


def test_an_option_written_as_negatable_is_mentioned_both_ways() -> None:
    """A new user of git's documentation: "what does git daemon --informative-errors do"
    was declined, its entry ``--[no-]informative-errors`` first in the hits."""
    hits = [make_hit("--[no-]informative-errors\nWhen informative errors are turned on, git "
                     "daemon will report more verbose errors to the client.", 1)]
    for asked in ("--informative-errors", "--no-informative-errors"):
        assert missing_terms(f"what does git daemon {asked} do?", hits) == [], asked
    assert missing_terms("what does git daemon --verbose-errors do?", hits) == [
        "--verbose-errors"]


def test_the_crate_a_path_is_in_must_be_in_the_passages() -> None:
    """A new user's "How do I hold a tokio::sync::Mutex guard across an .await point?" of
    the Rust standard library's docs (no word of tokio) was answered from std's Mutex."""
    std = [make_hit("Mutex in std::sync: a mutual exclusion primitive.", 1, dense=0.6,
                    title="Mutex in std::sync")]
    question = "How do I hold a tokio::sync::Mutex guard across an .await point?"
    assert salient_terms(question) == ["tokio"]
    assert missing_terms(question, std) == ["tokio"]
    assert missing_terms("When does std::sync::Mutex poison?", std) == []


def test_a_name_spelled_with_or_without_a_hyphen_is_the_same_name() -> None:
    """Nettle's manual writes SHA256; "how do I compute a SHA-256 hash?" was declined as
    naming something no passage mentions. A flag keeps its dashes."""
    hits = [make_hit("sha256_digest writes the SHA256 digest; see max-keepalive.", 1)]
    assert missing_terms("How do I compute a SHA-256 hash?", hits) == []
    assert missing_terms("What does sha256-digest return?", hits) == []
    assert missing_terms("Where is max_keepalive set?", hits) == []
    assert missing_terms("Is there a SHA-3 mode?", hits) == ["sha-3"]
    assert missing_terms("What does --digest do?", hits) == ["--digest"]
    titled = [make_hit("The match element edits a pattern.", 1, title="fonts-conf")]
    assert missing_terms("What does <match> do in fonts.conf?", titled) == []
    assert missing_terms("Is 1.3 supported?", [make_hit("Version 13 only.", 1)],
                         kinds=ALL_KINDS) == ["1.3"]


def test_a_markup_element_is_named_by_its_tag_or_its_word() -> None:
    """A new user's "What does the <fontrank> element do in fonts.conf?" was declined as
    "none of the passages mentions fonts.conf": the element, which fontconfig's manual does
    not have, is the name. One a page writes with attributes or as a word is there."""
    hits = [make_hit('Use <match target="font"> to edit fonts; the alias element and '
                     "<acceptfont> in fonts.conf.", 1)]
    assert salient_terms("What does the <fontrank> element do in fonts.conf?") == [
        "<fontrank>", "fonts.conf"]
    assert missing_terms("What does the <fontrank> element do in fonts.conf?", hits) == [
        "<fontrank>"]
    for asked in ("What does <match> do?", "When is </alias> needed?", "Is <acceptfont/> a "
                  "list?", "Is a < b > c?", "What does Option<T> mean?",
                  "What does List<String> return?"):  # type parameters: no element (review)
        assert missing_terms(asked, hits) == [], asked


def test_unknown_words_have_no_readable_document() -> None:
    corpus = {"timeout", "request", "disable"}
    assert unknown_words("how do I disable the flux capacitor timeout?",
                         lambda w: w in corpus) == ["flux", "capacitor"]


def test_the_veto_declines_whatever_the_retrieval_score() -> None:
    question = "How do I enable the TurboMode option on httpx.Client?"
    missing = missing_terms(question, HITS)
    signals = evidence_signals(question, HITS, missing)
    assert signals["dense_top"] == 0.62 and signals["dense_top+terms"] < 0
    decision = decide(question, HITS, "dense_top+terms", 0.398, "shipped", missing)
    assert not decision.passed and decision.reason == "missing_terms"
    assert decision.missing == ("turbomode",)
    ok = decide("How do I enable HTTP/2?", HITS, "dense_top+terms", 0.398, "shipped", [])
    assert ok.passed
    # an uncalibrated index (threshold 0) still declines on a missing term
    assert not decide(question, HITS, "dense_top+terms", 0.0, "uncalibrated", missing).passed


def test_names_no_readable_document_contains_are_absent() -> None:
    corpus = {"windows", "fortran", "ninja"}
    has_word = corpus.__contains__
    question = "Can Ninja build Fortran on Windows with Bazel or CUDA?"
    assert absent_terms(question, has_word, ("name",)) == ["bazel", "cuda"]
    assert absent_terms(question, has_word, ()) == []
    assert absent_terms(question, has_word, ("name",), known=["cuda"]) == ["bazel"]


def test_salient_missing_combines_top_hits_and_corpus_checks() -> None:
    question = "How do I enable the TurboMode option on httpx.Client from Terraform?"
    nowhere = lambda word: False  # noqa: E731
    assert salient_missing(question, HITS, nowhere, ("identifier",), ("name",)) == [
        "turbomode", "terraform"]
    assert salient_missing(question, HITS, nowhere, ("identifier",), ()) == ["turbomode"]
    assert salient_missing("how do I disable the flux capacitor?", HITS,
                           {"disable"}.__contains__, (), (), unknown=True) == [
        "flux", "capacitor"]


def test_a_version_no_readable_document_mentions_is_absent() -> None:
    """A new user's "What language changes does the Rust 2027 edition make?" was answered
    from a passage about Rust 2024: the edition's number, a label, is in no document."""
    corpus = {"rust", "edition", "2024", "2021", "500"}
    question = "What language changes does the Rust 2027 edition make?"
    assert salient_missing(question, HITS, corpus.__contains__) == ["2027"]
    assert salient_missing("What changes does the Rust 2024 edition make?", HITS,
                           corpus.__contains__) == []
    assert salient_missing("How do I cap downloads at 750 KB/s?", [],  # a value, not a label
                           corpus.__contains__, kinds=()) == []


def test_a_nationality_or_language_is_no_name_to_look_for() -> None:
    """Vim's help says ``en_us``, never "American": "How do I turn on spell checking for
    American English?" was declined as naming something no document mentions."""
    assert absent_terms("How do I turn on spell checking for American English?",
                        {"spell"}.__contains__, ("name",)) == []
    assert absent_terms("Does Vim support Klingon or American English?",
                        {"vim"}.__contains__, ("name",)) == ["klingon"]


def test_a_long_option_with_one_dash_is_an_identifier() -> None:
    """find's options have one dash: "-fuzzy" (which find lacks) passed the gate on the
    question's other words. Bundled letters (``-xzvf``, ``-lah``) name nothing."""
    hits = [make_hit("Use find -mtime -2 to list files changed in the last two days; "
                     "-execdir runs a command in each file's folder.", 1)]
    assert salient_terms("how do I use find -fuzzy to match names?") == ["-fuzzy"]
    assert salient_terms("what does tar -xzvf or ls -lah do, non-interactively?") == []
    assert missing_terms("how do I use find -fuzzy to match names?", hits) == ["-fuzzy"]
    assert missing_terms("what does find -execdir or -mtime do?", hits) == []


def test_a_number_with_its_unit_is_a_value_not_a_name() -> None:
    """find writes ``-size +1G``: "how can I find all files bigger than 1GB?" was declined as
    naming "1gb". Codes mixing letters and digits stay names."""
    assert salient_terms("how can I find files bigger than 1GB, in 100MB pieces, after 30s?") \
        == []
    assert salient_terms("what do x86_64, http2 and E42 mean?") == ["x86_64", "http2", "e42"]


def test_a_term_the_index_holds_no_word_of_is_not_taken_for_absent() -> None:
    """Readline's key ``C-r`` is two one-letter words, and one-letter words are not
    indexed: no lookup finds it, and "how do I use C-r to search the history?" was declined
    as naming something no readable document contains."""
    nothing_found = lambda word: False  # noqa: E731 (the index's lookup of "c-r")
    hits = [make_hit("'reverse-search-history (C-r)' Search backward.", 1, dense=0.5)]
    question = "how do I use C-r to search the history?"
    assert absent_terms(question, nothing_found, ("name",), hits=hits) == []
    assert absent_terms(question, nothing_found, ("name",), hits=HITS) == ["c-r"]
    assert absent_terms("how do I use Bazel?", nothing_found, ("name",), hits=hits) == [
        "bazel"]
    # as a whole token only (a review: "decreases" held c-r squashed, 0.21.3 held 1.3)
    near = [make_hit("CRC checks decreases; see release 0.21.3 for Ctrl-r.", 1, dense=0.5)]
    assert absent_terms(question, nothing_found, ("name",), hits=near) == ["c-r"]
    assert absent_terms("what changed in Foo 1.3?", nothing_found, ("label",),
                        hits=near) == ["1.3"]


def test_a_release_label_without_its_trailing_zero_is_found_as_written() -> None:
    """"strace 6.0" was the label "6" (a number without its trailing zeros), no whole token
    of "release 6.0": a new user's "What changed in strace 6.0?" was declined as naming a
    6.0 no passage mentions, that release's section first in the hits. A label is as
    written: "Foo 3.10" was "3.1" too."""
    nothing_found = lambda word: False  # noqa: E731 (one-letter words are not indexed)
    hits = [make_hit("Noteworthy changes in release 6.0 (2022-10-29)", 1, dense=0.5)]
    assert absent_terms("What changed in strace 6.0?", nothing_found, ("label",),
                        hits=hits) == []
    assert absent_terms("What changed in strace 6.1?", nothing_found, ("label",),
                        hits=hits) == ["6.1"]
    assert absent_terms("What changed in Strace 6?", nothing_found, ("label",),
                        hits=[make_hit("release 6.0.1", 1, dense=0.5)]) == ["6"]
    tens = [make_hit("Version 3.10 - May 2024", 1, dense=0.5)]  # a review: 3.1 is not 3.10
    assert absent_terms("What changed in Foo 3.1?", nothing_found, ("label",),
                        hits=tens) == ["3.1"]
    assert absent_terms("What changed in Foo 3.10?", nothing_found, ("label",),
                        hits=tens) == []
    series = [make_hit("What's New in Python 3.11.0 alpha 5? bpo-46383: zoneinfo fix.", 1)]
    assert absent_terms("What changed in zoneinfo during the Python 3.11 alphas?",
                        nothing_found, ("label",), hits=series) == []  # a series' release


def test_a_trackers_number_is_named_by_its_number() -> None:
    """Python's NEWS writes "gh-issue-101400": "What does gh-101400 fix?" was declined as
    naming something no passage mentions, that entry first in the hits."""
    hits = [make_hit("- gh-issue-101400: Fix wrong lineno in exception message.", 1)]
    assert missing_terms("What does gh-101400 fix?", hits, kinds=ALL_KINDS) == []
    assert missing_terms("What does gh-101401 fix?", hits, kinds=ALL_KINDS) == ["gh-101401"]
    hits = [make_hit("The player decodes h264 video at up to 265 frames per second.", 1)]
    assert missing_terms("Does the player decode h265 video?", hits, kinds=ALL_KINDS) == [
        "h265"]  # a review: no tracker's number


def test_a_macro_is_looked_for_with_its_bang() -> None:
    """std's docs have no select! macro: "How do I wait on two channels with tokio's select!
    macro?" was answered from the mpsc docs, which say "select" elsewhere. An exclamation
    ending a sentence names nothing."""
    std = [make_hit("Receivers can be selected on; use println!(\"{x}\") to print.", 1)]
    question = "How do I wait on two channels with tokio's select! macro?"
    assert salient_terms(question) == ["select!"]
    assert missing_terms(question, std) == ["select!"]
    assert missing_terms("What does println!() print?", std) == []
    assert salient_terms("It fails! what now?") == []


def test_an_options_value_is_the_users_not_a_name_to_look_for() -> None:
    """The review of this stop: a rule requiring ``--backup=git``'s value in the passages
    declined "what does docker run --name=web do?", the value being the user's choice."""
    assert salient_terms("what does docker run --name=web do?") == ["--name"]


def test_a_hyphenated_name_asked_of_as_an_option_must_be_in_the_passages() -> None:
    """A new user of the BIND manual asked "what does max-cache-entries do" (BIND has
    max-cache-size) and was answered from its neighbours; a user's own compound is no
    name."""
    hits = [make_hit("max-cache-size\nThe maximum amount of memory to use for the "
                     "server's cache. The default is 90%.", 1)]
    assert missing_terms("What does max-cache-entries do?", hits) == ["max-cache-entries"]
    assert missing_terms("what's the default for prefetch-aggressive", hits) == [
        "prefetch-aggressive"]
    assert missing_terms("how do I set the max-cache-size option", hits) == []
    assert missing_terms("give me a step-by-step guide to the server's cache", hits) == []
