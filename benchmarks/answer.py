"""Per-stage latency of ``citewise ask`` and the local generator's speed.

Builds (or reuses) an index, asks every question of an eval set (or the bundled demo
questions) and prints p50/p95 per stage (retrieve, rerank, gate, context, generate, validate,
total), time to first token (what a user waits before the answer starts to stream: its first
sentence the citation check kept, :mod:`citewise.answer.checked_stream`; declined
questions excluded) next to what the context cut expected (``trace.budget``), and whole
answer, plus tokens in/out and generated tokens per second. An answer that read on past
its first passages (:mod:`citewise.answer.progressive`) is not streamed: its first token
is the whole answer.

Issue 9's targets, on an idle 2-core machine with the default local model: time to first
token p50 <= 5 s, whole answer p50 <= 15 s.

    .venv/bin/python benchmarks/answer.py                                 # bundled corpus
    .venv/bin/python benchmarks/answer.py --generator local --threads 2 --n 10
    .venv/bin/python benchmarks/answer.py --db squad.db --questions squad.jsonl --groups public
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.metrics import percentile
from citewise.ingest.sidecar import read_sidecar
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
DEMO_QUESTIONS = [
    "How many weeks of parental leave do employees get?",
    "What does error code E42 mean on the Tern robot?",
    "Can I expense a business class flight?",
    "Who do I call when I find a security incident?",
    "How many days a week can I work from home?",
    "What is the cafeteria menu on Fridays in Rotterdam?",
]


def build_demo_index(engine: Engine) -> None:
    sidecar = read_sidecar(ROOT / "examples" / "corpus.meta.jsonl")
    engine.ingest_paths([ROOT / "examples" / "corpus"],
                        {"tenant": "northwind", "groups": ["staff"]}, sidecar)


def load_questions(path: str | None, n: int) -> list[str]:
    if not path:
        return DEMO_QUESTIONS[:n]
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()][:n]


def per_question(question: str, answer, first: list[float], whole: float | None) -> str:
    """One line: prompt tokens of the first read, reader and first-token seconds, outcome."""
    budget = answer.trace.budget
    reader = answer.trace.gate.reader if answer.trace.gate else None
    outcome = "declined" if answer.declined else "answered"
    if answer.trace.escalated is not None:
        outcome += " (read on)"
    started = f"{first[0]:5.2f}" if first else "    -"
    return (f"  {question[:44]:<44} prompt {budget.prompt_tokens if budget else '-':>4}  "
            f"reader {reader.seconds if reader else 0:5.2f} s  first token {started} s  whole "
            f"{whole or 0:5.2f} s  {outcome}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="existing index (default: the bundled corpus in a temp dir)")
    ap.add_argument("--questions", help="eval set JSONL (default: bundled demo questions)")
    ap.add_argument("--n", type=int, default=6, help="questions to ask")
    ap.add_argument("--generator", default="auto",
                    choices=["auto", "local", "openai", "extractive"])
    ap.add_argument("--rerank", default="none", choices=["none", "llm-judge", "cross-encoder"])
    ap.add_argument("--threads", type=int, default=0,
                    help="LLM threads (default 0: the physical cores, as `ask` does)")
    ap.add_argument("--model", help="local model (default: generate.local_model)")
    ap.add_argument("--budget-tokens", type=int, help="context.budget_tokens (default: settings)")
    ap.add_argument("--groups", default="staff")
    ap.add_argument("--tenant", default="northwind")
    args = ap.parse_args()
    generate: dict[str, object] = {"generator": args.generator, "threads": args.threads}
    if args.model:
        generate["local_model"] = args.model
    context = {"budget_tokens": args.budget_tokens} if args.budget_tokens else {}
    settings = Settings.model_validate({
        "generate": generate, "context": context,
        "rerank": {"kind": args.rerank, "threads": args.threads}})
    tmp = tempfile.TemporaryDirectory()
    db = args.db or str(Path(tmp.name) / "demo.db")
    principal = Principal.of(args.groups, tenant=args.tenant)
    with Engine(db, settings) as engine:
        if not args.db:
            build_demo_index(engine)
        failed = engine.warm_up()  # model loading is not query latency
        if failed:
            print(f"generator not loaded: {failed}")
        stages: dict[str, list[float]] = {}
        tokens_in, tokens_out, gen_ms, declined, read_on = 0, 0, 0.0, 0, 0
        questions = load_questions(args.questions, args.n)
        first_token: list[float] = []
        whole: list[float] = []
        estimated: list[float] = []  # what the context cut expected (trace.budget)
        for q in questions:
            started, first = time.perf_counter(), []

            def on_token(piece: str, first: list[float] = first, started: float = started) -> None:
                if not first and piece.strip():
                    first.append(time.perf_counter() - started)

            answer = engine.ask(q, principal, on_token=on_token)
            if not answer.declined:
                whole.append(time.perf_counter() - started)
                first_token.append(first[0] if first else whole[-1])
                if answer.trace.budget is not None:
                    estimated.append(answer.trace.budget.estimated_first_token_s)
            timings = answer.trace.timings_ms
            for stage, ms in timings.to_dict().items():
                stages.setdefault(stage, []).append(ms)
            gen = answer.trace.generation
            tokens_in += gen.tokens_in if gen else 0
            tokens_out += gen.tokens_out if gen else 0
            gen_ms += timings.generate or 0.0
            declined += answer.declined
            read_on += answer.trace.escalated is not None
            print(per_question(q, answer, first, whole[-1] if not answer.declined else None))
        model = engine.generator.model_id
    print(f"{len(questions)} questions, generator {model}, rerank {args.rerank}, "
          f"{declined} declined, {read_on} read on past the first passages")
    print(f"{'stage':<10} {'p50 ms':>9} {'p95 ms':>9}  n")
    for stage, values in stages.items():
        print(f"{stage:<10} {percentile(values, 50):9.1f} {percentile(values, 95):9.1f}  "
              f"{len(values)}")
    for name, values in (("first token", first_token), ("  estimated", estimated),
                         ("whole answer", whole)):
        if values:
            print(f"{name:<13} p50 {percentile(values, 50):6.2f} s  p95 "
                  f"{percentile(values, 95):6.2f} s  n {len(values)} (answered questions)")
    if tokens_out:
        rate = tokens_out / (gen_ms / 1000)
        print(f"tokens in {tokens_in}, out {tokens_out}; generation {rate:.1f} tokens/s "
              "(prompt processing included)")


if __name__ == "__main__":
    main()
