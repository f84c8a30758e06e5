"""Generator benchmark on SQuAD 2.0: answer quality, citations, declines and speed.

Run from the repository root::

    .venv/bin/python benchmarks/generators.py --model qwen2.5-coder-0.5b-instruct \
        [--n 30] [--threads 2] [--seed 0] [--max-tokens 96] [--json] [-v]

``--model`` is a shipped local model name, a .gguf path, or ``extractive`` (the no-LLM
baseline). What is measured, and how:

1. **Sample.** From ``--data`` (default: the 2-article SQuAD 2.0 dev subset in
   /work/shared/data/squad2-dev-subset) draw ``--n`` questions with a fixed seed: two thirds
   answerable, one third unanswerable (SQuAD 2.0's ``is_impossible``: a plausible question
   about the paragraph that it does not answer).
2. **Prompt.** The question's own ("gold") paragraph plus 2 other paragraphs of the same
   article, shuffled (seeded), become S1-S3 and go through ``build_prompt`` exactly as the
   engine sends them.
3. **Quality.** On answerable questions: SQuAD token F1 of the answer (citations removed)
   against the best reference (Rajpurkar et al. 2016, official evaluation script:
   lowercase, drop punctuation and a/an/the, F1 of the bag-of-token overlap; a decline scores
   0); containment = a normalised reference answer occurs inside the normalised answer (long
   but correct answers get low F1 and still count here); cited = the answer has a ``[S#]``
   citation; cites-gold = it cites the gold paragraph's id. Declines: the answer contains
   "insufficient evidence", on unanswerable questions (wanted) and on answerable ones (not).
4. **Speed** (local models, ``--threads``): seconds per answer (wall, model already loaded),
   prompt tok/s = prompt tokens evaluated / time to the first streamed token (tokens
   reused from llama.cpp's prompt cache, i.e. the shared system-prompt prefix, are
   excluded), gen tok/s = (completion tokens - 1) / (time after the first token).
   The model load is timed separately and not counted.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from citewise.generate import ExtractiveGenerator, LocalGenerator, build_prompt
from citewise.generate.local import chat
from citewise.types import Chunk, ContextPassage, Document, Hit, Prompt

DEFAULT_DATA = Path("/work/shared/data/squad2-dev-subset/dev-v2.0-normans-rhine.json")
_CITATION = re.compile(r"\[\s*S\d+(?:\s*,\s*S\d+)*\s*\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


@dataclass(frozen=True)
class Item:
    question: str
    answers: tuple[str, ...]
    answerable: bool
    paragraphs: tuple[str, ...]  # shuffled S1..S3
    gold_sid: str
    title: str


@dataclass(frozen=True)
class Outcome:
    item: Item
    text: str
    seconds: float
    ttft: float
    tokens_in: int
    tokens_cached: int
    tokens_out: int


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lowercase, no punctuation, no articles, single spaces."""
    text = "".join(c for c in text.lower() if c not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1: 2PR/(P+R) over the multiset overlap of normalised tokens."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(reference).split()
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def strip_citations(text: str) -> str:
    return " ".join(_CITATION.sub(" ", text).split())


def is_decline(text: str) -> bool:
    return "insufficient evidence" in text.lower()


def sample_items(data: Path, n: int, seed: int) -> list[Item]:
    """``n`` questions (2/3 answerable), each with its gold paragraph + 2 others, shuffled."""
    rng = random.Random(seed)
    answerable, unanswerable = [], []
    for article in json.loads(data.read_text(encoding="utf-8"))["data"]:
        contexts = [p["context"] for p in article["paragraphs"]]
        for index, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                row = (article["title"], contexts, index, qa)
                (unanswerable if qa["is_impossible"] else answerable).append(row)
    n_answerable = round(n * 2 / 3)
    rows = rng.sample(answerable, n_answerable) + rng.sample(unanswerable, n - n_answerable)
    items = []
    for title, contexts, gold, qa in rows:
        others = rng.sample([i for i in range(len(contexts)) if i != gold], 2)
        order = [gold, *others]
        rng.shuffle(order)
        items.append(Item(
            question=qa["question"], answers=tuple(a["text"] for a in qa["answers"]),
            answerable=not qa["is_impossible"], paragraphs=tuple(contexts[i] for i in order),
            gold_sid=f"S{order.index(gold) + 1}", title=title))
    return items


def make_prompt(item: Item) -> Prompt:
    passages = []
    for i, text in enumerate(item.paragraphs, start=1):
        doc = Document(doc_id=f"squad-{i}", title=item.title, content_hash="-",
                       tenant="default", acl_groups=frozenset({"all"}))
        chunk = Chunk(chunk_id=f"c{i}", doc_id=doc.doc_id, ordinal=0, text=text,
                      text_for_embedding=text, embed_hash="-", start=0, end=len(text))
        hit = Hit(rank=i, score=1.0, chunk=chunk, document=doc)
        passages.append(ContextPassage(sid=f"S{i}", hit=hit, text=text, tokens=0))
    return build_prompt(item.question, passages)


def run_local(model: str, items: Sequence[Item], threads: int, max_tokens: int,
              verbose: bool) -> tuple[list[Outcome], float]:
    generator = LocalGenerator(model, threads=threads, context_tokens=4096)
    start = time.monotonic()
    server = generator.server()
    load_s = time.monotonic() - start
    outcomes = []
    for item in items:
        first: list[float] = []
        begin = time.monotonic()
        text, usage, _ = chat(server, make_prompt(item).messages, max_tokens=max_tokens,
                              on_token=lambda _t, first=first: first.append(time.monotonic()))
        end = time.monotonic()
        cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0))
        outcomes.append(Outcome(item, text.strip(), end - begin,
                                (first[0] if first else end) - begin,
                                int(usage.get("prompt_tokens", 0)), cached,
                                int(usage.get("completion_tokens", 0))))
        if verbose:
            _show(outcomes[-1])
    return outcomes, load_s


def run_extractive(items: Sequence[Item], verbose: bool) -> list[Outcome]:
    generator = ExtractiveGenerator()
    outcomes = []
    for item in items:
        gen = generator.generate(make_prompt(item))
        outcomes.append(Outcome(item, gen.text, gen.seconds, gen.seconds, 0, 0, 0))
        if verbose:
            _show(outcomes[-1])
    return outcomes


def _show(o: Outcome) -> None:
    gold = o.item.answers[0] if o.item.answers else "(unanswerable)"
    print(f"- {o.item.question}\n  gold {o.item.gold_sid}: {gold}\n  got: {o.text[:300]}",
          file=sys.stderr)


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    ans = [o for o in outcomes if o.item.answerable]
    unans = [o for o in outcomes if not o.item.answerable]
    answered = [o for o in ans if not is_decline(o.text)]

    def mean(values: Sequence[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    def f1(o: Outcome) -> float:
        if is_decline(o.text):
            return 0.0
        return max(token_f1(strip_citations(o.text), ref) for ref in o.item.answers)

    def contains(o: Outcome) -> bool:
        got = normalize_answer(strip_citations(o.text))
        return not is_decline(o.text) and any(normalize_answer(r) in got
                                              for r in o.item.answers)

    prompt_tokens = sum(o.tokens_in - o.tokens_cached for o in outcomes)
    gen_tokens = sum(max(o.tokens_out - 1, 0) for o in outcomes)
    return {
        "n": len(outcomes), "answerable": len(ans), "unanswerable": len(unans),
        "f1": mean([f1(o) for o in ans]),
        "contains": mean([contains(o) for o in ans]),
        "cited": mean([bool(_CITATION.search(o.text)) for o in answered]),
        "cites_gold": mean([o.item.gold_sid in o.text for o in answered]),
        "decline_unanswerable": mean([is_decline(o.text) for o in unans]),
        "decline_answerable": mean([is_decline(o.text) for o in ans]),
        "prompt_tok_s": prompt_tokens / max(sum(o.ttft for o in outcomes), 1e-9),
        "gen_tok_s": gen_tokens / max(sum(o.seconds - o.ttft for o in outcomes), 1e-9),
        "s_per_answer": mean([o.seconds for o in outcomes]),
        "mean_prompt_tokens": mean([o.tokens_in for o in outcomes]),
        "mean_completion_tokens": mean([o.tokens_out for o in outcomes]),
    }


def print_table(model: str, s: dict[str, Any], load_s: float, threads: int) -> None:
    print(f"model {model}  threads {threads}  load {load_s:.1f} s  n {s['n']} "
          f"({s['answerable']} answerable, {s['unanswerable']} unanswerable)")
    print("| F1 | contains | cited | cites gold | decline unans. | decline ans. "
          "| prompt tok/s | gen tok/s | s/answer |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {s['f1']:.3f} | {s['contains']:.2f} | {s['cited']:.2f} | {s['cites_gold']:.2f} "
          f"| {s['decline_unanswerable']:.2f} | {s['decline_answerable']:.2f} "
          f"| {s['prompt_tok_s']:.0f} | {s['gen_tok_s']:.1f} | {s['s_per_answer']:.1f} |")
    print(f"mean prompt tokens {s['mean_prompt_tokens']:.0f}, "
          f"mean completion tokens {s['mean_completion_tokens']:.0f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct",
                        help="shipped local model name, .gguf path, or 'extractive'")
    parser.add_argument("--n", type=int, default=30, help="questions (2/3 answerable)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="each answer to stderr")
    args = parser.parse_args(argv)
    items = sample_items(args.data, args.n, args.seed)
    if args.model == "extractive":
        outcomes, load_s = run_extractive(items, args.verbose), 0.0
    else:
        outcomes, load_s = run_local(args.model, items, args.threads, args.max_tokens,
                                     args.verbose)
    summary = summarize(outcomes)
    if args.json:
        print(json.dumps({"model": args.model, "threads": args.threads, "load_s": load_s,
                          **summary, "answers": [asdict(o) for o in outcomes]}, indent=1))
    else:
        print_table(args.model, summary, load_s, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
