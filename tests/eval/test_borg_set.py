"""The BorgBackup eval set (`evals/borg.jsonl`): its format and make-up, and — where Debian's
`borgbackup-doc` manual is installed (`.ci/borg-docs` installs it) — that every labelled
document and section exists in the corpus as citewise parses it, that each reference answer is
written in the place labelled first for it, and that the by-nature unanswerable questions stay
unanswerable (their key words occur nowhere in the corpus)."""

import re
from pathlib import Path

import pytest
from tests.eval.conftest import restricted_label_problems

from citewise.eval.matching import in_section
from citewise.eval.questions import load_personas, load_questions
from citewise.ingest.html import HtmlLoader
from citewise.ingest.sidecar import read_sidecar

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "evals" / "borg.jsonl"
META = ROOT / "evals" / "borg.meta.jsonl"
PERSONAS = ROOT / "evals" / "borg.personas.json"
CORPUS = Path("/usr/share/doc/borgbackup/html")

# The words that make each by-nature question unanswerable (none occurs in the manual).
ABSENT = {
    "u-s3": r"\bs3\b|amazon", "u-gdrive": r"google drive|onedrive", "u-gui": r"vorta",
    "u-gpu": r"\bgpu\b|cuda", "u-k8s": r"kubernetes", "u-slack": r"slack",
    "u-prometheus": r"prometheus", "u-webui": r"web ?ui", "u-fido": r"fido",
    "u-mysql": r"mysql", "u-terraform": r"terraform", "u-pq": r"quantum",
    "u-tape": r"\btape\b|\blto\b", "u-o365": r"office ?365|sharepoint",
    "u-icloud": r"icloud|iphone",
    "u-nextcloud": r"nextcloud", "u-ceph": r"\bceph\b|rados", "u-azure": r"azure",
    "u-dropbox": r"dropbox", "u-backblaze": r"backblaze", "u-mongodb": r"mongo",
    "u-vmware": r"vmware|esxi", "u-dashboard": r"dashboard",
}

# What answers each question `public` may not read the answer to: written in its restricted
# page, in no public page (changelog included; `_sources` copies are not indexed). (A
# question first in this group, "how do I run borg's own test suite?", is answered by
# installation.html's "Using git" too: `fakeroot -u tox`; it is an answerable `public`
# question now.)
ONLY_RESTRICTED = {
    "p-new-compressor-public": r"leave a post there", "p-release-public": r"update changes\.rst",
    "p-segment-size-public": r"approx\. 500 mb", "p-manifest-public": r"fixed all-zero key",
    "p-msgid-public": r"archive\.alreadyexists",
    "p-pull-mode-public": r"chrooting into an sshfs mounted directory",
    "p-udev-public": r"udev rule", "p-zerofree-public": r"xargs -n1 zerofree",
    "p-ansible-public": r"auth_users", "p-ntfsclone-public": r"ntfsclone -s",
}


def _groups_of():
    """``{doc: groups}`` from the sidecar (every other document is ``public``)."""
    return {doc: set(meta["groups"]) for doc, meta in read_sidecar(META).items()}


def test_format_and_make_up():
    questions = load_questions(QUESTIONS)
    personas = load_personas(PERSONAS)
    restricted = _groups_of()
    assert len(questions) >= 60
    assert len({q.id for q in questions}) == len(questions)
    assert {q.persona for q in questions} - {None} <= set(personas)
    by_nature = [q for q in questions if not q.answerable]
    assert {q.id for q in by_nature} == set(ABSENT)
    assert all(q.persona is None and q.answer is None for q in by_nature)
    # a page's `_sources` copy is not indexed (citewise.ingest.source_copies); a label there
    # would be a place missing from the index, which counts as readable
    assert not [q.id for q in questions for piece in q.relevant for p in piece.places
                if p.doc.startswith("_sources/")]
    no_access = 0
    for q in (q for q in questions if q.kind == "access"):
        groups = set(personas[q.persona or "default"].groups)
        readable = [p for piece in q.relevant for p in piece.places
                    if restricted.get(p.doc, {"public"}) & groups]
        assert bool(readable) == bool(q.answer), f"{q.id}: answer iff the persona may read it"
        no_access += not readable
    assert no_access >= 10
    answerable = [q for q in questions if q.answerable and q.kind != "access"]
    assert len(answerable) >= 30 and all(q.answer for q in answerable)


def _norm(text):
    return re.sub(r"\s+", " ", text).lower()


@pytest.fixture(scope="module")
def corpus():
    if not (CORPUS / "index.html").is_file():
        pytest.skip(f"{CORPUS} is missing. Fix: .ci/borg-docs (apt-get install borgbackup-doc)")
    loader = HtmlLoader()
    return {p.relative_to(CORPUS).as_posix(): loader.load(p.read_bytes(), p)
            for p in sorted(CORPUS.rglob("*.html")) if "_static" not in p.parts}


def _place_text(corpus, doc, section):
    """The text of ``doc#section`` (None when it does not exist)."""
    parsed = corpus.get(doc)
    blocks = [b for b in (parsed.blocks if parsed else ())
              if in_section({"anchor": b.anchor, "heading_path": b.heading_path}, section)]
    return " ".join(b.text for b in blocks) if blocks else None


@pytest.mark.slow
def test_sidecar_paths_exist(corpus):
    assert all((CORPUS / doc).is_file() for doc in _groups_of())


@pytest.mark.slow
def test_every_label_exists_and_holds_its_answer(corpus):
    problems = []
    for q in load_questions(QUESTIONS):
        for piece in q.relevant:
            for i, place in enumerate(piece.places):
                text = _place_text(corpus, place.doc, place.section)
                if text is None:
                    problems.append(f"{q.id}: no {place.doc}#{place.section}")
                elif (i == 0 or place.doc.endswith(".txt")) and q.answer \
                        and _norm(q.answer) not in _norm(text):
                    problems.append(f"{q.id}: {q.answer!r} not in {place.doc}#{place.section}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_by_nature_questions_stay_unanswerable(corpus):
    text = _norm(" ".join(d.text for d in corpus.values()))
    text += _norm(" ".join(p.read_text(encoding="utf-8") for p in CORPUS.rglob("*.txt")))
    found = {qid: m.group(0) for qid, pattern in ABSENT.items() if (m := re.search(pattern, text))}
    assert not found


@pytest.mark.slow
def test_restricted_answers_sit_only_in_restricted_pages(corpus):
    restricted = _groups_of()
    pages = {doc: _norm(" ".join(b.text for b in parsed.blocks)) for doc, parsed in corpus.items()}
    problems = restricted_label_problems(load_questions(QUESTIONS), ONLY_RESTRICTED, pages,
                                         restricted)
    assert not problems, "\n".join(problems)
