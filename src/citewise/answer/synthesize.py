"""Calibration questions without labels (``citewise calibrate --synthesize N``).

For N passages the asking principal may read (documents sampled with a seed, then one text
block of at least :data:`MIN_WORDS` words), the generator writes, as JSON:

* ``question``: a question a user would ask that the passage answers — labelled answerable,
  its document relevant;
* ``unanswerable``: a near miss on the same topic about an entity, setting or feature the
  passage does not mention, and ``missing``: that entity's name. It is kept only when search
  confirms the corpus lacks it: some word of ``missing`` that is not a stopword is in no
  readable document (BM25 over the whole readable index, document frequency 0), and the
  passage does not contain ``missing``. Otherwise it is dropped (counted in ``rejected``).

The 1.5B's near misses mostly name things the corpus does say (0 of 16 verified on borg and
on SQuAD), and the unanswerable questions that pass the gate are mostly of another kind: the
answer sits in a document the asker may not read while readable pages discuss the topic. So
up to N more passages come from documents of the asker's tenant that the asker may **not**
read: the question the model writes from one (with ``answer``, the passage's words that
answer it) is unanswerable *for the asker*, labelled with its restricted document as
relevant (so ``eval run`` and ``calibrate`` count it unanswerable for that asker, as they
count any such question), and kept only when search confirms no readable document holds the
answer (:func:`answer_elsewhere`). Those questions quote restricted text: ``--save`` writes
them for the operator, nothing else stores them.

The questions then go through the same calibration as labelled ones
(:func:`citewise.answer.calibration.run_calibration`). The generator is the configured one (the
local model by default); a generator that cannot write them (the extractive one) is refused.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from citewise.errors import ConfigError, GenerationError
from citewise.eval.questions import Piece, Place, Question
from citewise.text import query_terms
from citewise.types import Principal, Prompt

if TYPE_CHECKING:
    from citewise.engine import Engine
    from citewise.protocols import Generator

MIN_WORDS = 25
MAX_PASSAGE_CHARS = 1500
SYSTEM = ("You write test questions for a search engine over a document collection. Reply with "
          "one JSON object and nothing else.")
USER = """Passage (from "{title}"):
<<<
{text}
>>>

Write:
1. "question": a question a user of these documents would ask, in their own words, that this
   passage answers.
2. "answer": the words of the passage that answer it (copied exactly, at most ten words).
3. "unanswerable": a question on the same topic that sounds similar but asks about a specific
   feature, setting, product or entity that this passage does NOT mention.
4. "missing": the name of that feature, setting, product or entity (one to three words).

Reply as JSON: {{"question": "...", "answer": "...", "unanswerable": "...", "missing": "..."}}"""
FIELDS = ("question", "answer", "unanswerable", "missing")
MIN_ANSWER_CHARS = 4
"""A shorter answer ("yes", "2") cannot be looked for elsewhere: the question is dropped."""
ELSEWHERE_DEPTH = 20
"""Readable chunks searched (BM25, for the question and for the answer) for the answer."""
_JSON = re.compile(r"\{.*\}", re.DOTALL)


UNANSWERABLE_KINDS = ("synthetic-unanswerable", "synthetic-restricted")


@dataclass
class Synthesis:
    questions: list[Question] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why each dropped item was dropped

    def counts(self) -> tuple[int, int]:
        """(answerable, unanswerable) for the asker: a restricted passage's question names
        its document but is unanswerable for someone who may not read it."""
        un = sum(q.kind in UNANSWERABLE_KINDS for q in self.questions)
        return len(self.questions) - un, un


def _passages(engine: Engine, principal: Principal, n: int, seed: int,
              readable: bool = True) -> list[tuple[str, str, str]]:
    """(doc_id, title, text) of up to ``n`` passages, one per sampled document: documents
    ``principal`` may read, or (``readable`` false) those of its tenant it may not."""
    docs = [d for d in engine.store.list_documents() if principal.may_read(d) == readable
            and d.tenant == principal.tenant]
    rng = random.Random(seed)
    rng.shuffle(docs)
    out = []
    for doc in docs:
        parsed = engine.store.get_parsed(doc.doc_id)
        blocks = [b for b in (parsed.blocks if parsed else ())
                  if b.kind in ("text", "list") and len(b.text.split()) >= MIN_WORDS]
        if blocks:
            text = rng.choice(blocks).text[:MAX_PASSAGE_CHARS]
            out.append((doc.doc_id, doc.title, text))
        if len(out) == n:
            break
    return out


def _ask(generator: Generator, title: str, text: str) -> dict[str, str]:
    messages = ({"role": "system", "content": SYSTEM},
                {"role": "user", "content": USER.format(title=title, text=text)})
    out = generator.generate(Prompt(messages=messages, question="", passages=()),
                             max_tokens=200)
    found = _JSON.search(out.text)
    if not found:
        raise ValueError("no JSON object in the reply")
    data = json.loads(found.group(0))
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    return {k: str(data.get(k) or "").strip() for k in FIELDS}


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def answer_elsewhere(engine: Engine, principal: Principal, question: str, answer: str,
                     passage: str) -> str | None:
    """Why the restricted passage's ``question`` may be answerable for ``principal`` after
    all (None when it is verified not to be): its ``answer`` is not in the passage (the
    model did not copy it), too short to look for, or in a readable chunk among the top
    :data:`ELSEWHERE_DEPTH` BM25 hits for the question or for the answer."""
    wanted = _norm(answer)
    if len(wanted) < MIN_ANSWER_CHARS or not any(c.isalpha() for c in wanted):
        return f"answer {answer!r} is too short to look for elsewhere"
    if wanted not in _norm(passage):
        return f"answer {answer!r} is not the passage's words"
    store = engine.store
    for query in (question, answer):
        ids = [s.chunk_id for s in store.search_sparse(query, ELSEWHERE_DEPTH, principal)]
        for chunk, doc in store.get_chunks(ids, principal).values():
            if wanted in _norm(chunk.text):
                return f"answer {answer!r} is in the readable {doc.doc_id}"
    return None


def absent(engine: Engine, principal: Principal, missing: str, passage: str) -> bool:
    """True when some content word of ``missing`` is in no readable document and ``passage``
    does not contain ``missing``: "Azure Blob Storage" is absent from a corpus that says
    "storage" but never "Azure". (Requiring every word to be absent rejected all 20 near
    misses the 1.5B wrote for the SQuAD subset, e.g. a treaty name made of common words.)"""
    words = [w for w in query_terms(missing) if len(w) > 2]
    if not words or missing.lower() in passage.lower():
        return False
    return any(not engine.store.search_sparse(w, 1, principal) for w in words)


def synthesize(engine: Engine, principal: Principal, n: int, generator: Generator,
               seed: int = 0) -> Synthesis:
    """Up to ``n`` answerable and ``n`` unanswerable questions (module docstring)."""
    if getattr(generator, "model_id", "").startswith("extractive"):
        raise ConfigError("--synthesize needs an LLM to write questions; the generator is "
                          "extractive. Fix: `citewise models pull qwen2.5-coder-1.5b-instruct` "
                          "or pass --generator openai with an endpoint.")
    result = Synthesis()
    for i, (doc_id, title, text) in enumerate(_passages(engine, principal, n, seed)):
        try:
            item = _ask(generator, title, text)
        except (ValueError, GenerationError) as exc:
            result.rejected.append(f"{doc_id}: {exc}")
            continue
        if item["question"]:
            result.questions.append(Question(f"syn-a{i}", item["question"],
                                             (Piece((Place(doc_id),)),), kind="synthetic"))
        if item["unanswerable"] and absent(engine, principal, item["missing"], text):
            result.questions.append(Question(f"syn-u{i}", item["unanswerable"],
                                             kind="synthetic-unanswerable"))
        else:
            result.rejected.append(f"{doc_id}: {item['missing']!r} is not verifiably absent")
    _restricted(engine, principal, n, generator, seed, result)
    return result


def _restricted(engine: Engine, principal: Principal, n: int, generator: Generator,
                seed: int, result: Synthesis) -> None:
    """Near misses from up to ``n`` passages ``principal`` may not read (module docstring)."""
    for i, (doc_id, title, text) in enumerate(_passages(engine, principal, n, seed, False)):
        try:
            item = _ask(generator, title, text)
        except (ValueError, GenerationError) as exc:
            result.rejected.append(f"{doc_id}: {exc}")
            continue
        if not item["question"]:
            result.rejected.append(f"{doc_id}: no question in the reply")
            continue
        why = answer_elsewhere(engine, principal, item["question"], item["answer"], text)
        if why is not None:
            result.rejected.append(f"{doc_id} (restricted): {why}")
            continue
        result.questions.append(Question(
            f"syn-r{i}", item["question"], (Piece((Place(doc_id),)),), answer=item["answer"],
            answers=(item["answer"],), kind="synthetic-restricted"))


def as_jsonl(questions: Sequence[Question]) -> str:
    return "".join(json.dumps(q.as_dict()) + "\n" for q in questions)
