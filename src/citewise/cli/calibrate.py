"""``citewise calibrate``: choose the grounding gate's signal and threshold from labelled
questions, print the curve, and store the choice in the index."""

from __future__ import annotations

import click

from citewise.cli.common import db_option, echo_json, engine_from, friendly_errors, settings_options
from citewise.cli.progress import make_bar, progress_mode, progress_options
from citewise.errors import ConfigError
from citewise.generate.calibrate import Calibration
from citewise.types import Principal


def calibration_json(result: Calibration) -> dict:
    return {"signal": result.signal, "threshold": result.threshold,
            "max_false_decline": result.max_false_decline, "n_dev": result.n_dev,
            "n_test": result.n_test, "dev": result.dev.__dict__,
            "test": result.test.__dict__ if result.test else None, "auc": dict(result.auc),
            "curve": [p.__dict__ for p in result.curves[result.signal]]}


def print_calibration(result: Calibration, points: int = 12) -> None:
    click.echo(f"dev {result.n_dev} questions, test {result.n_test}; "
               f"decline when score < threshold; false declines allowed ≤ "
               f"{result.max_false_decline:.0%}")
    click.echo("ROC AUC on dev: " + ", ".join(f"{k} {v:.3f}" for k, v in result.auc.items()))
    curve = result.curves[result.signal]
    step = max(1, len(curve) // points)
    click.echo(f"\ncurve of {result.signal} on dev (threshold, abstention, false decline):")
    for p in [*curve[::step], result.dev]:
        mark = "  <- chosen" if p is result.dev else ""
        click.echo(f"  {p.threshold:8.4f}  {p.abstention:6.1%}  {p.false_decline:6.1%}{mark}")
    click.echo(f"\nchosen: {result.signal} ≥ {result.threshold:.4f}")
    for name, p in (("dev", result.dev), ("test", result.test)):
        if p is not None:
            click.echo(f"  {name}: abstention accuracy {p.abstention:.1%}, false-decline rate "
                       f"{p.false_decline:.1%}, decision accuracy {p.accuracy:.1%}")


@click.command()
@click.option("--questions", "questions_path", required=True,
              type=click.Path(dir_okay=False, exists=True),
              help="Eval set JSONL (questions with `relevant: []` are unanswerable).")
@click.option("--personas", "personas_path", type=click.Path(dir_okay=False, exists=True),
              default=None, help="Personas JSON for questions that name one.")
@click.option("--as", "as_persona", default=None, help="Ask every question as this persona.")
@click.option("--groups", default=None,
              help="Groups of the asker for questions without a persona "
                   "(default: the `default` persona).")
@click.option("--tenant", default="default", show_default=True, help="Tenant of that asker.")
@click.option("--max-false-decline", type=click.FloatRange(0, 1), default=0.1,
              show_default=True, help="Most answerable questions the gate may decline.")
@click.option("--no-store", is_flag=True, help="Print the result without storing it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result and curve as JSON.")
@progress_options
@db_option
@settings_options
@friendly_errors
def calibrate(questions_path, personas_path, as_persona, groups, tenant, max_false_decline,
              no_store, as_json, progress, quiet, db, config_path, model, threads):
    """Calibrate the grounding gate on labelled questions and store it in the index."""
    from citewise.calibration import run_calibration, store_calibration
    from citewise.eval.questions import load_personas, load_questions

    personas = load_personas(personas_path) if personas_path else {}
    principal = Principal.of(groups, tenant=tenant) if groups else personas.get("default")
    if principal is None and as_persona is None:
        raise ConfigError("who asks the questions without a persona? Fix: pass --groups "
                          "(e.g. --groups staff) or a personas file with a `default` persona.")
    questions = load_questions(questions_path)
    for warning in (w for q in questions for w in q.warnings):
        click.echo(f"warning: {warning}", err=True)
    with engine_from(db, config_path, model, threads, must_exist=True) as engine:
        with make_bar("calibrate", total=len(questions), unit="question",
                      mode=progress_mode(progress, quiet, as_json=as_json)) as bar:
            result = run_calibration(engine, questions, personas, principal, as_persona,
                                     max_false_decline, on_progress=bar.update)
        if not no_store:
            store_calibration(engine, result, source=str(questions_path))
    if as_json:
        echo_json(calibration_json(result))
        return
    print_calibration(result)
    if not no_store:
        click.echo(f"stored in {db} (gate.signal, gate.threshold)")
