"""The valgrind eval set (`evals/valgrind.jsonl`): its format and make-up, and — where the
Debian `valgrind` package's HTML manual is installed (`.ci/valgrind-docs` installs it) — that
every labelled document and section exists in the corpus as citewise parses it, and that each
reference answer is written in the section labelled for it."""

import re
from pathlib import Path

import pytest

from citewise.eval.matching import in_section
from citewise.eval.questions import load_personas, load_questions
from citewise.ingest.html import HtmlLoader
from citewise.ingest.sidecar import read_sidecar

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "evals" / "valgrind.jsonl"
META = ROOT / "evals" / "valgrind.meta.jsonl"
PERSONAS = ROOT / "evals" / "valgrind.personas.json"
CORPUS = Path("/usr/share/doc/valgrind/html")


def _readers():
    """``{doc: groups}`` from the sidecar (every other page is ``public``)."""
    return {doc: set(meta["groups"]) for doc, meta in read_sidecar(META).items()}


def _may_read(persona_groups, doc, restricted):
    return bool(restricted.get(doc, {"public"}) & persona_groups)


def test_format_and_make_up():
    questions = load_questions(QUESTIONS)
    personas = load_personas(PERSONAS)
    restricted = _readers()
    assert len(questions) >= 60
    assert len({q.id for q in questions}) == len(questions)
    assert {q.persona for q in questions} - {None} <= set(personas)
    by_nature = [q for q in questions if not q.answerable]
    assert len(by_nature) >= 20 and all(q.persona is None and q.answer is None for q in by_nature)
    no_access = []
    for q in questions:
        if q.kind != "access":
            continue
        groups = set(personas[q.persona or "default"].groups)
        readable = [p for piece in q.relevant for p in piece.places
                    if _may_read(groups, p.doc, restricted)]
        if not readable:
            no_access.append(q)
            assert q.answer is None, f"{q.id}: no access, so no reference answer"
        else:
            assert q.answer, f"{q.id}: a persona with access needs a reference answer"
    assert len(no_access) >= 10
    answerable = [q for q in questions if q.answerable and q.kind != "access"]
    assert len(answerable) >= 30 and all(q.answer for q in answerable)


def _norm(text):
    return re.sub(r"\s+", " ", text).lower()


@pytest.fixture(scope="module")
def corpus():
    if not (CORPUS / "index.html").is_file():
        pytest.skip(f"{CORPUS} is missing. Fix: .ci/valgrind-docs (apt-get install valgrind)")
    loader = HtmlLoader()
    return {p.name: loader.load(p.read_bytes(), p) for p in sorted(CORPUS.glob("*.html"))}


@pytest.mark.slow
def test_sidecar_paths_exist(corpus):
    assert set(_readers()) <= set(corpus)


@pytest.mark.slow
def test_every_label_exists_and_holds_its_answer(corpus):
    problems = []
    for q in load_questions(QUESTIONS):
        for piece in q.relevant:
            for i, place in enumerate(piece.places):
                doc = corpus.get(place.doc)
                blocks = [b for b in (doc.blocks if doc else ())
                          if in_section({"anchor": b.anchor, "heading_path": b.heading_path},
                                        place.section)]
                if not blocks:
                    problems.append(f"{q.id}: no {place.doc}#{place.section}")
                elif i == 0 and q.answer and len(q.relevant) == 1:
                    text = _norm(" ".join(b.text for b in blocks))
                    if _norm(q.answer) not in text:
                        problems.append(f"{q.id}: {q.answer!r} not in {place.doc}#{place.section}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_by_nature_questions_stay_unanswerable(corpus):
    """The words that make each by-nature question unanswerable occur nowhere in the corpus."""
    text = _norm(" ".join(d.text for d in corpus.values()))
    absent = {"u-vscode": r"vs ?code", "u-docker": r"docker|seccomp", "u-cuda": r"cuda",
              "u-sarif": r"sarif", "u-python-lines": r"python", "u-slack": r"slack",
              "u-jenkins": r"jenkins", "u-wasm": r"wasm|webassembly", "u-k8s": r"kubernetes",
              "u-clion": r"clion", "u-goroutine": r"goroutine|golang",
              "u-flamegraph": r"flame ?graph", "u-eclipse": r"eclipse", "u-encrypt-log": r"encrypt",
              "u-rest-api": r"rest api|endpoint", "u-nodejs": r"node\.?js|javascript",
              "u-dotnet": r"c#|dotnet|\.net (?:framework|core|runtime)",
              "u-prometheus": r"prometheus|grafana",
              "u-junit": r"junit", "u-cmake": r"ctest|cmake", "u-bazel": r"bazel|cc_test",
              "u-wsl": r"\bwsl\b|windows 11", "u-freertos": r"freertos|microcontroller",
              "u-vulkan": r"vulkan|validation layer"}
    ids = {q.id for q in load_questions(QUESTIONS) if not q.answerable}
    assert ids == set(absent)
    found = {qid: m.group(0) for qid, pattern in absent.items()
             if (m := re.search(pattern, text))}
    assert not found
