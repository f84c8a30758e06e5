"""The typed records of ``run.json`` (``EvalHit``, ``EvalAnswer``): their ``to_dict()`` is
the exact shape earlier runs were written in, so old runs still load, score and compare."""

import hashlib
import json

from citewise.eval.harness import EvalAnswer, EvalHit, answer_record, hit_record
from citewise.trace import AnswerTrace, RerankTrace
from citewise.types import (
    Answer,
    Chunk,
    Citation,
    Document,
    Hit,
    SentenceIssue,
    ValidationReport,
)

TEXT = "Meals  are reimbursed\\n up to 40 EUR per day."
DOC = Document(doc_id="travel.md", title="Travel policy", content_hash="h", tenant="acme",
               acl_groups=frozenset({"staff"}))
CHUNK = Chunk(chunk_id="travel.md#3", doc_id="travel.md", ordinal=3, text=TEXT,
              text_for_embedding=TEXT, embed_hash="e", start=120, end=166,
              heading_path=("Travel policy", "Per diem"), anchor="per-diem",
              section_id="per-diem", token_count=11)


def test_hit_record_shape() -> None:
    hit = Hit(rank=1, score=0.123456789, chunk=CHUNK, document=DOC)
    clean = "Meals are reimbursed\\n up to 40 EUR per day."
    expected = {"rank": 1, "score": 0.123457, "doc_id": "travel.md", "chunk_id": "travel.md#3",
                "anchor": "per-diem", "heading_path": ["Travel policy", "Per diem"],
                "section_id": "per-diem", "start": 120, "end": 166, "tokens": 11,
                "title": "Travel policy",
                "text_hash": hashlib.sha256(clean.encode()).hexdigest()[:16],
                "snippet": clean}
    assert hit_record(hit) == expected
    assert list(hit_record(hit)) == list(expected)  # key order, as written to run.json
    assert EvalHit.of(hit).heading_path == ("Travel policy", "Per diem")


def test_answer_record_shape() -> None:
    citation = Citation(id="1", sid="S1", chunk_id="travel.md#3", doc_id="travel.md",
                        title="Travel policy", heading_path=("Travel policy",),
                        anchor="per-diem", source="travel.md#per-diem", updated_at=None,
                        quote="40 EUR")
    validation = ValidationReport(
        cited=("1",), fabricated=("9",),
        unsupported=(SentenceIssue("Trains are free.", ("1",), 0.12),),
        uncited=(SentenceIssue("Ask HR."),))
    answer = Answer(question="meals?", answer="Up to 40 EUR [1].", declined=False, reason=None,
                    citations=(citation,), validation=validation,
                    trace=AnswerTrace(rerank=RerankTrace("off", 0)))
    expected = {"answer": "Up to 40 EUR [1].", "declined": False, "reason": None,
                "outcome": "answered", "notes": [],
                "citations": [{"id": "1", "doc_id": "travel.md", "anchor": "per-diem",
                               "chunk_id": "travel.md#3"}],
                "cited": ["1"], "fabricated": ["9"],
                "unsupported": [{"sentence": "Trains are free.", "ids": ["1"], "score": 0.12}],
                "uncited": [{"sentence": "Ask HR.", "ids": [], "score": None}],
                "trace": {"rerank": {"status": "off", "scored": 0}}}
    assert answer_record(answer) == expected
    assert json.loads(json.dumps(EvalAnswer.of(answer).to_dict())) == expected
