"""``citewise eval``."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path

import click

from citewise.cli.common import echo_json, engine_from, friendly_errors, settings_options
from citewise.types import SEARCH_MODES


@click.group("eval")
def eval_group():
    """Measure retrieval quality."""


@eval_group.command("beir")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--mode", type=click.Choice(SEARCH_MODES), default="hybrid", show_default=True,
              help="Retrieval signals to evaluate.")
@click.option("--split", default="test", show_default=True, help="qrels/SPLIT.tsv to score.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--run-file", type=click.Path(dir_okay=False), default=None,
              help="Write the document ranking as a TREC run file.")
@click.option("--db", default=None,
              help="Keep the index here (re-runs embed nothing); default: a throwaway index.")
@settings_options
@friendly_errors
def beir(directory, mode, split, as_json, run_file, db, config_path, model, threads):
    """Index a BEIR dataset (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv) and print
    nDCG@10, Recall@10, Recall@100, MRR@10 and query latency p50/p95 (embedding included)."""
    from citewise.eval.beir import evaluate_beir

    with contextlib.ExitStack() as stack:
        if db is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="citewise-beir-"))
            db = Path(tmp) / "beir.db"
        engine = stack.enter_context(engine_from(db, config_path, model, threads))
        bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            bar = stack.enter_context(tqdm(unit="doc", file=sys.stderr, desc="ingest"))
        report = evaluate_beir(directory, engine, mode, split, run_file,
                               on_progress=bar.update if bar else None)
    if as_json:
        echo_json(report.as_dict())
        return
    m, lat = report.metrics, report.latency_ms
    click.echo(f"{report.dataset} ({report.queries} queries, mode {report.mode})")
    click.echo(f"nDCG@10 {m['ndcg@10']:.4f}  Recall@10 {m['recall@10']:.4f}  "
               f"Recall@100 {m['recall@100']:.4f}  MRR@10 {m['mrr@10']:.4f}")
    click.echo(f"query latency ms (embedding included): p50 {lat['p50']:.1f}  "
               f"p95 {lat['p95']:.1f}")
    ing = report.ingest
    click.echo(f"ingest: {ing['new'] + ing['changed']} documents, {ing['chunks']} chunks, "
               f"{ing['chunks_embedded']} embedded in {ing['seconds']}s "
               f"(model {ing['model_seconds']}s)")
