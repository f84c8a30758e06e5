"""What a smaller context costs: how often the gold answer is still in the passages a prompt
gets, per passage-token budget, next to the prompt it makes and the first token that prompt
allows on a given machine. The data for choosing ``budget.MIN_CONTEXT_TOKENS`` (the floor under
``generate.first_token_s``'s cut) on DEV sets.

    .venv/bin/python benchmarks/context_budget.py \\
        --squad ../shared/data/squad2-dev-subset/dev-v2.0-normans-rhine.json \\
        --set ninja-dev=/usr/share/doc/ninja-build --budgets 120,200,300,450,700

Retrieval only (no LLM): for each answerable question the asker may read, the context is built
as ``ask`` builds it (hybrid search, dedup, MMR, the budget) and the answer counts as *in the
context* when a gold answer (SQuAD's spans; an eval set's ``answer``/``answers``, split at " / "
and " or ") occurs in the passages' text as whole tokens after SQuAD normalisation. The prompt
is the user message the model evaluates (fences, titles and the question included, real
tokenizer), and the first-token estimate is :func:`citewise.answer.budget.first_token_seconds`
for ``--model-bytes`` on ``--threads``. Wilson 95 % intervals. SQuAD: the dev half only.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from evalset import EvalSet

from citewise.answer.budget import first_token_seconds
from citewise.answer.calibrate import is_dev, wilson
from citewise.answer.context import build_context
from citewise.answer.prompt import user_message
from citewise.engine import Engine
from citewise.eval.answer_metrics import contains_reference
from citewise.eval.harness import Askers, restrict_to_readable
from citewise.eval.questions import as_questions
from citewise.eval.squad import convert_squad
from citewise.types import Principal


def references(q) -> list[str]:
    raw = list(q.answers) or ([q.answer] if q.answer else [])
    return [part.strip() for r in raw for part in re.split(r" / | or ", r) if part.strip()]


def measure(engine: Engine, questions, personas, principal, budgets) -> dict[int, list]:
    """Per budget: (answer in context, prompt tokens) for each answerable readable question."""
    askers = Askers(personas, None, principal)
    settings = engine.settings
    depth = max(settings.retrieve.top_k, settings.context.max_passages * 2,
                settings.rerank.top_n)
    docs: dict = {}
    out: dict[int, list] = {b: [] for b in budgets}
    for q in questions:
        _, who = askers(q)
        readable, _ = restrict_to_readable(engine, q, who, docs, [])
        refs = references(q)
        if not readable.relevant or not refs:
            continue
        hits = list(engine.search(q.question, who, top_k=depth).hits)
        for b in budgets:
            ctx = build_context(hits, settings.context.model_copy(update={"budget_tokens": b}),
                                engine.count_tokens, engine.store.get_parsed)
            text = " ".join(p.text for p in ctx.passages)
            out[b].append((bool(contains_reference(text, refs)),
                           engine.count_tokens(user_message(q.question, ctx.passages))))
    return out


def report(name: str, rows: dict[int, list], model_bytes: int, threads: int) -> None:
    print(f"{name}: {len(next(iter(rows.values())))} answerable questions")
    for b, results in rows.items():
        k, n = sum(found for found, _ in results), len(results)
        lo, hi = wilson(k, n)
        prompt = sorted(t for _, t in results)[len(results) // 2] if results else 0
        print(f"  budget {b:>5}: answer in context {k}/{n} = {k / max(n, 1):.2f} "
              f"[{lo:.2f}, {hi:.2f}]  prompt p50 {prompt} tokens, first token "
              f"~{first_token_seconds(prompt, model_bytes, threads):.1f} s", flush=True)


def run_set(spec: str, tmp: str, budgets) -> tuple[str, dict[int, list]]:
    evalset = EvalSet.parse(spec)
    with Engine(Path(tmp) / f"{evalset.name}.db") as engine:
        evalset.ingest(engine)
        return evalset.name, measure(engine, evalset.questions(), evalset.personas(),
                                     evalset.principal(), budgets)


def run_squad(path: str, tmp: str, budgets) -> tuple[str, dict[int, list]]:
    (Path(tmp) / "squad").mkdir()
    converted = convert_squad(path, Path(tmp) / "squad")
    with Engine(Path(tmp) / "squad.db") as engine:
        engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
        dev = [q for q in as_questions(converted.questions_path) if is_dev(q.id)]
        return "squad-dev", measure(engine, dev, {}, Principal.of("public"), budgets)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", help="SQuAD 2.0 JSON (its dev half is measured)")
    ap.add_argument("--set", action="append", default=[], help="NAME=DOCS: evals/NAME.jsonl")
    ap.add_argument("--budgets", default="120,200,300,450,700")
    ap.add_argument("--model-bytes", type=int, default=1_117_320_768,
                    help="model file size for the first-token estimate (default: the 1.5B)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        if args.squad:
            report(*run_squad(args.squad, tmp, budgets), args.model_bytes, args.threads)
        for spec in args.set:
            report(*run_set(spec, tmp, budgets), args.model_bytes, args.threads)


if __name__ == "__main__":
    main()
