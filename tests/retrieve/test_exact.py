"""Exact identifiers (:mod:`citewise.retrieve.exact`): a question naming an option finds the
chunk that names it, a third run for RRF. A new user's "What does the --small flag of bzip2
do?" missed bzip2's ``'-s --small'`` entry in its top 16 (BM25 reads "--small" as "small"),
and the gate declined it as naming something no top passage mentions."""

from __future__ import annotations

from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.retrieve.exact import exact_run, identifiers, phrase_options, titled_names
from citewise.testing import FakeEmbedder
from citewise.types import Principal


def test_identifiers_are_options_and_names_from_code_not_words() -> None:
    assert identifiers("What does the --small flag of bzip2 do?") == ["--small"]
    assert identifiers("set max_keepalive_connections on httpx.Client or `pool limits`") == [
        "pool limits", "max_keepalive_connections"]
    assert identifiers("is a well-known ext4 option up-to-date?") == []
    assert identifiers("Does mRNA of H2A.Z bind TCR/CD8 or p53?") == []  # SciFact's claims


def test_a_release_number_is_looked_up_whole() -> None:
    """BM25 reads "man-db 2.11.1" as the word "11": a new user's "what security fix came in
    2.11.1?" found that release's entry 70th and was declined. Two parts are values."""
    assert identifiers("what security fix came in man-db 2.11.1?") == ["2.11.1"]
    assert identifiers("does it wait 2.5 seconds, or 10.0?") == []
    # two parts after a name name a release (strace's NEWS: "release 6.0"); after a
    # stopword or before a unit they are values
    assert identifiers("What changed in strace 6.0?") == ["6.0"]
    assert identifiers("What is new in the Python 3.11 release?") == ["3.11"]
    assert identifiers("limit it to 2.5 seconds, or by 1.5 times") == []
    texts = {"a": "man-db 2.11.10 fixed a crash.", "b": "man-db 2.11.1 (15 November 2022): "
             "fixed a security issue.", "c": "Release 2.11.2.", "d": "x", "e": "y"}
    assert [s.chunk_id for s in exact_run(["2.11.1"], texts)] == ["b"]


def test_the_rarer_name_ranks_first_and_a_name_most_candidates_hold_counts_for_nothing():
    texts = {"a": "bzip2 compresses files.", "b": "bzip2 -s --small reduces memory.",
             "c": "Use --smaller-blocks.", "d": "bzip2 again."}
    run = exact_run(["--small", "bzip2"], texts)
    assert [(s.chunk_id, s.rank) for s in run] == [("b", 1)]  # bzip2 is in 3 of 4
    run = exact_run(["--small", "bzip2"], {**texts, "e": "x", "f": "y", "g": "z"})
    assert [s.chunk_id for s in run] == ["b", "a", "d"]  # --small (1 of 7) above bzip2 (3)


def test_the_chunk_naming_the_option_is_found_and_read_as_the_asker(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):  # pages about small things, which BM25 and the embedder like
        (docs / f"small-{i}.md").write_text(
            f"# Small things {i}\n\nA small flag makes small files smaller for small disks.\n",
            encoding="utf-8")
    (docs / "options.md").write_text(
        "# Options\n\n'-s --small' Reduce memory usage when decompressing.\n", encoding="utf-8")
    (docs / "secret.md").write_text("# Hidden\n\nThe --small switch is secret.\n",
                                    encoding="utf-8")
    settings = Settings.model_validate({})
    with Engine(tmp_path / "x.db", settings, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([docs], {"groups": ["public"]})
        engine.set_acl("secret.md", ["hr"])
        result = engine.search("What does the --small flag do?", Principal.of("public"),
                               top_k=5)
    ids = [h.document.doc_id for h in result.hits]
    assert ids[0] == "options.md", ids
    assert "secret.md" not in ids and result.candidates["exact"] == 1
    assert result.hits[0].signals["exact"].rank == 1


def test_a_one_letter_option_is_an_identifier_and_keeps_its_case() -> None:
    """A new user's "What does the -u option do in diff?" missed diffutils' ``'-u'`` entry
    and its Unified Format section (BM25 reads one letter as nothing) and was declined."""
    assert identifiers("What does the -u option do in diff?") == ["-u"]
    assert identifiers("is an e-mail an x-ray? -1 is a value, IL-6 a cytokine") == []
    texts = {"a": "'-u' Use the unified output format.", "b": "'-U' unified with LINES.",
             "c": "Use diff to compare.", "d": "diff -un"}
    assert [s.chunk_id for s in exact_run(["-u"], texts)] == ["a"]


def test_words_that_spell_a_long_option_find_the_chunk_naming_it(tmp_path: Path) -> None:
    """A new user's "How do I make diff ignore case?" was answered from diffutils' passage on
    ``--ignore-file-name-case`` (the words' most frequent page); the section saying "use
    the '-i' or '--ignore-case' option" ranked third. Only a candidate holding the option
    counts: the phrases are no identifiers the question names (the gate never sees them)."""
    assert phrase_options("How do I make diff ignore case?") == [
        "--how-do", "--make-diff-ignore", "--diff-ignore-case", "--make-diff", "--diff-ignore",
        "--ignore-case"]
    assert identifiers("How do I make diff ignore case?") == []
    assert phrase_options("word " * 5000) == ["--word-word-word", "--word-word"]
    assert len(phrase_options(" ".join(f"w{chr(97 + i % 26)}{i // 26}" for i in range(99)))
               ) == 0  # digits end a word: no phrase
    assert len(phrase_options(" ".join("q" + chr(97 + i // 26) + chr(97 + i % 26)
                                       for i in range(150)))) == 200
    long = ("When comparing two large directory trees recursively with diff is there an "
            "option that makes diff ignore case?")  # a review: a cap of 24 dropped it
    assert "--ignore-case" in phrase_options(long)
    pages = {f"names-{i}.md": f"# Directories {i}\n\nWith --ignore-file-name-case, diff "
             "ignores case in file names: case differences in names, upper case and lower "
             "case.\n" for i in range(8)}  # pages about case in file names, both signals like
    pages["case.md"] = "# Suppressing differences\n\nTo request this, use the -i or " \
        "--ignore-case option.\n"
    result = _searched(tmp_path, pages, "How do I make diff ignore case?", top_k=3)
    assert result.hits[0].document.doc_id == "case.md", [h.document.doc_id
                                                          for h in result.hits]


def _searched(tmp_path: Path, pages: dict[str, str], query: str, top_k: int):  # noqa: ANN202
    """``query``'s search over ``pages`` (name -> Markdown), readable by public."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    with Engine(tmp_path / "x.db", Settings.model_validate({}),
                embedder=FakeEmbedder()) as engine:
        engine.ingest_files([docs], {"groups": ["public"]})
        return engine.search(query, Principal.of("public"), top_k=top_k)


def test_a_markup_element_is_an_identifier_found_as_its_tag() -> None:
    """fontconfig's manual: "What does a <match> block do?" (the section is headed
    ``<match target="pattern">``) was declined; its words alone read as "match"."""
    assert identifiers("What does a <match> block do in fonts.conf?") == ["<match", "fonts.conf"]
    assert identifiers("use </alias> with --prefer") == ["<alias", "--prefer"]
    assert identifiers("What does Option<T> or Map<K, V> mean?") == []  # type parameters
    texts = {"a": '<match target="pattern"> This element holds tests.', "b": "<matches>",
             "c": "the match element", "d": "x<match>y", "e": "q", "f": "r"}
    assert [s.chunk_id for s in exact_run(["<match"], texts)] == ["a", "d"]


def test_a_name_written_as_a_call_is_an_identifier_and_its_last_part_too() -> None:
    """A new user's "What is the difference between setImmediate() and
    process.nextTick()?" was declined: ten process.nextTick passages on top, the
    setImmediate sections 11th to 17th, and setImmediate named by no top passage."""
    assert identifiers("What is the difference between setImmediate() and "
                       "process.nextTick()?") == ["setImmediate", "process.nextTick",
                                                  "nextTick"]
    assert identifiers("what does response.raise_for_status() do?") == [
        "response.raise_for_status", "raise_for_status"]
    assert identifiers("Does mRNA of H2A.Z bind TCR/CD8 or p53 (see Fig. 2)?") == []
    assert identifiers("can it() or x() or $() do it?") == []  # too short to tell apart


def test_the_exact_run_finds_the_chunk_of_each_called_name() -> None:
    question = "What is the difference between setImmediate() and process.nextTick()?"
    texts = {f"tick-{i}": f"Use queueMicrotask() for ordering {i}." for i in range(6)}
    texts |= {"nexttick": "process.nextTick(callback[, ...args]) adds the callback to the "
                          "next tick queue.",
              "immediate": "setImmediate(callback[, ...args]) schedules the callback after "
                           "I/O events' callbacks."}
    run = exact_run(identifiers(question), texts)
    assert {s.chunk_id for s in run} == {"nexttick", "immediate"}


def test_a_configuration_name_is_an_identifier_as_a_manual_writes_it() -> None:
    """A new user of rsyslog's documentation: "what's the default for imfile's
    PollingInterval", ``$ActionQueueFileName`` and ``queue.filename`` had no exact run,
    though the gate asks for those names in the top passages."""
    assert identifiers("what's the default for imfile's PollingInterval") == [
        "PollingInterval"]
    assert identifiers("how do I set $ActionQueueFileName or queue.filename?") == [
        "$ActionQueueFileName", "queue.filename"]
    assert identifiers("what do pull.rebase, gc.auto and maxCacheSize do?") == [
        "pull.rebase", "gc.auto", "maxCacheSize"]
    # SciFact's biology, abbreviations and capitalised words are no such names
    assert identifiers("Do iTregs, miRNAs, clpC, polI, FoxO3a or TatAd bind H2A.Z, e.g. "
                       "in Bacillus subtilis? The Cells i.e. Th17 ones.") == []


def test_a_name_with_a_capital_inside_is_matched_as_written() -> None:
    """SciFact's "increases AlphaBeta production" is not its abstracts' "alphabeta T cell
    receptor"; a dotted or ``$`` name is found whatever its case."""
    texts = {"a": "PollingInterval: specifies how often files are polled.",
             "b": "the pollinginterval and alphabeta words", "c": "Queue.FileName sets it",
             "d": "$actionqueuefilename (legacy)", "e": "x", "f": "y", "g": "z"}
    assert [s.chunk_id for s in exact_run(["PollingInterval"], texts)] == ["a"]
    assert [s.chunk_id for s in exact_run(["queue.filename"], texts)] == ["c"]
    assert [s.chunk_id for s in exact_run(["$ActionQueueFileName"], texts)] == ["d"]
    more = {"a": "use -maxdepth 2", "b": "<myelement> here", **{k: k for k in "cdefg"}}
    assert [s.chunk_id for s in exact_run(["-maxDepth"], more)] == ["a"]  # options and
    assert [s.chunk_id for s in exact_run(["<myElement"], more)] == ["b"]  # tags: any case


def test_the_parameter_a_question_names_leads_the_hits(tmp_path: Path) -> None:
    """Pages whose words are the question's ("default", "polling", "interval", "files")
    outrank the one parameter entry that names ``PollingInterval`` unless it is looked for
    as written."""
    pages = {f"mod{i}.md": f"# Module {i}\n\nThe default polling interval for files in "
             f"module {i} is the default interval of polling files.\n" for i in range(12)}
    pages["imfile.md"] = ("# imfile\n\nPollingInterval\n\ntype: integer; default: 10. "
                          "Seconds between two scans.\n")
    result = _searched(tmp_path, pages, "what's the default PollingInterval for files?",
                       top_k=5)
    assert result.hits[0].document.doc_id == "imfile.md", [h.document.doc_id
                                                           for h in result.hits]
    assert result.candidates["exact"] == 1


def test_a_name_of_letters_and_digits_counts_where_it_titles_the_page() -> None:
    """The rustc error index titles each page by its code ("Error code E0384"): such a name
    is looked up in titles and headings, not in text, where names like ``ext4`` or ``p53``
    are mentioned in passing (the SciFact and borg measurements of ``_TOKEN``)."""
    assert titled_names("what does error E0384 mean in Rust?") == ["E0384"]
    assert titled_names("is 1GB or 30s or 3.11 or `E0382` or x86-64 a name?") == []
    texts = {"a": "An immutable variable was reassigned.", "b": "Unlike E0384, this one…",
             "c": "x", "d": "y", "e": "z"}
    headings = {"a": ("E0384", "Error code E0384"), "b": ("E0383", "Error code E0383"),
                "c": ("Can I reassign a variable like E0384 says it cannot?",)}
    run = exact_run([], texts, ["E0384"], headings)
    assert [s.chunk_id for s in run] == ["a"]


def test_the_page_an_asked_code_titles_leads_the_hits(tmp_path: Path) -> None:
    """A new user's "what does error E0384 mean in Rust?" of the rustc error index: BM25 had
    the E0384 page first, the embedding not in its top 100, RRF out of the top ten, and the
    gate declined the question as naming something no top passage mentions ("exact 0")."""
    pages = {f"E01{i:02}.md": f"# Error code E01{i:02}\n\nThis error means that Rust found "
             "an error. This means the error in Rust code means what the error means.\n"
             for i in range(12)}  # pages whose sentences say "error", "mean" and "Rust"
    pages["E0384.md"] = "# Error code E0384\n\nAn immutable variable was reassigned.\n"
    result = _searched(tmp_path, pages, "what does error E0384 mean in Rust?", top_k=5)
    assert result.hits[0].document.doc_id == "E0384.md", [h.document.doc_id
                                                          for h in result.hits]
    assert result.candidates["exact"] == 1


def test_a_short_name_with_a_version_titles_no_page_to_the_exact_run() -> None:
    """The review of this stop: "how do I create an ext4 filesystem" was led by a page
    titled "Release notes for ext4", "is md5 secure" by an MD5 page of history alone. Only
    codes (letters, then three digits or more) count by title."""
    from citewise.retrieve.exact import titled_names

    assert titled_names("how do I create an ext4 filesystem with md5 sums over http2?") == []
    assert titled_names("what does error E0384 or SC2086 mean?") == ["E0384", "SC2086"]
