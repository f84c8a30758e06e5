"""Does removing site chrome and boilerplate help the lexical signal? BM25-only retrieval on
an HTML documentation eval set, indexed with and without the removal (no embedding needed:
a hashing stand-in embedder fills the vector column, BM25 never reads it).

    .venv/bin/python benchmarks/boilerplate.py --docs /usr/share/doc/valgrind/html \
        --questions evals/valgrind.jsonl --personas evals/valgrind.personas.json \
        --meta evals/valgrind.meta.jsonl

Prints nDCG@10 / section nDCG@10 / MRR@10 with 95 % bootstrap intervals for both indexes and
the paired difference (with - without).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from unittest import mock

from citewise.config import Settings
from citewise.engine import Engine
from citewise.eval.bootstrap import interval, paired
from citewise.eval.harness import run_eval
from citewise.eval.scoring import score_run
from citewise.ingest import html as html_loader
from citewise.ingest.boilerplate import SiteProfile
from citewise.ingest.sidecar import read_sidecar
from citewise.testing import FakeEmbedder

METRICS = ("ndcg@10", "section_ndcg@10", "mrr@10")


def scores(docs: str, questions: str, personas: str, meta: str | None, remove: bool):
    with tempfile.TemporaryDirectory() as tmp:
        patches = [] if remove else [
            mock.patch.object(html_loader, "drop_chrome", lambda tree: None),
            mock.patch("citewise.sources.profile", lambda pages: SiteProfile())]
        for p in patches:
            p.start()
        try:
            with Engine(Path(tmp) / "i.db", Settings(), embedder=FakeEmbedder()) as engine:
                engine.ingest_paths([docs], {"groups": ["public"]},
                                    read_sidecar(Path(meta)) if meta else None)
                engine.settings = Settings.model_validate({"retrieve": {"mode": "bm25"}})
                run = run_eval(engine, questions, personas, k=10)
        finally:
            for p in patches:
                p.stop()
    return score_run(run)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--personas", required=True)
    ap.add_argument("--meta", default=None)
    args = ap.parse_args()
    without = scores(args.docs, args.questions, args.personas, args.meta, remove=False)
    with_ = scores(args.docs, args.questions, args.personas, args.meta, remove=True)
    for metric in METRICS:
        for name, run in (("without", without), ("with", with_)):
            f = interval([s[metric] for s in run.values() if metric in s])
            print(f"bm25 {metric:<16} {name:<8} {f.mean:.4f} [{f.lo:.4f}, {f.hi:.4f}] n={f.n}")
        d, _ = paired(without, with_, metric)
        print(f"bm25 {metric:<16} with - without {d.mean:+.4f} [{d.lo:+.4f}, {d.hi:+.4f}]")


if __name__ == "__main__":
    main()
