"""The answerability reader (:mod:`citewise.answer.reader`) measured on a stratified sample:
abstention on unanswerable and false declines on answerable questions, with and without the
reader, Wilson 95 % intervals; and the reader's seconds against an answer's.

    .venv/bin/python benchmarks/reader.py --squad ../shared/data/squad2-dev-subset/\
dev-v2.0-normans-rhine.json --half test --n 40 --model qwen2.5-coder-0.5b-instruct --threads 2
    .venv/bin/python benchmarks/reader.py --httpx ../shared/data/docs-httpx/docs --n 30 ...

Each question runs ``ask(dry_run=True)`` with ``gate.reader: on`` and ``gate.reader_threshold:
0`` (the reader is asked whenever the retrieval signals pass, nothing is declined by it), so
one pass gives P(Yes) per question; the reader's decision is then applied at ``--threshold``
(default: the shipped :data:`~citewise.answer.reader.SHIPPED_THRESHOLD`). ``--half dev``
also prints, per threshold, dev abstention / false declines (how the shipped value is chosen:
SQuAD's dev half, never an eval set reported on). ``--answers K`` then answers K passing
questions twice, cold (another prompt evaluated in between) and right after the reader, to
show what the reader costs against an answer. The sample: ``--n`` / 2 unanswerable and the
rest answerable from the chosen half (hash split of :func:`citewise.answer.calibrate.is_dev`;
httpx has no fitted half, all of it is used), in a seeded random order.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from citewise.answer.calibrate import is_dev, roc_auc, wilson
from citewise.answer.reader import SHIPPED_THRESHOLD
from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.harness import Askers, restrict_to_readable
from citewise.eval.questions import as_personas, as_questions
from citewise.ingest.sidecar import read_sidecar
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]


def settings(args: argparse.Namespace) -> Settings:
    return Settings.model_validate({
        "generate": {"generator": "local", "local_model": args.model, "threads": args.threads},
        "context": {"budget_tokens": args.budget_tokens, "max_passages": args.max_passages},
        "gate": {"reader": "on", "reader_threshold": args.reader_threshold,
                 **({"threshold": args.gate_threshold} if args.gate_threshold is not None
                    else {})}})


def sample(questions, n: int, half: str | None, seed: int):
    pool = [q for q in questions if half is None or is_dev(q.id) == (half == "dev")]
    rng = random.Random(seed)
    unans = [q for q in pool if not q.relevant]
    ans = [q for q in pool if q.relevant]
    rng.shuffle(unans)
    rng.shuffle(ans)
    k = min(n // 2, len(unans))
    picked = [q for pair in zip(unans[:k], ans[: n - k], strict=False) for q in pair]
    return picked + ans[k: n - k]  # interleaved: a run cut short stays stratified


DECLINE_PREFIXES = ("ins", "insu", "insuff", "insufficient")
_SEEN: dict[str, float] = {}


def _with_decline_token() -> None:
    """Also read, on the answer prompt itself (the reader's prefix is cached, so only its last
    line is evaluated again), P(the answer's first token starts "Insufficient evidence"):
    the model's own decline, as a second reader signal (``p_ans`` = 1 - that)."""
    import math

    from citewise.answer import reader
    from citewise.generate.local import server_lock

    plain = reader.p_yes

    def both(generator, prompt, timeout_s=None):
        p = plain(generator, prompt, timeout_s)
        request = {"messages": [dict(m) for m in prompt.messages], "max_tokens": 1,
                   "temperature": 0.0, "logprobs": True, "top_logprobs": 20}
        server = generator.server()
        t = time.perf_counter()
        with server_lock(server):
            out = server.handle_chat_completions(request)
        top = out["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
        _SEEN["p_ans"] = round(1.0 - sum(math.exp(c["logprob"]) for c in top if str(
            c["token"]).strip().lower() in DECLINE_PREFIXES), 6)
        _SEEN["s"] = round(time.perf_counter() - t, 3)
        return p

    reader.p_yes = both


def run(engine: Engine, questions, personas, principal) -> list[dict]:
    askers = Askers(personas, None, principal)
    docs: dict = {}
    rows = []
    for i, q in enumerate(questions):
        _, who = askers(q)
        readable, _ = restrict_to_readable(engine, q, who, docs, [])
        _SEEN.clear()
        trace = engine.ask(q.question, who, dry_run=True).trace
        gate, reader = trace.gate, trace.gate.reader
        rows.append({"id": q.id, "q": q.question, "who": who, "answerable":
                     bool(readable.relevant), "retrieval_pass": gate.reason in (None,
                     "reader_no"), "p_yes": reader.p_yes if reader else None,
                     "seconds": reader.seconds if reader else None,
                     "p_ans": _SEEN.get("p_ans"), "score": gate.score, "reason": gate.reason,
                     "read_on": trace.escalated is not None})
        r = rows[-1]
        print(f"  [{i + 1}/{len(questions)}] ans={r['answerable']!s:<5} retrieval "
              f"{'pass' if r['retrieval_pass'] else 'decline'} p_yes={r['p_yes']} "
              f"({r['seconds']} s) {q.id} p_ans={r['p_ans']} ({_SEEN.get('s')} s)", flush=True)
    return rows


def declined(r: dict, threshold: float | None, key: str = "p_yes") -> bool:
    """Declined by retrieval, or read below ``threshold`` (never by a reader that did not run)."""
    if not r["retrieval_pass"]:
        return True
    return threshold is not None and r.get(key) is not None and r[key] < threshold


def rates(rows: list[dict], threshold: float | None, key: str = "p_yes") -> str:
    un = [r for r in rows if not r["answerable"]]
    an = [r for r in rows if r["answerable"]]
    k_un = sum(declined(r, threshold, key) for r in un)
    k_an = sum(declined(r, threshold, key) for r in an)
    lo, hi = wilson(k_un, len(un))
    flo, fhi = wilson(k_an, len(an))
    return (f"abstention {k_un}/{len(un)} = {k_un / max(len(un), 1):.3f} [{lo:.3f}, {hi:.3f}]"
            f"  false declines {k_an}/{len(an)} = {k_an / max(len(an), 1):.3f} "
            f"[{flo:.3f}, {fhi:.3f}]")


def sweep(rows: list[dict], key: str, budget: float = 0.1) -> None:
    """Every cut between observed scores; the dev choice: most abstention within ``budget``."""
    values = sorted({r[key] for r in rows if r.get(key) is not None})
    un = [r for r in rows if not r["answerable"]]
    an = [r for r in rows if r["answerable"]]
    best = (0.0, -1.0)
    for t in [round((a + b) / 2, 4) for a, b in zip(values, values[1:], strict=False)]:
        fd = sum(declined(r, t, key) for r in an) / max(len(an), 1)
        ab = sum(declined(r, t, key) for r in un) / max(len(un), 1)
        print(f"  {key} >= {t:.4f}: {rates(rows, t, key)}")
        if fd <= budget + 1e-12 and ab > best[1]:
            best = (t, ab)
    print(f"chosen ({key}: highest abstention with false declines <= {budget}): {best[0]}")


def report(name: str, rows: list[dict], threshold: float, dev: bool) -> None:
    secs = sorted(r["seconds"] for r in rows if r["seconds"] is not None)
    print(f"\n== {name}: {len(rows)} questions")
    print(f"retrieval signals only:          {rates(rows, None)}")
    print(f"+ reader, P(yes) >= {threshold:<.3f}:     {rates(rows, threshold)}")
    if secs:
        print(f"reader seconds: p50 {secs[len(secs) // 2]:.2f}, max {secs[-1]:.2f} "
              f"(n={len(secs)}, cold prompt: nothing shared with the previous question)")
    read = [r for r in rows if r.get("p_yes") is not None]
    labels = [r["answerable"] for r in read]
    if 0 < sum(labels) < len(labels):
        print(f"reader ROC AUC among questions the retrieval signals pass: "
              f"{roc_auc([r['p_yes'] for r in read], labels):.3f} "
              f"({sum(labels)} answerable, {len(labels) - sum(labels)} not)")
    keys = ["p_yes"] + (["p_ans"] if any(r.get("p_ans") is not None for r in rows) else [])
    for key in keys:
        if dev:
            sweep(rows, key)
        else:
            for t in (0.1, 0.3, 0.5, 0.7, 0.9):
                print(f"  {key} >= {t}: {rates(rows, t, key)}")


def from_log(path: str) -> list[dict]:
    """Rows back from this script's per-question lines (a run cut short still reports)."""
    rows = []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[0].startswith("[") and parts[1].startswith("ans="):
            p = parts[4].removeprefix("p_yes=")
            ans = next((w.removeprefix("p_ans=") for w in parts if w.startswith("p_ans=")),
                       "None")
            rows.append({"answerable": parts[1] == "ans=True",
                         "retrieval_pass": parts[3] == "pass",
                         "p_yes": None if p == "None" else float(p),
                         "p_ans": None if ans == "None" else float(ans),
                         "seconds": None if p == "None" else float(parts[5].strip("("))})
    return rows


def dump(path: str | None, name: str, rows: list[dict]) -> None:
    """Append ``rows`` (tagged with the set's ``name``) to ``path`` as JSON lines."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps({"set": name, **r}, default=str) + "\n")


def answer_cost(engine: Engine, fresh: list, who, k: int) -> None:
    """Reader vs answer seconds on questions no earlier call saw (llama.cpp keeps earlier
    prompts in a RAM prompt cache, so a question already read would answer warm): for each
    pair, one answered with the reader off (cold prompt), the next with it on (the reader
    evaluates the prompt, the answer reuses it)."""
    on = engine.settings
    off = on.model_copy(update={"gate": on.gate.model_copy(update={"reader": "off"})})
    gen = engine.generator
    cold, reader, after = [], [], []
    for i in range(0, 2 * k, 2):
        engine.settings = off
        t = engine.ask(fresh[i].question, who, generator=gen).trace.timings_ms
        if t.generate is not None:
            cold.append(t.generate / 1000)
        engine.settings = on
        t = engine.ask(fresh[i + 1].question, who, generator=gen).trace.timings_ms
        if t.generate is not None and t.reader is not None:
            reader.append(t.reader / 1000)
            after.append(t.generate / 1000)
        print(f"  cold answers {cold}, readers {reader}, answers after a reader {after}",
              flush=True)
    med = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")  # noqa: E731
    print(f"answer seconds, reader off (cold prompt): p50 {med(cold):.2f} (n={len(cold)}); "
          f"reader on: reader p50 {med(reader):.2f} + answer p50 {med(after):.2f} "
          f"(n={len(after)}); the reader adds ≈ "
          f"{med(reader) + med(after) - med(cold):+.2f} s")
    engine.settings = on


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--squad", help="SQuAD 2.0 JSON (converted and indexed in --workdir)")
    ap.add_argument("--httpx", help="the httpx docs tree (evals/httpx.jsonl questions)")
    ap.add_argument("--set", action="append", default=[],
                    help="NAME=DOCS: evals/NAME.jsonl over DOCS (a NAME ending in -dev is a "
                         "dev set: the threshold sweep is printed)")
    ap.add_argument("--half", choices=["dev", "test"], default="test",
                    help="SQuAD half to sample (dev: also print the threshold sweep)")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--threshold", type=float, default=SHIPPED_THRESHOLD)
    ap.add_argument("--answers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-tokens", type=int, default=2500,
                    help="context.budget_tokens (the reader reads the whole context)")
    ap.add_argument("--max-passages", type=int, default=8, help="context.max_passages")
    ap.add_argument("--workdir", default="/tmp/citewise-bench-reader",
                    help="indexes are built here once and reused")
    ap.add_argument("--from-log", help="report from the per-question lines of an earlier run")
    ap.add_argument("--gate-threshold", type=float,
                    help="gate.threshold: read every question whose retrieval signal reaches "
                         "this (below the shipped threshold too), for benchmarks/reader_band.py")
    ap.add_argument("--reader-threshold", type=float, default=0.0,
                    help="gate.reader_threshold while reading (default 0: never declines, so "
                         "P(Yes) is the first read's; the shipped value reads on past the "
                         "first passages as `ask` does, and P(Yes) is the last read's)")
    ap.add_argument("--rows-out", help="append each question's row (JSON lines) to this file")
    ap.add_argument("--decline-token", action="store_true",
                    help="also read P(first answer token = 'Insufficient…') (p_ans)")
    args = ap.parse_args()
    if args.from_log:
        report(args.from_log, from_log(args.from_log), args.threshold, args.half == "dev")
        return
    if args.decline_token:
        _with_decline_token()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    if args.squad:
        from citewise.eval.squad import convert_squad

        db = work / "squad.db"
        converted = convert_squad(args.squad, work / "squad")
        with Engine(db, settings(args)) as engine:
            if not db.exists() or not engine.store.get_meta("bench.ingested"):
                engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
                engine.store.set_meta("bench.ingested", "1")
            qs = sample(as_questions(converted.questions_path), args.n, args.half, args.seed)
            rows = run(engine, qs, {}, Principal.of("public"))
            report(f"SQuAD 2.0 subset, {args.half} half", rows, args.threshold,
                   args.half == "dev")
            dump(args.rows_out, f"squad-{args.half}", rows)
            if args.answers:
                seen = {q.id for q in qs}
                fresh = [q for q in as_questions(converted.questions_path)
                         if q.relevant and q.id not in seen and not is_dev(q.id)]
                random.Random(args.seed + 1).shuffle(fresh)
                answer_cost(engine, fresh, Principal.of("public"), args.answers)
    for spec in args.set:
        name, docs = spec.split("=", 1)
        meta = ROOT / "evals" / f"{name}.meta.jsonl"
        pers = ROOT / "evals" / f"{name}.personas.json"
        with Engine(work / f"{name}.db", settings(args)) as engine:
            if not engine.store.get_meta("bench.ingested"):
                engine.ingest_paths([docs], {"groups": ["public"]},
                                    read_sidecar(meta) if meta.exists() else None)
                engine.store.set_meta("bench.ingested", "1")
            qs = sample(as_questions(ROOT / "evals" / f"{name}.jsonl"), args.n, None, args.seed)
            personas = as_personas(pers) if pers.exists() else {}
            rows = run(engine, qs, personas, None if personas else Principal.of("public"))
            report(f"{name} eval set", rows, args.threshold, name.endswith("-dev"))
            dump(args.rows_out, name, rows)
    if args.httpx:
        db = work / "httpx.db"
        with Engine(db, settings(args)) as engine:
            if not engine.store.get_meta("bench.ingested"):
                engine.ingest_paths([args.httpx], {"groups": ["public"]},
                                    read_sidecar(ROOT / "evals" / "httpx.meta.jsonl"))
                engine.store.set_meta("bench.ingested", "1")
            qs = sample(as_questions(ROOT / "evals" / "httpx.jsonl"), args.n, None, args.seed)
            rows = run(engine, qs, as_personas(ROOT / "evals" / "personas.json"), None)
            report("httpx eval set (never fitted on)", rows, args.threshold, False)
            dump(args.rows_out, "httpx", rows)


if __name__ == "__main__":
    main()
