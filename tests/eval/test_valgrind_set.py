"""The second eval set (evals/valgrind.jsonl) is well formed and has what it promises: >= 60
questions in users' words, >= 20 unanswerable by nature, >= 10 whose answer sits only in
documents restricted from the asking persona, and — where Debian's valgrind manual is installed
(`.ci/docsites`) — that each of those answers is written in its restricted page and in no page
the persona may read. (It is run by `make eval-valgrind`; no threshold is ever fitted on it.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.eval.conftest import restricted_label_problems

from citewise.eval.questions import as_personas, as_questions
from citewise.ingest.html import HtmlLoader

EVALS = Path(__file__).resolve().parents[2] / "evals"
CORPUS = Path("/usr/share/doc/valgrind/html")

# What answers each restricted question: written in its restricted page, in no public one.
# (Three questions first labelled restricted were answered by public pages as well: the
# gdb `monitor leak_check` and memcheck's client requests in mc-manual.html, the git clone
# in the README. They are answerable questions of the `user` persona now.)
ONLY_RESTRICTED = {
    "r-vgdb-user": r"target remote \| vgdb", "r-wrap-user": r"i_wrap_soname_fnname",
    "r-running-on-valgrind-user": r"running_on_valgrind", "r-new-tool-user": r"post_clo_init",
    "r-tool-regtests-user": r"\.stdout\.exp", "r-ifacever-user": r"vg_determine_interface_version",
    "r-vgdb-multi-user": r"--pid=", "r-orig-fn-user": r"valgrind_get_orig_fn",
    "r-needs-errors-user": r"vg_\(needs_tool_errors\)",
    "r-suppression-name-user": r"vg_\(details_name\)",
}


def test_valgrind_set_counts_and_personas() -> None:
    questions = as_questions(EVALS / "valgrind.jsonl")
    personas = as_personas(EVALS / "valgrind.personas.json")
    restricted = {json.loads(x)["path"] for x in
                  (EVALS / "valgrind.meta.jsonl").read_text().splitlines() if x}
    assert len(questions) >= 60
    by_nature = [q for q in questions if not q.relevant]
    assert len(by_nature) >= 20
    hidden = [q for q in questions if q.persona == "user" and q.relevant
              and all(p.doc in restricted for piece in q.relevant for p in piece.places)]
    assert len(hidden) >= 10
    assert "developers" not in personas["user"].groups
    assert "developers" in personas["developer"].groups
    assert len({q.id for q in questions}) == len(questions)


@pytest.fixture(scope="module")
def manual():
    """Each page of the installed manual as citewise parses it (its blocks), by file name."""
    if not (CORPUS / "index.html").is_file():
        pytest.skip(f"{CORPUS} is missing. Fix: .ci/docsites (apt-get install valgrind)")
    loader = HtmlLoader()
    return {p.name: loader.load(p.read_bytes(), p).blocks for p in CORPUS.glob("*.html")}


def _text(blocks) -> str:
    return re.sub(r"\s+", " ", " ".join(b.text for b in blocks)).lower()


@pytest.mark.slow
def test_restricted_answers_sit_only_in_restricted_pages(manual) -> None:
    restricted = {json.loads(x)["path"] for x in
                  (EVALS / "valgrind.meta.jsonl").read_text().splitlines() if x}
    pages = {name: _text(blocks) for name, blocks in manual.items()}
    problems = restricted_label_problems(as_questions(EVALS / "valgrind.jsonl"),
                                         ONLY_RESTRICTED, pages, restricted)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_answer_is_written_in_its_labelled_page_and_section_exists(manual) -> None:
    from citewise.eval.matching import in_section

    problems = []
    for q in as_questions(EVALS / "valgrind.jsonl"):
        for place in (p for piece in q.relevant for p in piece.places):
            blocks = manual[place.doc]
            if place.section and not any(in_section(
                    {"anchor": b.anchor, "heading_path": b.heading_path}, place.section)
                    for b in blocks):
                problems.append(f"{q.id}: no section {place.doc}#{place.section}")
            if q.answer and re.sub(r"\s+", " ", q.answer).lower() not in _text(blocks):
                problems.append(f"{q.id}: {q.answer!r} not in {place.doc}")
    assert not problems, "\n".join(problems)
