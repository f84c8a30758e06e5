"""SQuAD 2.0 → a documents folder (one ``.txt`` per paragraph) plus an eval set.

Doc ids are ``<article-slug>/p<NNN>.txt`` (NNN: the paragraph's index in its article), so
they are stable as long as the source file is. An answerable question's relevant piece is
its paragraph (document level, no section); ``answer`` is the first reference and
``answers`` keeps every distinct reference (token F1 takes the best, as SQuAD does). An
``is_impossible`` question gets ``relevant: []`` and ``answer: null``; ``kind`` is the
article slug. (Rajpurkar, Jia & Liang 2018, "Know What You Don't Know", SQuAD 2.0.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.eval.questions import Piece, Place, Question, write_questions
from citewise.ingest.slug import slugify
from citewise.private import write_private_text
from citewise.text import json_problem


@dataclass(frozen=True)
class SquadConversion:
    documents: int
    questions: int
    unanswerable: int
    docs_dir: Path
    questions_path: Path

    def as_dict(self) -> dict[str, Any]:
        return {"documents": self.documents, "questions": self.questions,
                "unanswerable": self.unanswerable, "docs_dir": str(self.docs_dir),
                "questions_path": str(self.questions_path)}


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        articles = data["data"]
        if not isinstance(articles, list):
            raise TypeError("data is not a list")
        return articles
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}. Fix: check the path") from None
    except (ValueError, KeyError, TypeError, RecursionError) as exc:  # bad UTF-8, a
        why = "nested too deeply" if isinstance(exc, RecursionError) else (  # 5,000-digit
            json_problem(exc) if isinstance(exc, ValueError) else str(exc))  # number too
        raise ConfigError(f"{path}: not a SQuAD 2.0 file ({why[:160]}). "
                          "Fix: pass a dev-v2.0.json-style file with a \"data\" list") from None


def _question(qa: dict[str, Any], doc_id: str, kind: str) -> Question:
    if qa.get("is_impossible"):
        return Question(id=str(qa["id"]), question=qa["question"].strip(), kind=kind)
    refs = tuple(dict.fromkeys(a["text"].strip() for a in qa.get("answers") or ()))
    return Question(id=str(qa["id"]), question=qa["question"].strip(),
                    relevant=(Piece((Place(doc_id),)),), answer=refs[0] if refs else None,
                    answers=refs, kind=kind)


def convert_squad(source: str | Path, out_dir: str | Path) -> SquadConversion:
    """Write ``out_dir/docs/<article>/pNNN.txt`` and ``out_dir/questions.jsonl``."""
    source, out = Path(source), Path(out_dir)
    docs_dir = out / "docs"
    questions: list[Question] = []
    documents = 0
    for article in _load(source):
        slug = slugify(str(article.get("title", "article"))) or "article"
        (docs_dir / slug).mkdir(parents=True, exist_ok=True)
        for i, para in enumerate(article.get("paragraphs") or ()):
            name = f"p{i:03d}.txt"
            write_private_text(docs_dir / slug / name, para["context"].strip() + "\n")
            documents += 1
            questions += [_question(qa, f"{slug}/{name}", slug) for qa in para.get("qas") or ()]
    if not questions:
        raise ConfigError(f"{source}: no questions found. Fix: pass a SQuAD 2.0 file")
    path = out / "questions.jsonl"
    write_questions(path, questions)
    return SquadConversion(documents, len(questions),
                           sum(1 for q in questions if not q.answerable), docs_dir, path)
