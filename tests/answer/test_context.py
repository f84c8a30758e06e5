from __future__ import annotations

from dataclasses import replace

from citewise.answer.context import (
    build_context,
    jaccard,
    mmr_order,
    relevance,
    section_text,
    shingles,
    truncate_to_budget,
)
from citewise.config import ContextSettings
from citewise.types import Block, ParsedDocument

from .conftest import make_hit


def words(text: str) -> int:
    return len(text.split())


def test_jaccard_and_shingles_by_hand() -> None:
    a = shingles("the cat sat on the mat")  # 4 shingles
    b = shingles("the cat sat on a mat")  # (the cat sat) (cat sat on) (sat on a) (on a mat)
    assert len(a) == 4 and len(b) == 4
    assert jaccard(a, b) == 2 / 6
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_mmr_order_by_hand() -> None:
    # rel = [1.0, 0.9, 0.5]; 0 and 1 are near copies (sim 1.0), 2 is novel (sim 0).
    sim = {(0, 1): 1.0, (1, 0): 1.0}
    order = mmr_order([1.0, 0.9, 0.5], lambda i, j: sim.get((i, j), 0.0), lam=0.5)
    # step 2: value(1) = .45 - .5 = -.05, value(2) = .25 - 0 = .25  -> 2 before 1
    assert order == [0, 2, 1]
    assert mmr_order([1.0, 0.9, 0.5], lambda i, j: sim.get((i, j), 0.0), lam=1.0) == [0, 1, 2]


def test_a_second_best_hit_near_the_first_is_not_left_out_for_novelty() -> None:
    """fontconfig's <acceptfont> section, second in both signals, mirrors <rejectfont>
    (first) with one word changed; RRF scores within a few percent of each other, divided by
    the best, gave MMR no relevance to weigh, and it was dropped for the eighth passage slot
    while overview paragraphs ranked thirteenth went in. Scores are scaled min-max."""
    assert relevance([0.0328, 0.0323, 0.0257]) == [1.0, (0.0323 - 0.0257) / (0.0328 - 0.0257),
                                                    0.0]
    assert relevance([0.5, 0.5]) == [1.0, 1.0] and relevance([]) == []
    reject = "Fonts matched by a rejectfont element are blacklisted and excluded from matching."
    accept = "Fonts matched by an acceptfont element are whitelisted and protected from it."
    rrf = [0.0328, 0.0323, *(0.0300 - 0.0003 * i for i in range(14))]
    hits = [replace(make_hit(reject, 1), score=rrf[0]), replace(make_hit(accept, 2),
                                                                  score=rrf[1])]
    hits += [replace(make_hit(f"Overview paragraph {i} on fonts, rasterizers and caches "
                              f"number {i}.", i + 3), score=rrf[i + 2]) for i in range(14)]
    ctx = build_context(hits, ContextSettings(max_passages=8), words)
    assert [p.chunk_id for p in ctx.passages][:2] == ["doc1#1", "doc2#2"]


def test_near_duplicates_dropped_and_ids_opaque() -> None:
    text = "Install the package with pip install citewise and run the demo command today."
    hits = [make_hit(text, 1), make_hit(text + " Really.", 2),
            make_hit("Configure the proxy with the HTTPS_PROXY variable.", 3)]
    ctx = build_context(hits, ContextSettings(), words)
    assert [p.sid for p in ctx.passages] == ["S1", "S2"]
    assert [p.chunk_id for p in ctx.passages] == ["doc1#1", "doc3#3"]
    assert [(d.chunk_id, d.reason) for d in ctx.dropped] == [("doc2#2", "near_duplicate")]


def test_a_near_copy_that_changes_a_number_is_kept_for_the_conflict_check() -> None:
    """A security review's copy of a policy page with "every 5 days" for "every 90 days"
    ranked first and dropped the original as a near duplicate: no "The sources disagree"."""
    rest = (" using the self-service portal. The portal sends a reminder seven days before "
            "the password expires, and accounts whose password has expired are locked until "
            "the service desk resets them.")
    hits = [make_hit("Employees must rotate their VPN password every 5 days" + rest, 1),
            make_hit("Employees must rotate their VPN password every 90 days" + rest, 2),
            make_hit("Employees must rotate their VPN password every 90 days" + rest, 3)]
    ctx = build_context(hits, ContextSettings(), words)
    assert [p.chunk_id for p in ctx.passages] == ["doc1#1", "doc2#2"]
    assert [(d.chunk_id, d.reason) for d in ctx.dropped] == [("doc3#3", "near_duplicate")]
    more = rest + " " + " ".join(f"step{i}" for i in range(40))  # Jaccard above 0.8
    swapped = [make_hit("Rotate it every 7 days; the reminder comes 90 days" + more, 1),
               make_hit("Rotate it every 90 days; the reminder comes 7 days" + more, 2)]
    assert len(build_context(swapped, ContextSettings(), words).passages) == 2


def test_copies_of_a_page_for_other_releases_are_still_near_duplicates() -> None:
    """The review of this stop: pages that differ only in "Acme 3.1" / "Acme 3.2" gave "The
    sources disagree", and ten releases' copies filled the context."""
    rest = (" stores its data in one file and rotates the log every 90 days using the "
            "self-service portal, which sends a reminder seven days before the end.")
    hits = [make_hit(f"Acme 3.{i}" + rest, i, title=f"Acme 3.{i} manual") for i in range(1, 11)]
    ctx = build_context(hits, ContextSettings(), words)
    assert [p.chunk_id for p in ctx.passages] == ["doc1#1"]
    policy = (" or later for every external service; the security team reviews each "
              "exception once a year and keeps the list of exceptions in the wiki.")
    tls = [make_hit("External services must use TLS 1.0" + policy, 1, title="Copy"),
           make_hit("External services must use TLS 1.3" + policy, 2, title="Policy")]
    assert len(build_context(tls, ContextSettings(), words).passages) == 2  # its 2nd review


def test_a_short_see_also_list_is_no_passage() -> None:
    """A new user's Rust by Example answers gave two of their first three passages to "See
    also: Iterator" lists, ranked by their page's title."""
    hits = [make_hit("See also:\n\nIterator and casting", 1, heading=("for", "See also:")),
            make_hit("The for loop iterates over an iterator with into_iter.", 2),
            make_hit("See also " + "a long note on iterators and adapters. " * 6, 3,
                     heading=("for", "See also"))]
    ctx = build_context(hits, ContextSettings(), words)
    assert [p.chunk_id for p in ctx.passages] == ["doc2#2", "doc3#3"]  # a long one says more
    assert [(d.chunk_id, d.reason) for d in ctx.dropped] == [("doc1#1", "pointer")]


def test_budget_skips_what_does_not_fit_and_cuts_first() -> None:
    long = " ".join(f"Sentence {i} is here." for i in range(100))  # 400 words
    hits = [make_hit(long, 1), make_hit("word " * 90, 2), make_hit("tiny passage here", 3)]
    ctx = build_context(hits, ContextSettings(budget_tokens=100), words)
    # 25 four-word sentences fill the budget exactly; nothing else fits after them
    assert ctx.tokens == 100 and len(ctx.passages) == 1
    assert ctx.passages[0].text.endswith("Sentence 24 is here.")
    reasons = {d.chunk_id: d.reason for d in ctx.dropped}
    assert reasons == {"doc2#2": "over_budget", "doc3#3": "over_budget"}
    roomy = build_context(hits, ContextSettings(budget_tokens=111), words)  # 108 + 3
    assert [p.chunk_id for p in roomy.passages] == ["doc1#1", "doc3#3"]  # the short one fits


def test_max_passages() -> None:
    hits = [make_hit(f"distinct topic number {i} alpha{i} beta{i}", i) for i in range(1, 6)]
    ctx = build_context(hits, ContextSettings(max_passages=2), words)
    assert len(ctx.passages) == 2
    assert sum(d.reason == "max_passages" for d in ctx.dropped) == 3


def test_truncate_by_words_when_one_sentence_is_too_long() -> None:
    assert truncate_to_budget("a b c d e f", 3, words) == "a b c"


def test_code_is_cut_between_its_lines_as_written() -> None:
    code = "Here is an example.\n\nint main() {\n  ffi_cif cif;\n  ffi_call(&cif, puts);\n}"
    assert truncate_to_budget(code, 9, words) == \
        "Here is an example.\n\nint main() {\n  ffi_cif cif;"


def test_parent_expansion_uses_the_whole_section() -> None:
    text = "Setup\nFirst step here. Second step here. Third step."
    parsed = ParsedDocument(title="Guide", text=text, blocks=(
        Block("heading", "Setup", 0, 5, ("Guide", "Setup"), "setup", 2),
        Block("text", text[6:], 6, len(text), ("Guide", "Setup"), "setup")))
    hits = [make_hit("Second step here.", 1, doc_id="g")]
    assert section_text(parsed, hits[0]) == text
    ctx = build_context(hits, ContextSettings(expand_parent=True), words,
                        load_parsed=lambda doc_id: parsed)
    assert ctx.passages[0].text == text and ctx.tokens == words(text)
    small = build_context(hits, ContextSettings(expand_parent=True, budget_tokens=100), words,
                          load_parsed=lambda doc_id: None)
    assert small.passages[0].text == "Second step here."


def _window(rank: int, ordinal: int, text: str, start: int, kind: str = "code"):
    hit = make_hit(text, rank, doc_id="ffi")
    chunk = replace(hit.chunk, chunk_id=f"ffi#{ordinal}", ordinal=ordinal, start=start,
                    end=start + len(text), kind=kind)
    return replace(hit, chunk=chunk)


def test_windows_of_one_example_are_one_passage_cited_at_the_first() -> None:
    opening = "Here is a trivial example that calls puts.\n\nint main() {\n  ffi_cif cif;"
    rest = "  ffi_call(&cif, puts, &rc, values);\n}"
    hits = [_window(1, 5, rest, len(opening) + 1),  # the later window ranks first
            make_hit("Use ffi_prep_cif to describe the function.", 2),
            _window(3, 4, opening, 0)]
    ctx = build_context(hits, ContextSettings(), words)
    assert [p.chunk_id for p in ctx.passages] == ["ffi#4", "doc2#2"]
    assert ctx.passages[0].text == opening + "\n" + rest
    assert ctx.passages[0].hit.score == hits[0].score  # in the best window's place
    assert [(d.chunk_id, d.reason) for d in ctx.dropped] == [("ffi#5", "joined")]


def test_only_neighbouring_code_windows_are_joined() -> None:
    prose = _window(1, 1, "A paragraph of prose before the code.", 0, kind="text")
    code = _window(2, 2, "x = 1", 40)
    far = _window(3, 4, "y = 2", 60)  # ordinal 3 was not retrieved: not a neighbour
    overlap = [_window(4, 7, "a = 1\nb = 2", 100), _window(5, 8, "b = 2\nc = 3", 106)]
    ctx = build_context([prose, code, far, *overlap], ContextSettings(), words)
    assert [p.text for p in ctx.passages] == [prose.chunk.text, "x = 1", "y = 2",
                                              "a = 1\nb = 2\nc = 3"]  # overlap kept once


def test_windows_a_blank_line_apart_stay_separate_blocks() -> None:
    """time's manual: an example's window and the next one, which opens on the sentence
    introducing the next example, were joined by one line break, and a new user's quote ran
    "…pagefaults 0swaps Run the command 'ls -Fs' and show…"."""
    first = "eg$ time wc /etc/hosts\n0.00user 0.01system 0swaps"
    second = "Run the command 'ls -Fs' and show the times:\n\neg$ time -f '%E' ls -Fs"
    hits = [_window(1, 14, first, 6604), _window(2, 15, second, 6604 + len(first) + 2)]
    ctx = build_context(hits, ContextSettings(), words)
    assert ctx.passages[0].text == first + "\n\n" + second


GET = ("http.get(url, (res) => {\n  let error;\n  if (res.statusCode !== 200) {\n"
       "    error = new Error('Request Failed');\n  } else {\n    res.resume();\n  }\n});\n"
       "console.log('done');")


def _example(end_line: int):
    text = "JSON fetching example:\n\n" + GET
    code = Block("code", GET, len(text) - len(GET), len(text), ("HTTP",), "get")
    parsed = ParsedDocument(title="HTTP", text=text, blocks=(
        Block("text", "JSON fetching example:", 0, 22, ("HTTP",), "get"), code))
    window = "\n".join(GET.split("\n")[:end_line])
    start = code.start
    hit = make_hit(window, 1, doc_id="http")
    chunk = replace(hit.chunk, kind="code", start=start, end=start + len(window))
    return replace(hit, chunk=chunk), parsed


def test_an_example_cut_inside_a_statement_is_completed_from_the_document() -> None:
    hit, parsed = _example(5)  # ends on "  } else {": two brackets open
    ctx = build_context([hit], ContextSettings(), words, load_parsed=lambda doc_id: parsed)
    assert ctx.passages[0].text == GET.rsplit("\n", 1)[0]  # up to "});", not the next line
    assert ctx.tokens == words(ctx.passages[0].text)
    closed, parsed = _example(8)  # ends on "});": nothing open, nothing added
    ctx = build_context([closed], ContextSettings(), words, load_parsed=lambda doc_id: parsed)
    assert ctx.passages[0].text == closed.chunk.text


def test_a_completion_over_the_cap_is_left_out(monkeypatch) -> None:
    from citewise.answer import context

    hit, parsed = _example(5)
    rest = len(GET.rsplit("\n", 1)[0]) - len(hit.chunk.text)  # characters, counted by len
    for cap, completed in ((rest, True), (rest - 1, False)):
        monkeypatch.setattr(context, "COMPLETION_TOKENS", cap)
        ctx = build_context([hit], ContextSettings(), len, load_parsed=lambda doc_id: parsed)
        assert (ctx.passages[0].text != hit.chunk.text) is completed


def test_a_joined_example_is_completed_after_its_last_window() -> None:
    hit, parsed = _example(5)
    lines = hit.chunk.text.split("\n")
    head, tail = "\n".join(lines[:2]), "\n".join(lines[2:])
    first = replace(hit, chunk=replace(hit.chunk, chunk_id="http#1", ordinal=1, text=head,
                                       end=hit.chunk.start + len(head)))
    second = replace(hit, rank=2, chunk=replace(hit.chunk, chunk_id="http#2", ordinal=2,
                                                text=tail, start=first.chunk.end + 1))
    ctx = build_context([second, first], ContextSettings(), words,
                        load_parsed=lambda doc_id: parsed)
    assert [p.chunk_id for p in ctx.passages] == ["http#1"]
    assert ctx.passages[0].text == GET.rsplit("\n", 1)[0]
