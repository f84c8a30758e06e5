"""Eval sets and runs to and from the formats other tools read: BEIR directories, TREC qrels
and TREC run files (document level)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from citewise.errors import ConfigError
from citewise.eval.questions import Piece, Place, Question
from citewise.eval.record import EvalRun, QuestionRecord
from citewise.eval.runs import read_qrels, read_trec_run


def questions_from_qrels(queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
                         kind: str = "general") -> list[Question]:
    """One question per judged query: each document with grade > 0 is a document-level piece
    of that grade (grade 0 rows are dropped, as trec_eval ignores them)."""
    out = []
    for qid, judged in qrels.items():
        if qid not in queries:
            raise ConfigError(f"qrels query {qid!r} has no text. "
                              "Fix: pass the queries file that matches the qrels")
        pieces = tuple(Piece((Place(doc),), grade) for doc, grade in judged.items() if grade > 0)
        out.append(Question(id=qid, question=queries[qid], relevant=pieces, kind=kind))
    return out


def questions_from_beir(directory: str | Path, split: str = "test") -> list[Question]:
    """A BEIR directory's judged queries (``queries.jsonl`` + ``qrels/SPLIT.tsv``)."""
    from citewise.eval.beir import load_queries

    directory = Path(directory)
    qrels_path = directory / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise ConfigError(f"{qrels_path} not found. Fix: pass a BEIR directory and its split")
    return questions_from_qrels(load_queries(directory / "queries.jsonl"),
                                read_qrels(qrels_path), kind=directory.name)


def questions_to_qrels(questions: Sequence[Question]) -> dict[str, dict[str, int]]:
    """Document-level qrels (a piece's alternatives and sections are not expressible in TREC
    qrels: each place's document gets the piece's grade, the highest when repeated)."""
    qrels: dict[str, dict[str, int]] = {}
    for q in questions:
        docs = qrels.setdefault(q.id, {})
        for piece in q.relevant:
            for place in piece.places:
                docs[place.doc] = max(docs.get(place.doc, 0), piece.grade)
    return qrels


def run_from_trec(path: str | Path, questions: Sequence[Question], k: int = 10,
                  name: str | None = None) -> EvalRun:
    """An :class:`EvalRun` from a TREC run file (document-level hits, no sections or tokens),
    so any system's ranking can be scored, sliced and compared like our own. Questions the
    run does not mention count as empty retrievals."""
    ranked = read_trec_run(path)
    records = []
    for q in questions:
        hits = [{"rank": i, "score": s, "doc_id": d, "chunk_id": d, "anchor": None,
                 "heading_path": [], "section_id": None, "start": 0, "end": 0, "tokens": 0,
                 "text_hash": d, "title": "", "snippet": ""}
                for i, (d, s) in enumerate(ranked.get(q.id, [])[:k], start=1)]
        records.append(QuestionRecord(question=q, persona=None, hits=hits, latency_ms=0.0))
    return EvalRun(records=records, k=k, name=name or Path(path).stem)
