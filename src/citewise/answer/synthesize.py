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
2. "unanswerable": a question on the same topic that sounds similar but asks about a specific
   feature, setting, product or entity that this passage does NOT mention.
3. "missing": the name of that feature, setting, product or entity (one to three words).

Reply as JSON: {{"question": "...", "unanswerable": "...", "missing": "..."}}"""
_JSON = re.compile(r"\{.*\}", re.DOTALL)


@dataclass
class Synthesis:
    questions: list[Question] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why each dropped item was dropped


def _passages(engine: Engine, principal: Principal, n: int,
              seed: int) -> list[tuple[str, str, str]]:
    """(doc_id, title, text) of up to ``n`` readable passages, one per sampled document."""
    docs = [d for d in engine.store.list_documents() if principal.may_read(d)]
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
    return {k: str(data.get(k) or "").strip() for k in ("question", "unanswerable", "missing")}


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
    return result


def as_jsonl(questions: Sequence[Question]) -> str:
    return "".join(json.dumps(q.as_dict()) + "\n" for q in questions)
