"""Conflicting evidence: two passages that give different values for the same fact.

Two sentences conflict (:func:`find_conflicts`) when they come from different documents, both
state a fact (a lead-in ending in ":" states it in the example after it, which is not
compared), both share a content word with the question, say nearly the same thing in words
(Jaccard overlap of their content-word stems, numbers left out, at least :data:`MIN_OVERLAP`,
with at least :data:`MIN_SHARED` stems in common) and state different numbers (each has a
number the other lacks): "Parental leave is 16 weeks" vs "Parental leave is 20 weeks", an old
and a new version of a policy; not when the question names a release that only one of them
names, in the sentence or its section's headings (another release's "Release date: …" is no
disagreement), nor when each names what it gives a value of and the names differ (two
parameters' defaults: :func:`_subject`). Values written as words, or contradictions without
numbers, are not detected.

citewise shows a conflict instead of resolving it: the extractive answer quotes both sides, and
a generated answer that cites only one side gets a paragraph quoting both
(:func:`conflict_text`), each side cited, with the documents' dates in the citations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citewise.cite.instructions import is_instruction
from citewise.cite.terms import content_stems, is_entry_name, labels, numbers
from citewise.retrieve.release_notes import is_release_notes
from citewise.types import ContextPassage

_BULLET = re.compile(r"^[-*•][ \t]+")
MIN_OVERLAP = 0.5
MIN_SHARED = 2
CONFLICT_LEAD = "The sources disagree:"


@dataclass(frozen=True)
class Side:
    sid: str
    sentence: str


@dataclass(frozen=True)
class Conflict:
    a: Side
    b: Side


_SETTING = re.compile(r"[\w.\-]+(?: [\w.\-]+)*[ \t]*[=:][ \t]*[^()\[\]{};]*")
"""A line of settings ("Log retention: 30 days", "retention_days = 30"): a fact, though the
block reads as code (a review). Other code is no statement of a fact: a new user's two lines
of one example, "ffi_type *tm_type_elements[12];" and "for (i = 0; i < 9; i++)", from the
Info and HTML copies of libffi's manual, were shown as "The sources disagree", and so were
two documents' "client = httpx.Client(timeout=10.0)" (a second review). Matched on a
stripped line, one space between a key's words: spaces that the key, and the blanks around
it, could each take made a security review's line of 2,000 spaces cost 20 s per ask."""


_NAME_NUMBER = re.compile(r"\b[A-Za-z]{2,}-\d+(?:-\d+)*\b"
                          r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b"
                          r"|\b(?:named|called)\s+[\"'`]?(?:(?=[\w.-]*[A-Za-z_])[\w.-]*\d[\w.-]*"
                          r"|\d{5,}\b)|\b[vV]\d+(?:\.\d+)+\b")
"""Digits that are part of a name, not a value: a code (``CVE-2022-41903``), a commit hash
(``9eed4f3``), what something is named or called ("a log stream named 20150601", not "called
3 times"), a release named with its "v" (``v2.39.1``: "Git v2.39.1 fixes …" and "Git v2.30.7
fixes …" are two releases' notes, the review of this stop). A new user
of Git's release notes was told that "This release addresses the security issues
CVE-2022-41903 and CVE-2022-23521" and 2.30.6's "… CVE-2022-39253 and CVE-2022-39260"
disagree, and so did two notes' "(merge 14d3bb4 jc/apply-… later to maint)" lines; a new user
of the AWS CLI's examples asking how to create a log group was declined after "creates a log
stream named 20150601" and "deletes a log stream named 20150531" were set against each
other."""


_ITEM_NUMBER = re.compile(r"^\s*(?:\d+[.)]|\(\d+\))\s+")
"""A numbered list item's own number ("1. Maximum length of a string…"): a new user of
SQLite's limits page was told the sources disagree, "1" against 1,000,000,000."""


def _values(sentence: str) -> set[str]:
    """The numbers ``sentence`` states as values: those inside names (:data:`_NAME_NUMBER`)
    and a list item's number are not."""
    return numbers(_NAME_NUMBER.sub(" ", _ITEM_NUMBER.sub(" ", sentence)))


def _sentences(passage: ContextPassage) -> list[tuple[str, dict[str, str]]]:
    """The passage's sentences, but code other than settings (:data:`_SETTING`), each with
    the settings of the block it is from (:func:`_keyed`; none for prose)."""
    from citewise.generate.examples import blocks
    from citewise.generate.extractive import split_sentences

    headings = {h.strip().lower() for h in passage.hit.chunk.heading_path}
    out = []
    for part, code in blocks(passage):
        lines = [line.strip() for line in part.split("\n") if line.strip()]
        if code and not all(_SETTING.fullmatch(line) for line in lines):
            continue
        keyed = _keyed(lines) if code else {}
        out += [(s, keyed) for s in split_sentences(part)
                if not is_instruction(s) and s.strip().rstrip(".:").lower() not in headings]
    return out


def _keyed(lines: Sequence[str]) -> dict[str, str]:
    """A settings block's first setting, the one that names what the block configures
    ("Package: limnoria" -> {"package": "limnoria"}), its value lowercased and unquoted;
    empty when the first line sets nothing."""
    pair = _PAIR.match(lines[0]) if lines else None
    if pair is None:
        return {}
    return {pair[1].strip().lower(): pair[2].strip().strip("\"'`").lower()}


_PAIR = re.compile(r"([^=:]*)[=:](.*)")


def _other_settings(a: dict[str, str], b: dict[str, str]) -> bool:
    """Whether two settings blocks configure different things: both open by setting one key
    to different words (no numbers). A new user of the Debian Handbook was told that two
    APT pinning examples disagree, "Package: limnoria … Pin-Priority: 1001" and "Package: *
    … Pin-Priority: -10"; two copies of one policy's "Log retention: 30 days" / "90 days"
    still do, and so do blocks that differ in a later key too, or in quoting or case
    (the review of this stop: ``ssl = on`` against ``'On'`` hid a max_connections
    conflict)."""
    return any(key in b and a[key] != b[key] and not re.search(r"\d", a[key] + b[key])
               for key in a)


def find_conflicts(question: str, passages: Sequence[ContextPassage]) -> list[Conflict]:
    """Pairs of conflicting sentences (module docstring), strongest overlap first."""
    wanted, asked = content_stems(question), labels(question, written=True)
    named = {p.sid: _names(wanted, p) for p in passages}  # the documents the question names
    rows = []
    for p in passages:
        for sentence, keyed in _sentences(p):
            nums = _values(sentence)
            stems = content_stems(sentence)
            if nums and stems & wanted and not sentence.rstrip().endswith(":"):
                rows.append((p, sentence, stems, nums, keyed, _subject(p, sentence)))
    found: list[tuple[float, Conflict]] = []
    for i, (pa, sa, ta, na, ka, ja) in enumerate(rows):
        for pb, sb, tb, nb, kb, jb in rows[i + 1:]:
            if pa.hit.document.doc_id == pb.hit.document.doc_id or na == nb \
                    or _other_settings(ka, kb) or (ja and jb and not ja & jb) \
                    or _other_editions(asked, pa, pb, (sa, sb)) \
                    or _named_apart((named[pa.sid], named[pb.sid]), (ta, tb)) \
                    or _other_subjects(question, pa, pb, (sa, sb)) \
                    or _two_releases(pa, pb):
                continue
            shared = ta & tb
            overlap = len(shared) / len(ta | tb)
            if len(shared) >= MIN_SHARED and overlap >= MIN_OVERLAP and na - nb and nb - na:
                found.append((overlap, Conflict(Side(pa.sid, sa), Side(pb.sid, sb))))
    found.sort(key=lambda x: -x[0])
    return [c for _, c in found]


def _two_releases(a: ContextPassage, b: ContextPassage) -> bool:
    """Whether both passages are release notes (:func:`~citewise.retrieve.release_notes.
    is_release_notes`): each release's notes say what that release did, in the words the
    others use ("… the first security release in the Django 1.3 series" and "… 1.4
    series"), and a new user of Django's 276 release-notes pages was told the sources
    disagree three times so."""
    return is_release_notes(a.hit.document) and is_release_notes(b.hit.document)


def _other_editions(asked: set[str], a: ContextPassage, b: ContextPassage,
                    sentences: tuple[str, str]) -> bool:
    """Whether the question names a release (:func:`~citewise.cite.terms.labels`, as
    written) that one side names, in its sentence or its section's headings, and the other
    does not: "What's New in Python 3.4.6?" and "… 3.6.5 release candidate 1?" each say
    "Release date: …", and a new user's "When was Python 3.4.6 released?" was told the
    sources disagree; so were "Update macOS installer to SQLite 3.39.4" and "… to 3.8.3" of
    two releases. Two versions of one policy, asked about without a version, still
    disagree (a review: numbered sections and versions of a policy must)."""
    if not asked:
        return False
    marks = [asked & labels(" ".join((*p.hit.chunk.heading_path, said)), written=True)
             for p, said in zip((a, b), sentences, strict=True)]
    return marks[0] != marks[1]


_IDENTIFIER = re.compile(r"\b[A-Za-z]\w*_\w+\b")


def _subject(passage: ContextPassage, sentence: str) -> set[str]:
    """What ``sentence`` states a value of, when it says so by name: the identifier it
    opens on (``smtpd_client_connection_count_limit (default: 50)``), else the name its
    entry's anchor gives when the passage's text says that name too (postconf(5)'s "This
    feature is available in Postfix 2.3 and later.", under ``#bounce_template_file``). A
    new user of Postfix's manual was told that two parameters' defaults, and two
    parameters' "available in Postfix 2.3 / 3.5 and later", disagree. Empty otherwise:
    identifiers further in are incidental (a review: ``upload_gateway`` and
    ``edge_proxy`` in two versions of one sentence hid their conflict), and so is a
    section's heading ("Parental leave" and "Parental leave (revised)")."""
    opening = _IDENTIFIER.match(_BULLET.sub("", sentence.strip()))
    if opening is not None:
        return {opening.group().lower()}
    chunk = passage.hit.chunk
    anchor = chunk.section_at(chunk.text.find(sentence.strip()[:80])).anchor or ""
    if is_entry_name(anchor) and re.search(
            rf"(?<![\w.-]){re.escape(anchor)}(?![\w-])", passage.text, re.I):
        return {anchor.lower()}
    return set()


def _other_subjects(question: str, a: ContextPassage, b: ContextPassage,
                    sentences: tuple[str, str]) -> bool:
    """Whether the question names an identifier (``box_patterns``) that one side names, in
    its title, its section's headings or its sentence, and the other does not, or neither
    side names any it names: the Unstable Book's pages each say "The tracking issue for
    this feature is: #…", and a new user's "what does the box_patterns feature let me do?"
    was told that box_patterns', deref_patterns' and box_take's issue numbers disagree."""
    asked = {m.group().lower() for m in _IDENTIFIER.finditer(question)}
    if not asked:
        return False
    marks = [{name for name in asked if name in " ".join(
        (p.hit.document.title, *p.hit.chunk.heading_path, said)).lower()}
        for p, said in zip((a, b), sentences, strict=True)]
    return marks[0] != marks[1] or not marks[0]


def _names(wanted: set[str], passage: ContextPassage) -> set[str]:
    """The question's stems (``wanted``) that name ``passage``'s document: in its path or
    title (a section's "Paid time off" is no document's name)."""
    document = passage.hit.document
    return wanted & content_stems(f"{document.doc_id.replace('/', ' ')} {document.title}")


def _named_apart(named: tuple[set[str], set[str]], said: tuple[set[str], set[str]]) -> bool:
    """Whether the question names one side's document (``named``: :func:`_names`) and no
    word of the question names the other's, nor does the other's sentence (``said``: its
    stems) say the first one's name: "what does the monotonic package do on
    python 3.3 and newer?" was told that monotonic's "compatible with Python 2 and Python 3"
    and funcsigs' "compatible with Python 2.6, 2.7 as well as 3.3" disagree (a new user's
    index of several libraries' docs). Two versions of a policy the question names each
    ("parental leave" for "Parental leave (2024)", "staff" for "Staff handbook") still
    disagree (the review of this stop: one named, the other not, hid a real conflict)."""
    return any(named[k] and not named[1 - k] and not named[k] & said[1 - k] for k in (0, 1))


def _cited(side: Side) -> str:
    text = _BULLET.sub("", side.sentence.strip())  # its own list item's "- " goes
    end = text[-1] if text[-1] in ".!?" else "."
    body = text[:-1] if text[-1] in ".!?" else text
    return f"{body} [{side.sid}]{end}"


def conflict_text(conflict: Conflict) -> str:
    """``The sources disagree:`` then one list item per side, each quoted and cited."""
    return f"{CONFLICT_LEAD}\n- {_cited(conflict.a)}\n- {_cited(conflict.b)}"


def unresolved(conflicts: Sequence[Conflict], cited: Sequence[str]) -> Conflict | None:
    """The first conflict of which an answer citing ``cited`` shows only one side."""
    return next((c for c in conflicts if (c.a.sid in cited) != (c.b.sid in cited)), None)
