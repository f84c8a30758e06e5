"""``citewise eval``: beir, run, compare, sweep, squad, judge-check — thin layers over
citewise.eval."""

from __future__ import annotations

import contextlib
import math
import sys
import tempfile
from pathlib import Path

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    load_settings,
    settings_options,
)
from citewise.cli.progress import make_bar, progress_mode, progress_options
from citewise.private import write_private_text
from citewise.types import SEARCH_MODES

RUN_FIGURES = ("hit@5", "recall@5", "mrr@10", "ndcg@10", "section_hit@5", "section_ndcg@10",
               "context_precision", "duplicate_rate", "tokens_per_request", "latency_ms",
               "abstention_accuracy", "false_decline_rate", "citation_validity",
               "unsupported_claim_rate", "unsupported_claims_shown", "token_f1", "containment",
               "judge_correct")


@click.group("eval")
def eval_group():
    """Measure retrieval and answer quality."""


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
@progress_options
@settings_options
@friendly_errors
def beir(directory, mode, split, as_json, run_file, db, progress, quiet, config_path, model,
         threads):
    """Index a BEIR dataset (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv) and print
    nDCG@10, Recall@10, Recall@100, MRR@10 and query latency p50/p95 (embedding included)."""
    from citewise.eval.beir import evaluate_beir

    with contextlib.ExitStack() as stack:
        if db is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="citewise-beir-"))
            db = Path(tmp) / "beir.db"
        engine = stack.enter_context(engine_from(db, config_path, model, threads))
        bar = stack.enter_context(make_bar("ingest", unit="doc",
                                           mode=progress_mode(progress, quiet, as_json=as_json)))
        report = evaluate_beir(directory, engine, mode, split, run_file, on_progress=bar.update)
    if as_json:
        echo_json(report.as_dict())
        return
    m, lat = report.metrics, report.latency_ms
    echo(f"{report.dataset} ({report.queries} queries, mode {report.mode})")
    echo(f"nDCG@10 {m['ndcg@10']:.4f}  Recall@10 {m['recall@10']:.4f}  "
         f"Recall@100 {m['recall@100']:.4f}  MRR@10 {m['mrr@10']:.4f}")
    echo(f"query latency ms (embedding included): p50 {lat['p50']:.1f}  "
         f"p95 {lat['p95']:.1f}")
    ing = report.ingest
    echo(f"ingest: {ing['new'] + ing['changed']} documents, {ing['chunks']} chunks, "
         f"{ing['chunks_embedded']} embedded in {ing['seconds']}s "
         f"(model {ing['model_seconds']}s)")


def _fmt(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.4f}"


@eval_group.command("run")
@click.option("--questions", "questions_path", type=click.Path(), default=None,
              help="Eval set (JSONL, or a BEIR directory); default: eval.questions.")
@click.option("--personas", "personas_path", type=click.Path(dir_okay=False), default=None,
              help="Personas JSON {name: {groups, tenant}}; default: eval.personas.")
@click.option("--as", "as_persona", default=None, help="Run every question as this persona.")
@click.option("--answers", is_flag=True, help="Also ask for answers and score them.")
@click.option("--judge", is_flag=True,
              help="With --answers: an LLM judges each answer's correctness against the "
                   "eval set's reference (judge_correct, Wilson interval). Costs one model "
                   "call per answered question (~5 s each with the local 1.5B on 2 busy cores); "
                   "model: eval.judge / eval.judge_model.")
@click.option("-k", "k", type=int, default=None, help="Hits per question (default eval.k).")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default=None,
              help="Retrieval signals (default: the retrieve.mode setting).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="eval-out",
              show_default=True,
              help="Writes run.json, run.trec, qrels.trec (doc level) and report.html here.")
@click.option("--name", default=None, help="Run name (default: the --out folder name).")
@click.option("--json", "as_json", is_flag=True, help="Print every figure and slice as JSON.")
@progress_options
@db_option
@settings_options
@friendly_errors
def run_cmd(questions_path, personas_path, as_persona, answers, judge, k, mode, out_dir, name,
            as_json, progress, quiet, db, config_path, model, threads):
    """Run an eval set against an index: figures with 95% bootstrap intervals, slices by
    kind/persona/answerability, a TREC run file and report.html."""
    from citewise.eval.questions import as_questions

    out = Path(out_dir)
    with engine_from(db, config_path, model, threads, must_exist=True,
                     **{"retrieve.mode": mode}) as engine:
        source = questions_path or engine.settings.eval.questions
        total = len(as_questions(source)) if source else None
        with make_bar("eval", total=total, unit="question",
                      mode=progress_mode(progress, quiet, as_json=as_json)) as bar:
            result = engine.evaluate(questions_path, personas_path, as_persona=as_persona,
                                     k=k, answers=answers, out=out, name=name,
                                     judge=judge, on_progress=bar.update)
    summary, run = result.summary, result.run
    if as_json:
        echo_json(result.to_dict())
        return
    echo(f"{summary['questions']} questions ({summary['answerable']} answerable), "
         f"k={run.k}; 95% bootstrap intervals")
    for m in RUN_FIGURES:
        if m in summary["figures"]:
            f = summary["figures"][m]
            echo(f"  {m:<24} {_fmt(f['mean'])}  [{_fmt(f['lo'])}, {_fmt(f['hi'])}]  "
                 f"n={f['n']}")
    if summary.get("judge"):
        j = summary["judge"]
        echo(f"  judge_correct: Wilson interval; judge {j['model']}, prompt "
             f"{j['prompt_hash']}, {j['asked']} asked, {j['declined']} declines "
             f"counted incorrect, {j['failed']} failed (agreement with human labels: "
             "`citewise eval judge-check`)")
    for w in run.warnings:
        echo(f"warning: {w}", err=True)
    echo(f"wrote {out}/run.json, run.trec, qrels.trec, report.html")


@eval_group.command("compare")
@click.argument("base", type=click.Path(exists=True, dir_okay=False))
@click.argument("new", type=click.Path(exists=True, dir_okay=False))
@click.option("--metric", "metrics", multiple=True,
              help="Headline metric (repeatable); default: ndcg@10 and recall@10.")
@click.option("--tolerance", type=float, default=0.0, show_default=True,
              help="A drop up to max(this, the paired interval half-width) passes.")
@click.option("--fail-on-regression", is_flag=True, help="Exit with status 1 on regression.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@friendly_errors
def compare_cmd(base, new, metrics, tolerance, fail_on_regression, as_json):
    """Compare two run.json files question by question (paired bootstrap)."""
    from citewise.eval.compare import DEFAULT_METRICS, compare_runs
    from citewise.eval.record import EvalRun

    result = compare_runs(EvalRun.load(base), EvalRun.load(new), tolerance,
                          tuple(metrics) or DEFAULT_METRICS)
    if as_json:
        echo_json(result.as_dict())
    else:
        for r in result.rows:
            flag = "REGRESSED" if r.regressed else "ok"
            echo(f"{r.metric:<20} {r.base:.4f} -> {r.new:.4f}  Δ {r.delta:+.4f} "
                 f"[{r.lo:+.4f}, {r.hi:+.4f}]  allowed {r.allowed:.4f}  n={r.n}  {flag}")
            flips = result.flipped[r.metric]
            if flips["lost"] or flips["gained"]:
                echo(f"{'':<20} lost: {', '.join(flips['lost']) or '-'}; "
                     f"gained: {', '.join(flips['gained']) or '-'}")
        for reason in result.reasons:
            echo(f"regression: {reason}", err=True)
        echo("passed" if result.passed else "FAILED")
    if fail_on_regression and not result.passed:
        sys.exit(1)


@eval_group.command("sweep")
@click.option("--questions", "questions_path", type=click.Path(exists=True, dir_okay=False),
              required=True, help="Eval set (JSONL).")
@click.option("--corpus", multiple=True, required=True, type=click.Path(exists=True),
              help="Files or folders to index (repeatable).")
@click.option("--vary", multiple=True, help="KEY=V1,V2 (repeatable): the grid to sweep.")
@click.option("--groups", default="eval", show_default=True,
              help="ACL groups given to the corpus; questions run as these groups.")
@click.option("--meta", "meta_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="JSONL sidecar with per-file metadata (as `ingest --meta`).")
@click.option("--personas", "personas_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Personas JSON for questions that name one.")
@click.option("-k", "k", type=int, default=10, show_default=True, help="Hits per question.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
@settings_options
@friendly_errors
def sweep_cmd(questions_path, corpus, vary, groups, meta_path, personas_path, k, as_json,
              config_path, model, threads):
    """Index the corpus once per distinct index setting (throwaway indexes) and print hit@5,
    recall@5, nDCG@10, tokens per request and p50 latency for every variant."""
    from citewise.eval.questions import load_personas, load_questions
    from citewise.eval.sweep import COLUMNS, parse_vary, sweep
    from citewise.ingest import read_sidecar
    from citewise.types import Principal

    base = load_settings(config_path, **{"embed.model": model, "embed.threads": threads})
    principal = Principal.of(groups, name="sweep")
    shown = {"tokens_per_request": "tokens/request", "latency_p50_ms": "p50 ms"}
    header = f"{'variant':<36}" + "".join(f"{shown.get(c, c):>16}" for c in COLUMNS)
    if not as_json:
        echo(header)

    def show(row):
        if not as_json:
            echo(f"{row.label:<36}" + "".join(f"{_fmt(row.figures[c]):>16}"
                                                     for c in COLUMNS))

    rows = sweep(load_questions(questions_path), list(corpus), parse_vary(vary), base,
                 {"groups": sorted(principal.groups)},
                 read_sidecar(Path(meta_path)) if meta_path else None,
                 load_personas(personas_path) if personas_path else None, principal, k,
                 on_variant=show)
    if as_json:
        echo_json([r.as_dict() for r in rows])


@eval_group.command("squad")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Writes docs/<article>/pNNN.txt and questions.jsonl here.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@friendly_errors
def squad_cmd(source, out_dir, as_json):
    """Convert SQuAD 2.0 JSON into a documents folder and an eval set (unanswerable
    questions get relevant: [])."""
    from citewise.eval.squad import convert_squad

    result = convert_squad(source, out_dir)
    if as_json:
        echo_json(result.as_dict())
        return
    echo(f"{result.documents} documents in {result.docs_dir}; {result.questions} "
         f"questions ({result.unanswerable} unanswerable) in {result.questions_path}")


@eval_group.command("judge-check")
@click.option("--labels", "labels_path", type=click.Path(dir_okay=False), required=True,
              help="Hand-labelled answers (JSONL, e.g. evals/httpx.judge-labels.jsonl).")
@click.option("--write", "write_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the result as JSON here (e.g. evals/httpx.judge-agreement.json).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--judge-model", default=None,
              help="Local judge model to measure (default: the eval.judge_model setting).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True),
              default=None, help="JSON settings file (see `citewise config`).")
@progress_options
@friendly_errors
def judge_check_cmd(labels_path, write_path, as_json, judge_model, config_path, progress,
                    quiet):
    """Measure the answer judge (`eval run --answers --judge`) against human labels:
    accuracy and Cohen's kappa with 95% intervals, overall and on the dev/test halves, the
    confusion matrix, the judge model and its prompt hash. One model call per label."""
    import json

    from citewise.eval.judge_labels import load_labels

    total = len(load_labels(labels_path))
    with engine_from(":memory:", config_path, **{"eval.judge_model": judge_model}) as engine, \
            make_bar("judge", total=total, unit="answer",
                     mode=progress_mode(progress, quiet, as_json=as_json)) as bar:
        result = engine.judge_check(labels_path, on_progress=bar.update)
    data = result.to_dict()
    if write_path:
        write_private_text(write_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    if as_json:
        echo_json(data)
        return
    _print_agreement(data)
    if write_path:
        echo(f"wrote {write_path}")


def _print_agreement(data):
    echo(f"judge {data['model']}, prompt {data['prompt_hash']}, threshold "
         f"{data['threshold']:g}; {data['n']} labelled answers "
         f"({data['human_correct']} correct by hand) in {data['seconds']} s")
    for label, block in [("all", data)] + [(h, data["halves"][h]) for h in ("dev", "test")]:
        a, k = block["accuracy"], block["kappa"]
        echo(f"  {label:<5} n={block['n']:<3} accuracy {_fmt(a['value'])} "
             f"[{_fmt(a['lo'])}, {_fmt(a['hi'])}] (Wilson)  kappa {_fmt(k['value'])} "
             f"[{_fmt(k['lo'])}, {_fmt(k['hi'])}] (bootstrap)")
    fit = data["fitted_threshold"]
    if fit["test"] is not None:
        t = fit["test"]
        echo(f"  threshold with the best dev kappa: {fit['threshold']:.4g} (dev kappa "
             f"{_fmt(fit['dev_kappa'])}); at it, test accuracy "
             f"{_fmt(t['accuracy']['value'])} kappa {_fmt(t['kappa']['value'])} "
             f"[{_fmt(t['kappa']['lo'])}, {_fmt(t['kappa']['hi'])}] "
             "(set eval.judge_threshold to use it)")
    c = data["confusion"]
    echo("  confusion (rows: human, columns: judge)   judge correct  judge incorrect")
    echo(f"    human correct                        {c['both']:>13}  {c['human_only']:>15}")
    echo(f"    human incorrect                      {c['judge_only']:>13}  "
         f"{c['neither']:>15}")
