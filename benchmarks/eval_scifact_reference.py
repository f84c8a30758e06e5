"""Our retrieval metrics next to pytrec_eval (trec_eval) and ranx on SciFact, bm25 mode.

    .venv/bin/python benchmarks/eval_scifact_reference.py [SCIFACT_DIR]

Prints one row per metric: ours (``evaluate_beir``), ours via the eval-set path
(``run_from_trec`` + ``score_run``), pytrec_eval and ranx on the same ranking with
rank-derived scores, and pytrec_eval on the raw scores (trec_eval re-sorts ties by docid).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytrec_eval
import ranx

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.beir import evaluate_beir
from citewise.eval.bootstrap import summarize
from citewise.eval.interop import questions_from_beir, run_from_trec
from citewise.eval.runs import read_qrels, read_trec_run
from citewise.eval.scoring import score_run
from citewise.testing import FakeEmbedder

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact-beir"
TREC = {"ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "recall@100": "recall_100"}


def trec_means(qrels, run):
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10", "recall.100"}) \
        .evaluate(run)
    return {m: sum(v[t] for v in per.values()) / len(qrels) for m, t in TREC.items()}


def main(directory: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.model_validate({"retrieve": {"mode": "bm25"}})
        with Engine(Path(tmp) / "i.db", settings, embedder=FakeEmbedder(dim=8)) as engine:
            report = evaluate_beir(directory, engine, mode="bm25", run_file=Path(tmp) / "r")
        ranked = read_trec_run(Path(tmp) / "r")
        harness = summarize(score_run(run_from_trec(Path(tmp) / "r", questions_from_beir(
            directory), k=100)).values(), samples=10)
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    by_rank = {q: {d: float(len(r) - i) for i, (d, _) in enumerate(r)} for q, r in ranked.items()}
    raw = {q: {d: s for d, s in r} for q, r in ranked.items()}
    ties = sum(1 for r in ranked.values() for a, b in zip(r, r[1:], strict=False) if a[1] == b[1])
    ref = trec_means(qrels, by_rank)
    ref_raw = trec_means(qrels, raw)
    rx = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(by_rank), list(report.metrics),
                       make_comparable=True)
    print(f"SciFact test, {report.queries} queries, bm25; {ties} tied adjacent scores in the run")
    print(f"{'metric':<12}{'ours':>10}{'harness':>10}{'pytrec':>10}{'ranx':>10}{'pytrec-raw':>12}")
    for m, ours in report.metrics.items():
        print(f"{m:<12}{ours:>10.4f}{harness[m].mean:>10.4f}"
              f"{ref.get(m, float('nan')):>10.4f}{rx[m]:>10.4f}"
              f"{ref_raw.get(m, float('nan')):>12.4f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
