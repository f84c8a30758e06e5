"""The evidence-for-every-salient-term veto (:mod:`citewise.answer.salient`) combined with the
gate's retrieval signals, measured retrieval-only on the SQuAD 2.0 subset (dev half: choice;
test half: report) and on the httpx eval set (never fitted on: the dev-chosen default is
applied as shipped, then a calibration on httpx's own dev half is reported on its test half).

    .venv/bin/python benchmarks/gate_terms.py --squad ../shared/data/squad2-dev-subset/\
dev-v2.0-normans-rhine.json --httpx ../shared/data/docs-httpx/docs [--max-false-decline 0.1]

Each variant is a set of salient-term kinds; ``rare`` adds unknown words (readable document
frequency 0). Intervals: Wilson 95 % on the proportions.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from citewise.answer.calibrate import Record, calibrate, is_dev, point
from citewise.answer.gate import BASE_SIGNALS, SHIPPED, TERMS_SUFFIX, VETO, evidence_signals
from citewise.answer.salient import missing_terms, salient_missing, unknown_words
from citewise.engine import Engine
from citewise.eval.harness import Askers, restrict_to_readable
from citewise.eval.questions import as_personas, as_questions
from citewise.eval.squad import convert_squad
from citewise.ingest.sidecar import read_sidecar
from citewise.types import Principal

ROOT = Path(__file__).resolve().parents[1]
ALL: list[Record] = []
VARIANTS: dict[str, tuple[tuple[str, ...], bool]] = {
    "id": (("identifier",), False),
    "id+name": (("identifier", "name"), False),
    "id+name+num": (("identifier", "name", "number"), False),
    "id+name+num+hyph": (("identifier", "name", "number", "hyphenated"), False),
    "id+name+num+rare": (("identifier", "name", "number"), True),
    "all": (("identifier", "name", "number", "hyphenated"), True),
}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def records(engine: Engine, questions, personas, principal: Principal | None,
            depth: int = 16) -> list[Record]:
    askers = Askers(personas, None, principal)
    docs: dict = {}
    out = []
    for q in questions:
        _, who = askers(q)
        readable, _ = restrict_to_readable(engine, q, who, docs, [])
        hits = list(engine.search(q.question, who, top_k=depth).hits)
        has_word: Callable[[str], bool] = lambda w, who=who: bool(  # noqa: E731
            engine.store.search_sparse(w, 1, who))
        signals = dict(evidence_signals(q.question, hits))
        signals = {k: v for k, v in signals.items() if k in BASE_SIGNALS}
        shipped_missing = salient_missing(q.question, hits, has_word)
        for base in BASE_SIGNALS:
            signals[base + TERMS_SUFFIX] = signals[base] - (VETO if shipped_missing else 0.0)
        for name, (kinds, rare) in VARIANTS.items():
            missing = missing_terms(q.question, hits, kinds=kinds)
            if rare and not missing:
                missing = unknown_words(q.question, has_word)
            for base in BASE_SIGNALS:
                signals[f"{base}+{name}"] = signals[base] - (VETO if missing else 0.0)
        out.append(Record(q.id, signals, bool(readable.relevant)))
    return out


def fmt(recs: Sequence[Record], signal: str, threshold: float) -> str:
    labels = [r.answerable for r in recs]
    p = point([r.signals[signal] for r in recs], labels, threshold)
    n_un, n_an = labels.count(False), labels.count(True)
    a_lo, a_hi = wilson(round(p.abstention * n_un), n_un)
    f_lo, f_hi = wilson(round(p.false_decline * n_an), n_an)
    return (f"abstention {p.abstention:.3f} [{a_lo:.3f}, {a_hi:.3f}] (n={n_un})  false decline "
            f"{p.false_decline:.3f} [{f_lo:.3f}, {f_hi:.3f}] (n={n_an})")


def report(name: str, recs: list[Record], budget: float, shipped: tuple[str, float] | None):
    signals = [k for k in recs[0].signals]
    result = calibrate(recs, signals, budget)
    dev = [r for r in recs if is_dev(r.qid)]
    test = [r for r in recs if not is_dev(r.qid)]
    print(f"\n== {name}: {len(recs)} questions; dev {len(dev)} / test {len(test)}; "
          f"false-decline budget {budget}")
    for signal in signals:
        pick = result.curves[signal]
        best = max((p for p in pick if p.false_decline <= budget + 1e-12),
                   key=lambda p: (p.abstention, -p.threshold))
        print(f"{signal:<32} t={best.threshold:+.3f} AUC {result.auc[signal]:.3f} | dev "
              f"{fmt(dev, signal, best.threshold)} | test {fmt(test, signal, best.threshold)}")
    print(f"chosen on dev: {result.signal} >= {result.threshold:.4f}")
    if shipped:
        s, t = shipped
        print(f"shipped default {s} >= {t}: all {fmt(recs, s, t)}")
    return result


def pooled(recs: list[Record], budget: float) -> None:
    """Each variant's single threshold chosen on the POOLED dev halves of every set given
    (one shipped default must serve all), reported on each set's test half."""
    dev = [r for r in recs if is_dev(r.qid)]
    print(f"\n== pooled dev ({len(dev)} questions): choice per variant, budget {budget}")
    result = calibrate(recs, list(recs[0].signals), budget)
    for signal, points in result.curves.items():
        best = max((p for p in points if p.false_decline <= budget + 1e-12),
                   key=lambda p: (p.abstention, -p.threshold))
        print(f"{signal:<32} t={best.threshold:+.3f} pooled dev abstention "
              f"{best.abstention:.3f} false decline {best.false_decline:.3f}")
    print(f"chosen on pooled dev: {result.signal} >= {result.threshold:.4f}")


def squad(path: str, budget: float) -> tuple[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        converted = convert_squad(path, tmp)
        with Engine(Path(tmp) / "index.db") as engine:
            engine.ingest_paths([converted.docs_dir], {"groups": ["public"]})
            t = time.time()
            recs = records(engine, as_questions(converted.questions_path), {},
                           Principal.of("public"))
            print(f"(squad: {len(recs)} questions searched in {time.time() - t:.0f} s)")
    result = report("SQuAD 2.0 subset", recs, budget, (SHIPPED[0], SHIPPED[1]))
    ALL.extend(recs)
    return result.signal, result.threshold


def httpx(docs: str, budget: float, shipped: tuple[str, float]) -> None:
    """``shipped``: the SQuAD-dev choice, applied to httpx as an uncalibrated index would."""
    with tempfile.TemporaryDirectory() as tmp, Engine(Path(tmp) / "index.db") as engine:
        engine.ingest_paths([docs], {"groups": ["public"]},
                            read_sidecar(ROOT / "evals" / "httpx.meta.jsonl"))
        recs = records(engine, as_questions(ROOT / "evals" / "httpx.jsonl"),
                       as_personas(ROOT / "evals" / "personas.json"), None)
    report("httpx eval set", recs, budget, shipped)
    ALL.extend(recs)
    print(f"previous default dense_top >= {SHIPPED[1]}: all {fmt(recs, 'dense_top', SHIPPED[1])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--squad", help="SQuAD 2.0 JSON file")
    ap.add_argument("--httpx", help="the httpx docs folder")
    ap.add_argument("--max-false-decline", type=float, default=0.1)
    args = ap.parse_args()
    shipped = SHIPPED
    if args.squad:
        shipped = squad(args.squad, args.max_false_decline)
    if args.httpx:
        httpx(args.httpx, args.max_false_decline, shipped)
    if args.squad and args.httpx:
        pooled(ALL, args.max_false_decline)


if __name__ == "__main__":
    main()
