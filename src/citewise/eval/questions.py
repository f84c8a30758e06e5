"""Eval sets (JSONL, one question per line) and personas (JSON), with line-numbered errors.

A question line::

    {"id": "q7", "question": "how do I set a timeout?",
     "relevant": [{"doc": "docs/advanced/timeouts.md", "section": "setting-timeouts",
                   "also": [{"doc": "docs/quickstart.md", "section": "timeouts"}]}],
     "answer": "timeout=5.0", "kind": "howto", "persona": "support"}

``relevant`` lists the *pieces* of evidence a perfect retrieval returns; each piece may name
equivalent places in ``also`` (finding any one of them finds the piece). ``section`` is a
section anchor (see :mod:`citewise.eval.matching`) or null for "anywhere in the document";
``grade`` (optional, default 1) grades a piece for nDCG. ``relevant: []`` marks a question the
documents cannot answer. ``answers`` (optional) lists every accepted reference for token-F1
(``answer`` is the first). ``kind`` names a slice; ``persona`` a principal from the personas
file (null: the run's default principal).

Annotations people keep next to a label are accepted and carried into every output
(``run.json``, the report): on a relevant entry ``evidence`` (the passage that answers),
``section_title``, ``doc_title`` and ``note``; on a question ``note``, ``source`` and
``tags``. Any other key is kept the same way with a warning (a typo such as ``sectoin`` is
worth a look, not a failed run).

A personas file: ``{"support": {"groups": ["staff"], "tenant": "default"}, ...}``.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.text import json_problem
from citewise.types import Principal

_QUESTION_KEYS = {"id", "question", "relevant", "answer", "answers", "kind", "persona"}
_PIECE_KEYS = {"doc", "section", "also", "grade"}
#: Documented annotation fields: kept in the outputs, never read by the scoring.
QUESTION_ANNOTATIONS = ("note", "source", "tags")
PIECE_ANNOTATIONS = ("evidence", "section_title", "doc_title", "note")


@dataclass(frozen=True)
class Place:
    """One place evidence can be: a document, optionally narrowed to a section anchor."""

    doc: str
    section: str | None = None


@dataclass(frozen=True)
class Piece:
    """One piece of evidence: found when any of its ``places`` is retrieved."""

    places: tuple[Place, ...]
    grade: int = 1
    annotations: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def docs(self) -> frozenset[str]:
        return frozenset(p.doc for p in self.places)


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    relevant: tuple[Piece, ...] = ()
    answer: str | None = None
    answers: tuple[str, ...] = ()
    kind: str = "general"
    persona: str | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: Unknown keys seen on this question's line (kept in ``annotations``), as messages.
    warnings: tuple[str, ...] = field(default=(), compare=False, hash=False)

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question,
                "relevant": [_piece_dict(p) for p in self.relevant],
                "answer": self.answer, "answers": list(self.answers), "kind": self.kind,
                "persona": self.persona, **dict(self.annotations)}


def _piece_dict(piece: Piece) -> dict[str, Any]:
    first, *rest = piece.places
    out: dict[str, Any] = {"doc": first.doc, "section": first.section}
    if rest:
        out["also"] = [{"doc": p.doc, "section": p.section} for p in rest]
    if piece.grade != 1:
        out["grade"] = piece.grade
    out.update(piece.annotations)
    return out


def _place(obj: Any, where: str) -> Place:
    if not isinstance(obj, dict) or not isinstance(obj.get("doc"), str) or not obj["doc"]:
        raise ConfigError(f"{where}: each relevant entry needs a \"doc\" id string. "
                          "Fix: write {\"doc\": \"path/of/doc.md\", \"section\": null}")
    section = obj.get("section")
    if section is not None and (not isinstance(section, str) or not section.strip()):
        raise ConfigError(f"{where}: \"section\" must be an anchor string or null. "
                          "Fix: use the anchor `citewise search --json` shows, or null")
    return Place(obj["doc"], section.strip().lstrip("#") if section else None)


def _annotations(obj: dict[str, Any], known: set[str], documented: Sequence[str],
                 what: str, where: str, warnings: list[str]) -> dict[str, Any]:
    """Keys of ``obj`` that are not ``known`` fields: kept; undocumented ones warned about."""
    extra = {k: v for k, v in obj.items() if k not in known}
    if unknown := sorted(set(extra) - set(documented)):
        warnings.append(f"{where}: unknown key(s) {unknown} in {what} (kept as annotations, "
                        f"not scored); fields: {sorted(known)}, annotations: {list(documented)}")
    return extra


def _piece(obj: Any, where: str, warnings: list[str]) -> Piece:
    places = [_place(obj, where)]
    notes = _annotations(obj, _PIECE_KEYS, PIECE_ANNOTATIONS, "a relevant entry", where,
                         warnings)
    also = obj.get("also") or []
    if not isinstance(also, list):
        raise ConfigError(f"{where}: \"also\" must be a list of {{doc, section}}. "
                          "Fix: wrap the alternatives in [ ]")
    places += [_place(o, where) for o in also]
    grade = obj.get("grade", 1)
    if not isinstance(grade, int) or isinstance(grade, bool) or grade < 1:
        raise ConfigError(f"{where}: \"grade\" must be an integer >= 1. "
                          "Fix: drop it (grade 1) or write 2, 3, …")
    return Piece(tuple(places), grade, notes)


def _strings(obj: Any, key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}: \"{key}\" must be a string or null. Fix: quote it")
    return value


def parse_question(obj: Any, where: str) -> Question:
    """One eval-set row; ``where`` (``file line N``) prefixes every error."""
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: expected a JSON object. Fix: one question object per line")
    if obj.get("unconfirmed"):  # a security review: readers' thumbs-down steering calibrate
        raise ConfigError(f"{where}: an unconfirmed candidate of `citewise feedback export` "
                          "(its relevant documents are only what the request retrieved). Fix: "
                          "confirm or fix \"relevant\" and the answer, then drop "
                          "\"unconfirmed\" and \"source\"")
    warnings: list[str] = []
    notes = _annotations(obj, _QUESTION_KEYS, QUESTION_ANNOTATIONS, "the question", where,
                         warnings)
    for key in ("id", "question"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            raise ConfigError(f"{where}: \"{key}\" is required and must be a non-empty string. "
                              f"Fix: add \"{key}\": \"...\"")
    relevant = obj.get("relevant")
    if not isinstance(relevant, list):
        raise ConfigError(f"{where}: \"relevant\" is required and must be a list. "
                          "Fix: list the {doc, section} pieces, or [] when unanswerable")
    answers = obj.get("answers") or []
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise ConfigError(f"{where}: \"answers\" must be a list of strings. Fix: quote each")
    answer = _strings(obj, "answer", where)
    refs = tuple(dict.fromkeys(([answer] if answer else []) + answers))
    return Question(
        id=obj["id"].strip(), question=obj["question"].strip(),
        relevant=tuple(_piece(p, where, warnings) for p in relevant),
        answer=answer or (refs[0] if refs else None), answers=refs,
        kind=_strings(obj, "kind", where) or "general", persona=_strings(obj, "persona", where),
        annotations=notes, warnings=tuple(warnings))


MAX_SET_BYTES = 64 * 1024 * 1024
"""Largest eval set or personas file read (a path may come over HTTP, from an admin's
reindex request: ``/dev/zero`` or a FIFO must not hang or fill the server)."""


def read_set_file(path: Path, what: str, option: str) -> str:
    """The text of a regular file of at most :data:`MAX_SET_BYTES` (UTF-8, BOM dropped);
    anything else is a one-line :class:`ConfigError` naming ``option``."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SET_BYTES:
            raise ConfigError(f"{what} {path}: not a regular file of at most "
                              f"{MAX_SET_BYTES >> 20} MiB. Fix: check the {option} path")
        with path.open("rb") as handle:
            return handle.read(MAX_SET_BYTES).decode("utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}. "
                          f"Fix: check the {option} path") from None


def jsonl_objects(path: str | Path, what: str,
                  option: str) -> Iterator[tuple[str, int, Any]]:
    """``(where, line number, object)`` for each JSON line of ``path`` (blank lines and
    ``//`` comments skipped); a file that cannot be read or a bad line raises
    :class:`ConfigError` naming ``what`` (e.g. "eval set"), the file and line, and the
    ``option`` that gave the path."""
    path = Path(path)
    try:
        text = read_set_file(path, what, option)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: invalid UTF-8 at byte {exc.start}. Fix: save the "
                          f"{what} as UTF-8 JSONL") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{path.name} line {number}"
        try:
            obj = json.loads(line)
        except ValueError as exc:  # a 5,000-digit number too (not a JSONDecodeError)
            raise ConfigError(f"{where}: not valid JSON: {json_problem(exc)}. Fix: write one "
                              "JSON object per line") from None
        except RecursionError:
            raise ConfigError(f"{where}: JSON nested too deeply. Fix: write one flat JSON "
                              "object per line") from None
        yield where, number, obj


def load_questions(path: str | Path) -> list[Question]:
    """Read an eval set; a bad line raises :class:`ConfigError` naming file and line."""
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for where, number, obj in jsonl_objects(path, "eval set", "--questions"):
        q = parse_question(obj, where)
        if q.id in seen:
            raise ConfigError(f"{where}: duplicate id {q.id!r} (first on line {seen[q.id]}). "
                              "Fix: give every question its own id")
        seen[q.id] = number
        questions.append(q)
    if not questions:
        raise ConfigError(f"{path}: no questions. Fix: add one JSON object per line")
    return questions


def write_questions(path: str | Path, questions: Iterable[Question]) -> None:
    """Write ``questions`` as JSONL, never through a symlink (:func:`~citewise.private.
    open_private`: a review's planted ``questions.jsonl`` link had its target overwritten)."""
    from citewise.private import open_private

    with open_private(path) as fh:
        for q in questions:
            fh.write(json.dumps(q.as_dict(), ensure_ascii=False) + "\n")


def parse_personas(data: Any, where: str = "personas") -> dict[str, Principal]:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected {{\"NAME\": {{\"groups\": [...], \"tenant\": "
                          "\"...\"}}}. Fix: write one object keyed by persona name")
    out: dict[str, Principal] = {}
    for name, spec in data.items():
        groups = spec.get("groups") if isinstance(spec, dict) else None
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise ConfigError(f"{where}: persona {name!r} needs \"groups\": a list of strings. "
                              "Fix: e.g. {\"groups\": [\"staff\"], \"tenant\": \"default\"}")
        tenant = spec.get("tenant") or "default"
        if not isinstance(tenant, str):
            raise ConfigError(f"{where}: persona {name!r}: \"tenant\" must be a string. "
                              "Fix: quote it")
        out[name] = Principal.of(groups, tenant=tenant, name=name)
    return out


def load_personas(path: str | Path) -> dict[str, Principal]:
    path = Path(path)
    try:
        data = json.loads(read_set_file(path, "personas", "--personas"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path.name} line {exc.lineno}: not valid JSON: {exc.msg}. "
                          "Fix: correct the JSON") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: invalid UTF-8 at byte {exc.start}. Fix: save the "
                          "personas file as UTF-8 JSON") from None
    except ValueError as exc:  # a 5,000-digit number
        raise ConfigError(f"{path.name}: not valid JSON: {json_problem(exc)}. Fix: correct "
                          "the JSON") from None
    except RecursionError:
        raise ConfigError(f"{path.name}: JSON nested too deeply. Fix: write one object "
                          "keyed by persona name") from None
    return parse_personas(data, path.name)


def as_questions(questions: str | Path | Sequence[Question]) -> list[Question]:
    """A JSONL path is loaded, a BEIR directory read (its ``test`` split); a sequence of
    :class:`Question` is taken as is."""
    if isinstance(questions, str | Path):
        if Path(questions).is_dir():
            from citewise.eval.interop import questions_from_beir

            return questions_from_beir(questions)
        return load_questions(questions)
    return list(questions)


def as_personas(personas: str | Path | Mapping[str, Principal] | None) -> dict[str, Principal]:
    if personas is None:
        return {}
    if isinstance(personas, str | Path):
        return load_personas(personas)
    return dict(personas)
